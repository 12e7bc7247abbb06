#include "score_agreement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ucmoh::testing {

namespace {

std::vector<size_t> Ranking(const std::vector<float>& scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

int Sign(double x) { return (x > 0) - (x < 0); }

void CountDiscordantPairs(const std::vector<float>& expected, const std::vector<float>& got, ScoreAgreement* a) {
  for (size_t i = 0; i < expected.size(); ++i)
    for (size_t j = i + 1; j < expected.size(); ++j) {
      const double e = double{expected[i]} - expected[j];
      if (Sign(e) == Sign(double{got[i]} - got[j])) continue;
      ++a->discordant_pairs;
      a->max_discordant_gap = std::max(a->max_discordant_gap, std::abs(e));
      if (std::abs(e) > a->tolerance) ++a->discordant_beyond_tolerance;
    }
}

}  // namespace

bool ScoreAgreement::ok() const {
  return std::isfinite(max_abs_diff) && max_abs_diff <= tolerance && discordant_beyond_tolerance == 0;
}

std::string ScoreAgreement::Describe() const {
  return fmt::format("{} programs, max |diff| {:.3g} (scale {:.3g}, relative {:.3g}, tolerance {:.3g}), "
                     "same order {}, discordant pairs {} (largest C++ gap {:.3g}; {} beyond tolerance)",
                     programs, max_abs_diff, scale, relative(), tolerance, same_order ? "yes" : "no",
                     discordant_pairs, max_discordant_gap, discordant_beyond_tolerance);
}

ScoreAgreement CompareScores(const std::vector<float>& expected, const std::vector<float>& got) {
  ScoreAgreement a;
  a.programs = static_cast<int64_t>(expected.size());
  if (got.size() != expected.size()) {
    a.max_abs_diff = INFINITY;
    return a;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const double diff = std::abs(double{got[i]} - expected[i]);
    a.max_abs_diff = std::isnan(diff) ? INFINITY : std::max(a.max_abs_diff, diff);
    a.scale = std::max(a.scale, std::abs(double{expected[i]}));
  }
  a.tolerance = kRelativeTolerance * a.scale;
  a.same_order = Ranking(expected) == Ranking(got);
  CountDiscordantPairs(expected, got, &a);
  return a;
}

}  // namespace ucmoh::testing
