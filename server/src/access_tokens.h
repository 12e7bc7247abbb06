// Who may write through `registry serve`: bearer tokens read from a file
// (--tokens FILE), one per line as "write TOKEN" or "read TOKEN"; blank lines
// and lines starting with '#' are skipped. Reads stay open to anyone who can
// reach the port; writes need a write token.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::server {

enum class Access { kNone, kRead, kWrite };

class AccessTokens {
 public:
  // Errors name the file and line; a token shorter than 16 characters is
  // refused (a guessable token is no lock).
  static Expected<AccessTokens> Load(const std::string& path);

  // The access an "Authorization: Bearer TOKEN" header grants; kNone for a
  // missing, malformed or unknown one. Compared in constant time.
  Access Check(const std::string& authorization) const;

 private:
  struct Entry {
    std::string token;
    Access access;
  };
  std::vector<Entry> entries_;
};

}  // namespace ucmoh::server
