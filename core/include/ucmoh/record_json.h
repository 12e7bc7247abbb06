// The one place that turns a record into one JSON line and back
// (docs/records.md), and a program (what a record measured, before it is
// measured) likewise: the lines ucmoh-measure reads.
#pragma once

#include <string>

#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh {

// One record as one JSON line (no trailing newline).
std::string RecordToJsonLine(const Record& record);

// Parses one line; the error names the key that is missing or malformed.
Expected<Record> RecordFromJsonLine(const std::string& line);

// A program line: the record's target, intrinsic, task and schedule only
// (no latency, provenance or hardware: the measuring host adds those).
std::string ProgramToJsonLine(const Record& program);
Expected<Record> ProgramFromJsonLine(const std::string& line);

}  // namespace ucmoh
