#include "cutlass_importer.h"

#include <fstream>
#include <sstream>

#include "csv_table.h"
#include "cutlass_rows.h"
#include "hardware.h"
#include "ucmoh/hardware_json.h"

namespace ucmoh::tensorcore {

namespace {

// The GPU of a file: PATH.gpu.json beside it when present (a record's
// "hardware" object, e.g. from `tensorcore-measure --describe-gpu`), which
// must name an architecture the plugin models; else the RTX 3070 of the
// public data.
Expected<ImportOrigin> OriginOf(const std::string& path) {
  ImportOrigin origin;
  origin.source = path.substr(path.find_last_of('/') + 1);
  const std::string gpu_path = path + ".gpu.json";
  std::ifstream file(gpu_path);
  if (!file) {
    origin.hardware = TensorCoreTarget().hardware;
    origin.arch = &DefaultArchitecture();
    return origin;
  }
  std::stringstream text;
  text << file.rdbuf();
  const auto json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::InvalidArgument(gpu_path + ": not JSON");
  auto hardware = HardwareFromJson(json);
  if (!hardware.ok()) return hardware.status().WithContext(gpu_path);
  auto arch = ArchitectureOf(*hardware);
  if (!arch.ok()) return arch.status().WithContext(gpu_path);
  origin.hardware = std::move(*hardware);
  origin.arch = *arch;
  origin.public_data = false;
  return origin;
}

}  // namespace

Expected<std::vector<Record>> ImportCutlassCsv(const std::string& path) {
  auto table = CsvTable::Read(path);
  if (!table.ok()) return table.status();
  auto origin = OriginOf(path);
  if (!origin.ok()) return origin.status();
  // The profiler writes one file per operation kind; the columns say which.
  if (table->Column("conv_kind").ok()) return ImportConvRows(*table, *origin);
  if (table->Column("gemm_kind").ok()) return ImportGemmRows(*table, *origin);
  return Status::InvalidArgument(path + ": missing column 'conv_kind' (conv2d profiler output) or 'gemm_kind' "
                                        "(gemm profiler output)");
}

}  // namespace ucmoh::tensorcore
