// plugins.json: reading, checking and locating the manifest. Every error is
// one line "<manifest>: <what is wrong>; <what to do>", because a user edits
// this file by hand and the CLI prints the message as it is.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <boost/filesystem.hpp>

#include "ucmoh/plugin_loader.h"

namespace ucmoh {

namespace {

namespace fs = boost::filesystem;
using nlohmann::json;

const char* const kAllowedKeys = "name, library, abi, sha256";

Expected<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::NotFound(path + ": cannot open the plugin manifest (" + std::strerror(errno) +
                            "); pass --plugins FILE, set $UCMOH_PLUGINS, or create it");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// 1-based line and column of the byte at 0-based `offset` in `text`.
std::pair<size_t, size_t> LineAndColumn(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
  size_t line_start = text.rfind('\n', offset == 0 ? std::string::npos : offset - 1);
  size_t column = line_start == std::string::npos ? offset + 1 : offset - line_start;
  return {line, column};
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line
// L, column C: <reason>"; we keep only the reason and compute the position
// ourselves so the message reads like a compiler's "file:line:col: what".
std::string ParseErrorReason(const json::parse_error& e) {
  std::string what = e.what();
  size_t at = what.find("parse error");
  size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
  std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  return reason;
}

Status SyntaxError(const std::string& path, const std::string& text, const json::parse_error& e) {
  // `byte` is 1-based and points at the character that broke the parse.
  size_t offset = e.byte == 0 ? 0 : e.byte - 1;
  auto [line, column] = LineAndColumn(text, offset);
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                                 ": " + ParseErrorReason(e) + "; fix the JSON syntax");
}

// "entry 2 ('x86')" once the name is known, "entry 2" before.
std::string EntryLabel(size_t index, const json& entry) {
  std::string label = "entry " + std::to_string(index);
  auto name = entry.find("name");
  if (name != entry.end() && name->is_string()) label += " ('" + name->get<std::string>() + "')";
  return label;
}

Status EntryError(const std::string& path, size_t index, const json& entry, const std::string& what) {
  return Status::InvalidArgument(path + ": plugins " + EntryLabel(index, entry) + ": " + what);
}

Status CheckKeys(const std::string& path, size_t index, const json& entry) {
  static const std::set<std::string> kKnown = {"name", "library", "abi", "sha256"};
  for (const auto& item : entry.items()) {
    if (!kKnown.count(item.key())) {
      return EntryError(path, index, entry,
                        "unknown key '" + item.key() + "'; remove or rename it, the allowed keys are " +
                            kAllowedKeys);
    }
  }
  return Status::Ok();
}

Expected<std::string> RequiredString(const std::string& path, size_t index, const json& entry,
                                     const char* key, const char* example) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_string() || it->get<std::string>().empty()) {
    return EntryError(path, index, entry,
                      std::string(it == entry.end() ? "missing" : "bad") + " '" + key +
                          "'; it must be a non-empty string, e.g. \"" + key + "\": \"" + example + "\"");
  }
  return it->get<std::string>();
}

Expected<int> RequiredAbi(const std::string& path, size_t index, const json& entry) {
  auto it = entry.find("abi");
  bool ok = it != entry.end() && it->is_number_integer() && it->get<int64_t>() > 0 &&
            it->get<int64_t>() < (int64_t{1} << 30);
  if (!ok) {
    return EntryError(path, index, entry,
                      std::string(it == entry.end() ? "missing" : "bad") +
                          " 'abi'; it must be a positive integer, the plugin ABI version it was built "
                          "against, e.g. \"abi\": " + std::to_string(kPluginAbiVersion));
  }
  return static_cast<int>(it->get<int64_t>());
}

// The pin is optional; when present it must be a full SHA-256 in hex.
Expected<std::string> OptionalSha256(const std::string& path, size_t index, const json& entry) {
  auto it = entry.find("sha256");
  if (it == entry.end()) return std::string();
  std::string hex = it->is_string() ? it->get<std::string>() : std::string();
  bool ok = hex.size() == 64 &&
            std::all_of(hex.begin(), hex.end(), [](unsigned char c) { return std::isxdigit(c); });
  if (!ok) {
    return EntryError(path, index, entry,
                      "bad 'sha256'; it must be 64 hex digits (e.g. the output of sha256sum on the "
                      "library), or leave the key out to skip the pin");
  }
  std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return std::tolower(c); });
  return hex;
}

Expected<PluginManifestEntry> ParseEntry(const std::string& path, size_t index, const json& entry) {
  if (!entry.is_object()) {
    return EntryError(path, index, entry,
                      "must be an object {\"name\", \"library\", \"abi\", \"sha256\"?}");
  }
  UCMOH_RETURN_IF_ERROR(CheckKeys(path, index, entry));
  auto name = RequiredString(path, index, entry, "name", "x86");
  if (!name) return name.status();
  auto library = RequiredString(path, index, entry, "library", "build/plugins/libucmoh_x86.so");
  if (!library) return library.status();
  auto abi = RequiredAbi(path, index, entry);
  if (!abi) return abi.status();
  auto sha = OptionalSha256(path, index, entry);
  if (!sha) return sha.status();
  return PluginManifestEntry{*name, *library, *abi, *sha};
}

Expected<const json*> PluginArray(const std::string& path, const json& doc) {
  const char* shape = "; the manifest must look like {\"plugins\": [{\"name\": ..., \"library\": ..., "
                      "\"abi\": ...}, ...]}";
  if (!doc.is_object()) return Status::InvalidArgument(path + ": top level is not an object" + shape);
  for (const auto& item : doc.items()) {
    if (item.key() != "plugins") {
      return Status::InvalidArgument(path + ": unknown top-level key '" + item.key() +
                                     "'; the only allowed key is plugins" + shape);
    }
  }
  auto it = doc.find("plugins");
  if (it == doc.end()) return Status::InvalidArgument(path + ": missing key 'plugins'" + shape);
  if (!it->is_array()) return Status::InvalidArgument(path + ": 'plugins' is not an array" + shape);
  return &*it;
}

}  // namespace

Expected<std::vector<PluginManifestEntry>> ParsePluginManifest(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return text.status();
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    return SyntaxError(path, *text, e);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(path + ": " + e.what() + "; fix the JSON syntax");
  }
  auto array = PluginArray(path, doc);
  if (!array) return array.status();

  std::vector<PluginManifestEntry> entries;
  std::set<std::string> names;
  for (size_t i = 0; i < (*array)->size(); ++i) {
    auto entry = ParseEntry(path, i, (**array)[i]);
    if (!entry) return entry.status();
    if (!names.insert(entry->name).second) {
      return Status::InvalidArgument(path + ": plugins entry " + std::to_string(i) + " ('" +
                                     entry->name + "'): plugin '" + entry->name +
                                     "' is listed twice; keep one entry per plugin name");
    }
    entries.push_back(std::move(*entry));
  }
  return entries;
}

std::string DefaultPluginManifestPath() {
  if (const char* env = std::getenv("UCMOH_PLUGINS"); env && *env) return env;
  boost::system::error_code ec;
  if (fs::is_regular_file("plugins.json", ec)) return "plugins.json";
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "plugins.json";
  // An installed registry: PREFIX/bin/registry -> PREFIX/share/ucmoh/plugins.json.
  fs::path installed = (exe.parent_path() / ".." / "share" / "ucmoh" / "plugins.json").lexically_normal();
  if (fs::is_regular_file(installed, ec)) return installed.string();
  // build/bin/registry -> build/bin/../../plugins.json, the source tree's manifest.
  return (exe.parent_path() / ".." / ".." / "plugins.json").lexically_normal().string();
}

}  // namespace ucmoh
