// Records files: JSON Lines, read, written atomically and appended. One
// line's schema is record_json.h's.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/record_json.h"
#include "ucmoh/status.h"

namespace ucmoh {

struct NumberedRecord {
  int64_t line = 0;  // 1-based line number in its file
  Record record;
};

// Reads every record of a JSONL file. Blank lines are skipped; the first
// malformed line fails the whole read with "FILE:LINE: what".
Expected<std::vector<NumberedRecord>> ReadRecordsFile(const std::string& path);

// The ProgramKeys of a records file (an absent file has none): what a
// resumable measurement skips.
Expected<std::set<std::string>> ReadProgramKeys(const std::string& path);

// Records of JSON Lines text (a C API call's input). Blank lines are
// skipped; the first malformed line fails with "line N: what".
Expected<std::vector<Record>> ParseRecordsText(std::string_view text);

// The same with line numbers; errors start with `source` and the number
// ("upload:" gives "upload:12: what").
Expected<std::vector<NumberedRecord>> ParseNumberedRecordsText(std::string_view text, const std::string& source);

// Writes records atomically: to PATH.tmp, fsync, rename. Nothing half-written.
Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records);

// Appends records to PATH with one write per record line and an fsync at the
// end, so an interrupted append leaves only whole lines. Used by resumable
// measurement.
Status AppendRecords(const std::string& path, const std::vector<Record>& records);

}  // namespace ucmoh
