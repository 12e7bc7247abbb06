#include "ucmoh/registry/version_ref.h"

#include <cctype>

namespace ucmoh::registry {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

Status CheckAliasName(const std::string& name) {
  if (name.empty() || name.size() > 64)
    return Status::InvalidArgument("alias name must have 1 to 64 characters");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return Status::InvalidArgument("alias '" + name +
                                     "' may hold only letters, digits, '.', '_' and '-'");
  if (AllDigits(name))
    return Status::InvalidArgument("alias '" + name + "' would read as a version number");
  return Status::Ok();
}

Expected<VersionRef> ParseVersionRef(const std::string& text) {
  VersionRef ref;
  std::string rest = text;
  if (auto at = text.find('@'); at != std::string::npos) {
    ref.model = text.substr(0, at);
    rest = text.substr(at + 1);
    if (ref.model.empty()) return Status::InvalidArgument("'" + text + "': no model name before '@'");
  }
  if (AllDigits(rest)) {
    if (rest.size() > 18 || std::stoll(rest) == 0)
      return Status::InvalidArgument("'" + text + "': version numbers start at 1");
    ref.number = std::stoll(rest);
    return ref;
  }
  Status s = CheckAliasName(rest);
  if (!s.ok())
    return Status::InvalidArgument("'" + text +
                                   "' is not a version (NAME@NUMBER, NAME@ALIAS, NUMBER or ALIAS): " +
                                   s.message());
  ref.alias = rest;
  return ref;
}

}  // namespace ucmoh::registry
