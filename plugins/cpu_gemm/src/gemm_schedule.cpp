#include "ucmoh/cpu_gemm/gemm_schedule.h"

#include <algorithm>

namespace ucmoh::cpu_gemm {

const std::array<const char*, 10> kScheduleKeys = {
    "mr", "nr_vec", "mc", "nc", "kc", "loop_order", "packing", "k_unroll", "threads", "parallel"};

char DimLetter(GemmDim dim) {
  switch (dim) {
    case GemmDim::kM: return 'm';
    case GemmDim::kN: return 'n';
    case GemmDim::kK: return 'k';
  }
  return '?';
}

std::string GemmSchedule::LoopOrderString() const {
  std::string order;
  for (GemmDim dim : loop_order) order += DimLetter(dim);
  return order;
}

std::string GemmSchedule::PackingString() const {
  if (pack_a && pack_b) return "ab";
  if (pack_a) return "a";
  if (pack_b) return "b";
  return "none";
}

ParamMap ToParams(const GemmSchedule& s) {
  return ParamMap{
      {"mr", s.mr},
      {"nr_vec", s.nr_vec},
      {"mc", s.mc},
      {"nc", s.nc},
      {"kc", s.kc},
      {"loop_order", s.LoopOrderString()},
      {"packing", s.PackingString()},
      {"k_unroll", s.k_unroll},
      {"threads", s.threads},
      {"parallel", std::string(1, DimLetter(s.parallel))},
  };
}

namespace {

Expected<GemmDim> ParseDim(char letter) {
  if (letter == 'm') return GemmDim::kM;
  if (letter == 'n') return GemmDim::kN;
  if (letter == 'k') return GemmDim::kK;
  return Status::InvalidArgument(std::string("unknown dimension '") + letter + "'");
}

Expected<std::array<GemmDim, 3>> ParseLoopOrder(const std::string& text) {
  std::string sorted = text;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != "kmn") {
    return Status::InvalidArgument("schedule key 'loop_order' must be a permutation of \"mnk\", got \"" +
                                   text + "\"");
  }
  std::array<GemmDim, 3> order{};
  for (size_t i = 0; i < 3; ++i) order[i] = *ParseDim(text[i]);
  return order;
}

Status ParsePacking(const std::string& text, GemmSchedule& s) {
  if (text != "none" && text != "a" && text != "b" && text != "ab") {
    return Status::InvalidArgument("schedule key 'packing' must be none, a, b or ab, got \"" + text +
                                   "\"");
  }
  s.pack_a = text == "a" || text == "ab";
  s.pack_b = text == "b" || text == "ab";
  return Status::Ok();
}

Status ParseParallel(const std::string& text, GemmSchedule& s) {
  if (text != "m" && text != "n") {
    return Status::InvalidArgument("schedule key 'parallel' must be m or n, got \"" + text + "\"");
  }
  s.parallel = text == "m" ? GemmDim::kM : GemmDim::kN;
  return Status::Ok();
}

Status CheckNoUnknownKeys(const ParamMap& params) {
  for (const auto& entry : params) {
    const std::string& key = entry.first;
    if (std::find_if(kScheduleKeys.begin(), kScheduleKeys.end(),
                     [&](const char* known) { return key == known; }) == kScheduleKeys.end()) {
      return Status::InvalidArgument("unknown schedule key '" + key + "'");
    }
  }
  return Status::Ok();
}

// Reads an integer key into `field`, prefixing errors with "schedule".
Status ReadInt(const ParamMap& params, const char* key, int64_t& field) {
  auto value = GetInt(params, key);
  if (!value.ok()) return value.status().WithContext("schedule");
  field = *value;
  return Status::Ok();
}

Status ReadString(const ParamMap& params, const char* key, std::string& field) {
  auto value = GetString(params, key);
  if (!value.ok()) return value.status().WithContext("schedule");
  field = *value;
  return Status::Ok();
}

}  // namespace

Expected<GemmSchedule> ScheduleFromParams(const ParamMap& params) {
  UCMOH_RETURN_IF_ERROR(CheckNoUnknownKeys(params));
  GemmSchedule s;
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "mr", s.mr));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "nr_vec", s.nr_vec));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "mc", s.mc));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "nc", s.nc));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "kc", s.kc));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "k_unroll", s.k_unroll));
  UCMOH_RETURN_IF_ERROR(ReadInt(params, "threads", s.threads));
  std::string order, packing, parallel;
  UCMOH_RETURN_IF_ERROR(ReadString(params, "loop_order", order));
  UCMOH_RETURN_IF_ERROR(ReadString(params, "packing", packing));
  UCMOH_RETURN_IF_ERROR(ReadString(params, "parallel", parallel));
  auto parsed_order = ParseLoopOrder(order);
  if (!parsed_order.ok()) return parsed_order.status();
  s.loop_order = *parsed_order;
  UCMOH_RETURN_IF_ERROR(ParsePacking(packing, s));
  UCMOH_RETURN_IF_ERROR(ParseParallel(parallel, s));
  return s;
}

}  // namespace ucmoh::cpu_gemm
