// How closely a pulled model's scores follow CostModel::Predict: the largest
// difference against the score scale, and whether both rank the programs the
// same. tests/check_pulled_model.py applies the same rule in Python.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ucmoh::testing {

// Scores may differ by at most this fraction of the scale (the largest
// |C++ score| of the set): float32 sums in a different order, nothing more
// (measured: at most 3e-7 over every configuration and intrinsic).
constexpr double kRelativeTolerance = 1e-5;

struct ScoreAgreement {
  int64_t programs = 0;
  double max_abs_diff = 0;
  double scale = 0;            // max |expected|
  double tolerance = 0;        // kRelativeTolerance * scale
  bool same_order = false;     // a stable sort by either score gives one permutation
  int64_t discordant_pairs = 0;  // pairs the two scores order differently
  // Of those, pairs whose C++ scores differ by more than `tolerance` (i.e.
  // not a tie within float noise): a real ranking difference.
  int64_t discordant_beyond_tolerance = 0;
  double max_discordant_gap = 0;  // largest |C++ score difference| of a discordant pair

  bool ok() const;
  double relative() const { return scale > 0 ? max_abs_diff / scale : max_abs_diff; }
  std::string Describe() const;
};

ScoreAgreement CompareScores(const std::vector<float>& expected, const std::vector<float>& got);

}  // namespace ucmoh::testing
