// The lifelong step's flags, registered once for both `registry lifelong`
// and `registry add-intrinsic`, so that the two commands take the same
// options with the same defaults (LifelongStepOptions{}).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ucmoh/lifelong_step.h"

namespace ucmoh::cli {

struct LifelongStepFlags {
  std::string method;  // filled with the default method's name by Add
  std::vector<std::string> allowed;

  // --method, --lambda, --lambda-grid, --gamma, --rehearsal, --rehearsal-seed, --refit-normalizer,
  // --epochs, --lr, --patience, --seed, --hidden, --heads. `methods` limits --method
  // (add-intrinsic cannot run the joint and separate baselines).
  void Add(CLI::App& sub, LifelongStepOptions& options, const std::vector<LifelongMethod>& methods = {});
  Status Apply(LifelongStepOptions& options) const;  // parses --method
};

// The options as JSON (the lifelong command's --json output).
nlohmann::json StepOptionsJson(const LifelongStepOptions& options);

}  // namespace ucmoh::cli
