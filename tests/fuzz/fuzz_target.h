// What every fuzz target (one file per decoder of outside bytes) shares: the
// libFuzzer entry point it defines (and, where set-up is slow, the optional
// initializer), a scratch file for the decoders that read
// paths, and the check that turns a broken promise into a crash the fuzzer
// reports. A decoder may refuse any input, but a refusal must be an error
// with a message, and whatever it accepts must survive its own round trip.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ucmoh/framed_blob.h"
#include "ucmoh/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional: set-up that may take seconds (a target's registry), run once before
// the first input and outside libFuzzer's per-input -timeout.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace ucmoh::fuzz {

// Aborts (a finding) when a promise is broken.
#define UCMOH_FUZZ_CHECK(condition, what)                                          \
  do {                                                                             \
    if (!(condition)) {                                                            \
      std::fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

inline std::string Bytes(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A refused input must say why.
inline void CheckRefusal(const Status& status) {
  UCMOH_FUZZ_CHECK(status.ok() || !status.message().empty(), "an error with no message");
}

// The bytes as a file, for decoders that read paths: one file per process,
// rewritten for every input.
inline std::string AsFile(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string path =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/ucmoh-fuzz-" +
      std::to_string(getpid()) + suffix;
  FILE* file = std::fopen(path.c_str(), "wb");
  UCMOH_FUZZ_CHECK(file != nullptr, "cannot write the scratch file");
  if (size > 0) std::fwrite(data, 1, size, file);
  std::fclose(file);
  return path;
}

// For formats behind a SHA-256 frame (snapshots, model files): `decode`
// runs on the input as it is (the frame's own checks), then on its payload
// (past the header, when it has one) framed afresh with a valid checksum, so
// that mutations reach the payload decoder.
template <class Decode>
void DecodeAsIsAndReframed(const FrameFormat& format, const uint8_t* data, size_t size, Decode&& decode) {
  const std::string bytes = Bytes(data, size);
  decode(bytes);
  const bool framed = bytes.size() >= kFrameHeaderSize + kFrameDigestSize && HasMagic(format, bytes);
  decode(FrameBlob(format, framed ? bytes.substr(kFrameHeaderSize, bytes.size() - kFrameHeaderSize - kFrameDigestSize)
                                  : bytes));
}

}  // namespace ucmoh::fuzz
