// registry convert-model OLD NEW: rewrites a model file of an older format
// (format 1, a LibTorch archive) in this build's format. Format 1's code part
// is parsed by LibTorch, so the user names the file they trust; every other
// command refuses it (docs/registry.md, "Model files").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/file_bytes.h"

namespace ucmoh::cli {

namespace {

struct ConvertModelArgs {
  std::string input, output;
};

int RunConvertModel(const ConvertModelArgs& args) {
  auto bytes = ReadFileBytes(args.input);
  if (!bytes.ok()) return Fail(bytes.status());
  const int format = ModelFileFormat(*bytes);
  ModelReadOptions options;
  options.accept_format1 = true;
  auto model = CostModel::FromBytes(*bytes, options);
  if (!model.ok()) return Fail(model.status().WithContext(args.input));
  Status saved = model->Save(args.output);
  if (!saved.ok()) return Fail(saved);
  fmt::print("{}: model file format {} -> {} ({}), {} parameters, intrinsics: {}\n", args.output, format,
             kModelFileFormatVersion, args.input, model->num_parameters(),
             model->learned_intrinsics().empty() ? "none" : fmt::format("{}", fmt::join(model->learned_intrinsics(), ", ")));
  return 0;
}

}  // namespace

Command AddConvertModelCommand(CLI::App& app, const GlobalOptions& /*global*/) {
  auto* sub = app.add_subcommand("convert-model", "Rewrite a model file you trust in this build's format");
  auto args = std::make_shared<ConvertModelArgs>();
  sub->add_option("input", args->input, "Model file to read (format 1 is accepted here only)")->required();
  sub->add_option("output", args->output, "Model file to write (format 2)")->required();
  return {sub, [args]() { return RunConvertModel(*args); }};
}

}  // namespace ucmoh::cli
