// Small synthetic program sets and networks for the model tests: tasks whose
// latency is a known function of a few token features, so a model can learn
// them in seconds.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include "ucmoh/cost_model.h"
#include "ucmoh/program_set.h"

namespace ucmoh::test {

// Tasks whose latency is a smooth, interacting function of a few token
// features; the rest is noise the model must learn to ignore.
inline ProgramSet SyntheticSet(int tasks, int programs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 4.f);
  ProgramSet set;
  for (int t = 0; t < tasks; ++t) {
    TaskGroup task{"task" + std::to_string(t), t % 2 ? "toy.a" : "toy.b", "toy", {}, ""};
    const double scale = 1e-3 * (1 + t % 5);
    for (int p = 0; p < programs; ++p) {
      TokenMatrix m;
      m.num_tokens = 3 + p % 2;
      m.values.resize(static_cast<size_t>(m.num_tokens) * kFeatureDim);
      // A few informative dimensions and a few distractors per token, the
      // rest zero, as in real tokens.
      for (int t = 0; t < m.num_tokens; ++t) {
        float* row = m.values.data() + static_cast<size_t>(t) * kFeatureDim;
        row[std::min(t, 4)] = 1.f;  // the token-kind one-hot, as the featurizer writes it
        for (int d : {5, 10, 20, 33, 40}) row[d] = u(rng);
      }
      const float* stage = m.row(2);
      const double cost = 0.3 * stage[10] - 0.2 * stage[20] + 0.08 * stage[10] * m.row(0)[5];
      task.programs.push_back(static_cast<int32_t>(set.size()));
      set.task.push_back(t);
      set.latency_s.push_back(scale * std::exp(cost));
      set.tokens.push_back(std::move(m));
    }
    set.tasks.push_back(task);
  }
  return set;
}

inline NetworkConfig SmallNetwork() {
  NetworkConfig c;
  c.hidden = 32;
  c.heads = 4;
  c.seed = 7;
  return c;
}

inline std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

}  // namespace ucmoh::test
