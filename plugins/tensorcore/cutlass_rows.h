// The two kinds of CUTLASS profiler output the `cutlass` importer reads: the
// conv2d profiler's rows (cutlass_conv_rows.cpp) and the GEMM profiler's
// (cutlass_gemm_rows.cpp). Each returns one record per row that ran, or the
// first bad row's "file:line: what".
#pragma once

#include <string>
#include <vector>

#include "csv_table.h"
#include "gpu_architecture.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

// Where a file's rows come from: its name, and the GPU that ran them (its
// hardware and architecture, which validates every kernel).
struct ImportOrigin {
  std::string source;  // the file's basename
  HardwareParams hardware;
  const GpuArchitecture* arch = nullptr;
  bool public_data = true;  // the RTX 3070 of ../shared/data (no PATH.gpu.json)
};

Expected<std::vector<Record>> ImportConvRows(const CsvTable& table, const ImportOrigin& origin);
Expected<std::vector<Record>> ImportGemmRows(const CsvTable& table, const ImportOrigin& origin);

}  // namespace ucmoh::tensorcore
