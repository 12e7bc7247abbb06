#include "measurement_plan.h"

#include <algorithm>

#include "bert_suite.h"
#include "kernel_resources.h"
#include "program.h"
#include "resnet50_suite.h"

namespace ucmoh::tensorcore::measure {

namespace {

Expected<std::vector<ConvProblem>> SuiteProblems(const std::string& suite, const TensorCoreIntrinsic& intrinsic,
                                                 const PlanOptions& options) {
  const IntrinsicInfo& info = intrinsic.info;
  // The output is written in the accumulator type, as in the public CUTLASS data.
  if (suite == kResnet50Suite) {
    std::vector<ConvProblem> problems;
    for (int64_t batch : options.resnet50_batches)
      for (ConvProblem& p : Resnet50Layers(info.input_type, info.accum_type, info.accum_type, batch))
        problems.push_back(p);
    return problems;
  }
  if (suite == kBertSuite) return BertGemms(info.input_type, info.accum_type, info.accum_type, options.bert_batches);
  return Status::InvalidArgument("unknown suite '" + suite + "' (tensorcore-measure has resnet50, bert)");
}

Expected<std::vector<const TensorCoreIntrinsic*>> ChosenIntrinsics(const PlanOptions& options) {
  std::vector<const TensorCoreIntrinsic*> chosen;
  if (options.intrinsics.empty()) {
    for (const TensorCoreIntrinsic& intrinsic : AllIntrinsics()) chosen.push_back(&intrinsic);
    return chosen;
  }
  for (const std::string& name : options.intrinsics) {
    const TensorCoreIntrinsic* intrinsic = FindIntrinsic(name);
    if (!intrinsic)
      return Status::InvalidArgument("unknown intrinsic '" + name + "' (tensorcore has " + IntrinsicNameList() + ")");
    chosen.push_back(intrinsic);
  }
  return chosen;
}

}  // namespace

Expected<std::vector<PlannedMeasurement>> PlanMeasurements(const PlanOptions& options, const GpuArchitecture& arch) {
  for (const auto* batches : {&options.resnet50_batches, &options.bert_batches})
    for (int64_t batch : *batches)
      if (batch < 1) return Status::InvalidArgument("batch " + std::to_string(batch) + " must be positive");
  auto intrinsics = ChosenIntrinsics(options);
  if (!intrinsics.ok()) return intrinsics.status();
  std::vector<PlannedMeasurement> plan;
  for (const std::string& suite : options.suites) {
    for (const TensorCoreIntrinsic* intrinsic : *intrinsics) {
      auto problems = SuiteProblems(suite, *intrinsic, options);
      if (!problems.ok()) return problems.status();
      if (!CheckIntrinsicRuns(*intrinsic, arch).ok()) continue;
      for (const ConvProblem& problem : *problems)
        for (const MeasuredKernel& kernel : MeasuredKernels()) {
          if (kernel.intrinsic != intrinsic) continue;
          const KernelResources resources = EstimateResources(kernel.config, *intrinsic, arch);
          if (!ValidateProgram(problem, *intrinsic, kernel.config, resources, arch).ok()) continue;
          PlannedMeasurement measurement;
          measurement.problem = problem;
          measurement.kernel = &kernel;
          measurement.task = MakeConvTask(suite, problem, *intrinsic);
          measurement.schedule = ScheduleParams(kernel.config, *intrinsic, problem.kind);
          plan.push_back(std::move(measurement));
        }
    }
  }
  return plan;
}

std::vector<size_t> SecondPassIndices(size_t count, size_t every, size_t offset) {
  std::vector<size_t> indices;
  if (every == 0) return indices;
  for (size_t i = std::min(offset, every - 1); i < count; i += every) indices.push_back(i);
  return indices;
}

}  // namespace ucmoh::tensorcore::measure
