// The JSON texts of the C plugin ABI's cold paths (ucmoh/plugin_c.h): the
// plugin's description, task and schedule lists as program lines, imported
// records as record lines (docs/records.md), skipped counts. One codec, used
// by the plugin side (plugin_c_adapter.h) to write and by the host
// (plugin_c_host.cpp) to read.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ucmoh/plugin.h"
#include "ucmoh/status.h"

namespace ucmoh {

// What a plugin says about itself, read once when it is loaded.
struct PluginDescription {
  TargetInfo target;
  std::vector<IntrinsicInfo> intrinsics;
  std::vector<std::string> template_dim_names, template_input_names, task_suites, importers;
};

nlohmann::json IntrinsicToJson(const IntrinsicInfo& intrinsic);
Expected<IntrinsicInfo> IntrinsicFromJson(const nlohmann::json& j);

std::string DescriptionToJson(const TargetPlugin& plugin);
Expected<PluginDescription> DescriptionFromJson(const std::string& text);

// One program line per task (empty schedule) / per schedule of one task.
std::string TasksToProgramLines(const std::string& target, const std::string& intrinsic,
                                const std::vector<Task>& tasks);
Expected<std::vector<Task>> TasksFromProgramLines(const std::string& text);
std::string SchedulesToProgramLines(const std::string& target, const std::string& intrinsic, const Task& task,
                                    const std::vector<ParamMap>& schedules);
Expected<std::vector<ParamMap>> SchedulesFromProgramLines(const std::string& text);

std::string RecordsToLines(const std::vector<Record>& records);
Expected<std::vector<Record>> RecordsFromLines(const std::string& text);

std::string SkippedToJson(const std::map<std::string, int64_t>& skipped);
Expected<std::map<std::string, int64_t>> SkippedFromJson(const std::string& text);

}  // namespace ucmoh
