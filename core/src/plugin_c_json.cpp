// The C plugin ABI's JSON texts (ucmoh/plugin_c_json.h).
#include "ucmoh/plugin_c_json.h"

#include <functional>

#include "ucmoh/hardware_json.h"
#include "ucmoh/record_json.h"

namespace ucmoh {

namespace {

using nlohmann::json;

Expected<std::vector<std::string>> Strings(const json& doc, const char* key) {
  std::vector<std::string> out;
  if (!doc.contains(key)) return out;
  if (!doc[key].is_array()) return Status::InvalidArgument(std::string("plugin description: \"") + key + "\" is not an array");
  for (const auto& s : doc[key]) {
    if (!s.is_string()) return Status::InvalidArgument(std::string("plugin description: \"") + key + "\" holds a non-string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// Calls `each` on every non-empty line; errors name the line (1-based).
Status ForEachLine(const std::string& text, const std::function<Status(const std::string&)>& each) {
  size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) {
      Status s = each(text.substr(start, end - start));
      if (!s.ok()) return s.WithContext("line " + std::to_string(line));
    }
    start = end + 1;
  }
  return Status::Ok();
}

}  // namespace

json IntrinsicToJson(const IntrinsicInfo& in) {
  return {{"name", in.name}, {"instruction", in.instruction},
          {"shape", {{"m", in.m}, {"n", in.n}, {"k", in.k}}},
          {"input_type", in.input_type}, {"accum_type", in.accum_type},
          {"ops_per_call", in.ops_per_call}, {"description", in.description}};
}

Expected<IntrinsicInfo> IntrinsicFromJson(const json& j) {
  try {
    IntrinsicInfo in;
    in.name = j.at("name").get<std::string>();
    in.instruction = j.value("instruction", "");
    const std::pair<const char*, decltype(&in.m)> dims[] = {{"m", &in.m}, {"n", &in.n}, {"k", &in.k}};
    for (auto [dim, out] : dims) {
      const json& v = j.at("shape").at(dim);
      // A float here would go through an undefined cast; only integers are shapes.
      if (!v.is_number_integer()) return Status::InvalidArgument(std::string("plugin description: shape.") + dim + " of '" + in.name + "' is not an integer");
      *out = v.get<int64_t>();
    }
    in.input_type = j.value("input_type", "");
    in.accum_type = j.value("accum_type", "");
    in.ops_per_call = j.value("ops_per_call", 0.0);
    in.description = j.value("description", "");
    return in;
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("plugin description: an intrinsic is malformed: ") + e.what());
  }
}

std::string DescriptionToJson(const TargetPlugin& plugin) {
  const TargetInfo target = plugin.Target();
  json intrinsics = json::array();
  for (const auto& in : plugin.Intrinsics()) intrinsics.push_back(IntrinsicToJson(in));
  return json{{"target", {{"name", target.name}, {"description", target.description},
                          {"hardware", HardwareToJson(target.hardware)}}},
              {"intrinsics", intrinsics},
              {"template_dim_names", plugin.TemplateDimNames()},
              {"template_input_names", plugin.TemplateInputNames()},
              {"task_suites", plugin.TaskSuites()},
              {"importers", plugin.Importers()}}
      .dump();
}

Expected<PluginDescription> DescriptionFromJson(const std::string& text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("target") || !doc["target"].is_object())
    return Status::InvalidArgument("plugin description is not a JSON object with a \"target\"");
  PluginDescription d;
  const json& t = doc["target"];
  d.target.name = t.value("name", "");
  d.target.description = t.value("description", "");
  // A target may leave its default hardware unset (an empty model): the
  // records it reads carry theirs.
  if (t.contains("hardware") && t["hardware"].value("model", "") != "") {
    auto hw = HardwareFromJson(t["hardware"]);
    if (!hw.ok()) return hw.status().WithContext("plugin description");
    d.target.hardware = *hw;
  }
  if (doc.contains("intrinsics") && doc["intrinsics"].is_array())
    for (const auto& j : doc["intrinsics"]) {
      auto in = IntrinsicFromJson(j);
      if (!in.ok()) return in.status();
      d.intrinsics.push_back(*in);
    }
  std::vector<std::string>* lists[] = {&d.template_dim_names, &d.template_input_names, &d.task_suites, &d.importers};
  const char* keys[] = {"template_dim_names", "template_input_names", "task_suites", "importers"};
  for (int i = 0; i < 4; ++i) {
    auto list = Strings(doc, keys[i]);
    if (!list.ok()) return list.status();
    *lists[i] = *list;
  }
  return d;
}

std::string TasksToProgramLines(const std::string& target, const std::string& intrinsic,
                                const std::vector<Task>& tasks) {
  std::string out;
  for (const Task& task : tasks) {
    Record program;
    program.target = target;
    program.intrinsic = intrinsic;
    program.task = task;
    out += ProgramToJsonLine(program) + "\n";
  }
  return out;
}

Expected<std::vector<Task>> TasksFromProgramLines(const std::string& text) {
  std::vector<Task> tasks;
  Status s = ForEachLine(text, [&](const std::string& line) {
    auto program = ProgramFromJsonLine(line);
    if (!program.ok()) return program.status();
    tasks.push_back(std::move(program->task));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return tasks;
}

std::string SchedulesToProgramLines(const std::string& target, const std::string& intrinsic, const Task& task,
                                    const std::vector<ParamMap>& schedules) {
  std::string out;
  Record program;
  program.target = target;
  program.intrinsic = intrinsic;
  program.task = task;
  for (const ParamMap& schedule : schedules) {
    program.schedule = schedule;
    out += ProgramToJsonLine(program) + "\n";
  }
  return out;
}

Expected<std::vector<ParamMap>> SchedulesFromProgramLines(const std::string& text) {
  std::vector<ParamMap> schedules;
  Status s = ForEachLine(text, [&](const std::string& line) {
    auto program = ProgramFromJsonLine(line);
    if (!program.ok()) return program.status();
    schedules.push_back(std::move(program->schedule));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return schedules;
}

std::string RecordsToLines(const std::vector<Record>& records) {
  std::string out;
  for (const Record& r : records) out += RecordToJsonLine(r) + "\n";
  return out;
}

Expected<std::vector<Record>> RecordsFromLines(const std::string& text) {
  std::vector<Record> records;
  Status s = ForEachLine(text, [&](const std::string& line) {
    auto record = RecordFromJsonLine(line);
    if (!record.ok()) return record.status();
    records.push_back(std::move(*record));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return records;
}

std::string SkippedToJson(const std::map<std::string, int64_t>& skipped) { return json(skipped).dump(); }

Expected<std::map<std::string, int64_t>> SkippedFromJson(const std::string& text) {
  json doc = json::parse(text.empty() ? "{}" : text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Status::InvalidArgument("skipped counts are not a JSON object");
  std::map<std::string, int64_t> out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it.value().is_number_integer()) return Status::InvalidArgument("skipped count of '" + it.key() + "' is not an integer");
    out[it.key()] = it.value().get<int64_t>();
  }
  return out;
}

}  // namespace ucmoh
