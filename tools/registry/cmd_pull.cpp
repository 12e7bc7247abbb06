// registry pull REF -o DIR: DIR/model.pt (TorchScript) + DIR/manifest.json,
// from the local registry or, for http://HOST:PORT/REF, from `registry serve`.
#include <fmt/format.h>

#include "cli_store.h"
#include "commands.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/server/remote_pull.h"

namespace ucmoh::cli {

Command AddPullCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("pull", "Export a version as a TorchScript module plus manifest");
  auto ref = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>();
  sub->add_option("ref", *ref, "ucmoh@3 | ucmoh@latest | ucmoh@stable | http://HOST:PORT/ucmoh@stable")->required();
  sub->add_option("-o,--output", *dir, "Directory to write model.pt and manifest.json into")->required();
  return {sub, [&global, ref, dir]() {
            if (server::IsRemoteReference(*ref)) {
              auto r = server::PullFromServer(*ref, *dir);
              if (!r.ok()) return Fail(r.status());
              fmt::print("version {} -> {} (sha256 {}), {} files, {} bytes, each verified\n", r->version,
                         r->model_path, r->model_sha256, r->files, r->bytes);
              return 0;
            }
            auto store = OpenStore(global, registry::OpenMode::kReadOnly);
            if (!store.ok()) return Fail(store.status());
            auto r = registry::PullVersion(**store, *ref, *dir);
            if (!r.ok()) return Fail(r.status());
            fmt::print("version {} -> {} (sha256 {}), {}\n", r->version, r->model_path, r->model_sha256,
                       r->manifest_path);
            return 0;
          }};
}

}  // namespace ucmoh::cli
