// The UCMoH cost model: per-token encoder MLP -> multi-head self-attention
// with a residual -> residual fully connected blocks -> per-token decoder,
// summed into one score per program (higher = faster). This header hides
// LibTorch so that drivers compile without it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/framed_blob.h"
#include "ucmoh/program_set.h"
#include "ucmoh/status.h"

namespace ucmoh {

struct NetworkConfig {
  // "ucmoh": the network above. "mlp": the baseline, an MLP over the tokens
  // flattened (zero-padded / truncated to max_tokens), trained the same way.
  std::string architecture = "ucmoh";
  int max_tokens = 16;      // mlp only
  // 48 wide with 3 heads of 16 since 2026-11-26: 0.58x the multiply-adds of
  // 64 / 4 heads per token, for 0.004 PCA (docs/benchmarks.md, "the default network narrowed").
  int hidden = 48;          // width of every per-token layer
  int heads = 3;            // attention heads; must divide hidden
  int encoder_layers = 2;   // Linear+ReLU layers of the encoder MLP
  int fc_blocks = 2;        // residual FC blocks after attention
  uint64_t seed = 0;        // initial weights
};

// A copy of one parameter tensor, flattened, under the network's own name
// ("encoder.0.weight", "attention.in_proj.bias", ...).
struct NamedValues {
  std::string name;
  std::vector<float> values;
};

// The model file format this build writes (docs/registry.md, "Model files").
// Format 1 (before 2026-11-24) was a LibTorch archive, read only on request.
inline constexpr int kModelFileFormatVersion = 2;
// The frame around a model file's payload (ucmoh/framed_blob.h).
inline constexpr FrameFormat kModelFileFrame{"UCMOHMDL", kModelFileFormatVersion, "model file"};

struct ModelReadOptions {
  // Format 1 is a TorchScript archive, and LibTorch parses its code part: a
  // crafted file crashes that parser. Set only for bytes this project wrote
  // and verified (the registry's sha256-checked blobs) or that a user
  // converts knowingly (`registry convert-model`).
  bool accept_format1 = false;
};

// Which model file format `bytes` are: 2 (this build's), 1 (a LibTorch
// archive), or 0 (neither).
int ModelFileFormat(const std::string& bytes);

// The arithmetic the UCMoH network is scored in. kFloat32, the default,
// gives the same scores on every CPU. kBfloat16 runs the Linear layers'
// matmuls on bfloat16 inputs (AMX or AVX-512 BF16 via oneDNN), about 3x
// faster there, with scores that differ from float32 in the third
// significant digit and by CPU (docs/benchmarks.md, "bf16 scoring"). A CPU
// oneDNN has no bf16 matmul for gets an Unsupported error.
enum class ScoringPrecision { kFloat32, kBfloat16 };
Expected<ScoringPrecision> ParseScoringPrecision(const std::string& name);  // float32 | bf16

struct PredictOptions {
  ScoringPrecision precision = ScoringPrecision::kFloat32;
  int batch_size = 4096;  // programs per padded batch of the MLP baseline
};

class CostModel {
 public:
  // A freshly initialized network (normalizer unset until the first Train).
  static Expected<CostModel> Create(const NetworkConfig& config);
  // A model file's bytes: Corruption (by what is wrong) or Unsupported (a
  // newer format, another feature schema, format 1 not accepted); never a
  // crash, whatever the bytes. Load prefixes errors with the path.
  static Expected<CostModel> FromBytes(const std::string& bytes, const ModelReadOptions& options = {});
  static Expected<CostModel> Load(const std::string& path, const ModelReadOptions& options = {});

  Expected<std::string> ToBytes() const;       // model file format 2
  Status Save(const std::string& path) const;  // atomic: temp file + rename

  // One score per program of `set`, in order. The UCMoH network scores
  // through its compiled plan (oneDNN, packed tokens, no padding);
  // `batch_size` caps the programs per padded batch of the MLP baseline.
  Expected<std::vector<float>> Predict(const ProgramSet& set, int batch_size = 4096) const;
  Expected<std::vector<float>> Predict(const ProgramSet& set, const PredictOptions& options) const;

  // Fits the feature normalizer on `set` and nothing else (Train with
  // TransferMode::kScratch does this itself). For untrained baselines: the
  // score of a fresh network, which forward transfer is measured against.
  void FitNormalizer(const ProgramSet& set);

  const NetworkConfig& config() const;
  int64_t num_parameters() const;
  std::vector<NamedValues> Parameters() const;

  // Intrinsics this model has been trained on, in order (lifelong lineage).
  const std::vector<std::string>& learned_intrinsics() const;
  void set_learned_intrinsics(std::vector<std::string> intrinsics);

  // A deep copy (weights and normalizer); CostModel copies share weights.
  CostModel Clone() const;

  struct Impl;  // defined in cost_model_impl.h, with LibTorch
  explicit CostModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ucmoh
