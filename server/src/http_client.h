// A minimal HTTP/1.1 GET for `registry pull http(s)://...` (Boost.Beast, sync,
// one connection per request, socket timeouts so a stalled server fails the
// pull instead of hanging it). https:// verifies the server's certificate and
// host name against the system's CAs, or $UCMOH_CA_FILE when set.
#pragma once

#include <cstdint>
#include <string>

#include "request_target.h"
#include "ucmoh/status.h"

namespace ucmoh::server {

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET `path` on the URL's server; a body over `limit` bytes is an error.
Expected<HttpReply> HttpGet(const HttpUrl& server, const std::string& path, uint64_t limit,
                            int timeout_s = 60);

}  // namespace ucmoh::server
