// Bearer tokens for the write API (access_tokens.h).
#include "access_tokens.h"

#include <openssl/crypto.h>

#include <fstream>
#include <sstream>

namespace ucmoh::server {

namespace {

// Equal in time that depends only on the lengths, so a client cannot find a
// token byte by byte from response times: OpenSSL's CRYPTO_memcmp, which its
// own MAC checks use (a hand-written loop may be shortened by the compiler).
bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Expected<AccessTokens> AccessTokens::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open the tokens file");
  AccessTokens tokens;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string scope, token, extra;
    fields >> scope;
    if (scope.empty() || scope[0] == '#') continue;
    fields >> token >> extra;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if ((scope != "write" && scope != "read") || token.empty() || !extra.empty())
      return Status::InvalidArgument(where + "expected 'write TOKEN' or 'read TOKEN'");
    if (token.size() < 16) return Status::InvalidArgument(where + "a token must have at least 16 characters");
    tokens.entries_.push_back({token, scope == "write" ? Access::kWrite : Access::kRead});
  }
  if (tokens.entries_.empty()) return Status::InvalidArgument(path + ": no tokens in the file");
  return tokens;
}

Access AccessTokens::Check(const std::string& authorization) const {
  const std::string prefix = "Bearer ";
  if (authorization.compare(0, prefix.size(), prefix) != 0) return Access::kNone;
  const std::string token = authorization.substr(prefix.size());
  Access granted = Access::kNone;
  for (const auto& e : entries_)
    if (ConstantTimeEqual(token, e.token)) granted = e.access;
  return granted;
}

}  // namespace ucmoh::server
