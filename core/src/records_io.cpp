// JSON Lines for records. docs/records.md documents the schema; this file is
// the only code that knows it.
#include "ucmoh/records_io.h"

#include "ucmoh/hardware_json.h"
#include "ucmoh/params_json.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <zlib.h>

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

Expected<Record> RecordFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a record must be a JSON object");
  Record r;
  auto target = StringField(j, "target", "");
  if (!target.ok()) return target.status();
  auto intrinsic = StringField(j, "intrinsic", "");
  if (!intrinsic.ok()) return intrinsic.status();
  if (intrinsic->rfind(*target + ".", 0) != 0)
    return Status::InvalidArgument("'intrinsic' " + *intrinsic + " does not belong to target " +
                                   *target);
  const json *task = Field(j, "task"), *schedule = Field(j, "schedule"),
             *latency = Field(j, "latency"), *prov = Field(j, "provenance");
  if (!task || !schedule || !latency || !prov)
    return Status::InvalidArgument("a record needs 'task', 'schedule', 'latency' and 'provenance'");
  auto t = TaskFromJson(*task);
  if (!t.ok()) return t.status();
  auto s = ParamsFromJson(*schedule, "schedule");
  if (!s.ok()) return s.status();
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
  r.target = *target;
  r.intrinsic = *intrinsic;
  r.task = std::move(*t);
  r.schedule = std::move(*s);
  r.latency = *l;
  r.provenance = std::move(*p);
  r.hardware = std::move(*hw);
  return r;
}

Status WriteAllAndSync(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) return Status::IOError(path + ": write failed: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return Status::IOError(path + ": fsync failed: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

std::string RecordToJsonLine(const Record& r) {
  json j = {
      {"target", r.target},
      {"intrinsic", r.intrinsic},
      {"task", {{"key", r.task.key}, {"op", r.task.op}, {"workload", ParamsToJson(r.task.workload)}}},
      {"schedule", ParamsToJson(r.schedule)},
      {"latency", LatencyToJson(r.latency)},
      {"provenance",
       {{"kind", r.provenance.kind},
        {"source", r.provenance.source},
        {"details", ParamsToJson(r.provenance.details)}}},
      {"hardware", HardwareToJson(r.hardware)},
  };
  if (!r.ast.empty()) j["ast"] = json::parse(r.ast);
  return j.dump();
}

Expected<Record> RecordFromJsonLine(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
  return RecordFromJson(j);
}

Expected<std::vector<Record>> ParseRecordsText(std::string_view text) {
  std::vector<Record> out;
  int64_t number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto record = RecordFromJsonLine(line);
    if (!record.ok()) return record.status().WithContext("line " + std::to_string(number));
    out.push_back(std::move(*record));
  }
  return out;
}

Expected<std::vector<NumberedRecord>> ReadRecordsFile(const std::string& path) {
  // zlib reads gzip-compressed files (the committed data sets) and plain
  // files alike.
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) return Status::NotFound(path + ": cannot open records file");
  std::vector<NumberedRecord> out;
  std::string line;
  char buffer[1 << 16];
  int64_t number = 0;
  Status status;
  auto finish_line = [&]() {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    auto record = RecordFromJsonLine(line);
    if (!record.ok()) {
      status = record.status().WithContext(path + ":" + std::to_string(number));
      return;
    }
    out.push_back({number, std::move(*record)});
  };
  while (status.ok() && gzgets(in, buffer, sizeof(buffer)) != nullptr) {
    line += buffer;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      finish_line();
      line.clear();
    }
  }
  if (status.ok() && !line.empty()) finish_line();  // a last line without newline
  int error = 0;
  const char* message = gzerror(in, &error);
  if (status.ok() && error != Z_OK && error != Z_STREAM_END)
    status = Status::IOError(path + ": read failed: " + message);
  gzclose(in);
  if (!status.ok()) return status;
  return out;
}

Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records) {
  std::string data;
  for (const auto& r : records) data += RecordToJsonLine(r) + '\n';
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(tmp + ": cannot create: " + std::strerror(errno));
  Status s = WriteAllAndSync(fd, data, tmp);
  ::close(fd);
  if (!s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::IOError(path + ": rename failed: " + std::strerror(errno));
  return Status::Ok();
}

Status AppendRecords(const std::string& path, const std::vector<Record>& records) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(path + ": cannot open for append: " + std::strerror(errno));
  std::string data;
  for (const auto& r : records) data += RecordToJsonLine(r) + '\n';
  // One write(2) with O_APPEND: whole lines or nothing in all but a crash
  // mid-syscall; ReadRecordsFile reports any torn last line with its number.
  Status s = WriteAllAndSync(fd, data, path);
  ::close(fd);
  return s;
}

}  // namespace ucmoh
