// A minimal CSV reader for machine-written files without quoting (the CUTLASS
// profiler's): the first line is the header, columns are found by name, and
// every error names "file:line".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

// Splits one line at commas. Fails on a double quote, which would mean
// quoting this reader does not implement.
Expected<std::vector<std::string>> SplitCsvLine(const std::string& line);

struct CsvRow {
  int64_t line = 0;  // 1-based line number in the file
  std::vector<std::string> fields;
};

class CsvTable;

// Typed access to one row's fields by column index, with "file:line: column
// 'X' ..." errors.
class CsvRowReader {
 public:
  CsvRowReader(const CsvTable& table, const CsvRow& row) : table_(table), row_(row) {}
  const std::string& Text(size_t column) const;
  Expected<int64_t> Int(size_t column) const;
  Expected<double> Real(size_t column) const;
  int64_t line() const { return row_.line; }
  // "file:line" for messages about this row.
  std::string Where() const;
  // "file:line: column 'X' <what> ('<text>')".
  Status Error(size_t column, const std::string& what) const;

 private:
  const CsvTable& table_;
  const CsvRow& row_;
};

class CsvTable {
 public:
  // Reads the whole file. Blank lines are skipped; CRLF endings are accepted.
  static Expected<CsvTable> Read(const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  // The index of a named column, or "file: missing column 'X'".
  Expected<size_t> Column(const std::string& name) const;

 private:
  std::string path_;
  std::vector<std::string> header_;
  std::map<std::string, size_t> column_index_;
  std::vector<CsvRow> rows_;
};

}  // namespace ucmoh::tensorcore
