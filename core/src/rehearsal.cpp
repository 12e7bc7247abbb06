// Rehearsal samples (rehearsal.h): hash-ranked, bounded, order-independent.
#include "ucmoh/rehearsal.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ucmoh/task_split.h"

namespace ucmoh {

namespace {

std::vector<std::string> SortedKeys(const ProgramSet& set) {
  std::vector<std::string> keys;
  for (size_t p = 0; p < set.size(); ++p) keys.push_back(set.ProgramKeyAt(static_cast<int32_t>(p)));
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::vector<int32_t> SampleProgramIndices(const ProgramSet& set, int max_programs, uint64_t seed) {
  std::vector<int32_t> all(set.size());
  for (size_t p = 0; p < set.size(); ++p) all[p] = static_cast<int32_t>(p);
  if (max_programs <= 0 || set.size() <= static_cast<size_t>(max_programs)) return all;
  std::vector<std::pair<double, std::string>> ranked;  // (hash, key): ties broken by key
  for (int32_t p : all) {
    std::string key = set.ProgramKeyAt(p);
    ranked.emplace_back(TaskHashUnit(seed, key), std::move(key));
  }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::partial_sort(order.begin(), order.begin() + max_programs, order.end(),
                    [&](size_t a, size_t b) { return ranked[a] < ranked[b]; });
  std::vector<int32_t> kept(order.begin(), order.begin() + max_programs);
  std::sort(kept.begin(), kept.end());
  return kept;
}

RehearsalSample DrawRehearsal(const std::string& intrinsic, const ProgramSet& fit, const ProgramSet& validation,
                              int max_programs, uint64_t seed) {
  RehearsalSample sample;
  sample.intrinsic = intrinsic;
  sample.replay = fit.Subset(SampleProgramIndices(fit, max_programs, seed));
  sample.validation = validation.Subset(SampleProgramIndices(validation, max_programs, seed));
  sample.replay_keys = SortedKeys(sample.replay);
  sample.validation_keys = SortedKeys(sample.validation);
  return sample;
}

Expected<ProgramSet> SelectPrograms(const ProgramSet& set, const std::vector<std::string>& keys) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t p = 0; p < set.size(); ++p) index.emplace(set.ProgramKeyAt(static_cast<int32_t>(p)), p);
  std::vector<int32_t> picked;
  for (const auto& key : keys) {
    auto it = index.find(key);
    if (it == index.end()) return Status::NotFound("rehearsal program '" + key + "' is not among the records");
    picked.push_back(it->second);
  }
  std::sort(picked.begin(), picked.end());
  return set.Subset(picked);
}

ProgramSet CanonicalOrder(const ProgramSet& set) {
  std::vector<int32_t> tasks(set.tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) tasks[t] = static_cast<int32_t>(t);
  std::sort(tasks.begin(), tasks.end(), [&](int32_t a, int32_t b) {
    return std::tie(set.tasks[a].key, set.tasks[a].hardware) < std::tie(set.tasks[b].key, set.tasks[b].hardware);
  });
  std::vector<int32_t> order;
  for (int32_t t : tasks) {
    std::vector<std::pair<std::string, int32_t>> programs;
    for (int32_t p : set.tasks[t].programs) programs.emplace_back(set.ProgramKeyAt(p), p);
    std::sort(programs.begin(), programs.end());
    for (const auto& [key, p] : programs) order.push_back(p);
  }
  return set.Subset(order);
}

Expected<RehearsalSample> RehearsalFromKeys(const std::string& intrinsic, const ProgramSet& programs,
                                            std::vector<std::string> replay_keys,
                                            std::vector<std::string> validation_keys) {
  auto replay = SelectPrograms(programs, replay_keys);
  if (!replay.ok()) return replay.status();
  auto validation = SelectPrograms(programs, validation_keys);
  if (!validation.ok()) return validation.status();
  return RehearsalSample{intrinsic, std::move(replay_keys), std::move(validation_keys), CanonicalOrder(*replay),
                         CanonicalOrder(*validation)};
}

}  // namespace ucmoh
