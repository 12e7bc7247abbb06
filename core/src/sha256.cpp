#include "ucmoh/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ucmoh {

namespace {

// The EVP context owns OpenSSL state; a unique_ptr frees it on every path.
using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext NewSha256Context() {
  DigestContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) ctx.reset();
  return ctx;
}

std::string ToHex(const unsigned char* digest, unsigned int size) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex(size * 2, '0');
  for (unsigned int i = 0; i < size; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

// Empty on an OpenSSL failure, which only happens when the library is broken.
std::string FinishHex(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &size) != 1) return {};
  return ToHex(digest, size);
}

}  // namespace

std::string Sha256Hex(const void* data, size_t size) {
  DigestContext ctx = NewSha256Context();
  if (!ctx || EVP_DigestUpdate(ctx.get(), data, size) != 1) return {};
  return FinishHex(ctx.get());
}

Expected<std::string> Sha256OfFile(const std::string& path) {
  // Streams in chunks: plugin libraries and weight blobs can be large.
  std::unique_ptr<FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return Status::IOError(path + ": cannot open for hashing: " + std::strerror(errno));
  DigestContext ctx = NewSha256Context();
  if (!ctx) return Status::Internal("OpenSSL could not start a SHA-256 digest");

  std::vector<unsigned char> chunk(1 << 16);
  size_t got = 0;
  while ((got = std::fread(chunk.data(), 1, chunk.size(), file.get())) > 0) {
    if (EVP_DigestUpdate(ctx.get(), chunk.data(), got) != 1) {
      return Status::Internal("OpenSSL failed while hashing " + path);
    }
  }
  if (std::ferror(file.get())) return Status::IOError(path + ": read error while hashing");
  std::string hex = FinishHex(ctx.get());
  if (hex.empty()) return Status::Internal("OpenSSL failed to finish hashing " + path);
  return hex;
}

}  // namespace ucmoh
