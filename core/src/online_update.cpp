// OnlineUpdate (online_update.h): the lifelong step's forgetting control
// (PenaltySnapshots, WithReplay) around a short fine-tuning run without
// validation (a tuning run's few measurements are all worth training on).
#include "ucmoh/online_update.h"

#include <algorithm>
#include <chrono>

#include "ucmoh/ewc.h"
#include "ucmoh/rehearsal.h"
#include "ucmoh/sha256.h"

namespace ucmoh {

namespace {

Status CheckMeasured(const ProgramSet& measured, const OnlineUpdateOptions& o) {
  if (o.epochs < 1) return Status::InvalidArgument("update: epochs must be >= 1");
  if (!(o.learning_rate > 0)) return Status::InvalidArgument("update: learning rate must be > 0");
  for (double l : measured.latency_s)
    if (!(l > 0)) return Status::InvalidArgument("update: every program needs a measured latency > 0");
  for (const auto& task : measured.tasks)
    if (task.programs.size() >= 2) return Status::Ok();
  return Status::InvalidArgument("update: needs at least two measured programs of one task to rank");
}

// A seed that is a function of the measured programs alone, so that the
// registry and a pulled model given the same batch replay the same programs.
uint64_t BatchSeed(const ProgramSet& measured) {
  std::string keys;
  for (int32_t p = 0; p < static_cast<int32_t>(measured.size()); ++p) keys += measured.ProgramKeyAt(p) + "\n";
  return std::stoull(Sha256Hex(keys).substr(0, 15), nullptr, 16);
}

ProgramSet MeasuredWithReplay(const ProgramSet& measured, const LifelongState& state, const OnlineUpdateOptions& o,
                              int64_t* replayed) {
  if (o.replay_per_measured <= 0) return WithReplay(measured, state, o.step, replayed);
  ProgramSet train = measured;
  *replayed = 0;
  if (!MethodReplays(o.step.method)) return train;
  const uint64_t seed = BatchSeed(measured);
  const int per_intrinsic = std::max(o.min_replay_per_intrinsic,
                                     o.replay_per_measured * static_cast<int>(measured.size()));
  for (const auto& r : state.rehearsal) {
    ProgramSet sample = r.replay.Subset(SampleProgramIndices(r.replay, per_intrinsic, seed));
    *replayed += static_cast<int64_t>(sample.size());
    train.Append(sample);
  }
  return train;
}

}  // namespace

Expected<OnlineUpdateReport> OnlineUpdate(CostModel& model, const LifelongState& state, const ProgramSet& measured,
                                          const OnlineUpdateOptions& o) {
  UCMOH_RETURN_IF_ERROR(CheckMeasured(measured, o));
  const auto start = std::chrono::steady_clock::now();
  auto snapshots = PenaltySnapshots(state, o.step);
  if (!snapshots.ok()) return snapshots.status();
  for (const auto& s : *snapshots) UCMOH_RETURN_IF_ERROR(CheckSnapshotFits(s, model));
  OnlineUpdateReport report;
  const ProgramSet train = MeasuredWithReplay(measured, state, o, &report.replayed_programs);
  auto penalty = snapshots->empty() ? nullptr : MakeEwcPenalty(*snapshots, o.step.lambda);
  TrainOptions t = o.step.training;
  t.mode = TransferMode::kFinetune;
  t.epochs = o.epochs;
  t.learning_rate = o.learning_rate;
  // The last epoch's weights, not an average over the update's few epochs:
  // an update exists to move the model toward what was just measured (the
  // online-update figures, docs/benchmarks.md, were measured so).
  t.epoch_average_decay = 0;
  t.refit_normalizer = false;
  t.penalty = penalty.get();
  auto trained = TrainWithValidation(model, train, {}, t);
  if (!trained.ok()) return trained.status();
  report.measured_programs = static_cast<int64_t>(measured.size());
  report.epochs = o.epochs;
  report.learning_rate = o.learning_rate;
  report.final_train_loss = trained->final_train_loss;
  if (penalty) report.penalty = EwcPenaltyValue(*penalty, model);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace ucmoh
