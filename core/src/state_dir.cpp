// state_dir.h: a forgetting state as files (state.json, snapshots, records).
#include "ucmoh/state_dir.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ucmoh/file_bytes.h"
#include "ucmoh/params_json.h"
#include "ucmoh/program_set.h"
#include "ucmoh/records_io.h"
#include "ucmoh/rehearsal.h"

namespace ucmoh {

namespace {

using json = nlohmann::json;

std::string In(const std::string& dir, const std::string& name) { return (std::filesystem::path(dir) / name).string(); }

Expected<std::vector<Snapshot>> ReadSnapshots(const std::string& dir, const json& files) {
  std::vector<Snapshot> snapshots;
  for (const auto& file : files) {
    if (!file.is_string()) return Status::Corruption(In(dir, "state.json") + ": snapshot names must be strings");
    auto bytes = ReadFileBytes(In(dir, file.get<std::string>()));
    if (!bytes.ok()) return bytes.status();
    auto snapshot = DeserializeSnapshot(*bytes);
    if (!snapshot.ok()) return snapshot.status().WithContext(In(dir, file.get<std::string>()));
    snapshots.push_back(std::move(*snapshot));
  }
  return snapshots;
}

Expected<std::vector<RehearsalSample>> ReadRehearsal(const std::string& dir, const json& keys, const PluginSet& plugins) {
  std::vector<RehearsalSample> samples;
  if (keys.empty()) return samples;
  auto records = ReadRecordsFile(In(dir, "rehearsal.jsonl"));
  if (!records.ok()) return records.status();
  std::vector<Record> plain;
  for (auto& r : *records) plain.push_back(std::move(r.record));
  auto programs = BuildProgramSet(plugins, plain);
  if (!programs.ok()) return programs.status().WithContext(In(dir, "rehearsal.jsonl"));
  try {
    for (const auto& entry : keys) {
      const std::string name = entry.at("intrinsic").get<std::string>();
      auto sample = RehearsalFromKeys(name, programs->OnlyIntrinsics({name}), entry.at("replay"), entry.at("validation"));
      if (!sample.ok()) return sample.status().WithContext(In(dir, "rehearsal.jsonl") + ", " + name);
      samples.push_back(std::move(*sample));
    }
  } catch (const json::exception& e) {
    return Status::Corruption(In(dir, "state.json") + ": rehearsal keys: " + e.what());
  }
  return samples;
}

}  // namespace

Status WriteStateDir(const std::string& dir, const StateFiles& f) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  json snapshots = json::array(), keys = json::array();
  for (size_t i = 0; i < f.snapshots.size(); ++i) {
    auto bytes = SerializeSnapshot(f.snapshots[i]);
    if (!bytes.ok()) return bytes.status();
    const std::string name = (i < 10 ? "0" : "") + std::to_string(i) + ".snapshot";
    UCMOH_RETURN_IF_ERROR(WriteFileAtomically(In(dir, name), *bytes));
    snapshots.push_back(name);
  }
  for (const auto& [intrinsic, sample] : f.rehearsal_keys)
    keys.push_back({{"intrinsic", intrinsic}, {"replay", sample.first}, {"validation", sample.second}});
  UCMOH_RETURN_IF_ERROR(WriteRecordsFile(In(dir, "rehearsal.jsonl"), f.rehearsal_records));
  const json state = {{"hyper_parameters", ParamsToJson(f.hyper_parameters)}, {"snapshots", snapshots}, {"rehearsal", keys}};
  return WriteFileAtomically(In(dir, "state.json"), state.dump(1) + "\n");
}

Expected<LoadedState> ReadStateDir(const std::string& dir, const PluginSet& plugins) {
  auto text = ReadFileBytes(In(dir, "state.json"));
  if (!text.ok()) return text.status();
  const json state = json::parse(*text, nullptr, false);
  if (!state.is_object() || !state.contains("snapshots") || !state.contains("rehearsal") ||
      !state.contains("hyper_parameters"))
    return Status::Corruption(In(dir, "state.json") + ": not a forgetting state (snapshots, rehearsal, hyper_parameters)");
  LoadedState out;
  auto params = ParamsFromJson(state["hyper_parameters"], "hyper_parameters");
  if (!params.ok()) return params.status().WithContext(In(dir, "state.json"));
  out.hyper_parameters = std::move(*params);
  auto snapshots = ReadSnapshots(dir, state["snapshots"]);
  if (!snapshots.ok()) return snapshots.status();
  out.state.snapshots = std::move(*snapshots);
  auto rehearsal = ReadRehearsal(dir, state["rehearsal"], plugins);
  if (!rehearsal.ok()) return rehearsal.status();
  out.state.rehearsal = std::move(*rehearsal);
  return out;
}

}  // namespace ucmoh
