// Conv2d profiler output (`cutlass_profiler --operation=conv2d`): fprop,
// dgrad and wgrad rows of tensor-op implicit-GEMM kernels, each typed by the
// tensor it writes, checked against its kernel name, and validated on the
// data's GPU before it becomes a record of its conv task.
#include <utility>

#include "conv_problem.h"
#include "cutlass_row_fields.h"
#include "cutlass_rows.h"
#include "kernel_resources.h"
#include "program.h"
#include "resnet50_suite.h"

namespace ucmoh::tensorcore {

namespace {

const char* const kOtherSuite = "cutlass";  // task-key prefix of layers outside ResNet-50

// The conv2d profiler's own columns.
struct ConvColumns {
  KernelColumns kernel;
  size_t operation_kind, conv_kind, activation, filter, output, iterator;
  std::vector<std::pair<std::string, size_t>> problem;  // n, h, ..., dilation_w
};

Expected<ConvColumns> ResolveConvColumns(const CsvTable& table) {
  ConvColumns cols{};
  auto kernel = ResolveKernelColumns(table);
  if (!kernel.ok()) return kernel.status();
  cols.kernel = *kernel;
  const std::pair<const char*, size_t*> named[] = {
      {"OperationKind", &cols.operation_kind}, {"conv_kind", &cols.conv_kind},
      {"Activation", &cols.activation},        {"Filter", &cols.filter},
      {"Output", &cols.output},                {"iterator_algorithm", &cols.iterator},
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

// A tensor-op conv2d kernel of one of the kinds the plugin lowers.
Expected<ConvKind> ReadKernelKind(const CsvRowReader& row, const ConvColumns& cols) {
  if (row.Text(cols.operation_kind) != "conv2d")
    return RowError(row, "'" + row.Text(cols.operation_kind) + "' is not supported (only conv2d)");
  UCMOH_RETURN_IF_ERROR(CheckTensorOp(row, cols.kernel));
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

TensorRoles RolesOf(ConvKind kind, const ConvColumns& cols) {
  const TensorColumn x{"Activation (x)", cols.activation}, w{"Filter (w)", cols.filter}, y{"Output (y)", cols.output};
  switch (kind) {
    case ConvKind::kDgrad: return {{{"Output (dy)", cols.output}, w}, {"Activation (dx)", cols.activation}};
    case ConvKind::kWgrad: return {{{"Output (dy)", cols.output}, x}, {"Filter (dw)", cols.filter}};
    case ConvKind::kFprop: break;
  }
  return {{x, w}, y};
}

Expected<ConvProblem> ReadProblem(const CsvRowReader& row, const ConvColumns& cols, ConvKind kind) {
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
  workload["acc_type"] = row.Text(cols.kernel.accum);
  workload["out_type"] = out_type;
  auto problem = ConvProblemFromTask(Task{"", "conv2d", workload});
  if (!problem.ok()) return problem.status().WithContext(row.Where());
  problem->kind = kind;
  return problem;
}

// The conv kernel's iterator, on top of the tile columns.
Expected<KernelConfig> ReadConfig(const CsvRowReader& row, const ConvColumns& cols, const OperationName& op) {
  auto config = ReadTileConfig(row, cols.kernel, op);
  if (!config.ok()) return config.status();
  const std::string& iterator = row.Text(cols.iterator);
  if (iterator != "optimized" && iterator != "analytic")
    return RowError(row, "iterator_algorithm '" + iterator + "' is not supported (optimized or analytic)");
  config->optimized_iterator = iterator == "optimized";
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
  if (op.kind == "gemm") return disagree("is a gemm kernel in conv2d profiler output");
  if (op.kind != kind) return disagree("is a " + op.kind + " kernel but conv_kind is '" + kind + "'");
  if (op.iterator != config.iterator())
    return disagree("has the " + op.iterator + " iterator but iterator_algorithm is '" + config.iterator() + "'");
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

Expected<Record> ReadRecord(const CsvRowReader& row, const ConvColumns& cols, const ImportOrigin& origin) {
  auto kind = ReadKernelKind(row, cols);
  if (!kind.ok()) return kind.status();
  auto op = ParseOperationName(row.Text(cols.kernel.operation));
  if (!op.ok()) return op.status().WithContext(row.Where());
  auto problem = ReadProblem(row, cols, *kind);
  if (!problem.ok()) return problem.status();
  auto intrinsic = ReadIntrinsic(row, cols.kernel, problem->in_type, problem->acc_type, *op);
  if (!intrinsic.ok()) return intrinsic.status();
  auto config = ReadConfig(row, cols, *op);
  if (!config.ok()) return config.status();
  UCMOH_RETURN_IF_ERROR(CheckOperationAgreesWithRow(row, row.Text(cols.kernel.operation), *op, *problem, *config));
  UCMOH_RETURN_IF_ERROR(CheckNameTile(row, cols.kernel, *op, *config));
  const GpuArchitecture& arch = *origin.arch;
  UCMOH_RETURN_IF_ERROR(ValidateProgram(*problem, **intrinsic, *config, EstimateResources(*config, **intrinsic, arch), arch)
                            .WithContext(row.Where()));
  return ImportedRecord(row, cols.kernel, origin, **intrinsic,
                        MakeConvTask(IsResnet50Layer(*problem) ? kResnet50Suite : kOtherSuite, *problem, **intrinsic),
                        ScheduleParams(*config, **intrinsic, problem->kind));
}

}  // namespace

Expected<std::vector<Record>> ImportConvRows(const CsvTable& table, const ImportOrigin& origin) {
  auto cols = ResolveConvColumns(table);
  if (!cols.ok()) return cols.status();
  return RecordsOfRowsThatRan(table, cols->kernel,
                              [&](const CsvRowReader& row) { return ReadRecord(row, *cols, origin); });
}

}  // namespace ucmoh::tensorcore
