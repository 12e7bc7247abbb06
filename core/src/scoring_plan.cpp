#include "scoring_plan.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <ATen/Parallel.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "small_attention.h"
#include "ucmoh/features.h"

namespace ucmoh {

namespace {

// Tokens scored per oneDNN call: a chunk's activations (about 6 x hidden
// floats per token, 3 MiB at hidden 64) stay in L2. 2^11 scored 4,096
// CUTLASS programs in 16.5 ms, 2^13 in 17.2 ms, 2^15 in 19.7 ms.
constexpr int64_t kTokensPerChunk = 1 << 11;

ScoringPlan::Dense DenseFrom(const torch::nn::Linear& linear, Epilogue epilogue) {
  auto w = linear->weight.detach().to(torch::kFloat).contiguous();
  auto b = linear->bias.detach().to(torch::kFloat).contiguous();
  ScoringPlan::Dense d;
  d.out = static_cast<int>(w.size(0));
  d.in = static_cast<int>(w.size(1));
  d.epilogue = epilogue;
  d.weight.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
  d.bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
  return d;
}

// x_norm = (x - mean) * inv_std, folded into W x + b: W' = W diag(inv_std),
// b' = b - W' mean. Padding never reaches the plan, so the folded layer sees
// exactly the tokens the module normalizes.
void FoldNormalizer(const FeatureNormalizer& normalizer, ScoringPlan::Dense& first) {
  auto mean = normalizer.mean.to(torch::kFloat).contiguous();
  auto inv_std = normalizer.inv_std.to(torch::kFloat).contiguous();
  const float* m = mean.data_ptr<float>();
  const float* s = inv_std.data_ptr<float>();
  for (int o = 0; o < first.out; ++o) {
    float* row = first.weight.data() + static_cast<size_t>(o) * first.in;
    double shift = 0;
    for (int i = 0; i < first.in; ++i) {
      row[i] *= s[i];
      shift += static_cast<double>(row[i]) * m[i];
    }
    first.bias[o] -= static_cast<float>(shift);
  }
}

// A thread's activations, kept between calls: allocating tens of MiB per chunk
// cost a page fault per 4 KiB each time (a fifth of scoring, perf).
struct Workspace {
  std::vector<int64_t> offsets;
  std::vector<float> scratch;
  std::array<std::vector<float>, kActivationCount> activations;  // by Activation
};

Workspace& ThreadWorkspace() {
  thread_local Workspace workspace;
  return workspace;
}

const dnnl::engine& CpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Rows are rounded up to this many, so a thread builds one oneDNN kernel per
// layer shape and row bucket, once, instead of a primitive descriptor per
// call (and one per distinct chunk height, which real candidate sets vary).
constexpr int64_t kRowGranule = 128;

int64_t PaddedRows(int64_t tokens) { return (tokens + kRowGranule - 1) / kRowGranule * kRowGranule; }

struct KernelShape {
  int in, out;
  int64_t rows;
  Epilogue epilogue;
  bool bf16;  // bfloat16 src and weights (float32 bias and dst)
  bool operator<(const KernelShape& o) const {
    return std::tie(in, out, rows, epilogue, bf16) < std::tie(o.in, o.out, o.rows, o.epilogue, o.bf16);
  }
};

// A matmul, its oneDNN implementation's name, and whether it applies the
// layer's epilogue itself.
struct DenseMatmul {
  dnnl::matmul matmul;
  std::string implementation;
  bool fuses_epilogue = true;
};

dnnl::matmul::primitive_desc DensePrimitive(const KernelShape& shape, Epilogue epilogue) {
  using dnnl::memory;
  const auto f32 = memory::data_type::f32;
  const auto in_type = shape.bf16 ? memory::data_type::bf16 : f32;
  const memory::desc src_md({shape.rows, shape.in}, in_type, {shape.in, 1});
  const memory::desc weight_md({shape.in, shape.out}, in_type, {1, shape.in});  // W^T over W's row-major bytes
  const memory::desc bias_md({1, shape.out}, f32, {shape.out, 1});
  const memory::desc dst_md({shape.rows, shape.out}, f32, {shape.out, 1});
  dnnl::post_ops ops;
  if (AppliesRelu(epilogue))
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (AddsInto(epilogue)) ops.append_sum(1.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, weight_md, bias_md, dst_md), attr, CpuEngine());
}

// The matmul for one shape: src[rows, in] x W^T (W row-major [out, in]) + b,
// with the epilogue fused where oneDNN has a real kernel for it. Where it
// would fall back to its reference kernel (oneDNN 2.6 on AVX2 CPUs for ReLU
// then sum: 5 s per 4,096 programs instead of tens of ms), the matmul runs
// without post-ops and RunDense applies the epilogue. The weights are
// arguments, not part of the kernel, so every model of the same shape shares it.
const DenseMatmul& DenseKernel(const KernelShape& shape) {
  thread_local std::map<KernelShape, DenseMatmul> kernels;
  auto found = kernels.find(shape);
  if (found != kernels.end()) return found->second;
  auto pd = DensePrimitive(shape, shape.epilogue);
  bool fused = true;
  if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0 && shape.epilogue != Epilogue::kNone) {
    pd = DensePrimitive(shape, Epilogue::kNone);
    fused = false;
  }
  return kernels.emplace(shape, DenseMatmul{dnnl::matmul(pd), pd.impl_info_str(), fused}).first->second;
}

// dst[i] (=|+=) epilogue(out[i]) for the epilogues a matmul did not fuse.
void ApplyEpilogue(const float* out, size_t n, float* dst, Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::kNone: std::copy(out, out + n, dst); break;
    case Epilogue::kRelu:
      for (size_t i = 0; i < n; ++i) dst[i] = std::max(out[i], 0.f);
      break;
    case Epilogue::kAddInto:
      for (size_t i = 0; i < n; ++i) dst[i] += out[i];
      break;
    case Epilogue::kReluAddInto:
      for (size_t i = 0; i < n; ++i) dst[i] += std::max(out[i], 0.f);
      break;
  }
}

// The conversion of a [rows, in] float32 activation to bfloat16, per shape.
const dnnl::reorder& ToBf16Kernel(int64_t rows, int in) {
  thread_local std::map<std::pair<int64_t, int>, dnnl::reorder> kernels;
  auto found = kernels.find({rows, in});
  if (found != kernels.end()) return found->second;
  using dnnl::memory;
  const memory::desc f32({rows, in}, memory::data_type::f32, {in, 1});
  const memory::desc bf16({rows, in}, memory::data_type::bf16, {in, 1});
  dnnl::reorder::primitive_desc pd(CpuEngine(), f32, CpuEngine(), bf16);
  return kernels.emplace(std::make_pair(rows, in), dnnl::reorder(pd)).first->second;
}

// dst[rows, out] (=|+=) epilogue(src[rows, in] W^T + b); rows is a multiple
// of kRowGranule. A layer with bfloat16 weights rounds src to bfloat16 first
// (oneDNN has no float32 x bfloat16 matmul).
void RunDense(const ScoringPlan::Dense& d, const float* src, int64_t rows, float* dst) {
  const bool bf16 = !d.weight_bf16.empty();
  using dnnl::memory;
  const auto& engine = CpuEngine();
  thread_local dnnl::stream stream(engine);
  thread_local std::vector<uint16_t> src_bf16;
  auto wrap = [&](memory::dims dims, memory::dims strides, const void* data, memory::data_type type) {
    return memory(memory::desc(dims, type, strides), engine, const_cast<void*>(data));
  };
  const auto f32 = memory::data_type::f32, in_type = bf16 ? memory::data_type::bf16 : f32;
  const void* matmul_src = src;
  const void* weights = d.weight.data();
  if (bf16) {
    src_bf16.resize(static_cast<size_t>(rows) * d.in);
    dnnl::memory from = wrap({rows, d.in}, {d.in, 1}, src, f32);
    dnnl::memory to = wrap({rows, d.in}, {d.in, 1}, src_bf16.data(), in_type);
    ToBf16Kernel(rows, d.in).execute(stream, from, to);
    matmul_src = src_bf16.data();
    weights = d.weight_bf16.data();
  }
  const DenseMatmul& kernel = DenseKernel({d.in, d.out, rows, d.epilogue, bf16});
  thread_local std::vector<float> unfused;
  float* out = dst;
  if (!kernel.fuses_epilogue) {
    unfused.resize(static_cast<size_t>(rows) * d.out);
    out = unfused.data();
  }
  kernel.matmul.execute(stream, {{DNNL_ARG_SRC, wrap({rows, d.in}, {d.in, 1}, matmul_src, in_type)},
                                 {DNNL_ARG_WEIGHTS, wrap({d.in, d.out}, {1, d.in}, weights, in_type)},
                                 {DNNL_ARG_BIAS, wrap({1, d.out}, {d.out, 1}, d.bias.data(), f32)},
                                 {DNNL_ARG_DST, wrap({rows, d.out}, {d.out, 1}, out, f32)}});
  stream.wait();
  if (!kernel.fuses_epilogue) ApplyEpilogue(out, static_cast<size_t>(rows) * d.out, dst, d.epilogue);
}

// A dense layer from `src` into `dst`. A layer that reads and writes the same
// activation (encoder layers after the first) writes `scratch` and swaps it in:
// oneDNN's source and destination must not overlap.
void RunDenseLayer(const ScoringPlan::Dense& d, std::vector<float>& src, int64_t rows, std::vector<float>& dst,
                   std::vector<float>& scratch) {
  if (&src != &dst) return RunDense(d, src.data(), rows, dst.data());
  scratch.resize(dst.size());
  if (AddsInto(d.epilogue)) std::copy(dst.begin(), dst.end(), scratch.begin());
  RunDense(d, src.data(), rows, scratch.data());
  dst.swap(scratch);
}

// Round to nearest even in the upper 16 bits: bfloat16, as oneDNN reads it.
uint16_t ToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

void AddBf16Weights(ScoringPlan::Dense& d) {
  d.weight_bf16.resize(d.weight.size());
  std::transform(d.weight.begin(), d.weight.end(), d.weight_bf16.begin(), ToBf16);
}

}  // namespace

bool ScoringPlan::Supports(const CostModel::Impl& model) {
  return dynamic_cast<const UcmohNet*>(model.net.get()) != nullptr && model.normalizer.fitted();
}

// The layer that reads the raw tokens has the normalizer folded in and stays
// float32 in a bf16 plan: it computes x W' + (b - W' mean), and rounding a
// large raw value to 8 bits of mantissa before the mean is subtracted would
// lose what the subtraction leaves. Every later layer reads normalized scales.
ScoringPlan::ScoringPlan(const CostModel::Impl& model, bool bf16) : config_(model.config) {
  const auto& net = dynamic_cast<const UcmohNet&>(*model.net);
  layers_ = net.layers();
  dense_.resize(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i].kind != NetworkLayer::Kind::kDense) continue;
    dense_[i] = DenseFrom(net.dense(i), layers_[i].epilogue);
    if (layers_[i].src == Activation::kTokens)
      FoldNormalizer(model.normalizer, dense_[i]);
    else if (bf16)
      AddBf16Weights(dense_[i]);
  }
}

namespace {

// Where Score cuts `set` into chunks: at most kTokensPerChunk tokens each, and
// small enough that each of `threads` threads gets one.
std::vector<size_t> ChunkBounds(const ProgramSet& set, int threads) {
  int64_t total = 0;
  for (const auto& m : set.tokens) total += m.num_tokens;
  const int64_t per_thread = (total + threads - 1) / std::max(1, threads);
  const int64_t cap = std::clamp<int64_t>(per_thread, kRowGranule, kTokensPerChunk);
  std::vector<size_t> bounds{0};
  int64_t tokens = 0;
  for (size_t p = 0; p < set.size(); ++p) {
    const int64_t n = set.tokens[p].num_tokens;
    if (tokens > 0 && tokens + n > cap) {
      bounds.push_back(p);
      tokens = 0;
    }
    tokens += n;
  }
  if (tokens > 0) bounds.push_back(set.size());  // none: no program has a token, every score is 0
  return bounds;
}

}  // namespace

// Chunks run on the intra-op threads, one chunk per thread at a time: oneDNN
// and the attention kernel then run single-threaded inside each (nested
// parallel regions run inline), so no layer waits at a barrier for another
// thread's share of a 2,048-row matmul.
std::vector<float> ScoringPlan::Score(const ProgramSet& set) const {
  std::vector<float> scores(set.size(), 0.f);
  const std::vector<size_t> bounds = ChunkBounds(set, at::get_num_threads());
  at::parallel_for(0, static_cast<int64_t>(bounds.size()) - 1, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) ScoreChunk(set, bounds[c], bounds[c + 1], scores.data());
  });
  return scores;
}

namespace {

// Packs the tokens of programs [first, last) into the workspace's token
// activation, one program after
// another (w.offsets: where each starts), and returns the rows the layers run
// on. Rows past the tokens are zeros in, ignored out: every layer works row by
// row, and attention and the final sums read only the programs' rows.
int64_t PackTokens(const ProgramSet& set, size_t first, size_t last, Workspace& w) {
  int64_t tokens = 0;
  for (size_t p = first; p < last; ++p) tokens += set.tokens[p].num_tokens;
  const int64_t rows = PaddedRows(tokens);
  w.offsets.assign(1, 0);
  std::vector<float>& x = w.activations[static_cast<size_t>(Activation::kTokens)];
  x.resize(static_cast<size_t>(rows) * kFeatureDim);
  std::fill(x.begin() + tokens * kFeatureDim, x.end(), 0.f);
  for (size_t p = first; p < last; ++p) {
    const TokenMatrix& m = set.tokens[p];
    if (!m.values.empty())  // an empty vector's data() may be null, which memcpy must not get
      std::memcpy(x.data() + w.offsets.back() * kFeatureDim, m.values.data(), m.values.size() * sizeof(float));
    w.offsets.push_back(w.offsets.back() + m.num_tokens);
  }
  return rows;
}

// scores[first + i] = the sum of per_token over program i's rows.
void SumPerProgram(const std::vector<float>& per_token, const std::vector<int64_t>& offsets, size_t first,
                   float* scores) {
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    float sum = 0.f;
    for (int64_t t = offsets[i]; t < offsets[i + 1]; ++t) sum += per_token[t];
    scores[first + i] = sum;
  }
}

}  // namespace

// Programs [first, last): pack their tokens, run the network's layers in
// order, each activation a buffer of the thread's workspace.
void ScoringPlan::ScoreChunk(const ProgramSet& set, size_t first, size_t last, float* scores) const {
  Workspace& w = ThreadWorkspace();
  const int64_t rows = PackTokens(set, first, last, w);
  for (int a = 0; a < kActivationCount; ++a)
    w.activations[a].resize(static_cast<size_t>(rows) * ActivationWidth(static_cast<Activation>(a), config_));
  auto buffer = [&](Activation which) -> std::vector<float>& { return w.activations[static_cast<size_t>(which)]; };
  for (size_t i = 0; i < layers_.size(); ++i) {
    const NetworkLayer& layer = layers_[i];
    switch (layer.kind) {
      case NetworkLayer::Kind::kDense:
        RunDenseLayer(dense_[i], buffer(layer.src), rows, buffer(layer.dst), w.scratch);
        break;
      case NetworkLayer::Kind::kSelfAttention:
        AttendWithinPrograms(buffer(layer.src).data(), w.offsets, config_.hidden, config_.heads,
                             buffer(layer.dst).data());
        break;
      case NetworkLayer::Kind::kSumPerProgram: SumPerProgram(buffer(layer.src), w.offsets, first, scores); break;
    }
  }
}

std::vector<std::string> ScoringPlan::KernelImplementations(int64_t rows) const {
  std::vector<std::string> names;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i].kind != NetworkLayer::Kind::kDense) continue;
    const Dense& d = dense_[i];
    names.push_back(DenseKernel({d.in, d.out, PaddedRows(rows), d.epilogue, !d.weight_bf16.empty()}).implementation);
  }
  return names;
}

namespace {

bool CpuHasBf16Matmul() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & avx512) == avx512;  // oneDNN's ISA values nest as bit masks
}

}  // namespace

Expected<std::vector<float>> ScoreWithPlan(const CostModel::Impl& model, const ProgramSet& set,
                                           ScoringPrecision precision) {
  const bool bf16 = precision == ScoringPrecision::kBfloat16;
  try {
    return ScoringPlan(model, bf16).Score(set);
  } catch (const dnnl::error& e) {
    // Unsupported only where it is the CPU: oneDNN has no bf16 matmul below
    // AVX-512 (Skylake-SP and later); any other oneDNN error is a fault.
    if (bf16 && e.status == dnnl_unimplemented && !CpuHasBf16Matmul())
      return Status::Unsupported(std::string("bf16 scoring: this CPU has no AVX-512, which oneDNN's bf16 matmul needs (") +
                                 e.what() + ")");
    return Status::Internal(std::string(bf16 ? "bf16 scoring: oneDNN: " : "scoring: oneDNN: ") + e.what());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("scoring: ") + e.what());
  }
}

}  // namespace ucmoh
