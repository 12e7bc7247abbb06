#include "trained_version.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ucmoh/training.h"

namespace ucmoh::testing {

namespace {

Expected<std::string> ModelBytes(const CostModel& model) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ucmoh_export_check_" + std::to_string(::getpid()) + ".model")).string();
  UCMOH_RETURN_IF_ERROR(model.Save(path));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::remove(path.c_str());
  if (!in) return Status::IOError(path + ": cannot read back the saved model");
  return bytes.str();
}

}  // namespace

Expected<CostModel> TrainBriefly(const ExportCase& c, const std::map<std::string, ProgramSet>& sets) {
  ProgramSet train;
  for (const auto& [intrinsic, set] : sets)
    if (c.train_on.empty() || c.train_on == intrinsic) train.Append(set);
  if (train.size() == 0) return Status::NotFound("no programs of '" + c.train_on + "' to train on");
  auto model = CostModel::Create(c.network);
  if (!model.ok()) return model.status();
  TrainOptions o;
  o.epochs = 1;
  o.val_fraction = 0;
  o.seed = c.network.seed;
  auto report = Train(*model, train, o);
  if (!report.ok()) return report.status();
  model->set_learned_intrinsics(train.Intrinsics());
  return model;
}

Expected<int64_t> CommitModel(registry::RegistryStore& store, const CostModel& model) {
  auto bytes = ModelBytes(model);
  if (!bytes.ok()) return bytes.status();
  registry::VersionCommit commit;
  commit.version.intrinsics = model.learned_intrinsics();
  const NetworkConfig& n = model.config();
  commit.version.hyper_parameters = {{"hidden", int64_t{n.hidden}},
                                     {"heads", int64_t{n.heads}},
                                     {"encoder_layers", int64_t{n.encoder_layers}},
                                     {"fc_blocks", int64_t{n.fc_blocks}},
                                     {"epochs", int64_t{1}}};
  commit.weights = std::move(*bytes);
  auto version = store.CommitVersion(commit);
  if (!version.ok()) return version.status();
  return version->number;
}

Expected<TrainedVersion> WriteTrainedVersion(const std::string& db_path, const ExportCase& c,
                                             const std::map<std::string, ProgramSet>& sets) {
  auto model = TrainBriefly(c, sets);
  if (!model.ok()) return model.status();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(db_path).parent_path(), ec);
  if (ec) return Status::IOError(db_path + ": " + ec.message());
  auto store = registry::RegistryStore::Open(db_path, registry::OpenMode::kCreate);
  if (!store.ok()) return store.status();
  auto number = CommitModel(**store, *model);
  if (!number.ok()) return number.status();
  return TrainedVersion{*number, std::move(*model)};
}

}  // namespace ucmoh::testing
