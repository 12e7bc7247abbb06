// A registry version for the pulled-model checks: a network of one
// ExportCase's configuration, trained briefly on real programs (so its
// normalizer is fitted on real records and its weights have moved), committed
// to a registry the way add-intrinsic commits one, so `pull` sees an
// ordinary version.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "export_cases.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/program_set.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::testing {

// One epoch of LambdaRank on `sets` (all of them, or only case.train_on).
Expected<CostModel> TrainBriefly(const ExportCase& c, const std::map<std::string, ProgramSet>& sets);

// Commits `model` as the next version (and `latest`) of `store`; returns its number.
Expected<int64_t> CommitModel(registry::RegistryStore& store, const CostModel& model);

struct TrainedVersion {
  int64_t number = 0;  // the version in the registry
  CostModel model;     // the trained model, as committed
};

// Both, into a registry created at `db_path`.
Expected<TrainedVersion> WriteTrainedVersion(const std::string& db_path, const ExportCase& c,
                                             const std::map<std::string, ProgramSet>& sets);

}  // namespace ucmoh::testing
