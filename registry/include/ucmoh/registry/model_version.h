// A model version (checkpoint of the UCMoH network) and what is stored with it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ucmoh/params.h"
#include "ucmoh/task_split.h"

namespace ucmoh::registry {

// Metrics on one intrinsic measured after a version was trained: one row of
// the lifelong matrix R[i][*].
struct EvaluationRow {
  std::string intrinsic;
  double pca = 0;    // pairwise comparison accuracy
  double top1 = 0;   // top-1 score
  double top5 = 0;   // top-5 score
};

struct Evaluation {
  std::vector<EvaluationRow> rows;
  double acc = 0;    // mean of the last row of R (PCA)
  double bwt = 0;    // backward transfer; negative means forgetting
};

// A learned intrinsic's rehearsal sample (rehearsal.h), as ProgramKeys of
// the registry's records: replayed by later steps, and scored by them.
struct RehearsalKeys {
  std::vector<std::string> replay;      // sorted
  std::vector<std::string> validation;  // sorted
};

struct ModelVersion {
  int64_t number = 0;                   // 1, 2, ...; the key
  std::string name = "ucmoh";           // model name used in refs ("ucmoh@3")
  int64_t parent = 0;                   // 0: trained from scratch
  std::vector<std::string> intrinsics;  // every intrinsic learned so far, in order
  ParamMap hyper_parameters;
  std::string training_data_digest;     // sha256 over the training records
  Evaluation evaluation;
  int64_t created_at = 0;               // unix seconds
  std::string tool_version;             // filled by the store
  std::string weights_sha256;           // blob with the serialized weights
  std::vector<std::string> snapshot_sha256s;  // blobs of this version's snapshots
  // Every learned intrinsic's pinned held-out tasks as of this version (fixed
  // when the intrinsic was first learned, extended for tasks that came later).
  std::map<std::string, TaskSplit> task_splits;
  // The tasks this version's training step trained on, per intrinsic; verify
  // checks that none of them is held out for that intrinsic.
  std::map<std::string, std::vector<std::string>> trained_tasks;
  // Every learned intrinsic's rehearsal sample as of this version (record
  // format 3 of ModelVersion; empty in versions written before it).
  std::map<std::string, RehearsalKeys> rehearsal;
};

// The Fisher importance and anchor parameters kept for a version, which the
// next add-intrinsic reads for its EWC penalty: one snapshot per learned
// intrinsic (importance normalised to mean 1). Versions written before the
// lifelong step (schema 3) may hold one running "online" snapshot instead.
struct SnapshotEntry {
  int64_t version = 0;
  std::string name;                     // per version: an intrinsic name or "online"
  std::vector<std::string> intrinsics;  // intrinsics whose Fisher it holds
  std::string method;                   // "ewc" or "online_ewc"
  std::string blob_sha256;
};

// A named pointer to a version: "latest" (moved by every commit) or user-set
// ("stable").
struct AliasEntry {
  std::string name;
  int64_t version = 0;
  int64_t set_at = 0;  // unix seconds
};

}  // namespace ucmoh::registry
