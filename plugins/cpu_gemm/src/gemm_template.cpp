#include "ucmoh/cpu_gemm/gemm_template.h"

#include <cmath>

namespace ucmoh::cpu_gemm {

namespace {

// inputs[name], which must be present, finite and >= `min`.
Expected<double> Input(const TemplateInputs& inputs, const char* name, double min) {
  auto it = inputs.find(name);
  if (it == inputs.end()) return Status::InvalidArgument(std::string("template input '") + name + "' is missing");
  if (!std::isfinite(it->second) || it->second < min)
    return Status::InvalidArgument(std::string("template input '") + name + "' must be >= " +
                                   std::to_string(static_cast<int64_t>(min)));
  return it->second;
}

}  // namespace

std::vector<std::string> GemmTemplateDimNames() {
  return {
      "packed_a",            // 1 when A panels are packed
      "packed_b",            // 1 when B panels are packed
      "log2_k_unroll",       // log2 of the micro-kernel's k unroll
      "accumulator_share",   // mr * nr_vec accumulators / vector registers
      "kc_nr_bytes_per_l1",  // B micro-panel (kc x nr) bytes / L1 data cache
      "mc_kc_bytes_per_l2",  // A panel (mc x kc) bytes / L2
      "kc_nc_bytes_per_llc", // B panel (kc x nc) bytes / L3 (L2 without one)
      "threads_per_core",    // threads / cores
  };
}

std::vector<std::string> GemmTemplateInputNames() {
  return {"pack_a", "pack_b", "k_unroll", "mr", "nr_vec", "kc", "mc", "nc", "threads"};
}

TemplateInputs GemmTemplateInputs(const GemmPlan& plan) {
  const GemmSchedule& s = plan.schedule;
  const IsaProfile& p = plan.profile;
  auto d = [](int64_t x) { return static_cast<double>(x); };
  return {{"pack_a", s.pack_a ? 1.0 : 0.0},
          {"pack_b", s.pack_b ? 1.0 : 0.0},
          {"k_unroll", d(s.k_unroll)},
          {"mr", d(s.mr)},
          {"nr_vec", d(s.nr_vec)},
          {"kc", d(plan.k.block_units * p.k_group)},
          {"mc", d(plan.m.block_units * s.mr)},
          {"nc", d(plan.n.block_units * plan.nr)},
          {"threads", d(s.threads)}};
}

Expected<TemplateValues> GemmTemplateValues(const TemplateInputs& inputs, const IsaProfile& p) {
  double v[9];
  const char* names[9] = {"pack_a", "pack_b", "k_unroll", "mr", "nr_vec", "kc", "mc", "nc", "threads"};
  for (int i = 0; i < 9; ++i) {
    auto value = Input(inputs, names[i], i < 2 ? 0 : 1);
    if (!value.ok()) return value.status();
    v[i] = *value;
  }
  const auto [pack_a, pack_b, k_unroll, mr, nr_vec, kc, mc, nc, threads] = v;
  const double nr = nr_vec * static_cast<double>(p.lanes);
  const double in = static_cast<double>(p.input_bytes);
  TemplateValues t{};
  t[0] = pack_a != 0 ? 1.0f : 0.0f;
  t[1] = pack_b != 0 ? 1.0f : 0.0f;
  t[2] = static_cast<float>(std::log2(k_unroll));
  t[3] = static_cast<float>(mr * nr_vec / static_cast<double>(p.vector_registers));
  t[4] = static_cast<float>(kc * nr * in / p.l1_bytes);
  t[5] = static_cast<float>(mc * kc * in / p.l2_bytes);
  t[6] = static_cast<float>(kc * nc * in / p.last_level_bytes());
  t[7] = static_cast<float>(threads / static_cast<double>(p.cores));
  return t;
}

}  // namespace ucmoh::cpu_gemm
