#include "ucmoh/params.h"

#include <sstream>

namespace ucmoh {

namespace {
const Param* Find(const ParamMap& params, const std::string& key) {
  auto it = params.find(key);
  return it == params.end() ? nullptr : &it->second;
}
}  // namespace

Expected<int64_t> GetInt(const ParamMap& params, const std::string& key) {
  const Param* p = Find(params, key);
  if (!p) return Status::InvalidArgument("missing integer key '" + key + "'");
  if (auto* i = std::get_if<int64_t>(p)) return *i;
  return Status::InvalidArgument("key '" + key + "' must be an integer");
}

Expected<double> GetReal(const ParamMap& params, const std::string& key) {
  const Param* p = Find(params, key);
  if (!p) return Status::InvalidArgument("missing number key '" + key + "'");
  if (auto* d = std::get_if<double>(p)) return *d;
  if (auto* i = std::get_if<int64_t>(p)) return static_cast<double>(*i);
  return Status::InvalidArgument("key '" + key + "' must be a number");
}

Expected<std::string> GetString(const ParamMap& params, const std::string& key) {
  const Param* p = Find(params, key);
  if (!p) return Status::InvalidArgument("missing string key '" + key + "'");
  if (auto* s = std::get_if<std::string>(p)) return *s;
  return Status::InvalidArgument("key '" + key + "' must be a string");
}

std::string CanonicalString(const ParamMap& params) {
  std::ostringstream out;
  out.precision(17);
  bool first = true;
  for (const auto& [key, value] : params) {
    if (!first) out << ',';
    first = false;
    out << key << '=';
    std::visit([&](const auto& v) { out << v; }, value);
  }
  return out.str();
}

}  // namespace ucmoh
