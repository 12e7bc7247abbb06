// The archive the registry decodes its metadata with: cereal's portable
// binary format, read through PortableBinaryInputArchive, except that every
// container length is checked against the bytes left before cereal allocates
// for it. A corrupt length (the fuzzer's first finding: a string of 985 GB)
// must be an error, not an allocation of that size, which ASan reports as
// out of memory and a plain build may even get from the kernel and zero.
// Every element takes at least one byte, so no valid length exceeds the
// bytes left.
#pragma once

#include <cereal/archives/portable_binary.hpp>
#include <cstdint>
#include <istream>
#include <string>
#include <type_traits>

namespace ucmoh::registry {

class BoundedInputArchive : public cereal::InputArchive<BoundedInputArchive, cereal::AllowEmptyClassElision> {
 public:
  BoundedInputArchive(std::istream& stream, std::uint64_t bytes)
      : InputArchive(this), stream_(stream), bytes_(bytes), inner_(stream) {}

  template <class T>
  void LoadInner(T&& value) {
    inner_(std::forward<T>(value));
  }

  void CheckLength(std::uint64_t length) {
    const std::streamoff at = stream_.tellg();
    const std::uint64_t left = at < 0 ? 0 : bytes_ - static_cast<std::uint64_t>(at);
    if (length > left) {
      throw cereal::Exception("a length of " + std::to_string(length) + " with " + std::to_string(left) +
                              " bytes left");
    }
  }

 private:
  std::istream& stream_;
  std::uint64_t bytes_;
  cereal::PortableBinaryInputArchive inner_;  // reads the format's endianness byte first
};

template <class T>
std::enable_if_t<std::is_arithmetic<T>::value> CEREAL_LOAD_FUNCTION_NAME(BoundedInputArchive& ar, T& value) {
  ar.LoadInner(value);
}

template <class T>
void CEREAL_LOAD_FUNCTION_NAME(BoundedInputArchive& ar, cereal::BinaryData<T>& data) {
  ar.LoadInner(data);
}

template <class T>
void CEREAL_LOAD_FUNCTION_NAME(BoundedInputArchive& ar, cereal::NameValuePair<T>& pair) {
  ar(pair.value);
}

template <class T>
void CEREAL_LOAD_FUNCTION_NAME(BoundedInputArchive& ar, cereal::SizeTag<T>& tag) {
  ar.LoadInner(tag);
  ar.CheckLength(static_cast<std::uint64_t>(tag.size));
}

}  // namespace ucmoh::registry

CEREAL_REGISTER_ARCHIVE(ucmoh::registry::BoundedInputArchive)
