// Ranking metrics within tasks. Conventions worth knowing:
//  - PCA counts pairs with distinct latency; tied scores count half. A task
//    whose programs all share one latency has no pairs and is left out of the
//    PCA average (it still counts for top-k and NDCG).
//  - top-k and NDCG break score ties against the model (the slower program
//    first), so a constant predictor cannot look good by luck of the order.
//  - Only tasks with at least two programs are averaged; `programs` counts
//    the programs of those tasks.
#include "ucmoh/metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace ucmoh {

namespace {

// Counts over rank positions 0..n-1 with prefix sums in O(log n).
class FenwickTree {
 public:
  explicit FenwickTree(size_t n) : tree_(n + 1, 0) {}
  void Add(size_t position) {
    for (size_t i = position + 1; i < tree_.size(); i += i & (~i + 1)) ++tree_[i];
  }
  int64_t CountBelow(size_t position) const {  // positions < `position`
    int64_t sum = 0;
    for (size_t i = position; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  std::vector<int64_t> tree_;
};

struct PairCounts {
  double correct = 0;  // tied scores add 0.5
  int64_t pairs = 0;   // pairs with distinct latency
};

// O(n log n): visit programs from fastest to slowest; every program already
// inserted is strictly faster, and is correctly ordered when its score is higher.
PairCounts CountPairs(const std::vector<double>& latency, const std::vector<float>& score) {
  const size_t n = latency.size();
  std::vector<size_t> by_score(n);
  std::iota(by_score.begin(), by_score.end(), 0);
  std::sort(by_score.begin(), by_score.end(),
            [&](size_t a, size_t b) { return score[a] < score[b]; });
  // Equal scores share the half-open rank range [rank_lo, rank_hi).
  std::vector<size_t> rank_lo(n), rank_hi(n);
  for (size_t begin = 0; begin < n;) {
    size_t end = begin;
    while (end < n && score[by_score[end]] == score[by_score[begin]]) ++end;
    for (size_t i = begin; i < end; ++i) {
      rank_lo[by_score[i]] = begin;
      rank_hi[by_score[i]] = end;
    }
    begin = end;
  }

  std::vector<size_t> by_latency(n);
  std::iota(by_latency.begin(), by_latency.end(), 0);
  std::sort(by_latency.begin(), by_latency.end(),
            [&](size_t a, size_t b) { return latency[a] < latency[b]; });

  FenwickTree faster(n);
  PairCounts counts;
  int64_t inserted = 0;
  for (size_t begin = 0; begin < n;) {
    size_t end = begin;
    while (end < n && latency[by_latency[end]] == latency[by_latency[begin]]) ++end;
    for (size_t i = begin; i < end; ++i) {  // query the whole latency tie group first
      const size_t p = by_latency[i];
      const int64_t not_higher = faster.CountBelow(rank_hi[p]);
      const int64_t tied = not_higher - faster.CountBelow(rank_lo[p]);
      counts.correct += static_cast<double>(inserted - not_higher) + 0.5 * static_cast<double>(tied);
      counts.pairs += inserted;
    }
    for (size_t i = begin; i < end; ++i) faster.Add(rank_lo[by_latency[i]]);
    inserted += static_cast<int64_t>(end - begin);
    begin = end;
  }
  return counts;
}

// Program positions ordered by descending score, ties broken slower-first.
std::vector<size_t> ModelOrder(const std::vector<double>& latency, const std::vector<float>& score) {
  std::vector<size_t> order(latency.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (score[a] != score[b]) return score[a] > score[b];
    return latency[a] > latency[b];
  });
  return order;
}

double TopK(const std::vector<double>& latency, const std::vector<size_t>& order, size_t k) {
  const double best = *std::min_element(latency.begin(), latency.end());
  double best_in_top = latency[order[0]];
  for (size_t i = 1; i < std::min(k, order.size()); ++i)
    best_in_top = std::min(best_in_top, latency[order[i]]);
  return best / best_in_top;
}

double Dcg(const std::vector<double>& gains_in_order) {
  double dcg = 0;
  for (size_t i = 0; i < gains_in_order.size(); ++i)
    dcg += gains_in_order[i] / std::log2(static_cast<double>(i) + 2.0);
  return dcg;
}

double Ndcg(const std::vector<double>& latency, const std::vector<size_t>& order) {
  const double best = *std::min_element(latency.begin(), latency.end());
  std::vector<double> gains;
  for (size_t p : order) gains.push_back(best / latency[p]);
  std::vector<double> ideal = gains;
  std::sort(ideal.begin(), ideal.end(), std::greater<double>());
  const double ideal_dcg = Dcg(ideal);
  return ideal_dcg > 0 ? Dcg(gains) / ideal_dcg : 0.0;
}

struct TaskMetrics {
  PairCounts pairs;
  double top1 = 0, top5 = 0, ndcg = 0;
  int64_t programs = 0;
};

TaskMetrics EvaluateTask(const ProgramSet& set, const TaskGroup& group,
                         const std::vector<float>& scores) {
  std::vector<double> latency;
  std::vector<float> score;
  for (int32_t p : group.programs) {
    latency.push_back(set.latency_s[p]);
    // NaN would break the sorts; a model that says nothing ranks last.
    score.push_back(std::isnan(scores[p]) ? -std::numeric_limits<float>::infinity() : scores[p]);
  }
  TaskMetrics m;
  m.programs = static_cast<int64_t>(latency.size());
  m.pairs = CountPairs(latency, score);
  const auto order = ModelOrder(latency, score);
  m.top1 = TopK(latency, order, 1);
  m.top5 = TopK(latency, order, 5);
  m.ndcg = Ndcg(latency, order);
  return m;
}

// Averages per-task metrics into one summary.
class MetricsAverager {
 public:
  void Add(const TaskMetrics& m) {
    ++tasks_;
    programs_ += m.programs;
    top1_ += m.top1;
    top5_ += m.top5;
    ndcg_ += m.ndcg;
    if (m.pairs.pairs > 0) {
      ++pca_tasks_;
      pca_ += m.pairs.correct / static_cast<double>(m.pairs.pairs);
    }
  }
  RankingMetrics Result() const {
    RankingMetrics r;
    r.tasks = tasks_;
    r.programs = programs_;
    if (tasks_ == 0) return r;
    r.top1 = top1_ / tasks_;
    r.top5 = top5_ / tasks_;
    r.ndcg = ndcg_ / tasks_;
    r.pca = pca_tasks_ > 0 ? pca_ / pca_tasks_ : 0.0;
    return r;
  }

 private:
  int64_t tasks_ = 0, programs_ = 0, pca_tasks_ = 0;
  double top1_ = 0, top5_ = 0, ndcg_ = 0, pca_ = 0;
};

bool Rankable(const TaskGroup& group) { return group.programs.size() >= 2; }

}  // namespace

RankingMetrics EvaluateRanking(const ProgramSet& set, const std::vector<float>& scores) {
  // One score per program is the caller's contract; a mismatch evaluates nothing.
  if (scores.size() != set.size()) return RankingMetrics{};
  MetricsAverager all;
  for (const auto& group : set.tasks)
    if (Rankable(group)) all.Add(EvaluateTask(set, group, scores));
  return all.Result();
}

std::map<std::string, RankingMetrics> EvaluateByIntrinsic(const ProgramSet& set,
                                                          const std::vector<float>& scores) {
  std::map<std::string, RankingMetrics> result;
  if (scores.size() != set.size()) return result;
  std::map<std::string, MetricsAverager> by_intrinsic;
  for (const auto& group : set.tasks)
    if (Rankable(group)) by_intrinsic[group.intrinsic].Add(EvaluateTask(set, group, scores));
  for (const auto& [intrinsic, averager] : by_intrinsic) result[intrinsic] = averager.Result();
  return result;
}

double AverageAccuracy(const std::vector<std::vector<double>>& r) {
  if (r.empty()) return 0;
  const size_t last = r.size() - 1;
  const size_t columns = std::min(r[last].size(), r.size());
  if (columns == 0) return 0;
  double sum = 0;
  for (size_t j = 0; j < columns; ++j) sum += r[last][j];
  return sum / static_cast<double>(columns);
}

double BackwardTransfer(const std::vector<std::vector<double>>& r) {
  if (r.size() < 2) return 0;  // nothing learned before the last step
  const size_t last = r.size() - 1;
  double sum = 0;
  for (size_t j = 0; j < last; ++j) sum += r[last][j] - r[j][j];
  return sum / static_cast<double>(last);
}

}  // namespace ucmoh
