#include "scoring_plan.h"

#include <algorithm>
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

using Epilogue = ScoringPlan::Epilogue;

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
  std::vector<float> x, h, scratch, qkv, per_token;
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
  if (epilogue == Epilogue::kRelu || epilogue == Epilogue::kReluAddInto)
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (epilogue == Epilogue::kAddInto || epilogue == Epilogue::kReluAddInto) ops.append_sum(1.f);
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

ScoringPlan::ScoringPlan(const CostModel::Impl& model, bool bf16) {
  const auto& net = dynamic_cast<const UcmohNet&>(*model.net);
  hidden_ = model.config.hidden;
  heads_ = model.config.heads;
  for (const auto& layer : *net.encoder)
    if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(layer.ptr()))
      encoder_.push_back(DenseFrom(torch::nn::Linear(linear), Epilogue::kRelu));
  FoldNormalizer(model.normalizer, encoder_.front());
  in_proj_ = DenseFrom(net.attention->in_proj, Epilogue::kNone);
  out_proj_ = DenseFrom(net.attention->out_proj, Epilogue::kAddInto);  // h + attention(h)
  for (const auto& block : *net.fc_blocks) {
    const auto& seq = *block->as<torch::nn::Sequential>();
    fc_.push_back(DenseFrom(torch::nn::Linear(seq.ptr<torch::nn::LinearImpl>(0)), Epilogue::kRelu));
    fc_.push_back(DenseFrom(torch::nn::Linear(seq.ptr<torch::nn::LinearImpl>(2)), Epilogue::kReluAddInto));
  }
  decoder_ = DenseFrom(net.decoder, Epilogue::kNone);
  if (!bf16) return;
  // The first layer stays float32: it reads raw features with the
  // normalizer folded in, x W' + (b - W' mean), and rounding a large raw
  // value to 8 bits of mantissa before the mean is subtracted would lose
  // what the subtraction leaves. Every later layer reads normalized scales.
  for (Dense* d : {&in_proj_, &out_proj_, &decoder_}) AddBf16Weights(*d);
  for (size_t i = 1; i < encoder_.size(); ++i) AddBf16Weights(encoder_[i]);
  for (Dense& d : fc_) AddBf16Weights(d);
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

// Programs [first, last): pack their tokens, run the layers, sum
// each program's per-token scores.
void ScoringPlan::ScoreChunk(const ProgramSet& set, size_t first, size_t last, float* scores) const {
  int64_t tokens = 0;
  for (size_t p = first; p < last; ++p) tokens += set.tokens[p].num_tokens;
  Workspace& w = ThreadWorkspace();
  std::vector<int64_t>& offsets = w.offsets;
  offsets.assign(1, 0);
  // Rows past `tokens` are zeros in, ignored out: every layer works row by
  // row, and attention and the final sums read only the programs' rows.
  const int64_t rows = PaddedRows(tokens);
  w.x.resize(static_cast<size_t>(rows) * kFeatureDim);
  std::fill(w.x.begin() + tokens * kFeatureDim, w.x.end(), 0.f);
  for (size_t p = first; p < last; ++p) {
    const TokenMatrix& m = set.tokens[p];
    if (!m.values.empty())  // an empty vector's data() may be null, which memcpy must not get
      std::memcpy(w.x.data() + offsets.back() * kFeatureDim, m.values.data(), m.values.size() * sizeof(float));
    offsets.push_back(offsets.back() + m.num_tokens);
  }
  const size_t width = static_cast<size_t>(rows) * hidden_;
  w.h.resize(width);
  w.scratch.resize(width);
  w.qkv.resize(3 * width);
  w.per_token.resize(static_cast<size_t>(rows));
  std::vector<float>&h = w.h, &scratch = w.scratch, &qkv = w.qkv, &per_token = w.per_token;
  const float* in = w.x.data();
  for (const Dense& layer : encoder_) {
    RunDense(layer, in, rows, scratch.data());
    h.swap(scratch);
    in = h.data();
  }
  RunDense(in_proj_, h.data(), rows, qkv.data());
  AttendWithinPrograms(qkv.data(), offsets, hidden_, heads_, scratch.data());
  RunDense(out_proj_, scratch.data(), rows, h.data());
  for (size_t b = 0; b < fc_.size(); b += 2) {
    RunDense(fc_[b], h.data(), rows, scratch.data());
    RunDense(fc_[b + 1], scratch.data(), rows, h.data());
  }
  RunDense(decoder_, h.data(), rows, per_token.data());
  for (size_t p = first; p < last; ++p) {
    float sum = 0.f;
    for (int64_t t = offsets[p - first]; t < offsets[p - first + 1]; ++t) sum += per_token[t];
    scores[p] = sum;
  }
}

std::vector<const ScoringPlan::Dense*> ScoringPlan::Layers() const {
  std::vector<const Dense*> layers;
  for (const Dense& d : encoder_) layers.push_back(&d);
  layers.push_back(&in_proj_);
  layers.push_back(&out_proj_);
  for (const Dense& d : fc_) layers.push_back(&d);
  layers.push_back(&decoder_);
  return layers;
}

std::vector<std::string> ScoringPlan::KernelImplementations(int64_t rows) const {
  std::vector<std::string> names;
  for (const Dense* d : Layers())
    names.push_back(DenseKernel({d->in, d->out, PaddedRows(rows), d->epilogue, !d->weight_bf16.empty()}).implementation);
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
