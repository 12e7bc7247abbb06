// One record as one JSON line, and one program (a record's target,
// intrinsic, task and schedule) as one line. docs/records.md documents the
// schema; this file is the only code that knows it.
#include "ucmoh/record_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "ucmoh/hardware_json.h"
#include "ucmoh/params_json.h"

namespace ucmoh {

using nlohmann::json;

namespace {



// Field access with errors that name the dotted key.
const json* Field(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

Expected<std::string> StringField(const json& j, const char* key, const std::string& path) {
  const json* f = Field(j, key);
  if (!f || !f->is_string() || f->get<std::string>().empty())
    return Status::InvalidArgument("'" + path + key + "' must be a non-empty string");
  return f->get<std::string>();
}

Expected<double> NumberField(const json& j, const char* key, const std::string& path,
                             bool required) {
  const json* f = Field(j, key);
  if (!f) {
    if (required) return Status::InvalidArgument("missing '" + path + key + "'");
    return 0.0;
  }
  if (!f->is_number()) return Status::InvalidArgument("'" + path + key + "' must be a number");
  double v = f->get<double>();
  if (!std::isfinite(v)) return Status::InvalidArgument("'" + path + key + "' is not finite");
  return v;
}

json LatencyToJson(const LatencyStats& l) {
  return {{"median_s", l.median_s}, {"mean_s", l.mean_s}, {"min_s", l.min_s},
          {"cv", l.cv}, {"repeats", l.repeats}};
}

Expected<LatencyStats> LatencyFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("'latency' must be an object");
  LatencyStats l;
  auto median = NumberField(j, "median_s", "latency.", true);
  if (!median.ok()) return median.status();
  if (*median <= 0) return Status::InvalidArgument("'latency.median_s' must be > 0");
  l.median_s = *median;
  auto mean = NumberField(j, "mean_s", "latency.", false);
  auto min = NumberField(j, "min_s", "latency.", false);
  auto cv = NumberField(j, "cv", "latency.", false);
  auto repeats = NumberField(j, "repeats", "latency.", false);
  for (const auto* e : {&mean, &min, &cv, &repeats})
    if (!e->ok()) return e->status();
  l.mean_s = *mean > 0 ? *mean : l.median_s;
  l.min_s = *min > 0 ? *min : l.median_s;
  l.cv = *cv;
  // A count past 1e9 is garbage, and casting it to int64 would be undefined.
  if (*repeats > 1e9) return Status::InvalidArgument("'latency.repeats' must be at most 1e9");
  l.repeats = *repeats >= 1 ? static_cast<int64_t>(*repeats) : 1;
  if (l.cv < 0) return Status::InvalidArgument("'latency.cv' must be >= 0");
  return l;
}

Expected<Task> TaskFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("'task' must be an object");
  Task task;
  auto key = StringField(j, "key", "task.");
  if (!key.ok()) return key.status();
  auto op = StringField(j, "op", "task.");
  if (!op.ok()) return op.status();
  const json* workload = Field(j, "workload");
  if (!workload) return Status::InvalidArgument("missing 'task.workload'");
  auto params = ParamsFromJson(*workload, "task.workload");
  if (!params.ok()) return params.status();
  task.key = *key;
  task.op = *op;
  task.workload = std::move(*params);
  return task;
}

Expected<Provenance> ProvenanceFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("'provenance' must be an object");
  Provenance p;
  auto kind = StringField(j, "kind", "provenance.");
  if (!kind.ok()) return kind.status();
  if (*kind != "measured" && *kind != "imported")
    return Status::InvalidArgument("'provenance.kind' must be \"measured\" or \"imported\"");
  auto source = StringField(j, "source", "provenance.");
  if (!source.ok()) return source.status();
  p.kind = *kind;
  p.source = *source;
  if (const json* details = Field(j, "details")) {
    auto params = ParamsFromJson(*details, "provenance.details");
    if (!params.ok()) return params.status();
    p.details = std::move(*params);
  }
  return p;
}

Expected<HardwareParams> RecordHardwareFromJson(const json& record) {
  const json* hardware = Field(record, "hardware");
  if (!hardware)
    return Status::InvalidArgument(
        "missing 'hardware' (records written before feature schema 2 name no machine; "
        "docs/records.md, 'Migration', says how to add it)");
  return HardwareFromJson(*hardware);
}

// The program part of a record or a program line: target, intrinsic, task,
// schedule. `what` names the object in errors ("a record", "a program").
Status ProgramFromJson(const json& j, const char* what, Record& r) {
  if (!j.is_object()) return Status::InvalidArgument(std::string(what) + " must be a JSON object");
  auto target = StringField(j, "target", "");
  if (!target.ok()) return target.status();
  auto intrinsic = StringField(j, "intrinsic", "");
  if (!intrinsic.ok()) return intrinsic.status();
  if (intrinsic->rfind(*target + ".", 0) != 0)
    return Status::InvalidArgument("'intrinsic' " + *intrinsic + " does not belong to target " +
                                   *target);
  const json *task = Field(j, "task"), *schedule = Field(j, "schedule");
  if (!task || !schedule) return Status::InvalidArgument(std::string(what) + " needs 'task' and 'schedule'");
  auto t = TaskFromJson(*task);
  if (!t.ok()) return t.status();
  auto s = ParamsFromJson(*schedule, "schedule");
  if (!s.ok()) return s.status();
  r.target = *target;
  r.intrinsic = *intrinsic;
  r.task = std::move(*t);
  r.schedule = std::move(*s);
  return Status::Ok();
}

json ProgramToJson(const Record& r) {
  return {
      {"target", r.target},
      {"intrinsic", r.intrinsic},
      {"task", {{"key", r.task.key}, {"op", r.task.op}, {"workload", ParamsToJson(r.task.workload)}}},
      {"schedule", ParamsToJson(r.schedule)},
  };
}

Expected<Record> RecordFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a record must be a JSON object");
  const json *latency = Field(j, "latency"), *prov = Field(j, "provenance");
  if (!Field(j, "task") || !Field(j, "schedule") || !latency || !prov)
    return Status::InvalidArgument("a record needs 'task', 'schedule', 'latency' and 'provenance'");
  Record r;
  UCMOH_RETURN_IF_ERROR(ProgramFromJson(j, "a record", r));
  auto l = LatencyFromJson(*latency);
  if (!l.ok()) return l.status();
  auto p = ProvenanceFromJson(*prov);
  if (!p.ok()) return p.status();
  auto hw = RecordHardwareFromJson(j);
  if (!hw.ok()) return hw.status();
  if (const json* ast = Field(j, "ast")) {
    if (!ast->is_object()) return Status::InvalidArgument("'ast' must be a JSON object (docs/ast-json.md)");
    r.ast = ast->dump();
  }
  r.latency = *l;
  r.provenance = std::move(*p);
  r.hardware = std::move(*hw);
  return r;
}

}  // namespace

std::string RecordToJsonLine(const Record& r) {
  json j = ProgramToJson(r);
  j["latency"] = LatencyToJson(r.latency);
  j["provenance"] = {{"kind", r.provenance.kind},
                     {"source", r.provenance.source},
                     {"details", ParamsToJson(r.provenance.details)}};
  j["hardware"] = HardwareToJson(r.hardware);
  if (!r.ast.empty()) j["ast"] = json::parse(r.ast);
  return j.dump();
}

Expected<Record> RecordFromJsonLine(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
  return RecordFromJson(j);
}

std::string ProgramToJsonLine(const Record& program) { return ProgramToJson(program).dump(); }

Expected<Record> ProgramFromJsonLine(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
  Record program;
  UCMOH_RETURN_IF_ERROR(ProgramFromJson(j, "a program", program));
  return program;
}

}  // namespace ucmoh
