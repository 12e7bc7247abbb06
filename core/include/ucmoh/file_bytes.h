// Whole files as bytes: read one, or write one so that readers see all of it
// or none (PATH.tmp, then a rename over PATH).
#pragma once

#include <string>

#include "ucmoh/status.h"

namespace ucmoh {

// NotFound when it cannot be opened.
Expected<std::string> ReadFileBytes(const std::string& path);

Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace ucmoh
