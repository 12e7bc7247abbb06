#include "cutlass_importer.h"

#include <utility>

#include "conv_problem.h"
#include "csv_table.h"
#include "hardware.h"
#include "kernel_config.h"
#include "kernel_resources.h"
#include "operation_name.h"
#include "program.h"
#include "resnet50_suite.h"

namespace ucmoh::tensorcore {

namespace {

const char* const kTarget = "tensorcore";
const char* const kOtherSuite = "cutlass";  // task-key prefix of layers outside ResNet-50

// Column indices, resolved by name once per file.
struct Columns {
  size_t operation, disposition, status, operation_kind, conv_kind, op_class;
  size_t activation, filter, output, iterator, split_k_mode, split_k_slices, accum;
  size_t cta_m, cta_n, cta_k, stages, warps_m, warps_n, warps_k, inst_m, inst_n, inst_k;
  size_t bytes, flops, runtime, gflops;
  std::vector<std::pair<std::string, size_t>> problem;  // n, h, ..., dilation_w
};

Expected<Columns> ResolveColumns(const CsvTable& table) {
  Columns cols{};
  const std::pair<const char*, size_t*> named[] = {
      {"Operation", &cols.operation},       {"Disposition", &cols.disposition},
      {"Status", &cols.status},             {"OperationKind", &cols.operation_kind},
      {"conv_kind", &cols.conv_kind},       {"op_class", &cols.op_class},
      {"Activation", &cols.activation},     {"Filter", &cols.filter},
      {"Output", &cols.output},             {"iterator_algorithm", &cols.iterator},
      {"split_k_mode", &cols.split_k_mode}, {"split_k_slices", &cols.split_k_slices},
      {"accum", &cols.accum},               {"cta_m", &cols.cta_m},
      {"cta_n", &cols.cta_n},               {"cta_k", &cols.cta_k},
      {"stages", &cols.stages},             {"warps_m", &cols.warps_m},
      {"warps_n", &cols.warps_n},           {"warps_k", &cols.warps_k},
      {"inst_m", &cols.inst_m},             {"inst_n", &cols.inst_n},
      {"inst_k", &cols.inst_k},             {"Bytes", &cols.bytes},
      {"Flops", &cols.flops},               {"Runtime", &cols.runtime},
      {"GFLOPs", &cols.gflops},
  };
  for (const auto& [name, index] : named) {
    auto column = table.Column(name);
    if (!column.ok()) return column.status();
    *index = *column;
  }
  for (const char* name : {"n", "h", "w", "c", "k", "r", "s", "p", "q", "pad_h", "pad_w",
                           "stride_h", "stride_w", "dilation_h", "dilation_w"}) {
    auto column = table.Column(name);
    if (!column.ok()) return column.status();
    cols.problem.emplace_back(name, *column);
  }
  return cols;
}

// The kernel ran and was timed; "incorrect" only means its output missed the
// verifier's tolerance (f16 accumulation over long reductions), not its speed.
bool KernelRan(const CsvRowReader& row, const Columns& cols) {
  const std::string& disposition = row.Text(cols.disposition);
  return row.Text(cols.status) == "success" &&
         (disposition == "passed" || disposition == "incorrect" || disposition == "not_verified");
}

Status RowError(const CsvRowReader& row, const std::string& message) {
  return Status::InvalidArgument(row.Where() + ": " + message);
}

// "f16:nhwc" -> {"f16", "nhwc"}.
std::pair<std::string, std::string> TypeAndLayout(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

// A tensor-op conv2d kernel of one of the kinds the plugin lowers.
Expected<ConvKind> ReadKernelKind(const CsvRowReader& row, const Columns& cols) {
  const std::pair<size_t, const char*> expected[] = {{cols.operation_kind, "conv2d"},
                                                     {cols.op_class, "tensorop"}};
  for (const auto& [column, value] : expected)
    if (row.Text(column) != value)
      return RowError(row, "'" + row.Text(column) + "' is not supported (only " + value + ")");
  auto kind = ParseConvKind(row.Text(cols.conv_kind));
  if (!kind.ok()) return RowError(row, "column 'conv_kind': " + kind.status().message());
  return kind;
}

// The conv profiler's Activation, Filter and Output columns name the tensors
// x, w and y, not the GEMM operands: fprop reads x and w and writes y; dgrad
// reads dy and w and writes dx (Activation carries the output type); wgrad
// reads dy and x and writes dw (Filter carries it).
struct TensorColumn {
  const char* name;  // as the error names it
  size_t column;
};
struct TensorRoles {
  TensorColumn read[2];
  TensorColumn written;
};

TensorRoles RolesOf(ConvKind kind, const Columns& cols) {
  const TensorColumn x{"Activation (x)", cols.activation}, w{"Filter (w)", cols.filter}, y{"Output (y)", cols.output};
  switch (kind) {
    case ConvKind::kDgrad: return {{{"Output (dy)", cols.output}, w}, {"Activation (dx)", cols.activation}};
    case ConvKind::kWgrad: return {{{"Output (dy)", cols.output}, x}, {"Filter (dw)", cols.filter}};
    case ConvKind::kFprop: break;
  }
  return {{x, w}, y};
}

Expected<ConvProblem> ReadProblem(const CsvRowReader& row, const Columns& cols, ConvKind kind) {
  ParamMap workload;
  for (const auto& [name, column] : cols.problem) {
    auto value = row.Int(column);
    if (!value.ok()) return value.status();
    workload[name] = *value;
  }
  const TensorRoles roles = RolesOf(kind, cols);
  const auto [a_type, a_layout] = TypeAndLayout(row.Text(roles.read[0].column));
  const auto [b_type, b_layout] = TypeAndLayout(row.Text(roles.read[1].column));
  const auto [out_type, out_layout] = TypeAndLayout(row.Text(roles.written.column));
  if (a_type != b_type)
    return RowError(row, std::string("a ") + ConvKindName(kind) + " kernel reads " + roles.read[0].name + " " + a_type +
                             " and " + roles.read[1].name + " " + b_type + ": their types differ");
  for (const std::string& layout : {a_layout, b_layout, out_layout})
    if (layout != "nhwc") return RowError(row, "layout '" + layout + "' is not supported (only nhwc)");
  workload["in_type"] = a_type;
  workload["acc_type"] = row.Text(cols.accum);
  workload["out_type"] = out_type;
  auto problem = ConvProblemFromTask(Task{"", "conv2d", workload});
  if (!problem.ok()) return problem.status().WithContext(row.Where());
  problem->kind = kind;
  return problem;
}

Expected<const TensorCoreIntrinsic*> ReadIntrinsic(const CsvRowReader& row, const Columns& cols,
                                                   const ConvProblem& problem, const OperationName& op) {
  int64_t shape[3];
  const size_t shape_cols[3] = {cols.inst_m, cols.inst_n, cols.inst_k};
  for (int i = 0; i < 3; ++i) {
    auto value = row.Int(shape_cols[i]);
    if (!value.ok()) return value.status();
    shape[i] = *value;
  }
  const TensorCoreIntrinsic* intrinsic =
      FindIntrinsicByShape(shape[0], shape[1], shape[2], problem.in_type, problem.acc_type);
  const std::string described = "m" + std::to_string(shape[0]) + "n" + std::to_string(shape[1]) +
                                "k" + std::to_string(shape[2]) + " " + problem.in_type + "/" +
                                problem.acc_type;
  if (!intrinsic) return RowError(row, "no tensorcore intrinsic is " + described);
  // The operation name repeats the instruction ("cutlass_tensorop_s1688fprop_..."): it must agree.
  if (op.instruction != intrinsic->short_name)
    return RowError(row, "operation '" + row.Text(cols.operation) + "' names " + op.instruction +
                             " but the columns say " + described + " (" + intrinsic->short_name + ")");
  return intrinsic;
}

Expected<KernelConfig> ReadConfig(const CsvRowReader& row, const Columns& cols, const OperationName& op) {
  KernelConfig config;
  const std::pair<size_t, int64_t*> ints[] = {
      {cols.cta_m, &config.cta_m},     {cols.cta_n, &config.cta_n},
      {cols.cta_k, &config.cta_k},     {cols.stages, &config.stages},
      {cols.warps_m, &config.warps_m}, {cols.warps_n, &config.warps_n},
      {cols.warps_k, &config.warps_k}, {cols.split_k_slices, &config.split_k_slices}};
  for (const auto& [column, member] : ints) {
    auto value = row.Int(column);
    if (!value.ok()) return value.status();
    if (!KernelValueInRange(*value))
      return row.Error(column, "must be in [1, " + std::to_string(kMaxKernelValue) + "]");
    *member = *value;
  }
  config.alignment = op.alignment;
  const std::string& iterator = row.Text(cols.iterator);
  if (iterator != "optimized" && iterator != "analytic")
    return RowError(row, "iterator_algorithm '" + iterator + "' is not supported (optimized or analytic)");
  config.optimized_iterator = iterator == "optimized";
  if (config.split_k_slices > 1 && row.Text(cols.split_k_mode) != "serial")
    return RowError(row, "split_k_mode '" + row.Text(cols.split_k_mode) + "' is not supported (only serial)");
  return config;
}

// The rest of what the kernel name spells must be what the columns say: a
// dgrad kernel timed on a row that says wgrad, or a tile the columns do not
// have, is a row that cannot be trusted. A unity-stride kernel cannot run a
// strided problem (CUTLASS's can_implement refuses it).
Status CheckOperationAgreesWithRow(const CsvRowReader& row, const std::string& name, const OperationName& op,
                                   const ConvProblem& problem, const KernelConfig& config) {
  auto disagree = [&](const std::string& what) { return RowError(row, "operation '" + name + "' " + what); };
  const std::string kind = ConvKindName(problem.kind);
  if (op.kind != kind) return disagree("is a " + op.kind + " kernel but conv_kind is '" + kind + "'");
  if (op.iterator != config.iterator())
    return disagree("has the " + op.iterator + " iterator but iterator_algorithm is '" + config.iterator() + "'");
  const auto tile = [](int64_t m, int64_t n, int64_t k, int64_t stages) {
    return std::to_string(m) + "x" + std::to_string(n) + "_" + std::to_string(k) + "x" + std::to_string(stages);
  };
  const std::string named = tile(op.cta_m, op.cta_n, op.cta_k, op.stages);
  const std::string columns = tile(config.cta_m, config.cta_n, config.cta_k, config.stages);
  if (named != columns)
    return disagree("names tile " + named + " but the cta_m, cta_n, cta_k and stages columns say " + columns);
  if (op.layout != "nhwc") return disagree("has layout '" + op.layout + "' (only nhwc is supported)");
  if (!op.element_a.empty() && op.element_a != problem.in_type)
    return disagree("names element " + op.element_a + " but the tensors it reads are " + problem.in_type);
  if (!op.element_c.empty() && op.element_c != problem.out_type)
    return disagree("names output element " + op.element_c + " but the tensor it writes is " + problem.out_type);
  if (op.unity_stride && (problem.stride_h != 1 || problem.stride_w != 1))
    return disagree("is a unity-stride kernel but the problem has stride " + std::to_string(problem.stride_h) +
                    "x" + std::to_string(problem.stride_w));
  return Status::Ok();
}

Expected<Record> ReadRecord(const CsvRowReader& row, const Columns& cols, const std::string& source) {
  auto kind = ReadKernelKind(row, cols);
  if (!kind.ok()) return kind.status();
  auto op = ParseOperationName(row.Text(cols.operation));
  if (!op.ok()) return op.status().WithContext(row.Where());
  auto problem = ReadProblem(row, cols, *kind);
  if (!problem.ok()) return problem.status();
  auto intrinsic = ReadIntrinsic(row, cols, *problem, *op);
  if (!intrinsic.ok()) return intrinsic.status();
  auto config = ReadConfig(row, cols, *op);
  if (!config.ok()) return config.status();
  UCMOH_RETURN_IF_ERROR(CheckOperationAgreesWithRow(row, row.Text(cols.operation), *op, *problem, *config));
  const GpuArchitecture& arch = DefaultArchitecture();  // the data's GPU (kCutlassDevice)
  UCMOH_RETURN_IF_ERROR(ValidateProgram(*problem, **intrinsic, *config, EstimateResources(*config, **intrinsic, arch), arch)
                            .WithContext(row.Where()));
  auto runtime_ms = row.Real(cols.runtime);
  if (!runtime_ms.ok()) return runtime_ms.status();
  if (*runtime_ms <= 0) return row.Error(cols.runtime, "must be positive");
  auto flops = row.Int(cols.flops);
  if (!flops.ok()) return flops.status();
  auto bytes = row.Int(cols.bytes);
  if (!bytes.ok()) return bytes.status();
  auto gflops = row.Real(cols.gflops);
  if (!gflops.ok()) return gflops.status();

  Record record;
  record.target = kTarget;
  record.intrinsic = (*intrinsic)->info.name;
  record.task = MakeConvTask(IsResnet50Layer(*problem) ? kResnet50Suite : kOtherSuite, *problem, **intrinsic);
  record.schedule = ScheduleParams(*config, **intrinsic, problem->kind);
  record.schedule["operation"] = row.Text(cols.operation);
  // The profiler prints one number, the mean over its timed iterations.
  const double seconds = *runtime_ms / 1000.0;
  record.latency = LatencyStats{seconds, seconds, seconds, 0.0, 1};
  record.provenance.kind = "imported";
  record.provenance.source = source;
  record.provenance.details = {
      {"line", row.line()},
      {"device", std::string(kCutlassDevice)},
      {"source_repo", std::string(kCutlassSourceRepo)},
      {"disposition", row.Text(cols.disposition)},
      {"flops", *flops},
      {"bytes", *bytes},
      {"gflops", *gflops},
  };
  record.hardware = TensorCoreTarget().hardware;  // the data's GPU (kCutlassDevice)
  return record;
}

}  // namespace

Expected<std::vector<Record>> ImportCutlassCsv(const std::string& path) {
  auto table = CsvTable::Read(path);
  if (!table.ok()) return table.status();
  auto cols = ResolveColumns(*table);
  if (!cols.ok()) return cols.status();
  const std::string source = path.substr(path.find_last_of('/') + 1);
  std::vector<Record> records;
  for (const CsvRow& csv_row : table->rows()) {
    const CsvRowReader row(*table, csv_row);
    if (!KernelRan(row, *cols)) continue;
    auto record = ReadRecord(row, *cols, source);
    if (!record.ok()) return record.status();
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace ucmoh::tensorcore
