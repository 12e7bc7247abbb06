#include "cutlass_row_fields.h"

#include "cutlass_importer.h"

namespace ucmoh::tensorcore {

Expected<KernelColumns> ResolveKernelColumns(const CsvTable& table) {
  KernelColumns cols{};
  const std::pair<const char*, size_t*> named[] = {
      {"Operation", &cols.operation},     {"Disposition", &cols.disposition},
      {"Status", &cols.status},           {"op_class", &cols.op_class},
      {"accum", &cols.accum},             {"cta_m", &cols.cta_m},
      {"cta_n", &cols.cta_n},             {"cta_k", &cols.cta_k},
      {"stages", &cols.stages},           {"warps_m", &cols.warps_m},
      {"warps_n", &cols.warps_n},         {"warps_k", &cols.warps_k},
      {"inst_m", &cols.inst_m},           {"inst_n", &cols.inst_n},
      {"inst_k", &cols.inst_k},           {"split_k_slices", &cols.split_k_slices},
      {"Bytes", &cols.bytes},             {"Flops", &cols.flops},
      {"Runtime", &cols.runtime},         {"GFLOPs", &cols.gflops},
  };
  for (const auto& [name, index] : named) {
    auto column = table.Column(name);
    if (!column.ok()) return column.status();
    *index = *column;
  }
  if (auto mode = table.Column("split_k_mode"); mode.ok()) cols.split_k_mode = *mode;
  return cols;
}

bool KernelRan(const CsvRowReader& row, const KernelColumns& cols) {
  const std::string& disposition = row.Text(cols.disposition);
  return row.Text(cols.status) == "success" &&
         (disposition == "passed" || disposition == "incorrect" || disposition == "not_verified");
}

Status RowError(const CsvRowReader& row, const std::string& message) {
  return Status::InvalidArgument(row.Where() + ": " + message);
}

std::pair<std::string, std::string> TypeAndLayout(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

Status CheckTensorOp(const CsvRowReader& row, const KernelColumns& cols) {
  if (row.Text(cols.op_class) != "tensorop")
    return RowError(row, "'" + row.Text(cols.op_class) + "' is not supported (only tensorop)");
  return Status::Ok();
}

Expected<const TensorCoreIntrinsic*> ReadIntrinsic(const CsvRowReader& row, const KernelColumns& cols,
                                                   const std::string& in_type, const std::string& acc_type,
                                                   const OperationName& op) {
  int64_t shape[3];
  const size_t shape_cols[3] = {cols.inst_m, cols.inst_n, cols.inst_k};
  for (int i = 0; i < 3; ++i) {
    auto value = row.Int(shape_cols[i]);
    if (!value.ok()) return value.status();
    shape[i] = *value;
  }
  const TensorCoreIntrinsic* intrinsic = FindIntrinsicByShape(shape[0], shape[1], shape[2], in_type, acc_type);
  const std::string described = "m" + std::to_string(shape[0]) + "n" + std::to_string(shape[1]) + "k" +
                                std::to_string(shape[2]) + " " + in_type + "/" + acc_type;
  if (!intrinsic) return RowError(row, "no tensorcore intrinsic is " + described);
  // The operation name repeats the instruction ("cutlass_tensorop_s1688fprop_..."): it must agree.
  if (op.instruction != intrinsic->short_name)
    return RowError(row, "operation '" + row.Text(cols.operation) + "' names " + op.instruction +
                             " but the columns say " + described + " (" + intrinsic->short_name + ")");
  return intrinsic;
}

Expected<KernelConfig> ReadTileConfig(const CsvRowReader& row, const KernelColumns& cols, const OperationName& op) {
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
  const std::string mode = cols.split_k_mode ? row.Text(*cols.split_k_mode) : "serial";
  if (config.split_k_slices > 1 && mode != "serial")
    return RowError(row, "split_k_mode '" + mode + "' is not supported (only serial)");
  return config;
}

Status CheckNameTile(const CsvRowReader& row, const KernelColumns& cols, const OperationName& op,
                     const KernelConfig& config) {
  const auto tile = [](int64_t m, int64_t n, int64_t k, int64_t stages) {
    return std::to_string(m) + "x" + std::to_string(n) + "_" + std::to_string(k) + "x" + std::to_string(stages);
  };
  const std::string named = tile(op.cta_m, op.cta_n, op.cta_k, op.stages);
  const std::string columns = tile(config.cta_m, config.cta_n, config.cta_k, config.stages);
  if (named == columns) return Status::Ok();
  return RowError(row, "operation '" + row.Text(cols.operation) + "' names tile " + named +
                           " but the cta_m, cta_n, cta_k and stages columns say " + columns);
}

Expected<Record> ImportedRecord(const CsvRowReader& row, const KernelColumns& cols, const ImportOrigin& origin,
                                const TensorCoreIntrinsic& intrinsic, Task task, ParamMap schedule) {
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
  record.target = "tensorcore";
  record.intrinsic = intrinsic.info.name;
  record.task = std::move(task);
  record.schedule = std::move(schedule);
  record.schedule["operation"] = row.Text(cols.operation);
  // The profiler prints one number, the mean over its timed iterations.
  const double seconds = *runtime_ms / 1000.0;
  record.latency = LatencyStats{seconds, seconds, seconds, 0.0, 1};
  record.provenance.kind = "imported";
  record.provenance.source = origin.source;
  record.provenance.details = {
      {"line", row.line()},
      {"device", origin.public_data ? std::string(kCutlassDevice) : origin.hardware.model},
      {"disposition", row.Text(cols.disposition)},
      {"flops", *flops},
      {"bytes", *bytes},
      {"gflops", *gflops},
  };
  if (origin.public_data) record.provenance.details["source_repo"] = std::string(kCutlassSourceRepo);
  record.hardware = origin.hardware;
  return record;
}

}  // namespace ucmoh::tensorcore
