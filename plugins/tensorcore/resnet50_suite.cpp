#include "resnet50_suite.h"

namespace ucmoh::tensorcore {

namespace {

struct LayerShape {
  int64_t hw, c, k, rs, stride, pad;
};

// Square images and filters; the bottleneck blocks' 1x1 convs carry the stride.
constexpr LayerShape kLayers[] = {
    {56, 64, 64, 1, 1, 0},     {56, 64, 64, 3, 1, 1},     {56, 64, 256, 1, 1, 0},
    {56, 256, 64, 1, 1, 0},    {56, 256, 128, 1, 2, 0},   {56, 256, 512, 1, 2, 0},
    {28, 128, 128, 3, 1, 1},   {28, 128, 512, 1, 1, 0},   {28, 512, 128, 1, 1, 0},
    {28, 512, 256, 1, 2, 0},   {28, 512, 1024, 1, 2, 0},  {14, 256, 256, 3, 1, 1},
    {14, 256, 1024, 1, 1, 0},  {14, 1024, 256, 1, 1, 0},  {14, 1024, 512, 1, 2, 0},
    {14, 1024, 2048, 1, 2, 0}, {7, 512, 512, 3, 1, 1},    {7, 512, 2048, 1, 1, 0},
    {7, 2048, 512, 1, 1, 0},
};
ConvProblem Layer(const LayerShape& l, int64_t batch = kResnet50Batch) {
  ConvProblem p;
  p.n = batch;
  p.h = p.w = l.hw;
  p.c = l.c;
  p.k = l.k;
  p.r = p.s = l.rs;
  p.pad_h = p.pad_w = l.pad;
  p.stride_h = p.stride_w = l.stride;
  ComputeOutputSize(p);
  return p;
}

bool SameShape(const ConvProblem& a, const ConvProblem& b) {
  return a.n == b.n && a.h == b.h && a.w == b.w && a.c == b.c && a.k == b.k && a.r == b.r &&
         a.s == b.s && a.p == b.p && a.q == b.q && a.pad_h == b.pad_h && a.pad_w == b.pad_w &&
         a.stride_h == b.stride_h && a.stride_w == b.stride_w && a.dilation_h == b.dilation_h &&
         a.dilation_w == b.dilation_w;
}

}  // namespace

std::vector<ConvProblem> Resnet50Layers(const std::string& in_type, const std::string& acc_type,
                                        const std::string& out_type, int64_t batch) {
  std::vector<ConvProblem> layers;
  for (const LayerShape& shape : kLayers) {
    ConvProblem p = Layer(shape, batch);
    p.in_type = in_type;
    p.acc_type = acc_type;
    p.out_type = out_type;
    layers.push_back(p);
  }
  return layers;
}

bool IsResnet50Layer(const ConvProblem& problem) {
  for (const LayerShape& shape : kLayers)
    if (SameShape(Layer(shape), problem)) return true;
  return false;
}

}  // namespace ucmoh::tensorcore
