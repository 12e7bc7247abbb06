#include "ucmoh/cpu_gemm/gemm_task_suites.h"

#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace ucmoh::cpu_gemm {

namespace {

// A layer of one image (or one sequence) of a network: M is per image.
struct LayerShape {
  const char* layer;
  int64_t m_per_image, n, k;
};

// ResNet-50 v1.5 at 224x224 (stride on the 3x3 conv of each first block), convs
// as implicit GEMM: M = batch * P * Q, N = output channels, K = C * R * S. Layers
// with the shape of an earlier one (the repeated blocks) are left out.
const LayerShape kResNet50[] = {
    {"conv1.7x7s2", 112 * 112, 64, 3 * 7 * 7},
    {"conv2_x.1x1_reduce_first", 56 * 56, 64, 64},
    {"conv2_x.3x3", 56 * 56, 64, 64 * 9},
    {"conv2_x.1x1_expand", 56 * 56, 256, 64},
    {"conv2_x.1x1_reduce", 56 * 56, 64, 256},
    {"conv3_x.1x1_reduce_first", 56 * 56, 128, 256},
    {"conv3_x.3x3s2", 28 * 28, 128, 128 * 9},
    {"conv3_x.1x1_expand", 28 * 28, 512, 128},
    {"conv3_x.downsample", 28 * 28, 512, 256},
    {"conv3_x.1x1_reduce", 28 * 28, 128, 512},
    {"conv4_x.1x1_reduce_first", 28 * 28, 256, 512},
    {"conv4_x.3x3s2", 14 * 14, 256, 256 * 9},
    {"conv4_x.1x1_expand", 14 * 14, 1024, 256},
    {"conv4_x.downsample", 14 * 14, 1024, 512},
    {"conv4_x.1x1_reduce", 14 * 14, 256, 1024},
    {"conv5_x.1x1_reduce_first", 14 * 14, 512, 1024},
    {"conv5_x.3x3s2", 7 * 7, 512, 512 * 9},
    {"conv5_x.1x1_expand", 7 * 7, 2048, 512},
    {"conv5_x.downsample", 7 * 7, 2048, 1024},
    {"conv5_x.1x1_reduce", 7 * 7, 512, 2048},
    {"fc", 1, 1000, 2048},
};

// MobileNetV2 (1.0, 224x224) pointwise convs, named by torchvision's
// features[i] index: expand 1x1 (C -> 6C) and project 1x1 (6C -> C').
const LayerShape kMobileNetV2[] = {
    {"features.1.project", 112 * 112, 16, 32},
    {"features.2.expand", 112 * 112, 96, 16},
    {"features.2.project", 56 * 56, 24, 96},
    {"features.3.expand", 56 * 56, 144, 24},
    {"features.3.project", 56 * 56, 24, 144},
    {"features.4.project", 28 * 28, 32, 144},
    {"features.5.expand", 28 * 28, 192, 32},
    {"features.5.project", 28 * 28, 32, 192},
    {"features.7.project", 14 * 14, 64, 192},
    {"features.8.expand", 14 * 14, 384, 64},
    {"features.8.project", 14 * 14, 64, 384},
    {"features.11.project", 14 * 14, 96, 384},
    {"features.12.expand", 14 * 14, 576, 96},
    {"features.12.project", 14 * 14, 96, 576},
    {"features.14.project", 7 * 7, 160, 576},
    {"features.15.expand", 7 * 7, 960, 160},
    {"features.15.project", 7 * 7, 160, 960},
    {"features.17.project", 7 * 7, 320, 960},
    {"features.18.conv1x1", 7 * 7, 1280, 320},
};

constexpr int64_t kImageBatches[] = {1, 8};

// BERT-base: hidden 768, FFN 3072, 12 heads of 64. (batch, sequence length) pairs.
constexpr int64_t kBertHidden = 768, kBertFfn = 3072, kBertHeads = 12, kBertHeadDim = 64;
const std::pair<int64_t, int64_t> kBertRuns[] = {{1, 128}, {1, 256}, {1, 384}, {1, 512}, {8, 128}};

bool InFlopRange(const GemmWorkload& w) {
  return w.flops() >= kMinSuiteFlops && w.flops() <= kMaxSuiteFlops;
}

void AddImageNetwork(const char* network, const LayerShape* layers, size_t count,
                     std::vector<GemmWorkload>& out) {
  for (int64_t batch : kImageBatches) {
    for (size_t i = 0; i < count; ++i) {
      const LayerShape& l = layers[i];
      const char* op = std::string(l.layer) == "fc" ? "dense" : "conv2d";
      out.push_back({network, l.layer, op, batch * l.m_per_image, l.n, l.k, 1});
    }
  }
}

void AddBert(std::vector<GemmWorkload>& out) {
  for (const auto& [batch, seq] : kBertRuns) {
    const int64_t tokens = batch * seq;
    out.push_back({"bert", "attention.query", "dense", tokens, kBertHidden, kBertHidden, 1});
    out.push_back({"bert", "attention.qkv_fused", "dense", tokens, 3 * kBertHidden, kBertHidden, 1});
    out.push_back({"bert", "ffn.intermediate", "dense", tokens, kBertFfn, kBertHidden, 1});
    out.push_back({"bert", "ffn.output", "dense", tokens, kBertHidden, kBertFfn, 1});
    // Per (batch, head): scores = Q K^T and context = softmax(scores) V.
    const int64_t heads = batch * kBertHeads;
    out.push_back({"bert", "attention.scores", "batch_matmul", seq, seq, kBertHeadDim, heads});
    out.push_back({"bert", "attention.context", "batch_matmul", seq, kBertHeadDim, seq, heads});
  }
}

// Keeps the first workload of each (network, shape) within the flop range.
std::vector<GemmWorkload> Distinct(const std::vector<GemmWorkload>& all) {
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>> seen;
  std::vector<GemmWorkload> kept;
  for (const GemmWorkload& w : all) {
    if (!InFlopRange(w)) continue;
    if (seen.insert({w.network, w.m, w.n, w.k, w.batch}).second) kept.push_back(w);
  }
  return kept;
}

std::string ShortIntrinsicName(const std::string& intrinsic) {
  const size_t dot = intrinsic.find('.');
  return dot == std::string::npos ? intrinsic : intrinsic.substr(dot + 1);
}

std::string TaskKey(const GemmWorkload& w, const std::string& intrinsic) {
  std::string key = w.network + "." + w.layer + ".m" + std::to_string(w.m) + "_n" +
                    std::to_string(w.n) + "_k" + std::to_string(w.k);
  if (w.batch > 1) key += "_b" + std::to_string(w.batch);
  return key + "." + ShortIntrinsicName(intrinsic);
}

}  // namespace

std::vector<std::string> GemmSuiteNames() { return {"resnet50", "bert", "mobilenetv2", "all"}; }

Expected<std::vector<GemmWorkload>> SuiteWorkloads(const std::string& suite) {
  std::vector<GemmWorkload> all;
  const bool everything = suite == "all";
  if (everything || suite == "resnet50") {
    AddImageNetwork("resnet50", kResNet50, std::size(kResNet50), all);
  }
  if (everything || suite == "bert") AddBert(all);
  if (everything || suite == "mobilenetv2") {
    AddImageNetwork("mobilenetv2", kMobileNetV2, std::size(kMobileNetV2), all);
  }
  if (all.empty()) {
    return Status::NotFound("no CPU GEMM task suite '" + suite +
                            "' (known: resnet50, bert, mobilenetv2, all)");
  }
  return Distinct(all);
}

Expected<std::vector<Task>> SuiteTasks(const std::string& suite, const IntrinsicInfo& intrinsic) {
  auto workloads = SuiteWorkloads(suite);
  if (!workloads.ok()) return workloads.status();
  std::vector<Task> tasks;
  for (const GemmWorkload& w : *workloads) {
    Task task;
    task.key = TaskKey(w, intrinsic.name);
    task.op = "gemm";
    task.workload = {
        {"m", w.m},
        {"n", w.n},
        {"k", w.k},
        {"batch", w.batch},
        {"network", w.network},
        {"layer", w.layer},
        {"source_op", w.source_op},
        {"in_type", intrinsic.input_type},
        {"acc_type", intrinsic.accum_type},
    };
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace ucmoh::cpu_gemm
