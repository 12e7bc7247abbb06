#include "intrinsics.h"

namespace ucmoh::tensorcore {

namespace {

TensorCoreIntrinsic Make(const std::string& short_name, int64_t m, int64_t n, int64_t k,
                         const std::string& input, const std::string& accum, int min_cc) {
  TensorCoreIntrinsic intrinsic;
  intrinsic.short_name = short_name;
  intrinsic.min_compute_capability = min_cc;
  IntrinsicInfo& info = intrinsic.info;
  info.name = "tensorcore." + short_name;
  const std::string shape =
      "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  // PTX operand order: .dtype.atype.btype.ctype.
  info.instruction = "mma.sync.aligned." + shape + ".row.col." + accum + "." + input + "." +
                     input + "." + accum;
  info.m = m;
  info.n = n;
  info.k = k;
  info.input_type = input;
  info.accum_type = accum;
  info.ops_per_call = 2.0 * static_cast<double>(m * n * k);
  info.description = "warp-wide " + shape + " matrix multiply-accumulate, " + input + " inputs, " +
                     accum + " accumulators (CUTLASS sm_" + std::to_string(min_cc) + " kernels)";
  return intrinsic;
}

}  // namespace

const std::vector<TensorCoreIntrinsic>& AllIntrinsics() {
  static const std::vector<TensorCoreIntrinsic> kAll = {
      Make("h1688", 16, 8, 8, "f16", "f16", 75),
      Make("h16816", 16, 8, 16, "f16", "f16", 80),
      Make("s1688", 16, 8, 8, "f16", "f32", 75),
      Make("s16816", 16, 8, 16, "f16", "f32", 80),
      Make("i8816", 8, 8, 16, "s8", "s32", 75),
      Make("i16832", 16, 8, 32, "s8", "s32", 80),
  };
  return kAll;
}

const TensorCoreIntrinsic* FindIntrinsic(const std::string& name) {
  for (const auto& intrinsic : AllIntrinsics())
    if (intrinsic.info.name == name) return &intrinsic;
  return nullptr;
}

const TensorCoreIntrinsic* FindIntrinsicByShape(int64_t m, int64_t n, int64_t k,
                                                const std::string& input_type,
                                                const std::string& accum_type) {
  for (const auto& intrinsic : AllIntrinsics()) {
    const IntrinsicInfo& info = intrinsic.info;
    if (info.m == m && info.n == n && info.k == k && info.input_type == input_type &&
        info.accum_type == accum_type)
      return &intrinsic;
  }
  return nullptr;
}

std::string IntrinsicNameList() {
  std::string names;
  for (const auto& intrinsic : AllIntrinsics())
    names += (names.empty() ? "" : ", ") + intrinsic.info.name;
  return names;
}

}  // namespace ucmoh::tensorcore
