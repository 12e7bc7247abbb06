// Helpers shared by the plugin loader tests: a temporary folder that cleans
// up after itself, manifest writing, and where the test libraries are.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/filesystem.hpp>

#include "ucmoh/plugin.h"

namespace plugin_test {

inline std::string TestPlugin(const std::string& name) {
  return std::string(UCMOH_TEST_PLUGIN_DIR) + "/libucmoh_" + name + ".so";
}

inline std::string RealPlugin(const std::string& name) {
  return std::string(UCMOH_PLUGIN_DIR) + "/libucmoh_" + name + ".so";
}

// The project's plugins this build makes: x86, arm and tensorcore.
inline std::vector<std::string> RealPluginNames() {
  std::vector<std::string> names;
  std::stringstream list(UCMOH_REAL_PLUGINS);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (boost::filesystem::temp_directory_path() / "ucmoh_plugins_XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : std::string();
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~TempDir() {
    boost::system::error_code ec;
    boost::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

  std::string Write(const std::string& name, const std::string& text) const {
    std::string file = File(name);
    boost::filesystem::create_directories(boost::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::string path_;
};

struct Entry {
  Entry(std::string name_, std::string library_, int abi_ = ucmoh::kPluginAbiVersion, std::string sha256_ = "")
      : name(std::move(name_)), library(std::move(library_)), abi(abi_), sha256(std::move(sha256_)) {}
  std::string name;
  std::string library;
  int abi = ucmoh::kPluginAbiVersion;
  std::string sha256;  // omitted when empty
};

inline std::string ManifestJson(const std::vector<Entry>& entries) {
  std::ostringstream json;
  json << "{\n  \"plugins\": [\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    json << "    {\"name\": \"" << e.name << "\", \"library\": \"" << e.library << "\", \"abi\": " << e.abi;
    if (!e.sha256.empty()) json << ", \"sha256\": \"" << e.sha256 << "\"";
    json << "}" << (i + 1 < entries.size() ? "," : "") << "\n";
  }
  json << "  ]\n}\n";
  return json.str();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace plugin_test
