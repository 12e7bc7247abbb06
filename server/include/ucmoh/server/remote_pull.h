// `registry pull http://HOST:PORT/REF -o DIR` (issue 17): the files of a
// version from `registry serve`, each checked against the sha256 and size the
// server lists, written to a sibling folder and moved into DIR only when all
// of them are there and verified. A broken download leaves DIR untouched.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/status.h"

namespace ucmoh::server {

struct RemotePullResult {
  int64_t version = 0;
  int files = 0;
  uint64_t bytes = 0;
  std::string model_path, manifest_path, model_sha256;
};

// True for "http://..." and "https://...": a reference to a server.
bool IsRemoteReference(const std::string& ref);

Expected<RemotePullResult> PullFromServer(const std::string& url, const std::string& dir);

// For the C API and the Python package, which open "http://HOST:PORT" with a
// ref: pulls `ref` from the server into the local cache
// ($UCMOH_CACHE_DIR, else $XDG_CACHE_HOME/ucmoh, else ~/.cache/ucmoh, then
// http/HOST_PORT/REF) and returns where. Every open pulls again, so an alias
// that moved on the server is followed.
struct CachedPull {
  RemotePullResult pull;
  std::string dir;
};
Expected<CachedPull> PullToCache(const std::string& server_url, const std::string& ref);

}  // namespace ucmoh::server
