// The "resnet50" task suite: the 19 distinct conv2d layers of ResNet-50 at
// batch 256 (the stem's 3-channel 7x7 conv excluded, as in the CUTLASS data).
#pragma once

#include <vector>

#include "conv_problem.h"

namespace ucmoh::tensorcore {

constexpr const char* kResnet50Suite = "resnet50";

constexpr int64_t kResnet50Batch = 256;  // the public data's batch

// The layers in the given data types (p and q filled in), at `batch` images.
std::vector<ConvProblem> Resnet50Layers(const std::string& in_type, const std::string& acc_type,
                                        const std::string& out_type, int64_t batch = kResnet50Batch);

// Whether a problem is one of those layers at batch 256 (types aside).
bool IsResnet50Layer(const ConvProblem& problem);

}  // namespace ucmoh::tensorcore
