#include "metadata_codec.h"

#include "bounded_input_archive.h"

#include <sstream>
#include <stdexcept>

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

// Class versions. Bump one when a field is added, append the field at the end
// of its serialize() under `if (version >= N)`, and keep reading older ones.
CEREAL_CLASS_VERSION(ucmoh::registry::IntrinsicEntry, 1)
CEREAL_CLASS_VERSION(ucmoh::registry::EvaluationRow, 1)
CEREAL_CLASS_VERSION(ucmoh::registry::Evaluation, 1)
CEREAL_CLASS_VERSION(ucmoh::registry::ModelVersion, 3)  // 2: task_splits, trained_tasks; 3: rehearsal
CEREAL_CLASS_VERSION(ucmoh::registry::RehearsalKeys, 1)
CEREAL_CLASS_VERSION(ucmoh::TaskSplit, 1)
CEREAL_CLASS_VERSION(ucmoh::registry::SnapshotEntry, 1)
CEREAL_CLASS_VERSION(ucmoh::registry::AliasEntry, 1)

namespace ucmoh::registry {
namespace {

// Thrown (and caught in Decode) when a value was written by a newer tool.
struct NewerClassVersion : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
void RequireKnown(std::uint32_t version, const char* what) {
  const std::uint32_t known = cereal::detail::Version<T>::version;
  if (version > known)
    throw NewerClassVersion(std::string(what) + " has format version " + std::to_string(version) +
                            " but this tool reads up to " + std::to_string(known) +
                            "; use a newer tool");
}

}  // namespace

template <class A>
void serialize(A& ar, IntrinsicEntry& v, const std::uint32_t version) {
  RequireKnown<IntrinsicEntry>(version, "intrinsic entry");
  ar(v.name, v.target, v.plugin, v.plugin_sha256, v.learned_in_version, v.learned_at);
}

template <class A>
void serialize(A& ar, EvaluationRow& v, const std::uint32_t version) {
  RequireKnown<EvaluationRow>(version, "evaluation row");
  ar(v.intrinsic, v.pca, v.top1, v.top5);
}

template <class A>
void serialize(A& ar, Evaluation& v, const std::uint32_t version) {
  RequireKnown<Evaluation>(version, "evaluation");
  ar(v.rows, v.acc, v.bwt);
}

}  // namespace ucmoh::registry

namespace ucmoh {
template <class A>
void serialize(A& ar, TaskSplit& v, const std::uint32_t version) {
  registry::RequireKnown<TaskSplit>(version, "task split");
  ar(v.seed, v.test_fraction, v.train_tasks, v.held_out_tasks);
}
}  // namespace ucmoh

namespace ucmoh::registry {

template <class A>
void serialize(A& ar, ModelVersion& v, const std::uint32_t version) {
  RequireKnown<ModelVersion>(version, "model version");
  ar(v.number, v.name, v.parent, v.intrinsics, v.hyper_parameters, v.training_data_digest,
     v.evaluation, v.created_at, v.tool_version, v.weights_sha256, v.snapshot_sha256s);
  if (version >= 2) ar(v.task_splits, v.trained_tasks);
  if (version >= 3) ar(v.rehearsal);
}

template <class A>
void serialize(A& ar, RehearsalKeys& v, const std::uint32_t version) {
  RequireKnown<RehearsalKeys>(version, "rehearsal keys");
  ar(v.replay, v.validation);
}

template <class A>
void serialize(A& ar, SnapshotEntry& v, const std::uint32_t version) {
  RequireKnown<SnapshotEntry>(version, "snapshot entry");
  ar(v.version, v.name, v.intrinsics, v.method, v.blob_sha256);
}

template <class A>
void serialize(A& ar, AliasEntry& v, const std::uint32_t version) {
  RequireKnown<AliasEntry>(version, "alias entry");
  ar(v.name, v.version, v.set_at);
}

namespace codec {
namespace {

template <class T>
std::string EncodeAny(const T& v) {
  std::ostringstream os;
  {
    cereal::PortableBinaryOutputArchive ar(os);
    ar(v);
  }
  return os.str();
}

template <class T>
Status DecodeAny(const std::string& bytes, T* out) {
  try {
    std::istringstream is(bytes);
    BoundedInputArchive ar(is, bytes.size());
    ar(*out);
    return Status::Ok();
  } catch (const NewerClassVersion& e) {
    return Status::Unsupported(e.what());
  } catch (const std::exception& e) {
    // Truncated or garbled bytes: cereal throws, or a length exceeds the bytes left.
    return Status::Corruption(std::string("undecodable value: ") + e.what());
  }
}

}  // namespace

std::string Encode(const IntrinsicEntry& v) { return EncodeAny(v); }
std::string Encode(const ModelVersion& v) { return EncodeAny(v); }
std::string Encode(const SnapshotEntry& v) { return EncodeAny(v); }
std::string Encode(const AliasEntry& v) { return EncodeAny(v); }

Status Decode(const std::string& b, IntrinsicEntry* out) { return DecodeAny(b, out); }
Status Decode(const std::string& b, ModelVersion* out) { return DecodeAny(b, out); }
Status Decode(const std::string& b, SnapshotEntry* out) { return DecodeAny(b, out); }
Status Decode(const std::string& b, AliasEntry* out) { return DecodeAny(b, out); }

}  // namespace codec
}  // namespace ucmoh::registry
