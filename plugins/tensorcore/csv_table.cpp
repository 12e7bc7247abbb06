#include "csv_table.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ucmoh::tensorcore {

Expected<std::vector<std::string>> SplitCsvLine(const std::string& line) {
  if (line.find('"') != std::string::npos)
    return Status::InvalidArgument("quoted fields are not supported (found '\"')");
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

const std::string& CsvRowReader::Text(size_t column) const { return row_.fields.at(column); }

std::string CsvRowReader::Where() const { return table_.path() + ":" + std::to_string(row_.line); }

Status CsvRowReader::Error(size_t column, const std::string& what) const {
  return Status::InvalidArgument(Where() + ": column '" + table_.header().at(column) + "' " + what +
                                 " ('" + Text(column) + "')");
}

Expected<int64_t> CsvRowReader::Int(size_t column) const {
  const std::string& text = Text(column);
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) return Error(column, "is not an integer");
  return static_cast<int64_t>(value);
}

Expected<double> CsvRowReader::Real(size_t column) const {
  const std::string& text = Text(column);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
    return Error(column, "is not a number");
  return value;
}

Expected<CsvTable> CsvTable::Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open (" + std::strerror(errno) + ")");
  CsvTable table;
  table.path_ = path;
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto fields = SplitCsvLine(line);
    if (!fields.ok()) return fields.status().WithContext(path + ":" + std::to_string(line_number));
    if (table.header_.empty()) {
      table.header_ = std::move(*fields);
      for (size_t i = 0; i < table.header_.size(); ++i) table.column_index_.emplace(table.header_[i], i);
      continue;
    }
    if (fields->size() != table.header_.size())
      return Status::InvalidArgument(path + ":" + std::to_string(line_number) + ": " +
                                     std::to_string(fields->size()) + " fields, but the header has " +
                                     std::to_string(table.header_.size()));
    table.rows_.push_back(CsvRow{line_number, std::move(*fields)});
  }
  if (in.bad()) return Status::IOError(path + ": read failed");
  if (table.header_.empty()) return Status::InvalidArgument(path + ": empty file, expected a header line");
  return table;
}

Expected<size_t> CsvTable::Column(const std::string& name) const {
  auto it = column_index_.find(name);
  if (it == column_index_.end()) return Status::InvalidArgument(path_ + ": missing column '" + name + "'");
  return it->second;
}

}  // namespace ucmoh::tensorcore
