#include "ucmoh/file_bytes.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ucmoh {

Expected<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": cannot read");
  return bytes.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  {
    std::ofstream out(path + ".tmp", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return Status::IOError(path + ": cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  return Status::Ok();
}

}  // namespace ucmoh
