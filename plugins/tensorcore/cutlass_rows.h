// The two kinds of CUTLASS profiler output the `cutlass` importer reads: the
// conv2d profiler's rows (cutlass_conv_rows.cpp) and the GEMM profiler's
// (cutlass_gemm_rows.cpp). Each returns one record per row that ran, or the
// first bad row's "file:line: what".
#pragma once

#include <string>
#include <vector>

#include "csv_table.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

Expected<std::vector<Record>> ImportConvRows(const CsvTable& table, const std::string& source);
Expected<std::vector<Record>> ImportGemmRows(const CsvTable& table, const std::string& source);

}  // namespace ucmoh::tensorcore
