#include "lifelong_step_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

namespace ucmoh::cli {

namespace {

// One CLI11 option per step option, typed as its field.
struct AddFlag {
  CLI::App* sub;
  LifelongStepFlags* flags;
  void operator()(const StepOption& o, LifelongMethod&) const {
    const std::string choices = flags->allowed.empty() ? "replay | ewc+replay | ewc | online-ewc | finetune | joint | separate"
                                                       : fmt::format("{}", fmt::join(flags->allowed, " | "));
    sub->add_option(o.flag, flags->method, "Forgetting control: " + choices)->capture_default_str();
  }
  void operator()(const StepOption& o, bool& x) const {  // --name, and --no-name to turn a default on off
    sub->add_flag(std::string(o.flag) + ",!--no-" + (o.flag + 2), x, o.help)->capture_default_str();
  }
  void operator()(const StepOption& o, std::vector<double>& xs) const {
    sub->add_option(o.flag, xs, o.help)->delimiter(',');
  }
  template <class T>
  void operator()(const StepOption& o, T& x) const {
    sub->add_option(o.flag, x, o.help)->capture_default_str();
  }
};

}  // namespace

void LifelongStepFlags::Add(CLI::App& sub, LifelongStepOptions& o, const std::vector<LifelongMethod>& methods) {
  app = &sub;
  for (LifelongMethod m : methods) allowed.push_back(LifelongMethodName(m));
  method = LifelongMethodName(o.method);
  VisitStepOptions(o, AddFlag{&sub, this});
}

Status LifelongStepFlags::Apply(LifelongStepOptions& o) const {
  auto parsed = ParseLifelongMethod(method);
  if (!parsed.ok()) return parsed.status();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), method) == allowed.end())
    return Status::InvalidArgument(fmt::format("--method {}: this command takes {}", method, fmt::join(allowed, ", ")));
  o.method = *parsed;
  std::set<std::string> given;
  VisitStepOptions(o, [&](const StepOption& option, const auto&) {
    if (app && app->get_option(option.flag)->count() > 0) given.insert(option.key);
  });
  return CheckGivenStepOptions(o, given, /*as_flags=*/true);
}

}  // namespace ucmoh::cli
