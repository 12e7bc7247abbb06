#include "metrics_table.h"

#include <fmt/format.h>

namespace ucmoh::cli {

MetricsTable ComputeMetricsTable(const ProgramSet& set, const std::vector<float>& scores) {
  return {EvaluateByIntrinsic(set, scores), EvaluateRanking(set, scores)};
}

void PrintMetricsTable(const MetricsTable& table, const std::string& title) {
  fmt::print("{}\n{:<24} {:>6} {:>9} {:>7} {:>7} {:>7} {:>7}\n", title, "intrinsic", "tasks", "programs",
             "PCA", "top-1", "top-5", "NDCG");
  auto row = [](const std::string& name, const RankingMetrics& m) {
    fmt::print("{:<24} {:>6} {:>9} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f}\n", name, m.tasks, m.programs,
               m.pca, m.top1, m.top5, m.ndcg);
  };
  for (const auto& [name, m] : table.by_intrinsic) row(name, m);
  row("all", table.all);
}

nlohmann::json MetricsJson(const RankingMetrics& m) {
  return {{"tasks", m.tasks}, {"programs", m.programs}, {"pca", m.pca},
          {"top1", m.top1},   {"top5", m.top5},         {"ndcg", m.ndcg}};
}

nlohmann::json MetricsTableJson(const MetricsTable& table) {
  nlohmann::json out = {{"all", MetricsJson(table.all)}};
  for (const auto& [name, m] : table.by_intrinsic) out["intrinsics"][name] = MetricsJson(m);
  return out;
}

}  // namespace ucmoh::cli
