#include "ucmoh/record.h"

namespace ucmoh {

std::string ProgramKey(const Record& record) {
  return record.target + '|' + record.intrinsic + '|' + record.task.key + '|' +
         CanonicalString(record.schedule) + '|' + HardwareKey(record.hardware);
}

}  // namespace ucmoh
