#include "scoring_plan.h"

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>

#include "small_attention.h"
#include "ucmoh/features.h"

namespace ucmoh {

namespace {

// Tokens scored per oneDNN call: a chunk's activations (about 6 x hidden
// floats per token, 3 MiB at hidden 64) stay in L2. 2^11 scored 4,096
// CUTLASS programs in 16.5 ms, 2^13 in 17.2 ms, 2^15 in 19.7 ms.
constexpr int64_t kTokensPerChunk = 1 << 11;

ScoringPlan::Dense DenseFrom(const torch::nn::Linear& linear) {
  auto w = linear->weight.detach().to(torch::kFloat).contiguous();
  auto b = linear->bias.detach().to(torch::kFloat).contiguous();
  ScoringPlan::Dense d;
  d.out = static_cast<int>(w.size(0));
  d.in = static_cast<int>(w.size(1));
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

enum class Epilogue { kNone, kRelu, kAddInto, kReluAddInto };

const dnnl::engine& CpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// dst[rows, out] (=|+=) epilogue(src[rows, in] W^T + b). oneDNN's primitive
// cache makes building the same shapes again cheap.
void RunDense(const ScoringPlan::Dense& d, const float* src, int64_t rows, float* dst, Epilogue epilogue) {
  using dnnl::memory;
  const auto f32 = memory::data_type::f32;
  const memory::desc src_md({rows, d.in}, f32, {d.in, 1});
  const memory::desc weight_md({d.in, d.out}, f32, {1, d.in});  // W^T over W's row-major bytes
  const memory::desc bias_md({1, d.out}, f32, {d.out, 1});
  const memory::desc dst_md({rows, d.out}, f32, {d.out, 1});
  dnnl::post_ops ops;
  if (epilogue == Epilogue::kRelu || epilogue == Epilogue::kReluAddInto)
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (epilogue == Epilogue::kAddInto || epilogue == Epilogue::kReluAddInto) ops.append_sum(1.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const auto& engine = CpuEngine();
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, weight_md, bias_md, dst_md), attr, engine);
  dnnl::stream stream(engine);
  dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, memory(src_md, engine, const_cast<float*>(src))},
                                    {DNNL_ARG_WEIGHTS, memory(weight_md, engine, const_cast<float*>(d.weight.data()))},
                                    {DNNL_ARG_BIAS, memory(bias_md, engine, const_cast<float*>(d.bias.data()))},
                                    {DNNL_ARG_DST, memory(dst_md, engine, dst)}});
  stream.wait();
}

}  // namespace

bool ScoringPlan::Supports(const CostModel::Impl& model) {
  return dynamic_cast<const UcmohNet*>(model.net.get()) != nullptr && model.normalizer.fitted();
}

ScoringPlan::ScoringPlan(const CostModel::Impl& model) {
  const auto& net = dynamic_cast<const UcmohNet&>(*model.net);
  hidden_ = model.config.hidden;
  heads_ = model.config.heads;
  for (const auto& layer : *net.encoder)
    if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(layer.ptr()))
      encoder_.push_back(DenseFrom(torch::nn::Linear(linear)));
  FoldNormalizer(model.normalizer, encoder_.front());
  in_proj_ = DenseFrom(net.attention->in_proj);
  out_proj_ = DenseFrom(net.attention->out_proj);
  for (const auto& block : *net.fc_blocks) {
    const auto& seq = *block->as<torch::nn::Sequential>();
    fc_.push_back(DenseFrom(torch::nn::Linear(seq.ptr<torch::nn::LinearImpl>(0))));
    fc_.push_back(DenseFrom(torch::nn::Linear(seq.ptr<torch::nn::LinearImpl>(2))));
  }
  decoder_ = DenseFrom(net.decoder);
}

std::vector<float> ScoringPlan::Score(const ProgramSet& set) const {
  std::vector<float> scores(set.size(), 0.f);
  size_t first = 0;
  int64_t tokens = 0;
  for (size_t p = 0; p < set.size(); ++p) {
    const int64_t n = set.tokens[p].num_tokens;
    if (tokens > 0 && tokens + n > kTokensPerChunk) {
      ScoreChunk(set, first, p, tokens, scores.data());
      first = p;
      tokens = 0;
    }
    tokens += n;
  }
  if (tokens > 0) ScoreChunk(set, first, set.size(), tokens, scores.data());
  return scores;
}

// Programs [first, last), `tokens` tokens in all: pack, run the layers, sum
// each program's per-token scores.
void ScoringPlan::ScoreChunk(const ProgramSet& set, size_t first, size_t last, int64_t tokens,
                             float* scores) const {
  Workspace& w = ThreadWorkspace();
  std::vector<int64_t>& offsets = w.offsets;
  offsets.assign(1, 0);
  w.x.resize(static_cast<size_t>(tokens) * kFeatureDim);
  for (size_t p = first; p < last; ++p) {
    const TokenMatrix& m = set.tokens[p];
    if (!m.values.empty())  // an empty vector's data() may be null, which memcpy must not get
      std::memcpy(w.x.data() + offsets.back() * kFeatureDim, m.values.data(), m.values.size() * sizeof(float));
    offsets.push_back(offsets.back() + m.num_tokens);
  }
  const size_t width = static_cast<size_t>(tokens) * hidden_;
  w.h.resize(width);
  w.scratch.resize(width);
  w.qkv.resize(3 * width);
  w.per_token.resize(static_cast<size_t>(tokens));
  std::vector<float>&h = w.h, &scratch = w.scratch, &qkv = w.qkv, &per_token = w.per_token;
  const float* in = w.x.data();
  for (const Dense& layer : encoder_) {
    RunDense(layer, in, tokens, scratch.data(), Epilogue::kRelu);
    h.swap(scratch);
    in = h.data();
  }
  RunDense(in_proj_, h.data(), tokens, qkv.data(), Epilogue::kNone);
  AttendWithinPrograms(qkv.data(), offsets, hidden_, heads_, scratch.data());
  RunDense(out_proj_, scratch.data(), tokens, h.data(), Epilogue::kAddInto);
  for (size_t b = 0; b < fc_.size(); b += 2) {
    RunDense(fc_[b], h.data(), tokens, scratch.data(), Epilogue::kRelu);
    RunDense(fc_[b + 1], scratch.data(), tokens, h.data(), Epilogue::kReluAddInto);
  }
  RunDense(decoder_, h.data(), tokens, per_token.data(), Epilogue::kNone);
  for (size_t p = first; p < last; ++p) {
    float sum = 0.f;
    for (int64_t t = offsets[p - first]; t < offsets[p - first + 1]; ++t) sum += per_token[t];
    scores[p] = sum;
  }
}

}  // namespace ucmoh
