// Printing per-intrinsic ranking metrics as a table or JSON.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ucmoh/metrics.h"

namespace ucmoh::cli {

// Per intrinsic plus an "all" row (tasks averaged across intrinsics).
struct MetricsTable {
  std::map<std::string, RankingMetrics> by_intrinsic;
  RankingMetrics all;
};

MetricsTable ComputeMetricsTable(const ProgramSet& set, const std::vector<float>& scores);
void PrintMetricsTable(const MetricsTable& table, const std::string& title);
nlohmann::json MetricsTableJson(const MetricsTable& table);
nlohmann::json MetricsJson(const RankingMetrics& m);

}  // namespace ucmoh::cli
