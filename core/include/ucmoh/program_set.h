// A featurized data set: every program's tokens and latency, grouped into the
// tasks within which programs are ranked. What training, evaluation and the
// baselines consume; built once from records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/features.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/record.h"

namespace ucmoh {

// Programs are ranked against each other only when one machine timed them:
// a group is a task key *and* the HardwareKey (target.h) of the machine its
// latencies came from, so two hosts' records of one task are two groups (one
// host's latencies never rank another's). Splits by task still go by `key`
// alone, so a held-out task is held out on every host.
struct TaskGroup {
  std::string key;
  std::string intrinsic;
  std::string target;
  std::vector<int32_t> programs;  // indices into ProgramSet::tokens
  std::string hardware;           // HardwareKey of the timing machine; "" for sets built by hand
};

struct ProgramSet {
  std::vector<TokenMatrix> tokens;  // per program
  std::vector<double> latency_s;    // per program (median)
  std::vector<int32_t> task;        // per program: index into tasks
  std::vector<TaskGroup> tasks;
  // Per program: the record's ProgramKey (record.h), which names it across
  // machines and registries (rehearsal samples store these). Sets built by
  // hand may leave it empty; ProgramKeyAt then derives one from the task.
  std::vector<std::string> program_key;

  size_t size() const { return tokens.size(); }
  int max_tokens() const;

  // Normalized throughput within each task: min_latency / latency, in (0, 1].
  std::vector<float> Labels() const;

  // The programs at `indices` (in that order), with tasks rebuilt.
  ProgramSet Subset(const std::vector<int32_t>& indices) const;

  // Programs whose intrinsic is in `intrinsics` (all when empty).
  ProgramSet OnlyIntrinsics(const std::vector<std::string>& intrinsics) const;

  // program_key[p], or "<task key>#<position in its task>" when unset.
  std::string ProgramKeyAt(int32_t p) const;

  // Distinct intrinsics, in first-seen order.
  std::vector<std::string> Intrinsics() const;

  // Appends another set (groups with the same key and hardware are merged).
  void Append(const ProgramSet& other);
};

struct FeaturizeFailure {
  int64_t index;        // position in the input records
  std::string message;
};

// One featurized program and the task it is ranked in.
struct TaskedProgram {
  std::string task, intrinsic, target;
  TokenMatrix tokens;
  double latency_s = 0;  // 0: not measured (can be scored, not trained on)
  std::string key;       // ProgramKey, or "" (see ProgramSet::program_key)
  std::string hardware;  // HardwareKey of the machine that timed it, or "" (see TaskGroup)
};

// Groups programs by task key and hardware (TaskGroup), groups in first-seen
// order, programs in input order.
ProgramSet GroupIntoTasks(std::vector<TaskedProgram> programs);

// Every record featurized, in input order, grouped into tasks; latencies kept
// as they are (0: unmeasured, so the set can be scored, not trained on).
// Unlike BuildProgramSet it skips nothing: the first record that does not
// lower fails the call ("record N: ...").
Expected<ProgramSet> FeaturizeRecords(const PluginSet& plugins, const std::vector<Record>& records);

// Featurizes every record; records that fail to lower are skipped and listed
// in `failures` (when given). Fails only if nothing at all could be featurized.
Expected<ProgramSet> BuildProgramSet(const PluginSet& plugins, const std::vector<Record>& records,
                                     std::vector<FeaturizeFailure>* failures = nullptr);

}  // namespace ucmoh
