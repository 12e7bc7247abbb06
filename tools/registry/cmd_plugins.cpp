// registry plugins [--json]: what is loaded, from where, and what it offers.
#include <fmt/format.h>

#include "commands.h"
#include "ucmoh/registry/registry_json.h"

namespace ucmoh::cli {

namespace {

void PrintText(const LoadedPlugin& p) {
  const HardwareParams& hw = p.target.hardware;
  fmt::print("{}  (abi {}.{}, {})\n  library {}\n  sha256  {}\n", p.entry.name, p.abi, p.abi_minor,
             p.target.description, p.library_path, p.library_sha256);
  fmt::print("  hardware: {}; {} {}; vector {} B x {} regs; L1 {} KiB, L2 {} KiB, L3 {} KiB\n",
             hw.model, hw.cores, hw.is_gpu ? "SMs" : "cores", hw.vector_bytes,
             hw.vector_registers, hw.l1_bytes / 1024, hw.l2_bytes / 1024, hw.l3_bytes / 1024);
  if (hw.is_gpu)
    fmt::print("  gpu: warp {}, {} threads/block, {} KiB shared/block, {} regs/SM\n",
               hw.warp_size, hw.max_threads_per_block, hw.shared_bytes_per_block / 1024,
               hw.registers_per_sm);
  for (const auto& in : p.intrinsics)
    fmt::print("  {:<26} {:<34} m{}n{}k{}  {:>5} -> {:<4} {:>6} ops/call\n", in.name,
               in.instruction, in.m, in.n, in.k, in.input_type, in.accum_type, in.ops_per_call);
}

}  // namespace

Command AddPluginsCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("plugins", "List loaded target plugins, their hardware and intrinsics");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "Print JSON instead of a table");
  return {sub, [&global, json]() {
            auto plugins = Plugins(global);
            if (!plugins.ok()) return Fail(plugins.status());
            if (*json) {
              fmt::print("{}\n", registry::PluginsToJson(**plugins).dump(2));
              return 0;
            }
            for (const auto& p : (*plugins)->plugins()) PrintText(p);
            return 0;
          }};
}

}  // namespace ucmoh::cli
