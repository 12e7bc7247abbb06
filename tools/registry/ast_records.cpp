#include "ast_records.h"

#include <fmt/format.h>

#include "ucmoh/ast_program.h"
#include "ucmoh/file_bytes.h"

namespace ucmoh::cli {

Expected<std::vector<Record>> AstRecords(const PluginSet& plugins, const std::string& file, const std::string& kind,
                                         const std::string& source, const std::string& format) {
  auto text = ReadFileBytes(file);
  if (!text.ok()) return text.status();
  auto programs = ParseAstPrograms(*text, plugins);
  if (!programs.ok()) return programs.status().WithContext(source);
  std::vector<Record> records;
  for (size_t i = 0; i < programs->size(); ++i) {
    Provenance provenance{kind, source, {{"format", format}, {"program", static_cast<int64_t>(i + 1)}}};
    auto record = AstProgramAsRecord(plugins, (*programs)[i], std::move(provenance));
    if (!record.ok()) return record.status().WithContext(fmt::format("{}: program {}", source, i + 1));
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace ucmoh::cli
