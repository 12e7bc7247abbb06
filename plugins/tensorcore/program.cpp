#include "program.h"

#include "hardware.h"
#include "implicit_gemm.h"

namespace ucmoh::tensorcore {

namespace {

bool IsPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

std::string Num(int64_t x) { return std::to_string(x); }

Status Invalid(const std::string& message) { return Status::InvalidArgument(message); }

// The thread-block tile must split evenly into warp tiles, and those into instructions.
Status CheckTiling(const KernelConfig& c, const IntrinsicInfo& inst) {
  if (c.cta_m % c.warps_m != 0)
    return Invalid("warps_m=" + Num(c.warps_m) + " does not divide cta_m=" + Num(c.cta_m));
  if (c.cta_n % c.warps_n != 0)
    return Invalid("warps_n=" + Num(c.warps_n) + " does not divide cta_n=" + Num(c.cta_n));
  if (c.cta_k % c.warps_k != 0)
    return Invalid("warps_k=" + Num(c.warps_k) + " does not divide cta_k=" + Num(c.cta_k));
  if (c.warp_m() % inst.m != 0)
    return Invalid("warp tile m=" + Num(c.warp_m()) + " is not a multiple of the instruction's m=" + Num(inst.m));
  if (c.warp_n() % inst.n != 0)
    return Invalid("warp tile n=" + Num(c.warp_n()) + " is not a multiple of the instruction's n=" + Num(inst.n));
  if (c.warp_k() % inst.k != 0)
    return Invalid("warp tile k=" + Num(c.warp_k()) + " is not a multiple of the instruction's k=" + Num(inst.k));
  return Status::Ok();
}

// Global accesses: a power-of-two vector no wider than 16 bytes that divides
// the channel counts (CUTLASS's can_implement), and at least 4 bytes where
// the kernel copies with cp.async.
Status CheckAlignment(const KernelConfig& c, const TensorCoreIntrinsic& intrinsic,
                      const ConvProblem& problem) {
  const int64_t vector_bytes = c.alignment * intrinsic.InputBytes();
  if (!IsPowerOfTwo(c.alignment) || vector_bytes > kMaxVectorBytes)
    return Invalid("alignment=" + Num(c.alignment) + " must be a power of two of at most " +
                   Num(kMaxVectorBytes) + " bytes");
  if (intrinsic.UsesCpAsync() && vector_bytes < 4)
    return Invalid("alignment=" + Num(c.alignment) + " (" + Num(vector_bytes) +
                   " bytes) is below cp.async's 4-byte minimum of sm_80 kernels");
  if (problem.c % c.alignment != 0 || problem.k % c.alignment != 0)
    return Invalid("alignment=" + Num(c.alignment) + " does not divide channels c=" +
                   Num(problem.c) + " and k=" + Num(problem.k));
  return Status::Ok();
}

Status CheckLaunch(const KernelConfig& c, const KernelResources& res, const ConvProblem& problem,
                   const GpuArchitecture& arch) {
  if (c.stages < 2 || c.stages > 16)
    return Invalid("stages=" + Num(c.stages) + " must be between 2 and 16");
  const std::string on = std::string(" on ") + arch.flag;
  if (res.threads > arch.max_threads_per_block)
    return Invalid(Num(c.warps()) + " warps are " + Num(res.threads) + " threads, above " +
                   Num(arch.max_threads_per_block) + " per block" + on);
  if (res.shared_bytes > arch.shared_bytes_per_block)
    return Invalid(Num(c.stages) + " stages need " + Num(res.shared_bytes) + " bytes of shared memory, above " +
                   Num(arch.shared_bytes_per_block) + " per block" + on);
  if (res.registers_per_thread > arch.max_registers_per_thread)
    return Invalid("warp tile " + Num(c.warp_m()) + "x" + Num(c.warp_n()) + " needs about " +
                   Num(res.registers_per_thread) + " registers per thread, above " +
                   Num(arch.max_registers_per_thread) + on);
  if (res.resident_blocks < 1)
    return Invalid("one block does not fit on an SM (registers or shared memory)" + on);
  const ImplicitGemm gemm = MapToImplicitGemm(problem);
  if (c.split_k_slices > gemm.reduction_per_tap)
    return Invalid("split_k_slices=" + Num(c.split_k_slices) + " exceeds " + gemm.reduction_name + "=" +
                   Num(gemm.reduction_per_tap));
  return Status::Ok();
}

// What CUTLASS builds for the gradient passes: its generator instantiates
// dgrad and wgrad kernels only for f16 and f32 accumulation (the integer
// convolutions are fprop only), and the strided-dgrad decomposition the
// lowering models (implicit_gemm.h) counts filter taps without dilation.
Status CheckConvKind(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic) {
  if (problem.kind == ConvKind::kFprop) return Status::Ok();
  const std::string kind = ConvKindName(problem.kind);
  if (intrinsic.info.accum_type != "f16" && intrinsic.info.accum_type != "f32")
    return Invalid(intrinsic.info.name + " has no " + kind + " kernels in CUTLASS (" + kind +
                   " is built for f16 and f32 accumulation only)");
  if (IsStridedDgrad(problem) && (problem.dilation_h > 1 || problem.dilation_w > 1))
    return Invalid("dgrad with stride " + Num(problem.stride_h) + "x" + Num(problem.stride_w) +
                   " and dilation " + Num(problem.dilation_h) + "x" + Num(problem.dilation_w) +
                   " is not modelled (CUTLASS's strided dgrad phases assume dilation 1)");
  return Status::Ok();
}

}  // namespace

Status ValidateProgram(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                       const KernelConfig& config, const KernelResources& resources, const GpuArchitecture& arch) {
  UCMOH_RETURN_IF_ERROR(CheckIntrinsicRuns(intrinsic, arch));
  UCMOH_RETURN_IF_ERROR(CheckConvKind(problem, intrinsic));
  UCMOH_RETURN_IF_ERROR(CheckTiling(config, intrinsic.info));
  UCMOH_RETURN_IF_ERROR(CheckAlignment(config, intrinsic, problem));
  return CheckLaunch(config, resources, problem, arch);
}

Expected<const TensorCoreIntrinsic*> ResolveIntrinsic(const Task& task, const std::string& name) {
  const TensorCoreIntrinsic* intrinsic = FindIntrinsic(name);
  if (!intrinsic)
    return Status::NotFound(task.key + ": unknown intrinsic '" + name + "' (tensorcore has " +
                            IntrinsicNameList() + ")");
  return intrinsic;
}

Expected<ConvProblem> ResolveProblem(const Task& task, const TensorCoreIntrinsic& intrinsic) {
  auto problem = ConvProblemFromTask(task);
  if (!problem.ok()) return problem.status().WithContext(task.key);
  const IntrinsicInfo& info = intrinsic.info;
  if (problem->in_type != info.input_type || problem->acc_type != info.accum_type)
    return Status::InvalidArgument(task.key + ": workload is " + problem->in_type + " in / " +
                                   problem->acc_type + " accumulate, but " + info.name + " is " +
                                   info.input_type + " / " + info.accum_type);
  return problem;
}

Expected<TensorCoreProgram> ResolveProgram(const Task& task, const std::string& intrinsic_name,
                                           const ParamMap& schedule, const GpuArchitecture& arch) {
  auto intrinsic = ResolveIntrinsic(task, intrinsic_name);
  if (!intrinsic.ok()) return intrinsic.status();
  auto problem = ResolveProblem(task, **intrinsic);
  if (!problem.ok()) return problem.status();
  auto config = ParseKernelConfig(schedule);
  if (!config.ok()) return config.status().WithContext(task.key);
  TensorCoreProgram program{&arch, *problem, *intrinsic, *config, EstimateResources(*config, **intrinsic, arch)};
  UCMOH_RETURN_IF_ERROR(
      ValidateProgram(program.problem, *program.intrinsic, program.config, program.resources, arch)
          .WithContext(task.key));
  return program;
}

}  // namespace ucmoh::tensorcore
