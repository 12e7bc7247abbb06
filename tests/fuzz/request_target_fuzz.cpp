// Request targets (server/src/request_target.cpp): the first bytes of every
// request `registry serve` routes come from the network. A target is refused
// with a message, or it decodes to a path no route can be steered out of.
#include <algorithm>

#include "fuzz_target.h"
#include "request_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  const std::string bytes = fuzz::Bytes(data, size);
  auto target = server::ParseRequestTarget(bytes);
  if (!target.ok()) {
    fuzz::CheckRefusal(target.status());
    return 0;
  }
  const std::string& path = target->path;
  UCMOH_FUZZ_CHECK(!path.empty() && path[0] == '/', "an accepted path does not start with '/'");
  // Every segment but a trailing empty one is a plain name.
  for (size_t at = 1; at <= path.size();) {
    const size_t end = std::min(path.find('/', at), path.size());
    const std::string segment = path.substr(at, end - at);
    const bool trailing = end == path.size() && segment.empty();
    UCMOH_FUZZ_CHECK(trailing || (!segment.empty() && segment != "." && segment != ".."),
                     "an accepted path has an empty or dot segment");
    at = end + 1;
  }
  for (unsigned char c : path)
    UCMOH_FUZZ_CHECK(c >= 0x20 && c != 0x7f && c != '\\', "an accepted path has a control byte or a backslash");
  auto url = server::ParseHttpUrl("http://127.0.0.1:1" + bytes);
  if (!url.ok()) fuzz::CheckRefusal(url.status());
  return 0;
}
