// A Fisher-importance snapshot for lifelong learning (EWC): the anchor
// parameters θ* a model had after learning some intrinsics, the per-parameter
// importance b (the diagonal Fisher information of the LambdaRank loss over
// those intrinsics' training data), which intrinsics it covers and how it was
// computed. Plain values, no LibTorch; fisher.h computes one, ewc.h turns a
// list of them into a training penalty.
//
// SerializeSnapshot writes a stable, versioned byte layout (docs/lifelong.md,
// "Snapshot format"); the registry stores those bytes as a content-addressed
// blob, so the same snapshot always serializes to the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ucmoh/framed_blob.h"
#include "ucmoh/status.h"

namespace ucmoh {

// One parameter tensor of the network, under the network's own name
// ("encoder.0.weight", ...), row-major, anchor and importance aligned.
struct SnapshotTensor {
  std::string name;
  std::vector<int64_t> shape;     // product == anchor.size() == importance.size()
  std::vector<float> anchor;      // θ*: the parameter after the covered intrinsics were learned
  std::vector<float> importance;  // b >= 0: diagonal Fisher (or a decayed sum of them)
};

struct Snapshot {
  // "fisher": computed by ComputeFisher for one step; "online": MergeOnline's
  // running importance (γ·F_old + F_new, anchored at the newest parameters).
  std::string method;
  std::vector<std::string> intrinsics;  // covered, in the order they were learned
  std::vector<SnapshotTensor> tensors;  // in the network's parameter order
  // How it was computed, as strings (sorted, so serialization is canonical):
  // loss, reduction, groups, programs, programs_per_group, architecture, gamma, ...
  std::map<std::string, std::string> metadata;

  int64_t num_values() const;
  const SnapshotTensor* Find(const std::string& name) const;  // nullptr when absent
};

// Current layout version written by SerializeSnapshot; Deserialize reads it
// and rejects any other (a newer writer must bump it).
inline constexpr uint32_t kSnapshotFormatVersion = 1;
// The frame around a snapshot's payload (ucmoh/framed_blob.h).
inline constexpr FrameFormat kSnapshotFrame{"UCMOHSNP", kSnapshotFormatVersion, "snapshot"};

// Fails (InvalidArgument) only on an inconsistent snapshot (sizes that do not
// match the shape, duplicate names).
Expected<std::string> SerializeSnapshot(const Snapshot& snapshot);

// The inverse, bit-exact (floats are copied as their IEEE-754 bits). Corrupt,
// truncated or checksum-failing input is Status::Corruption; an unknown
// format version is Status::Unsupported.
Expected<Snapshot> DeserializeSnapshot(const std::string& bytes);

// Divides every importance by the mean importance over all parameters, so
// that the snapshot's mean importance is 1 and λ means the same on every
// step whatever the size of the intrinsic or the scale of its loss
// (docs/lifelong.md, "A λ that means the same on every step"). Records the
// divisor in metadata["importance_mean"]. A snapshot whose importance is all
// zero is left as it is (nothing to protect).
void NormalizeImportance(Snapshot& snapshot);

// Checks that names, shapes and sizes agree between two snapshots (or a
// snapshot and a model's parameters via ewc.h), for merging and penalties.
Status CheckSameLayout(const Snapshot& a, const Snapshot& b);

}  // namespace ucmoh
