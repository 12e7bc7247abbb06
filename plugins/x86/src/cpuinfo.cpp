#include <cstdlib>
#include <sstream>

#include "ucmoh/x86/host_hardware.h"

namespace ucmoh::x86 {

namespace {

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

CpuinfoFields ParseCpuinfo(const std::string& text) {
  CpuinfoFields fields;
  std::istringstream lines(text);
  std::string line;
  bool in_first_block = false;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      // A blank line ends a processor's block; the first one is enough.
      if (in_first_block && Trim(line).empty()) break;
      continue;
    }
    in_first_block = true;
    const std::string key = Trim(line.substr(0, colon));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "model name") {
      fields.model = value;
    } else if (key == "flags") {
      std::istringstream words(value);
      for (std::string flag; words >> flag;) fields.flags.push_back(flag);
    } else if (key == "cpu MHz") {
      fields.mhz = std::strtod(value.c_str(), nullptr);
    }
  }
  return fields;
}

}  // namespace ucmoh::x86
