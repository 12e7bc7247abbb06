// What tensorcore-measure times on one GPU: every (problem, kernel) pair of
// the chosen suites whose kernel is compiled into the measurer, whose
// instruction the GPU has, and which the plugin's ValidateProgram accepts on
// the GPU's architecture, in a fixed order; and the sample re-measured in a
// second pass for the noise ceiling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conv_problem.h"
#include "gpu_architecture.h"
#include "measured_kernels.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore::measure {

struct PlanOptions {
  std::vector<std::string> suites = {"resnet50", "bert"};
  std::vector<std::string> intrinsics;  // full names; empty: all six
  std::vector<int64_t> resnet50_batches = {256};  // images per ResNet-50 layer
  std::vector<int64_t> bert_batches = {8, 32};    // sequences of 128 tokens per BERT GEMM
};

struct PlannedMeasurement {
  ConvProblem problem;  // types: the intrinsic's input, accumulator and (as output) accumulator
  const MeasuredKernel* kernel = nullptr;
  Task task;            // MakeConvTask(suite, problem, intrinsic)
  ParamMap schedule;    // ScheduleParams(kernel config)
};

// An unknown suite or intrinsic, or a batch below 1, is InvalidArgument naming it.
Expected<std::vector<PlannedMeasurement>> PlanMeasurements(const PlanOptions& options, const GpuArchitecture& arch);

// Every `every`-th index of a plan of `count` measurements, starting at
// `offset` (0 <= offset < every): the second pass. every 10 is 10 %.
std::vector<size_t> SecondPassIndices(size_t count, size_t every, size_t offset);

}  // namespace ucmoh::tensorcore::measure
