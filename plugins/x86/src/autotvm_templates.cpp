#include "ucmoh/x86/autotvm_templates.h"

#include <utility>

namespace ucmoh::x86 {

namespace {

struct TemplateSpec {
  AutoTvmTemplate kind;
  const char* name;
  const char* op;
  int y_parts, x_parts, k_parts;  // factors of each split knob (TVM's num_outputs)
};

// topi/x86/dense.py and batch_matmul.py: cfg.define_split(...) of each template.
constexpr TemplateSpec kTemplates[] = {
    {AutoTvmTemplate::kDensePack, "dense_pack.x86", "dense_pack", 3, 3, 2},
    {AutoTvmTemplate::kDenseNopack, "dense_nopack.x86", "dense_nopack", 2, 2, 2},
    {AutoTvmTemplate::kBatchMatmul, "batch_matmul.x86", "batch_matmul", 2, 2, 2},
};

Expected<const TemplateSpec*> FindTemplate(const std::string& name) {
  std::string known;
  for (const TemplateSpec& spec : kTemplates) {
    if (name == spec.name) return &spec;
    known += (known.empty() ? "" : ", ") + std::string(spec.name);
  }
  return Status::Unsupported("template '" + name + "' is not supported (x86 templates: " + known + ")");
}

Status CheckTensor(const AutoTvmArg& arg, size_t rank, const char* what) {
  if (!arg.is_tensor || arg.shape.size() != rank)
    return Status::InvalidArgument(std::string(what) + " is not a " + std::to_string(rank) + "-d tensor");
  if (arg.dtype != "float32")
    return Status::Unsupported(std::string(what) + " is " + arg.dtype + " (only float32 templates are lowered)");
  for (int64_t extent : arg.shape)
    if (extent < 1) return Status::InvalidArgument(std::string(what) + " has an extent below 1");
  return Status::Ok();
}

// dense: data [M, K], weight [N, K]; batch_matmul: x [B, M, K], y [B, N, K].
Expected<cpu_gemm::GemmProblem> ProblemOf(const AutoTvmEntry& entry, const TemplateSpec& spec) {
  const size_t rank = spec.kind == AutoTvmTemplate::kBatchMatmul ? 3 : 2;
  if (entry.args.size() < 2) return Status::InvalidArgument("input[2] has fewer than two arguments");
  UCMOH_RETURN_IF_ERROR(CheckTensor(entry.args[0], rank, "input[2][0]"));
  UCMOH_RETURN_IF_ERROR(CheckTensor(entry.args[1], rank, "input[2][1]"));
  const auto& a = entry.args[0].shape;
  const auto& b = entry.args[1].shape;
  if (a.back() != b.back() || (rank == 3 && a[0] != b[0]))
    return Status::InvalidArgument("input[2]: the operands' shapes do not agree");
  cpu_gemm::GemmProblem p;
  p.batch = rank == 3 ? a[0] : 1;
  p.m = a[rank - 2];
  p.n = b[rank - 2];
  p.k = a.back();
  return p;
}

std::string ShortName(const IntrinsicInfo& intrinsic) {
  return intrinsic.name.substr(intrinsic.name.find('.') + 1);
}

struct SplitKnob {
  const char* name;
  int parts;
  int64_t extent;
};

std::vector<SplitKnob> Splits(const TemplateSpec& spec, const cpu_gemm::GemmProblem& p) {
  return {{"tile_y", spec.y_parts, p.m}, {"tile_x", spec.x_parts, p.n}, {"tile_k", spec.k_parts, p.k}};
}

// Factors with at most one -1 (inferred) whose product is the extent.
Expected<std::vector<int64_t>> ResolveSplit(std::vector<int64_t> factors, const SplitKnob& split) {
  const std::string what = std::string("knob '") + split.name + "'";
  if (static_cast<int>(factors.size()) != split.parts)
    return Status::InvalidArgument(what + " has " + std::to_string(factors.size()) + " factors, the template " +
                                   std::to_string(split.parts));
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i] == -1 && inferred < 0) inferred = static_cast<int>(i);
    else if (factors[i] < 1) return Status::InvalidArgument(what + " has a factor below 1");
    else known *= factors[i];
  }
  if (inferred >= 0 && known > 0 && split.extent % known == 0) factors[static_cast<size_t>(inferred)] = split.extent / known;
  else if (inferred >= 0 || known != split.extent)
    return Status::InvalidArgument(what + "'s factors do not divide its extent " + std::to_string(split.extent));
  return factors;
}

Task TaskOf(const AutoTvmEntry& entry, const TemplateSpec& spec, const cpu_gemm::GemmProblem& p,
            const IntrinsicInfo& intrinsic) {
  Task task;
  task.op = spec.kind == AutoTvmTemplate::kBatchMatmul ? "batch_matmul" : "dense";
  const std::string batch = p.batch > 1 || task.op == "batch_matmul" ? "b" + std::to_string(p.batch) + "_" : "";
  task.key = "autotvm." + std::string(spec.op) + "." + batch + "m" + std::to_string(p.m) + "_n" +
             std::to_string(p.n) + "_k" + std::to_string(p.k) + "." + ShortName(intrinsic);
  task.workload = {{"m", p.m},
                   {"n", p.n},
                   {"k", p.k},
                   {"batch", p.batch},
                   {"in_type", intrinsic.input_type},
                   {"acc_type", intrinsic.accum_type},
                   {kAutoTvmTemplateKey, entry.template_name}};
  return task;
}

Expected<ParamMap> ScheduleOf(const AutoTvmEntry& entry, const TemplateSpec& spec, const cpu_gemm::GemmProblem& p,
                              int64_t threads) {
  for (const AutoTvmKnob& knob : entry.knobs) {
    bool known = false;
    for (const SplitKnob& split : Splits(spec, p)) known = known || knob.name == split.name;
    if (!known || knob.kind != "sp")
      return Status::InvalidArgument("knob '" + knob.name + "' (" + knob.kind + ") is not one of " +
                                     entry.template_name + "'s splits tile_y, tile_x, tile_k");
  }
  ParamMap schedule{{"threads", threads}};
  for (const SplitKnob& split : Splits(spec, p)) {
    const AutoTvmKnob* found = nullptr;
    for (const AutoTvmKnob& knob : entry.knobs) found = knob.name == split.name ? &knob : found;
    if (!found) return Status::InvalidArgument(entry.template_name + " needs knob '" + split.name + "'");
    auto factors = ResolveSplit(found->values, split);
    if (!factors.ok()) return factors.status();
    for (size_t i = 0; i < factors->size(); ++i)
      schedule[std::string(split.name) + "_" + std::to_string(i)] = (*factors)[i];
  }
  return schedule;
}

}  // namespace

bool IsAutoTvmTask(const Task& task) { return task.workload.count(kAutoTvmTemplateKey) > 0; }

Expected<AutoTvmTaskSchedule> AutoTvmTaskScheduleOf(const AutoTvmEntry& entry, const IntrinsicInfo& intrinsic,
                                                    int64_t threads) {
  auto spec = FindTemplate(entry.template_name);
  if (!spec.ok()) return spec.status();
  auto p = ProblemOf(entry, **spec);
  if (!p.ok()) return p.status();
  auto schedule = ScheduleOf(entry, **spec, *p, threads);
  if (!schedule.ok()) return schedule.status();
  return AutoTvmTaskSchedule{TaskOf(entry, **spec, *p, intrinsic), std::move(*schedule)};
}

Expected<AutoTvmProgram> AutoTvmProgramOf(const Task& task, const ParamMap& schedule, const IntrinsicInfo& intrinsic) {
  auto name = GetString(task.workload, kAutoTvmTemplateKey);
  if (!name.ok()) return name.status().WithContext(task.key);
  auto spec = FindTemplate(*name);
  if (!spec.ok()) return spec.status().WithContext(task.key);
  auto problem = cpu_gemm::ProblemFromTask(task, intrinsic);
  if (!problem.ok()) return problem.status();
  AutoTvmProgram program{(*spec)->kind, *problem, {}, {}, {}, 1};
  auto threads = GetInt(schedule, "threads");
  if (!threads.ok() || *threads < 1) return Status::InvalidArgument("schedule key 'threads' must be >= 1").WithContext(task.key);
  program.threads = *threads;
  std::vector<int64_t>* targets[] = {&program.tile_y, &program.tile_x, &program.tile_k};
  int i = 0;
  for (const SplitKnob& split : Splits(**spec, *problem)) {
    std::vector<int64_t> factors;
    for (int part = 0; part < split.parts; ++part) {
      auto factor = GetInt(schedule, std::string(split.name) + "_" + std::to_string(part));
      if (!factor.ok()) return factor.status().WithContext(task.key);
      factors.push_back(*factor);
    }
    auto resolved = ResolveSplit(std::move(factors), split);
    if (!resolved.ok()) return resolved.status().WithContext(task.key);
    *targets[i++] = std::move(*resolved);
  }
  return program;
}

}  // namespace ucmoh::x86
