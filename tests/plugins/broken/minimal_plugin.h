// A minimal, valid TargetPlugin for the deliberately broken test libraries:
// each broken library gets everything right except the one thing it tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ucmoh/plugin_c_adapter.h"

namespace broken {

class MinimalPlugin : public ucmoh::TargetPlugin {
 public:
  MinimalPlugin(std::string target, std::vector<std::string> intrinsics)
      : target_(std::move(target)), intrinsics_(std::move(intrinsics)) {}

  ucmoh::TargetInfo Target() const override {
    ucmoh::TargetInfo info;
    info.name = target_;
    info.description = "test-only plugin";
    return info;
  }
  std::vector<ucmoh::IntrinsicInfo> Intrinsics() const override {
    std::vector<ucmoh::IntrinsicInfo> all;
    for (const std::string& name : intrinsics_) {
      ucmoh::IntrinsicInfo info;
      info.name = name;
      info.m = info.n = 8;
      info.k = 4;
      info.input_type = "s8";
      info.accum_type = "s32";
      info.ops_per_call = 2.0 * 8 * 8 * 4;
      all.push_back(info);
    }
    return all;
  }
  std::vector<std::string> TemplateDimNames() const override {
    return std::vector<std::string>(ucmoh::kTemplateDims, "unused");
  }
  ucmoh::Expected<ucmoh::ProgramAst> Lower(const ucmoh::Task&, const std::string& intrinsic,
                                           const ucmoh::ParamMap&,
                                           const ucmoh::HardwareParams&) const override {
    return ucmoh::Status::Unsupported("test-only plugin cannot lower " + intrinsic);
  }
  ucmoh::Expected<std::vector<ucmoh::ParamMap>> SampleSchedules(const ucmoh::Task&,
                                                                const std::string& intrinsic,
                                                                int64_t, uint64_t) const override {
    return ucmoh::Status::Unsupported("test-only plugin has no schedules for " + intrinsic);
  }

 private:
  std::string target_;
  std::vector<std::string> intrinsics_;
};

}  // namespace broken
