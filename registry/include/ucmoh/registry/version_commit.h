// Everything one new model version brings, committed in one atomic write.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/registry/intrinsic_entry.h"
#include "ucmoh/registry/model_version.h"

namespace ucmoh::registry {

struct SnapshotData {
  std::string name;                     // "x86.vnni" (separate EWC) or "online"
  std::vector<std::string> intrinsics;
  std::string method;                   // "ewc" or "online_ewc"
  std::string bytes;                    // serialized Fisher + anchor parameters
};

struct VersionCommit {
  // number, tool_version, weights_sha256 and snapshot_sha256s are filled by
  // the store; number 0 means "the next one". parent must name an existing
  // version or be 0.
  ModelVersion version;
  std::string weights;                  // serialized weights (stored as a blob)
  std::vector<SnapshotData> snapshots;
  // Intrinsics learned by this version; learned_in_version/learned_at are set
  // to this version when 0.
  std::vector<IntrinsicEntry> learned;
  bool move_latest = true;              // point "latest" at the new version
};

}  // namespace ucmoh::registry
