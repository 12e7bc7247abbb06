// The lifelong step's options and their one list (lifelong_step_options.h):
// each conversion below is one visitor over VisitStepOptions, with one
// overload per field type.
#include "ucmoh/lifelong_step_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ucmoh {

namespace {

using nlohmann::json;

struct ToParams {
  ParamMap* out;
  void operator()(const StepOption& o, LifelongMethod m) const { (*out)[o.key] = std::string(LifelongMethodName(m)); }
  void operator()(const StepOption& o, double x) const { (*out)[o.key] = x; }
  void operator()(const StepOption& o, const std::vector<double>& xs) const {
    (*out)[o.key] = fmt::format("{}", fmt::join(xs, ","));
  }
  void operator()(const StepOption& o, int x) const { (*out)[o.key] = static_cast<int64_t>(x); }
  void operator()(const StepOption& o, uint64_t x) const { (*out)[o.key] = static_cast<int64_t>(x); }
  void operator()(const StepOption& o, bool x) const { (*out)[o.key] = static_cast<int64_t>(x); }
};

Expected<std::vector<double>> ParseRealList(const std::string& text, const std::string& key) {
  std::vector<double> xs;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) return Status::InvalidArgument(fmt::format("'{}': '{}' is not a number", key, item));
    xs.push_back(x);
  }
  return xs;
}

struct FromParams {
  const ParamMap* in;
  Status* status;
  bool Has(const StepOption& o) const { return status->ok() && in->count(o.key); }
  void Fail(const Status& s) const { *status = s; }
  void operator()(const StepOption& o, LifelongMethod& m) const {
    if (!Has(o)) return;
    auto name = GetString(*in, o.key);
    auto parsed = name.ok() ? ParseLifelongMethod(*name) : Expected<LifelongMethod>(name.status());
    parsed.ok() ? void(m = *parsed) : Fail(parsed.status());
  }
  void operator()(const StepOption& o, double& x) const {
    if (!Has(o)) return;
    auto v = GetReal(*in, o.key);
    v.ok() ? void(x = *v) : Fail(v.status());
  }
  void operator()(const StepOption& o, std::vector<double>& xs) const {
    if (!Has(o)) return;
    auto text = GetString(*in, o.key);
    auto v = text.ok() ? ParseRealList(*text, o.key) : Expected<std::vector<double>>(text.status());
    v.ok() ? void(xs = *v) : Fail(v.status());
  }
  template <class Int>
  void ReadInt(const StepOption& o, Int& x) const {
    if (!Has(o)) return;
    auto v = GetInt(*in, o.key);
    if (v.ok() && *v < 0) v = Status::InvalidArgument(fmt::format("'{}' must be >= 0", o.key));
    v.ok() ? void(x = static_cast<Int>(*v)) : Fail(v.status());
  }
  void operator()(const StepOption& o, int& x) const { ReadInt(o, x); }
  void operator()(const StepOption& o, uint64_t& x) const { ReadInt(o, x); }
  void operator()(const StepOption& o, bool& x) const { ReadInt(o, x); }
};

struct ToJson {
  json* out;
  void operator()(const StepOption& o, LifelongMethod m) const { (*out)[o.key] = LifelongMethodName(m); }
  template <class T>
  void operator()(const StepOption& o, const T& x) const { (*out)[o.key] = x; }
};

struct FromJson {
  const json* in;
  std::set<std::string>* given;
  Status* status;
  const json* Find(const StepOption& o) const {
    if (!status->ok()) return nullptr;
    auto it = in->find(o.key);
    if (it == in->end()) return nullptr;
    given->insert(o.key);
    return &*it;
  }
  void Mistyped(const StepOption& o, const char* expected) const {
    *status = Status::InvalidArgument(fmt::format("'{}' must be {}", o.key, expected));
  }
  void operator()(const StepOption& o, LifelongMethod& m) const {
    const json* v = Find(o);
    if (!v) return;
    if (!v->is_string()) return Mistyped(o, "a method name");
    auto parsed = ParseLifelongMethod(v->get<std::string>());
    parsed.ok() ? void(m = *parsed) : void(*status = parsed.status());
  }
  void operator()(const StepOption& o, double& x) const {
    const json* v = Find(o);
    if (!v) return;
    v->is_number() ? void(x = v->get<double>()) : Mistyped(o, "a number");
  }
  void operator()(const StepOption& o, std::vector<double>& xs) const {
    const json* v = Find(o);
    if (!v) return;
    if (!v->is_array()) return Mistyped(o, "an array of numbers");
    xs.clear();
    for (const auto& e : *v) {
      if (!e.is_number()) return Mistyped(o, "an array of numbers");
      xs.push_back(e.get<double>());
    }
  }
  template <class Int>
  void ReadInt(const StepOption& o, Int& x, const char* expected) const {
    const json* v = Find(o);
    if (!v) return;
    if (!v->is_number_integer() || *v < 0 || *v > 1e9) return Mistyped(o, expected);
    x = static_cast<Int>(v->get<int64_t>());
  }
  void operator()(const StepOption& o, int& x) const { ReadInt(o, x, "an integer in [0, 1e9]"); }
  void operator()(const StepOption& o, uint64_t& x) const { ReadInt(o, x, "an integer in [0, 1e9]"); }
  void operator()(const StepOption& o, bool& x) const {
    const json* v = Find(o);
    if (!v) return;
    v->is_boolean() ? void(x = v->get<bool>()) : Mistyped(o, "true or false");
  }
};

}  // namespace

ParamMap StepOptionsToParams(const LifelongStepOptions& options) {
  ParamMap params;
  VisitStepOptions(options, ToParams{&params});
  return params;
}

Status StepOptionsFromParams(const ParamMap& params, LifelongStepOptions* options) {
  Status status;
  VisitStepOptions(*options, FromParams{&params, &status});
  return status;
}

json StepOptionsToJson(const LifelongStepOptions& options) {
  json j = json::object();
  VisitStepOptions(options, ToJson{&j});
  return j;
}

Status StepOptionsFromJson(const json& j, LifelongStepOptions* options, std::set<std::string>* given) {
  if (!j.is_object()) return Status::InvalidArgument("the options are not a JSON object");
  Status status;
  VisitStepOptions(*options, FromJson{&j, given, &status});
  return status;
}

Status CheckGivenStepOptions(const LifelongStepOptions& options, const std::set<std::string>& given, bool as_flags) {
  const LifelongStepOptions defaults;
  Status status;
  VisitStepOptions(defaults, [&](const StepOption& o, const auto&) {
    if (!status.ok() || !given.count(o.key)) return;
    const std::string key = o.key;
    const char* name = as_flags ? o.flag : o.key;
    const char* method = LifelongMethodName(options.method);
    if ((key == "lambda" || key == "lambda_grid") && !MethodUsesEwc(options.method))
      status = Status::InvalidArgument(fmt::format(
          "{}: method '{}' has no EWC penalty to weigh (methods with one: ewc+replay, ewc, online-ewc)", name, method));
    else if (key == "gamma" && options.method != LifelongMethod::kOnlineEwc)
      status = Status::InvalidArgument(fmt::format("{}: only online-ewc decays older importance, not '{}'", name, method));
  });
  return status;
}

Expected<LifelongMethod> ParseLifelongMethod(const std::string& name) {
  for (LifelongMethod m : {LifelongMethod::kReplay, LifelongMethod::kEwcReplay, LifelongMethod::kEwc,
                           LifelongMethod::kOnlineEwc, LifelongMethod::kFinetune, LifelongMethod::kJoint,
                           LifelongMethod::kSeparate})
    if (name == LifelongMethodName(m)) return m;
  if (name == "online_ewc") return LifelongMethod::kOnlineEwc;  // as older registry versions name it
  return Status::InvalidArgument("unknown lifelong method '" + name +
                                 "' (replay, ewc+replay, ewc, online-ewc, finetune, joint, separate)");
}

const char* LifelongMethodName(LifelongMethod method) {
  switch (method) {
    case LifelongMethod::kEwcReplay: return "ewc+replay";
    case LifelongMethod::kReplay: return "replay";
    case LifelongMethod::kEwc: return "ewc";
    case LifelongMethod::kOnlineEwc: return "online-ewc";
    case LifelongMethod::kFinetune: return "finetune";
    case LifelongMethod::kJoint: return "joint";
    case LifelongMethod::kSeparate: return "separate";
  }
  return "?";
}

bool MethodUsesEwc(LifelongMethod m) {
  return m == LifelongMethod::kEwc || m == LifelongMethod::kOnlineEwc || m == LifelongMethod::kEwcReplay;
}

bool MethodReplays(LifelongMethod m) { return m == LifelongMethod::kReplay || m == LifelongMethod::kEwcReplay; }

}  // namespace ucmoh
