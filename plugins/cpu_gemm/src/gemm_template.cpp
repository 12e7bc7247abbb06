#include "ucmoh/cpu_gemm/gemm_template.h"

#include <cmath>

namespace ucmoh::cpu_gemm {

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

TemplateValues GemmTemplateValues(const GemmPlan& plan) {
  const GemmSchedule& s = plan.schedule;
  const IsaProfile& p = plan.profile;
  const double kc = static_cast<double>(plan.k.block_units * p.k_group);
  const double mc = static_cast<double>(plan.m.block_units * s.mr);
  const double nc = static_cast<double>(plan.n.block_units * plan.nr);
  const double in = static_cast<double>(p.input_bytes);
  TemplateValues v{};
  v[0] = s.pack_a ? 1.0f : 0.0f;
  v[1] = s.pack_b ? 1.0f : 0.0f;
  v[2] = static_cast<float>(std::log2(static_cast<double>(s.k_unroll)));
  v[3] = static_cast<float>(static_cast<double>(s.mr * s.nr_vec) / p.vector_registers);
  v[4] = static_cast<float>(kc * plan.nr * in / p.l1_bytes);
  v[5] = static_cast<float>(mc * kc * in / p.l2_bytes);
  v[6] = static_cast<float>(kc * nc * in / p.last_level_bytes());
  v[7] = static_cast<float>(static_cast<double>(s.threads) / p.cores);
  return v;
}

}  // namespace ucmoh::cpu_gemm
