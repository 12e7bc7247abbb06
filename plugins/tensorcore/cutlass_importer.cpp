#include "cutlass_importer.h"

#include "csv_table.h"
#include "cutlass_rows.h"

namespace ucmoh::tensorcore {

Expected<std::vector<Record>> ImportCutlassCsv(const std::string& path) {
  auto table = CsvTable::Read(path);
  if (!table.ok()) return table.status();
  const std::string source = path.substr(path.find_last_of('/') + 1);
  // The profiler writes one file per operation kind; the columns say which.
  if (table->Column("conv_kind").ok()) return ImportConvRows(*table, source);
  if (table->Column("gemm_kind").ok()) return ImportGemmRows(*table, source);
  return Status::InvalidArgument(path + ": missing column 'conv_kind' (conv2d profiler output) or 'gemm_kind' "
                                        "(gemm profiler output)");
}

}  // namespace ucmoh::tensorcore
