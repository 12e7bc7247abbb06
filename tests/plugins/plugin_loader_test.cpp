// The plugin loader against real shared libraries: every way a manifest or a
// library can be wrong must give one line that names the file and the fix,
// and a good manifest must load (toyaccel and the project's own plugins).
#include <dlfcn.h>
#include <unistd.h>

#include <boost/filesystem.hpp>

#include "plugin_test_util.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/sha256.h"

namespace {

using plugin_test::Entry;
using plugin_test::ManifestJson;
using plugin_test::TempDir;
using plugin_test::TestPlugin;
using testing::HasSubstr;
using testing::StartsWith;
using ucmoh::Status;

// A failed load's Status, checked for the shape every loader error has.
Status LoadError(const std::string& manifest) {
  auto set = ucmoh::LoadPlugins(manifest);
  EXPECT_FALSE(set.ok()) << "expected " << manifest << " to fail";
  if (set.ok()) return Status::Internal("loaded");
  const std::string& message = set.status().message();
  EXPECT_THAT(message, StartsWith(manifest + ":"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return set.status();
}

std::string ParseError(const TempDir& dir, const std::string& text) {
  std::string manifest = dir.Write("plugins.json", text);
  auto entries = ucmoh::ParsePluginManifest(manifest);
  EXPECT_FALSE(entries.ok());
  if (entries.ok()) return {};
  EXPECT_EQ(entries.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(entries.status().message(), StartsWith(manifest + ":"));
  EXPECT_EQ(entries.status().message().find('\n'), std::string::npos);
  return entries.status().message();
}

// True while the dynamic loader still has the library mapped.
bool IsMapped(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

// ---- the manifest -------------------------------------------------------

TEST(PluginManifest, MalformedJsonReportsLineAndColumn) {
  TempDir dir;
  // Line 3 lacks the comma after "x86"; the parser stops at the next string.
  std::string message = ParseError(dir,
                                   "{\n"
                                   "  \"plugins\": [\n"
                                   "    {\"name\": \"x86\" \"library\": \"a.so\", \"abi\": 1}\n"
                                   "  ]\n"
                                   "}\n");
  EXPECT_THAT(message, StartsWith(dir.File("plugins.json") + ":3:28: syntax error"));
  EXPECT_THAT(message, HasSubstr("fix the JSON syntax"));
  EXPECT_THAT(message, testing::Not(HasSubstr("json.exception")));
}

TEST(PluginManifest, EmptyFileIsASyntaxErrorAtLineOne) {
  TempDir dir;
  EXPECT_THAT(ParseError(dir, ""), StartsWith(dir.File("plugins.json") + ":1:1: "));
  EXPECT_THAT(ParseError(dir, "{\"plugins\": [\n\n  {]"),
              StartsWith(dir.File("plugins.json") + ":3:4: "));
}

TEST(PluginManifest, TopLevelShapeIsChecked) {
  TempDir dir;
  EXPECT_THAT(ParseError(dir, "[]"), HasSubstr("top level is not an object"));
  EXPECT_THAT(ParseError(dir, "{\"plugin\": []}"), HasSubstr("unknown top-level key 'plugin'"));
  EXPECT_THAT(ParseError(dir, "{}"), HasSubstr("missing key 'plugins'"));
  EXPECT_THAT(ParseError(dir, "{\"plugins\": {}}"), HasSubstr("'plugins' is not an array"));
  EXPECT_THAT(ParseError(dir, "{\"plugins\": [3]}"), HasSubstr("entry 0: must be an object"));
}

TEST(PluginManifest, UnknownKeyNamesTheKeyTheEntryAndTheAllowedKeys) {
  TempDir dir;
  std::string message = ParseError(
      dir, R"({"plugins": [{"name": "x86", "library": "x.so", "abi": 1},
                           {"name": "arm", "library": "a.so", "abi": 1, "checksum": "00"}]})");
  EXPECT_THAT(message, HasSubstr("entry 1 ('arm')"));
  EXPECT_THAT(message, HasSubstr("unknown key 'checksum'"));
  EXPECT_THAT(message, HasSubstr("remove or rename it, the allowed keys are name, library, abi, sha256"));
}

TEST(PluginManifest, FieldTypesAreChecked) {
  TempDir dir;
  EXPECT_THAT(ParseError(dir, R"({"plugins": [{"library": "x.so", "abi": 1}]})"),
              HasSubstr("entry 0: missing 'name'; it must be a non-empty string"));
  EXPECT_THAT(ParseError(dir, R"({"plugins": [{"name": "x86", "library": 7, "abi": 1}]})"),
              HasSubstr("entry 0 ('x86'): bad 'library'"));
  EXPECT_THAT(ParseError(dir, R"({"plugins": [{"name": "x86", "library": "x.so", "abi": "1"}]})"),
              HasSubstr("bad 'abi'; it must be a positive integer"));
  EXPECT_THAT(ParseError(dir, R"({"plugins": [{"name": "x86", "library": "x.so"}]})"),
              HasSubstr("missing 'abi'"));
  EXPECT_THAT(ParseError(dir, R"({"plugins": [{"name": "x86", "library": "x.so", "abi": 1, "sha256": "abc"}]})"),
              HasSubstr("bad 'sha256'; it must be 64 hex digits"));
}

TEST(PluginManifest, DuplicateNamesAreAnError) {
  TempDir dir;
  std::string message = ParseError(dir, ManifestJson({{"x86", "a.so"}, {"x86", "b.so"}}));
  EXPECT_THAT(message, HasSubstr("entry 1 ('x86'): plugin 'x86' is listed twice"));
  EXPECT_THAT(message, HasSubstr("keep one entry per plugin name"));
}

TEST(PluginManifest, MissingManifestSaysHowToPointAtOne) {
  TempDir dir;
  auto entries = ucmoh::ParsePluginManifest(dir.File("nope.json"));
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(entries.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(entries.status().message(), StartsWith(dir.File("nope.json") + ": cannot open"));
  EXPECT_THAT(entries.status().message(), HasSubstr("--plugins FILE"));
}

TEST(PluginManifest, TheShippedManifestParses) {
  auto entries = ucmoh::ParsePluginManifest(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].name, "x86");
  EXPECT_EQ((*entries)[1].name, "arm");
  EXPECT_EQ((*entries)[2].name, "tensorcore");
  for (const auto& entry : *entries) EXPECT_EQ(entry.abi, ucmoh::kPluginAbiVersion);
}

TEST(PluginManifest, DefaultPathPrefersTheEnvironmentThenTheWorkingDirectory) {
  TempDir dir;
  std::string old_cwd = boost::filesystem::current_path().string();
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  const char* saved = std::getenv("UCMOH_PLUGINS");
  std::string saved_value = saved ? saved : "";

  setenv("UCMOH_PLUGINS", "/somewhere/plugins.json", 1);
  EXPECT_EQ(ucmoh::DefaultPluginManifestPath(), "/somewhere/plugins.json");
  unsetenv("UCMOH_PLUGINS");
  // No ./plugins.json: the one two levels above build/bin/<this test>.
  boost::filesystem::path exe = boost::filesystem::read_symlink("/proc/self/exe");
  EXPECT_EQ(ucmoh::DefaultPluginManifestPath(),
            (exe.parent_path().parent_path().parent_path() / "plugins.json").string());
  dir.Write("plugins.json", "{\"plugins\": []}");
  EXPECT_EQ(ucmoh::DefaultPluginManifestPath(), "plugins.json");

  if (saved) setenv("UCMOH_PLUGINS", saved_value.c_str(), 1);
  ASSERT_EQ(chdir(old_cwd.c_str()), 0);
}

// ---- each broken library -----------------------------------------------

TEST(PluginLoader, MissingLibraryNamesThePathAndTheFix) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"x86", "build/plugins/libucmoh_x86.so"}}));
  Status status = LoadError(manifest);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_THAT(status.message(),
              StartsWith(manifest + ": plugin 'x86': library build/plugins/libucmoh_x86.so not found"));
  EXPECT_THAT(status.message(), HasSubstr(dir.File("build/plugins/libucmoh_x86.so")));
  EXPECT_THAT(status.message(), HasSubstr("build it (tools/setup) or fix the path"));
}

TEST(PluginLoader, TextFileIsNotASharedLibrary) {
  TempDir dir;
  // Longer than an ELF header, so dlopen reads it and names the real problem.
  std::string fake = dir.Write("libfake.so", "This is a text file named like a shared library. The loader must "
                                             "refuse it with dlopen's reason, not crash.\n");
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"fake", "libfake.so"}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(), HasSubstr("plugin 'fake': library " + fake +
                                          " is not a loadable shared library: "));
  EXPECT_THAT(status.message(), HasSubstr("invalid ELF header"));  // dlerror's reason
}

TEST(PluginLoader, LibraryWithoutFactory) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"nf", TestPlugin("no_factory")}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(), HasSubstr("plugin 'nf': library " + TestPlugin("no_factory") +
                                          " exports no UCMoH factory (UCMOH_DEFINE_PLUGIN missing"));
  EXPECT_THAT(status.message(), HasSubstr("add UCMOH_DEFINE_PLUGIN(YourPlugin)"));
}

// The factory of this library aborts: reaching this test's end proves the
// loader stopped at the ABI number.
TEST(PluginLoader, AbiMismatchIsCaughtBeforeTheFactoryRuns) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"future", TestPlugin("abi_mismatch")}}));
  Status status = LoadError(manifest);
  EXPECT_EQ(status.code(), Status::Code::kAbiMismatch);
  int theirs = ucmoh::kPluginAbiVersion + 41;
  EXPECT_THAT(status.message(), HasSubstr("built against plugin ABI " + std::to_string(theirs) +
                                          " but this registry uses ABI " +
                                          std::to_string(ucmoh::kPluginAbiVersion)));
  EXPECT_THAT(status.message(), HasSubstr("rebuild the plugin against the installed headers"));
}

// C tables wrong in one way each (broken/bad_table.cpp): one error line each.
TEST(PluginLoader, BadTablesAreRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"table_short", "shorter than ABI 5.0's"},
      {"table_null_lower", "has no 'lower', which every plugin must provide"},
      {"table_silent_error", "creating the plugin: the plugin returned an error with no message (code 6)"},
      {"table_old_cpp_abi", "was built against the C++ plugin ABI (4 or older)"}};
  for (const auto& [library, expected] : cases) {
    TempDir dir;
    std::string manifest = dir.Write("plugins.json", ManifestJson({{"silent", TestPlugin(library)}}));
    Status status = LoadError(manifest);
    EXPECT_THAT(status.message(), HasSubstr("plugin 'silent': ")) << library;
    EXPECT_THAT(status.message(), HasSubstr(expected)) << library;
    EXPECT_EQ(status.message().find('\n'), std::string::npos) << library;
  }
}

TEST(PluginLoader, ManifestAbiMustMatchTooAndNamesBothNumbers) {
  TempDir dir;
  Entry entry{"toyaccel", TestPlugin("toyaccel"), ucmoh::kPluginAbiVersion + 1};
  std::string manifest = dir.Write("plugins.json", ManifestJson({entry}));
  Status status = LoadError(manifest);
  EXPECT_EQ(status.code(), Status::Code::kAbiMismatch);
  EXPECT_THAT(status.message(), HasSubstr("the manifest expects ABI " + std::to_string(entry.abi)));
  EXPECT_THAT(status.message(), HasSubstr("use ABI " + std::to_string(ucmoh::kPluginAbiVersion)));
}

TEST(PluginLoader, TargetNameMustMatchTheManifestName) {
  TempDir dir;
  std::string manifest =
      dir.Write("plugins.json", ManifestJson({{"vendorx", TestPlugin("wrong_target_name")}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(), HasSubstr("plugin 'vendorx': library " + TestPlugin("wrong_target_name") +
                                          " reports target 'x86'"));
  EXPECT_THAT(status.message(), HasSubstr("set \"name\": \"x86\" in the manifest"));
}

TEST(PluginLoader, TwoPluginsClaimingOneIntrinsicAreBothNamed) {
  TempDir dir;
  std::string manifest = dir.Write(
      "plugins.json", ManifestJson({{"toy", TestPlugin("toy")}, {"toyclone", TestPlugin("toyclone")}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(),
              HasSubstr("intrinsic 'toy.mac8' is claimed by both plugin 'toy' (" + TestPlugin("toy") +
                        ") and plugin 'toyclone' (" + TestPlugin("toyclone") + ")"));
  EXPECT_THAT(status.message(), HasSubstr("remove one of the two entries"));
}

TEST(PluginLoader, IntrinsicsMustCarryTheirTargetName) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"toyclone", TestPlugin("toyclone")}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(), HasSubstr("plugin 'toyclone': intrinsic 'toy.mac8' is not named "
                                          "'toyclone.<something>'"));
}

TEST(PluginLoader, ThrowingFactoryBecomesAStatus) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"thrower", TestPlugin("throwing_factory")}}));
  Status status = LoadError(manifest);
  EXPECT_THAT(status.message(), HasSubstr("threw: license file /opt/vendor/license.dat missing"));
}

TEST(PluginLoader, FirstProblemStopsTheLoadEvenAfterGoodPlugins) {
  TempDir dir;
  std::string manifest = dir.Write(
      "plugins.json", ManifestJson({{"toyaccel", TestPlugin("toyaccel")}, {"nf", TestPlugin("no_factory")}}));
  EXPECT_THAT(LoadError(manifest).message(), HasSubstr("plugin 'nf'"));
}

// ---- sha256 pins ------------------------------------------------------

TEST(PluginLoader, MatchingSha256PinLoads) {
  auto sha = ucmoh::Sha256OfFile(TestPlugin("toyaccel"));
  ASSERT_TRUE(sha.ok()) << sha.status().message();
  TempDir dir;
  std::string upper = *sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& pin : {*sha, upper}) {
    std::string manifest =
        dir.Write("plugins.json", ManifestJson({{"toyaccel", TestPlugin("toyaccel"), ucmoh::kPluginAbiVersion, pin}}));
    auto set = ucmoh::LoadPlugins(manifest);
    ASSERT_TRUE(set.ok()) << set.status().message();
    EXPECT_EQ(set->plugins()[0].library_sha256, *sha);
    EXPECT_EQ(set->plugins()[0].entry.sha256, *sha);  // normalized to lowercase
  }
}

TEST(PluginLoader, MismatchedSha256PinNamesBothHashes) {
  auto sha = ucmoh::Sha256OfFile(TestPlugin("unloadable"));
  ASSERT_TRUE(sha.ok());
  std::string pin(64, '0');
  TempDir dir;
  std::string manifest =
      dir.Write("plugins.json", ManifestJson({{"unloadable", TestPlugin("unloadable"), 1, pin}}));
  ASSERT_FALSE(IsMapped(TestPlugin("unloadable")));
  Status status = LoadError(manifest);
  EXPECT_EQ(status.code(), Status::Code::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("has sha256 " + *sha + " but the manifest pins " + pin));
  EXPECT_THAT(status.message(), HasSubstr("re-pin it"));
  EXPECT_THAT(status.message(), HasSubstr("rebuild"));
  EXPECT_FALSE(IsMapped(TestPlugin("unloadable"))) << "a library failing its pin must never be opened";
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(ucmoh::Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(ucmoh::Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  TempDir dir;
  std::string big(200000, 'a');  // several read chunks
  std::string file = dir.Write("big.bin", big);
  auto sha = ucmoh::Sha256OfFile(file);
  ASSERT_TRUE(sha.ok());
  EXPECT_EQ(*sha, ucmoh::Sha256Hex(big));
  EXPECT_FALSE(ucmoh::Sha256OfFile(dir.File("missing")).ok());
}

// ---- the happy path and lifetime ---------------------------------------

TEST(PluginLoader, LoadsAVendorPluginRelativeToTheManifest) {
  TempDir dir;
  boost::filesystem::create_directories(dir.File("vendor"));
  boost::filesystem::copy_file(TestPlugin("toyaccel"), dir.File("vendor/libucmoh_toyaccel.so"));
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"toyaccel", "vendor/libucmoh_toyaccel.so"}}));

  auto set = ucmoh::LoadPlugins(manifest);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->plugins().size(), 1u);
  const ucmoh::LoadedPlugin& loaded = set->plugins()[0];
  EXPECT_EQ(loaded.library_path, dir.File("vendor/libucmoh_toyaccel.so"));
  EXPECT_EQ(loaded.library_sha256, *ucmoh::Sha256OfFile(loaded.library_path));
  EXPECT_EQ(loaded.abi, ucmoh::kPluginAbiVersion);
  EXPECT_EQ(loaded.target.name, "toyaccel");
  ASSERT_EQ(loaded.intrinsics.size(), 1u);
  EXPECT_EQ(loaded.intrinsics[0].name, "toyaccel.mac16x16");

  EXPECT_EQ(set->ForTarget("toyaccel"), &loaded);
  EXPECT_EQ(set->ForIntrinsic("toyaccel.mac16x16"), &loaded);
  EXPECT_EQ(set->ForIntrinsic("x86.vnni"), nullptr);
  ASSERT_NE(set->Intrinsic("toyaccel.mac16x16"), nullptr);
  EXPECT_EQ(set->Intrinsic("toyaccel.mac16x16")->input_type, "s8");
  EXPECT_EQ(set->AllIntrinsics().size(), 1u);
}

TEST(PluginLoader, LoadsTheProjectPluginsNextToAVendorOne) {
  const std::vector<std::string> real = plugin_test::RealPluginNames();
  ASSERT_EQ(real, (std::vector<std::string>{"x86", "arm", "tensorcore"})) << "UCMOH_REAL_PLUGINS";
  std::vector<Entry> entries;
  for (const std::string& name : real) entries.push_back({name, plugin_test::RealPlugin(name)});
  entries.push_back({"toyaccel", TestPlugin("toyaccel")});
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson(entries));

  auto set = ucmoh::LoadPlugins(manifest);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->plugins().size(), entries.size());
  size_t total = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ucmoh::LoadedPlugin& loaded = set->plugins()[i];
    EXPECT_EQ(loaded.target.name, entries[i].name);
    EXPECT_FALSE(loaded.intrinsics.empty()) << entries[i].name;
    EXPECT_EQ(loaded.plugin->TemplateDimNames().size(), static_cast<size_t>(ucmoh::kTemplateDims))
        << entries[i].name;
    for (const auto& intrinsic : loaded.intrinsics) {
      EXPECT_EQ(set->ForIntrinsic(intrinsic.name), &loaded) << intrinsic.name;
    }
    total += loaded.intrinsics.size();
  }
  EXPECT_EQ(set->AllIntrinsics().size(), total);
}

// The returned plugin keeps its library mapped on its own: dropping the
// PluginSet must not unmap code the caller still holds.
TEST(PluginLoader, PluginOutlivesItsPluginSet) {
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"toyaccel", TestPlugin("toyaccel")}}));
  std::shared_ptr<ucmoh::TargetPlugin> plugin;
  {
    auto set = ucmoh::LoadPlugins(manifest);
    ASSERT_TRUE(set.ok()) << set.status().message();
    plugin = set->plugins()[0].plugin;
  }
  ASSERT_TRUE(IsMapped(TestPlugin("toyaccel")));
  EXPECT_EQ(plugin->Target().name, "toyaccel");  // virtual calls into the library
  ucmoh::Task task{"t", "gemm", {{"m", int64_t{64}}, {"n", int64_t{64}}, {"k", int64_t{64}}}};
  auto schedules = plugin->SampleSchedules(task, "toyaccel.mac16x16", 3, 7);
  ASSERT_TRUE(schedules.ok()) << schedules.status().message();
  EXPECT_TRUE(plugin->Lower(task, "toyaccel.mac16x16", schedules->front(), plugin->Target().hardware).ok());
}

// With a library that dlclose can really unmap: it stays while any plugin
// pointer lives and goes with the last one, so no handle leaks either.
TEST(PluginLoader, LastPluginReferenceUnmapsTheLibrary) {
  const std::string library = TestPlugin("unloadable");
  TempDir dir;
  std::string manifest = dir.Write("plugins.json", ManifestJson({{"unloadable", library}}));
  ASSERT_FALSE(IsMapped(library));
  std::shared_ptr<ucmoh::TargetPlugin> plugin;
  {
    auto set = ucmoh::LoadPlugins(manifest);
    ASSERT_TRUE(set.ok()) << set.status().message();
    plugin = set->plugins()[0].plugin;
    EXPECT_TRUE(IsMapped(library));
  }
  EXPECT_TRUE(IsMapped(library));
  EXPECT_EQ(plugin->Intrinsics().at(0).name, "unloadable.dot4");
  plugin.reset();
  EXPECT_FALSE(IsMapped(library));

  // A failed load (here: wrong manifest name) closes what it opened.
  std::string wrong = dir.Write("wrong.json", ManifestJson({{"other", library}}));
  EXPECT_FALSE(ucmoh::LoadPlugins(wrong).ok());
  EXPECT_FALSE(IsMapped(library));
}

TEST(PluginLoader, EmptyManifestLoadsNothing) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(dir.Write("plugins.json", "{\"plugins\": []}"));
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(set->plugins().empty());
}

}  // namespace
