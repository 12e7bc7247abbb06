// SHA-256 through OpenSSL's EVP interface, as lowercase hex.
#pragma once

#include <string>

#include "ucmoh/status.h"

namespace ucmoh {

std::string Sha256Hex(const void* data, size_t size);
inline std::string Sha256Hex(const std::string& bytes) { return Sha256Hex(bytes.data(), bytes.size()); }
Expected<std::string> Sha256OfFile(const std::string& path);

}  // namespace ucmoh
