// Loading plugin libraries listed in plugins.json. The checks run in an order
// that never executes code we have reason to distrust: the file and its sha256
// pin before dlopen (which runs static initializers), the C table's version
// and completeness (plugin_c_host.cpp) before any of its functions is called.
#include "ucmoh/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <set>

#include <boost/dll/shared_library.hpp>
#include <boost/filesystem.hpp>

#include "plugin_c_host.h"
#include "ucmoh/sha256.h"

namespace ucmoh {

namespace {

namespace fs = boost::filesystem;
namespace dll = boost::dll;

// Errors about one entry: "<manifest>: plugin '<name>': <what>".
struct EntryContext {
  const std::string& manifest;
  const PluginManifestEntry& entry;
  Status Error(Status::Code code, const std::string& what) const;
};

Status EntryContext::Error(Status::Code code, const std::string& what) const {
  std::string message = manifest + ": plugin '" + entry.name + "': " + what;
  std::replace(message.begin(), message.end(), '\n', ' ');  // dlerror text may wrap
  switch (code) {
    case Status::Code::kNotFound: return Status::NotFound(message);
    case Status::Code::kAbiMismatch: return Status::AbiMismatch(message);
    case Status::Code::kCorruption: return Status::Corruption(message);
    case Status::Code::kIOError: return Status::IOError(message);
    default: return Status::InvalidArgument(message);
  }
}

// Relative library paths mean "next to the manifest", so a manifest works
// from any current directory.
fs::path ResolveLibrary(const std::string& manifest, const std::string& library) {
  fs::path lib(library);
  if (lib.is_relative()) lib = fs::absolute(fs::path(manifest)).parent_path() / lib;
  return lib.lexically_normal();
}

Status CheckFile(const EntryContext& ctx, const fs::path& path) {
  boost::system::error_code ec;
  if (!fs::exists(path, ec)) {
    return ctx.Error(Status::Code::kNotFound,
                     "library " + ctx.entry.library + " not found (looked for " + path.string() +
                         "); build it (tools/setup) or fix the path");
  }
  if (!fs::is_regular_file(path, ec)) {
    return ctx.Error(Status::Code::kInvalidArgument,
                     "library " + path.string() + " is not a regular file; point 'library' at the .so");
  }
  return Status::Ok();
}

Expected<std::string> CheckPin(const EntryContext& ctx, const fs::path& path) {
  auto actual = Sha256OfFile(path.string());
  if (!actual) return ctx.Error(Status::Code::kIOError, actual.status().message());
  const std::string& pinned = ctx.entry.sha256;
  if (!pinned.empty() && pinned != *actual) {
    return ctx.Error(Status::Code::kCorruption,
                     "library " + path.string() + " has sha256 " + *actual + " but the manifest pins " +
                         pinned + "; re-pin it (sha256sum the library) if you rebuilt it on purpose, "
                         "or rebuild/reinstall the pinned version");
  }
  return *actual;
}

// RTLD_NOW makes a library with unresolved symbols fail here, with dlerror's
// explanation, instead of crashing on the first call into it.
Expected<std::shared_ptr<dll::shared_library>> OpenLibrary(const EntryContext& ctx, const fs::path& path) {
  auto library = std::make_shared<dll::shared_library>();
  boost::system::error_code ec;
  try {
    library->load(path, dll::load_mode::rtld_now | dll::load_mode::rtld_local, ec);
  } catch (const std::exception& e) {  // only allocation failures remain here
    return ctx.Error(Status::Code::kInvalidArgument,
                     "library " + path.string() + " is not a loadable shared library: " + e.what());
  }
  if (ec || !library->is_loaded()) {
    const char* why = dlerror();  // boost leaves dlopen's reason in place
    return ctx.Error(Status::Code::kInvalidArgument,
                     "library " + path.string() + " is not a loadable shared library: " +
                         (why ? why : ec.message()) + "; rebuild it or fix the path");
  }
  return library;
}

Status CheckSymbols(const EntryContext& ctx, const fs::path& path, const dll::shared_library& library) {
  if (library.has(UCMOH_PLUGIN_C_ENTRY)) return Status::Ok();
  if (library.has("ucmoh_plugin_abi"))
    return ctx.Error(Status::Code::kAbiMismatch,
                     "library " + path.string() + " was built against the C++ plugin ABI (4 or older), but this "
                     "registry loads plugins through the C ABI " + std::to_string(kPluginAbiVersion) +
                     "; rebuild it against the installed headers (UCMOH_DEFINE_PLUGIN now comes from "
                     "ucmoh/plugin_c_adapter.h)");
  return ctx.Error(Status::Code::kInvalidArgument,
                   "library " + path.string() + " exports no UCMoH factory (UCMOH_DEFINE_PLUGIN missing: no symbol '"
                   UCMOH_PLUGIN_C_ENTRY "'); add UCMOH_DEFINE_PLUGIN(YourPlugin) to one source file of the plugin "
                   "and rebuild");
}

// Reads the plugin's table through its one C entry point and checks it
// (version, size, required functions) and what the manifest expects.
Expected<const UcmohPluginApi*> CheckAbi(const EntryContext& ctx, const fs::path& path,
                                         const dll::shared_library& library) {
  const UcmohPluginApi* api = library.get<const UcmohPluginApi*()>(UCMOH_PLUGIN_C_ENTRY)();
  Status table = CheckPluginTable(api);
  if (!table.ok()) return ctx.Error(table.code(), "library " + path.string() + ": " + table.message());
  if (ctx.entry.abi != api->major)
    return ctx.Error(Status::Code::kAbiMismatch,
                     "the manifest expects ABI " + std::to_string(ctx.entry.abi) + " but library " + path.string() +
                         " and this registry use ABI " + std::to_string(kPluginAbiVersion) + " (library " +
                         std::to_string(api->major) + "." + std::to_string(api->minor) + "); set \"abi\": " +
                         std::to_string(kPluginAbiVersion) + " after checking the plugin was built against the "
                         "installed headers");
  return api;
}

// Creates the instance and ties its lifetime to the library's: the wrapper
// gives the instance back to the plugin before the library unmaps.
Expected<std::shared_ptr<TargetPlugin>> MakePlugin(const EntryContext& ctx, const UcmohPluginApi* api,
                                                   std::shared_ptr<dll::shared_library> library) {
  auto plugin = MakeCTargetPlugin(api, std::move(library));
  if (!plugin.ok())
    return ctx.Error(plugin.status().code(), plugin.status().message() + "; fix the plugin");
  return plugin;
}

// The plugin's own descriptions, with exceptions from its code turned into a Status.
Status Describe(const EntryContext& ctx, LoadedPlugin& loaded) {
  try {
    loaded.target = loaded.plugin->Target();
    loaded.intrinsics = loaded.plugin->Intrinsics();
  } catch (const std::exception& e) {
    return ctx.Error(Status::Code::kInvalidArgument,
                     std::string("describing its target threw: ") + e.what() + "; fix the plugin");
  } catch (...) {
    return ctx.Error(Status::Code::kInvalidArgument,
                     "describing its target threw a non-standard exception; fix the plugin");
  }
  if (loaded.target.name != ctx.entry.name) {
    return ctx.Error(Status::Code::kInvalidArgument,
                     "library " + loaded.library_path + " reports target '" + loaded.target.name +
                         "'; set \"name\": \"" + loaded.target.name +
                         "\" in the manifest if that library is the one you meant, or fix the path");
  }
  return Status::Ok();
}

Status CheckIntrinsicNames(const EntryContext& ctx, const LoadedPlugin& loaded) {
  const std::string prefix = loaded.target.name + ".";
  std::set<std::string> seen;
  for (const IntrinsicInfo& intrinsic : loaded.intrinsics) {
    const std::string& name = intrinsic.name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
      return ctx.Error(Status::Code::kInvalidArgument,
                       "intrinsic '" + name + "' is not named '" + prefix +
                           "<something>'; rename it in the plugin so every intrinsic carries its target's name");
    }
    if (!seen.insert(name).second) {
      return ctx.Error(Status::Code::kInvalidArgument,
                       "intrinsic '" + name + "' is listed twice by the plugin; fix its Intrinsics()");
    }
  }
  return Status::Ok();
}

// Everything about one entry that does not depend on the other plugins.
Expected<LoadedPlugin> LoadOne(const std::string& manifest, const PluginManifestEntry& entry) {
  EntryContext ctx{manifest, entry};
  fs::path path = ResolveLibrary(manifest, entry.library);
  UCMOH_RETURN_IF_ERROR(CheckFile(ctx, path));
  auto sha = CheckPin(ctx, path);
  if (!sha) return sha.status();
  auto library = OpenLibrary(ctx, path);
  if (!library) return library.status();
  UCMOH_RETURN_IF_ERROR(CheckSymbols(ctx, path, **library));
  auto api = CheckAbi(ctx, path, **library);
  if (!api) return api.status();
  auto plugin = MakePlugin(ctx, *api, std::move(*library));
  if (!plugin) return plugin.status();

  LoadedPlugin loaded;
  loaded.entry = entry;
  loaded.library_path = path.string();
  loaded.library_sha256 = *sha;
  loaded.abi = (*api)->major;
  loaded.abi_minor = (*api)->minor;
  loaded.plugin = std::move(*plugin);
  UCMOH_RETURN_IF_ERROR(Describe(ctx, loaded));
  return loaded;
}

}  // namespace

// A claim conflict is reported before the naming rule: when two libraries
// overlap, "remove one of them" is the fix the user of the manifest can apply.
Status PluginSet::Add(const std::string& manifest_path, LoadedPlugin loaded) {
  for (const IntrinsicInfo& intrinsic : loaded.intrinsics) {
    auto other = by_intrinsic_.find(intrinsic.name);
    if (other == by_intrinsic_.end()) continue;
    const LoadedPlugin& first = plugins_[other->second];
    return Status::InvalidArgument(
        manifest_path + ": intrinsic '" + intrinsic.name + "' is claimed by both plugin '" + first.entry.name +
        "' (" + first.library_path + ") and plugin '" + loaded.entry.name + "' (" + loaded.library_path +
        "); remove one of the two entries from the manifest");
  }
  UCMOH_RETURN_IF_ERROR(CheckIntrinsicNames(EntryContext{manifest_path, loaded.entry}, loaded));
  for (const IntrinsicInfo& intrinsic : loaded.intrinsics) by_intrinsic_[intrinsic.name] = plugins_.size();
  plugins_.push_back(std::move(loaded));
  return Status::Ok();
}

Expected<PluginSet> LoadPlugins(const std::string& manifest_path) {
  auto entries = ParsePluginManifest(manifest_path);
  if (!entries) return entries.status();
  PluginSet set;
  for (const PluginManifestEntry& entry : *entries) {
    auto loaded = LoadOne(manifest_path, entry);
    if (!loaded) return loaded.status();
    UCMOH_RETURN_IF_ERROR(set.Add(manifest_path, std::move(*loaded)));
  }
  return set;
}

Expected<PluginSet> PluginSet::InProcess(std::vector<std::shared_ptr<TargetPlugin>> plugins) {
  PluginSet set;
  for (auto& plugin : plugins) {
    LoadedPlugin loaded;
    loaded.target = plugin->Target();
    loaded.intrinsics = plugin->Intrinsics();
    loaded.entry = {loaded.target.name, "(in process)", kPluginAbiVersion, ""};
    loaded.library_path = "(in process)";
    loaded.abi = kPluginAbiVersion;
    loaded.abi_minor = UCMOH_PLUGIN_C_MINOR;
    loaded.plugin = std::move(plugin);
    UCMOH_RETURN_IF_ERROR(set.Add("in-process plugins", std::move(loaded)));
  }
  return set;
}

const LoadedPlugin* PluginSet::ForIntrinsic(const std::string& intrinsic) const {
  auto it = by_intrinsic_.find(intrinsic);
  return it == by_intrinsic_.end() ? nullptr : &plugins_[it->second];
}

const LoadedPlugin* PluginSet::ForTarget(const std::string& target) const {
  for (const LoadedPlugin& loaded : plugins_) {
    if (loaded.target.name == target) return &loaded;
  }
  return nullptr;
}

const IntrinsicInfo* PluginSet::Intrinsic(const std::string& intrinsic) const {
  const LoadedPlugin* owner = ForIntrinsic(intrinsic);
  if (!owner) return nullptr;
  for (const IntrinsicInfo& info : owner->intrinsics) {
    if (info.name == intrinsic) return &info;
  }
  return nullptr;
}

std::vector<IntrinsicInfo> PluginSet::AllIntrinsics() const {
  std::vector<IntrinsicInfo> all;
  for (const LoadedPlugin& loaded : plugins_) {
    all.insert(all.end(), loaded.intrinsics.begin(), loaded.intrinsics.end());
  }
  return all;
}

}  // namespace ucmoh
