// Ranking quality within tasks, as the cost-model literature reports it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ucmoh/program_set.h"

namespace ucmoh {

struct RankingMetrics {
  double pca = 0;    // pairwise comparison accuracy: correctly ordered pairs / all pairs, per task, averaged
  double top1 = 0;   // best latency of the task / latency of the top-ranked program, averaged
  double top5 = 0;   // best latency / best latency among the 5 top-ranked programs, averaged
  double ndcg = 0;   // NDCG over the whole task ranking with labels min_latency/latency, averaged
  int64_t tasks = 0;     // tasks with at least two programs (the ones averaged)
  int64_t programs = 0;
};

// Higher score = predicted faster. Pairs with equal latency are not counted;
// tied scores count as half correct.
RankingMetrics EvaluateRanking(const ProgramSet& set, const std::vector<float>& scores);

// The same, per intrinsic.
std::map<std::string, RankingMetrics> EvaluateByIntrinsic(const ProgramSet& set,
                                                          const std::vector<float>& scores);

// Lifelong-learning summaries of R[i][j] = metric on intrinsic j after step i
// (square, row i filled for j <= i at least).
double AverageAccuracy(const std::vector<std::vector<double>>& r);   // mean of the last row
double BackwardTransfer(const std::vector<std::vector<double>>& r);  // mean_{j<T} R[T][j] - R[j][j]

}  // namespace ucmoh
