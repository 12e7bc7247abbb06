// The lifelong step's flags, registered once for both `registry lifelong`
// and `registry add-intrinsic` from the step's one option list
// (VisitStepOptions, lifelong_step_options.h), so that the two commands take
// the same options with the same defaults (LifelongStepOptions{}).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ucmoh/lifelong_step.h"

namespace ucmoh::cli {

struct LifelongStepFlags {
  std::string method;  // filled with the default method's name by Add
  std::vector<std::string> allowed;
  CLI::App* app = nullptr;

  // One flag per step option. `methods` limits --method (add-intrinsic
  // cannot run the joint and separate baselines).
  void Add(CLI::App& sub, LifelongStepOptions& options, const std::vector<LifelongMethod>& methods = {});
  // Parses --method and refuses flags the method would ignore (--lambda under replay).
  Status Apply(LifelongStepOptions& options) const;
};

}  // namespace ucmoh::cli
