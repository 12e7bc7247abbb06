// The loader's errors as a user meets them: `registry --plugins FILE plugins`
// must exit non-zero with exactly one line "error: <manifest>: ..." on
// stderr, and a good manifest must list its plugins.
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "plugin_test_util.h"
#include "ucmoh/plugin.h"
#include "ucmoh/sha256.h"

namespace {

using plugin_test::Entry;
using plugin_test::ManifestJson;
using plugin_test::ReadFile;
using plugin_test::TempDir;
using plugin_test::TestPlugin;
using testing::HasSubstr;
using testing::StartsWith;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Quote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

CliResult RunPlugins(const TempDir& dir, const std::string& manifest, const std::string& extra = "") {
  std::string registry = std::string(UCMOH_BINARY_DIR) + "/bin/registry";
  EXPECT_TRUE(boost::filesystem::exists(registry)) << registry << " is not built";
  std::string command = Quote(registry) + " --plugins " + Quote(manifest) + " plugins " + extra + " >" +
                        Quote(dir.File("stdout")) + " 2>" + Quote(dir.File("stderr"));
  int raw = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = ReadFile(dir.File("stdout"));
  result.err = ReadFile(dir.File("stderr"));
  return result;
}

// Runs the CLI on a manifest that must fail and checks the one-line error.
void ExpectCliError(const TempDir& dir, const std::string& manifest, const std::string& what) {
  CliResult r = RunPlugins(dir, manifest);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.err, StartsWith("error: " + manifest + ":"));
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line, newline-terminated:\n" << r.err;
  EXPECT_THAT(r.err, HasSubstr(what));
}

std::string Manifest(const TempDir& dir, const std::vector<Entry>& entries) {
  return dir.Write("plugins.json", ManifestJson(entries));
}

TEST(PluginCli, MissingLibrary) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"x86", "build/plugins/libucmoh_x86.so"}}),
                 "plugin 'x86': library build/plugins/libucmoh_x86.so not found");
}

TEST(PluginCli, NotASharedLibrary) {
  TempDir dir;
  dir.Write("libfake.so", "not an ELF file at all, only some text standing in for one\n");
  ExpectCliError(dir, Manifest(dir, {{"fake", "libfake.so"}}), "is not a loadable shared library");
}

TEST(PluginCli, NoFactory) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"nf", TestPlugin("no_factory")}}),
                 "exports no UCMoH factory (UCMOH_DEFINE_PLUGIN missing");
}

TEST(PluginCli, AbiMismatch) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"future", TestPlugin("abi_mismatch")}}),
                 "built against plugin ABI " + std::to_string(ucmoh::kPluginAbiVersion + 41));
}

TEST(PluginCli, WrongTargetName) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"vendorx", TestPlugin("wrong_target_name")}}), "reports target 'x86'");
}

TEST(PluginCli, TwoPluginsClaimOneIntrinsic) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"toy", TestPlugin("toy")}, {"toyclone", TestPlugin("toyclone")}}),
                 "intrinsic 'toy.mac8' is claimed by both plugin 'toy'");
}

TEST(PluginCli, Sha256Mismatch) {
  TempDir dir;
  ExpectCliError(dir, Manifest(dir, {{"toyaccel", TestPlugin("toyaccel"), 1, std::string(64, 'a')}}),
                 "but the manifest pins " + std::string(64, 'a'));
}

TEST(PluginCli, MalformedJson) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", "{\"plugins\": [\n  {\"name\": \"x86\",}\n]}\n");
  ExpectCliError(dir, manifest, manifest + ":2:");
}

TEST(PluginCli, UnknownKey) {
  TempDir dir;
  std::string manifest =
      dir.Write("plugins.json", R"({"plugins": [{"name": "x86", "library": "x.so", "abi": 1, "path": "y"}]})");
  ExpectCliError(dir, manifest, "unknown key 'path'");
}

TEST(PluginCli, MissingManifest) {
  TempDir dir;
  ExpectCliError(dir, dir.File("absent.json"), "cannot open the plugin manifest");
}

TEST(PluginCli, ListsAVendorPlugin) {
  TempDir dir;
  std::string manifest = Manifest(dir, {{"toyaccel", TestPlugin("toyaccel")}});
  CliResult r = RunPlugins(dir, manifest, "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  ASSERT_EQ(doc["plugins"].size(), 1u) << r.out;
  const auto& plugin = doc["plugins"][0];
  EXPECT_EQ(plugin["name"], "toyaccel");
  EXPECT_EQ(plugin["sha256"], *ucmoh::Sha256OfFile(TestPlugin("toyaccel")));
  EXPECT_EQ(plugin["intrinsics"][0]["name"], "toyaccel.mac16x16");

  CliResult text = RunPlugins(dir, manifest);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("toyaccel.mac16x16"));
}

}  // namespace
