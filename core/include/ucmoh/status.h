// Errors as values at library boundaries: every public function of core,
// the plugins and the registry returns a Status or an Expected<T> instead of
// throwing, so a driver can print one line and exit non-zero.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ucmoh {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // bad user input: file contents, flags, keys
    kNotFound,         // a file, key, plugin or intrinsic that does not exist
    kIOError,          // the operating system said no
    kCorruption,       // stored data fails its checksum or schema
    kBusy,             // another writer holds the lock
    kUnsupported,      // a capability this target or host does not have
    kAbiMismatch,      // a plugin built against another interface version
    kAlreadyExists,
    kInternal,
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status IOError(std::string m) { return {Code::kIOError, std::move(m)}; }
  static Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
  static Status Busy(std::string m) { return {Code::kBusy, std::move(m)}; }
  static Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
  static Status AbiMismatch(std::string m) { return {Code::kAbiMismatch, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with where the error happened ("file.csv:12: ...").
  Status WithContext(const std::string& where) const {
    return ok() ? *this : Status(code_, where + ": " + message_);
  }
  // Appends what else is known ("...: connection closed; rank 1 was killed").
  Status WithDetail(const std::string& detail) const {
    return ok() || detail.empty() ? *this : Status(code_, message_ + "; " + detail);
  }

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "an Expected error needs a non-ok Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ucmoh

// Returns early from the enclosing function when `expr` yields a non-ok Status.
#define UCMOH_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::ucmoh::Status _ucmoh_s = (expr);       \
    if (!_ucmoh_s.ok()) return _ucmoh_s;     \
  } while (0)
