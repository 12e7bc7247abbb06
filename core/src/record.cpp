#include "ucmoh/record.h"

#include "ucmoh/sha256.h"

namespace ucmoh {

std::string ProgramKey(const Record& record) {
  return record.target + '|' + record.intrinsic + '|' + record.task.key + '|' +
         CanonicalString(record.schedule) + '|' + HardwareKey(record.hardware) +
         (record.ast.empty() ? "" : "|ast:" + Sha256Hex(record.ast).substr(0, 16));
}

}  // namespace ucmoh
