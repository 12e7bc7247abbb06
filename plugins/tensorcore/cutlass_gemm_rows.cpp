// GEMM profiler output (`cutlass_profiler --operation=gemm`): each row a
// tensor-op GEMM D = A B of m x n x k, lowered as the 1x1 conv2d fprop whose
// implicit GEMM it is: with A row-major (m x k, k contiguous) and B
// column-major (k x n, k contiguous), the "tn" kernels, A is NHWC activations
// of n = m images of 1 x 1 pixels and c = k channels, B is KRSC filters of
// k = n outputs, and D is the NPQK output. The other operand layouts read
// memory in another order, which no conv the plugin lowers does: refused by
// name. A batched GEMM (batch_count B) is lowered as one of B * m rows: each
// thread block runs the same program on one tile of one batch; that B is not
// shared across batches the tokens do not see.
#include "bert_suite.h"
#include "conv_problem.h"
#include "cutlass_row_fields.h"
#include "cutlass_rows.h"
#include "kernel_resources.h"
#include "program.h"

namespace ucmoh::tensorcore {

namespace {

const char* const kGemmSuite = "gemm";  // task-key prefix of GEMMs outside the bert suite

struct GemmColumns {
  KernelColumns kernel;
  size_t operation_kind, gemm_kind, m, n, k, a, b, c;
  std::optional<size_t> batch_count;
};

Expected<GemmColumns> ResolveGemmColumns(const CsvTable& table) {
  GemmColumns cols{};
  auto kernel = ResolveKernelColumns(table);
  if (!kernel.ok()) return kernel.status();
  cols.kernel = *kernel;
  const std::pair<const char*, size_t*> named[] = {
      {"OperationKind", &cols.operation_kind}, {"gemm_kind", &cols.gemm_kind}, {"m", &cols.m}, {"n", &cols.n},
      {"k", &cols.k}, {"A", &cols.a}, {"B", &cols.b}, {"C", &cols.c}};
  for (const auto& [name, index] : named) {
    auto column = table.Column(name);
    if (!column.ok()) return column.status();
    *index = *column;
  }
  if (auto batch = table.Column("batch_count"); batch.ok()) cols.batch_count = *batch;
  return cols;
}

Status CheckGemmKind(const CsvRowReader& row, const GemmColumns& cols) {
  if (row.Text(cols.operation_kind) != "gemm")
    return RowError(row, "'" + row.Text(cols.operation_kind) + "' is not supported (only gemm in gemm output)");
  UCMOH_RETURN_IF_ERROR(CheckTensorOp(row, cols.kernel));
  const std::string& kind = row.Text(cols.gemm_kind);
  if (kind != "universal" && kind != "gemm" && kind != "batched")
    return RowError(row, "gemm_kind '" + kind + "' is not supported (universal, gemm or batched)");
  return Status::Ok();
}

// A (row-major) and B (column-major): the operands of the conv's implicit GEMM.
Expected<ConvProblem> ReadGemmProblem(const CsvRowReader& row, const GemmColumns& cols) {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const std::pair<size_t, int64_t*> sizes[] = {{cols.m, &m}, {cols.n, &n}, {cols.k, &k}};
  for (const auto& [column, member] : sizes) {
    auto value = row.Int(column);
    if (!value.ok()) return value.status();
    if (*value < 1) return row.Error(column, "must be positive");
    *member = *value;
  }
  if (cols.batch_count) {
    auto value = row.Int(*cols.batch_count);
    if (!value.ok()) return value.status();
    if (*value < 1) return row.Error(*cols.batch_count, "must be positive");
    batch = *value;
  }
  const auto [a_type, a_layout] = TypeAndLayout(row.Text(cols.a));
  const auto [b_type, b_layout] = TypeAndLayout(row.Text(cols.b));
  const auto [c_type, c_layout] = TypeAndLayout(row.Text(cols.c));
  if (a_type != b_type) return RowError(row, "A is " + a_type + " and B is " + b_type + ": their types differ");
  if (a_layout != "row" || b_layout != "column" || c_layout != "row")
    return RowError(row, "layouts A " + a_layout + ", B " + b_layout + ", C " + c_layout +
                             " are not supported (only A row, B column, C row: the 'tn' kernels, which are the "
                             "implicit GEMM of a 1x1 conv)");
  ConvProblem problem;
  problem.n = batch * m;
  problem.c = k;
  problem.k = n;
  problem.in_type = a_type;
  problem.acc_type = row.Text(cols.kernel.accum);
  problem.out_type = c_type;
  ComputeOutputSize(problem);
  return problem;
}

Status CheckNameAgrees(const CsvRowReader& row, const GemmColumns& cols, const OperationName& op,
                       const ConvProblem& problem) {
  auto disagree = [&](const std::string& what) {
    return RowError(row, "operation '" + row.Text(cols.kernel.operation) + "' " + what);
  };
  if (op.kind != "gemm") return disagree("is a " + op.kind + " kernel in gemm profiler output");
  if (op.layout != "tn") return disagree("has layouts '" + op.layout + "' but the A, B columns say tn");
  if (!op.element_a.empty() && op.element_a != problem.in_type)
    return disagree("names element " + op.element_a + " but A and B are " + problem.in_type);
  if (!op.element_c.empty() && op.element_c != problem.out_type)
    return disagree("names output element " + op.element_c + " but C is " + problem.out_type);
  return Status::Ok();
}

Expected<Record> ReadGemmRecord(const CsvRowReader& row, const GemmColumns& cols, const ImportOrigin& origin) {
  UCMOH_RETURN_IF_ERROR(CheckGemmKind(row, cols));
  auto op = ParseOperationName(row.Text(cols.kernel.operation));
  if (!op.ok()) return op.status().WithContext(row.Where());
  auto problem = ReadGemmProblem(row, cols);
  if (!problem.ok()) return problem.status();
  UCMOH_RETURN_IF_ERROR(CheckNameAgrees(row, cols, *op, *problem));
  auto intrinsic = ReadIntrinsic(row, cols.kernel, problem->in_type, problem->acc_type, *op);
  if (!intrinsic.ok()) return intrinsic.status();
  auto config = ReadTileConfig(row, cols.kernel, *op);
  if (!config.ok()) return config.status();
  config->optimized_iterator = true;  // a GEMM's operand iterators step pointers; they never divide
  UCMOH_RETURN_IF_ERROR(CheckNameTile(row, cols.kernel, *op, *config));
  const GpuArchitecture& arch = *origin.arch;
  UCMOH_RETURN_IF_ERROR(
      ValidateProgram(*problem, **intrinsic, *config, EstimateResources(*config, **intrinsic, arch), arch)
          .WithContext(row.Where()));
  const char* suite = IsBertGemm(*problem) ? kBertSuite : kGemmSuite;
  return ImportedRecord(row, cols.kernel, origin, **intrinsic, MakeConvTask(suite, *problem, **intrinsic),
                        ScheduleParams(*config, **intrinsic, ConvKind::kFprop));
}

}  // namespace

Expected<std::vector<Record>> ImportGemmRows(const CsvTable& table, const ImportOrigin& origin) {
  auto cols = ResolveGemmColumns(table);
  if (!cols.ok()) return cols.status();
  return RecordsOfRowsThatRan(table, cols->kernel,
                              [&](const CsvRowReader& row) { return ReadGemmRecord(row, *cols, origin); });
}

}  // namespace ucmoh::tensorcore
