// What every CUTLASS profiler row says of its kernel, conv2d or gemm: the
// operation name, whether it ran, the instruction shape and accumulator, the
// tile / warp / stage columns, split-K, and the timing. Internal to the
// `cutlass` importer (cutlass_conv_rows.cpp, cutlass_gemm_rows.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "csv_table.h"
#include "cutlass_rows.h"
#include "intrinsics.h"
#include "kernel_config.h"
#include "operation_name.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

// Column indices, resolved by name once per file.
struct KernelColumns {
  size_t operation, disposition, status, op_class, accum;
  size_t cta_m, cta_n, cta_k, stages, warps_m, warps_n, warps_k, inst_m, inst_n, inst_k, split_k_slices;
  std::optional<size_t> split_k_mode;  // absent in older profilers: serial
  size_t bytes, flops, runtime, gflops;
};

Expected<KernelColumns> ResolveKernelColumns(const CsvTable& table);

// The kernel ran and was timed; "incorrect" only means its output missed the
// verifier's tolerance (f16 accumulation over long reductions), not its speed.
bool KernelRan(const CsvRowReader& row, const KernelColumns& cols);

// "file:line: message".
Status RowError(const CsvRowReader& row, const std::string& message);

// "f16:nhwc" -> {"f16", "nhwc"}.
std::pair<std::string, std::string> TypeAndLayout(const std::string& text);

// The row's op_class must be tensorop.
Status CheckTensorOp(const CsvRowReader& row, const KernelColumns& cols);

// The intrinsic of the inst_m / inst_n / inst_k columns and the types; the
// operation name must name the same instruction.
Expected<const TensorCoreIntrinsic*> ReadIntrinsic(const CsvRowReader& row, const KernelColumns& cols,
                                                   const std::string& in_type, const std::string& acc_type,
                                                   const OperationName& op);

// Tile, stages, warps and split-K from the columns (serial split-K only), the
// alignment from the name; the iterator is the caller's.
Expected<KernelConfig> ReadTileConfig(const CsvRowReader& row, const KernelColumns& cols, const OperationName& op);

// The tile and stages the name spells must be the columns'.
Status CheckNameTile(const CsvRowReader& row, const KernelColumns& cols, const OperationName& op,
                     const KernelConfig& config);

// The record of a row: runtime (the profiler's mean, in ms), flops, bytes
// and GFLOPs read, provenance "imported" from the origin's file, with its GPU.
Expected<Record> ImportedRecord(const CsvRowReader& row, const KernelColumns& cols, const ImportOrigin& origin,
                                const TensorCoreIntrinsic& intrinsic, Task task, ParamMap schedule);

// One record per row that ran (KernelRan), each from read(row); the first
// row read fails stops the import with its error.
template <typename ReadRow>
Expected<std::vector<Record>> RecordsOfRowsThatRan(const CsvTable& table, const KernelColumns& cols,
                                                  ReadRow read) {
  std::vector<Record> records;
  for (const CsvRow& csv_row : table.rows()) {
    const CsvRowReader row(table, csv_row);
    if (!KernelRan(row, cols)) continue;
    Expected<Record> record = read(row);
    if (!record.ok()) return record.status();
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace ucmoh::tensorcore
