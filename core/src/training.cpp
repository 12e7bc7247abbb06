// The training loop: task-grouped LambdaRank batches, Adam, gradient
// clipping, early stopping on validation PCA, transfer modes.
#include "ucmoh/training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include "cost_model_impl.h"
#include "lambda_rank_loss.h"
#include "training_penalty.h"
#include "ucmoh/metrics.h"
#include "ucmoh/splits.h"
#include "worker_group_impl.h"

namespace ucmoh {

namespace {

using Clock = std::chrono::steady_clock;
using Group = std::vector<int32_t>;  // programs of one task, ranked together

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One task's programs, shuffled and cut into balanced groups of at most `size`.
void AppendTaskGroups(const TaskGroup& task, int size, std::mt19937_64& rng, std::vector<Group>& groups) {
  if (task.programs.size() < 2) return;
  Group programs = task.programs;
  std::shuffle(programs.begin(), programs.end(), rng);
  const size_t chunks = (programs.size() + size - 1) / size;
  const size_t per_chunk = (programs.size() + chunks - 1) / chunks;  // balanced chunks
  for (size_t start = 0; start < programs.size(); start += per_chunk)
    groups.emplace_back(programs.begin() + start, programs.begin() + std::min(programs.size(), start + per_chunk));
}

// How many times each task's programs are grouped per epoch: once, or with
// `balance`, so that every intrinsic gives about the mean intrinsic's number
// of groups (an intrinsic with few programs is drawn several times an epoch
// instead of being a few percent of every batch).
std::vector<int> TaskRepeats(const ProgramSet& set, int size, bool balance) {
  std::vector<int> repeats(set.tasks.size(), 1);
  if (!balance) return repeats;
  std::map<std::string, double> groups;
  for (const auto& t : set.tasks) groups[t.intrinsic] += std::ceil(double(t.programs.size()) / size);
  double mean = 0;
  for (const auto& [name, n] : groups) mean += n / groups.size();
  for (size_t i = 0; i < set.tasks.size(); ++i)
    repeats[i] = std::max(1, static_cast<int>(std::lround(mean / std::max(1.0, groups[set.tasks[i].intrinsic]))));
  return repeats;
}

// Each task's programs, shuffled and cut into groups of at most `size`, the
// groups in random order.
std::vector<Group> MakeGroups(const ProgramSet& set, int size, bool balance, std::mt19937_64& rng) {
  std::vector<Group> groups;
  const std::vector<int> repeats = TaskRepeats(set, size, balance);
  for (size_t i = 0; i < set.tasks.size(); ++i)
    for (int r = 0; r < repeats[i]; ++r) AppendTaskGroups(set.tasks[i], size, rng, groups);
  std::shuffle(groups.begin(), groups.end(), rng);
  return groups;
}

// θ ← keep·θ + (1 − keep)·θ_init, θ_init a fresh network drawn from the
// training seed (TrainOptions::keep_weights).
void ShrinkTowardFreshInit(CostModel::Impl& impl, double keep, uint64_t seed) {
  torch::manual_seed(seed ^ impl.config.seed ^ 0x5eedf00dULL);
  auto fresh = MakeScoringNetwork(impl.config);
  torch::NoGradGuard no_grad;
  auto params = impl.net->parameters();
  auto init = fresh->parameters();
  for (size_t i = 0; i < params.size(); ++i) params[i].mul_(keep).add_(init[i], 1.0 - keep);
}

Status PrepareModel(CostModel& model, const ProgramSet& train, const TrainOptions& options) {
  auto& impl = model.impl();
  if (options.mode == TransferMode::kScratch) {
    torch::manual_seed(options.seed ^ impl.config.seed);
    impl.net = MakeScoringNetwork(impl.config);
    impl.normalizer.Fit(train);
    impl.learned_intrinsics.clear();
  } else if (!impl.normalizer.fitted()) {
    return Status::InvalidArgument(std::string(TransferModeName(options.mode)) +
                                   " needs a trained model to start from");
  } else if (options.refit_normalizer) {
    impl.normalizer.Fit(train);
  }
  if (options.mode == TransferMode::kFinetune && options.keep_weights < 1)
    ShrinkTowardFreshInit(impl, options.keep_weights, options.seed);
  for (auto& p : impl.net->named_parameters()) {
    const bool frozen = options.mode == TransferMode::kExtract && IsFeatureExtractorParameter(impl.config, p.key());
    p.value().set_requires_grad(!frozen);
  }
  return Status::Ok();
}

std::vector<torch::Tensor> TrainableParameters(CostModel& model) {
  std::vector<torch::Tensor> out;
  for (auto& p : model.impl().net->parameters())
    if (p.requires_grad()) out.push_back(p);
  return out;
}

std::vector<torch::Tensor> CopyParameters(CostModel& model) {
  std::vector<torch::Tensor> out;
  for (auto& p : model.impl().net->parameters()) out.push_back(p.detach().clone());
  return out;
}

void RestoreParameters(CostModel& model, const std::vector<torch::Tensor>& saved) {
  torch::NoGradGuard no_grad;
  auto params = model.impl().net->parameters();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(saved[i]);
}

// The epoch-end parameters averaged with decay `decay` per epoch (the first
// epoch starts the average). Validation and the kept model use the average:
// on a few thousand programs the epoch-to-epoch weights are noisy, and their
// average ranks held-out tasks better than any one of them
// (docs/journal/benchmarks-2026-11.md, "Three training changes, kept").
class EpochAverage {
 public:
  explicit EpochAverage(double decay) : decay_(decay) {}
  bool enabled() const { return decay_ > 0; }
  void Add(CostModel& model) {
    torch::NoGradGuard no_grad;
    auto params = model.impl().net->parameters();
    if (average_.empty()) {
      average_ = CopyParameters(model);
      return;
    }
    for (size_t i = 0; i < params.size(); ++i) average_[i].mul_(decay_).add_(params[i].detach(), 1.0 - decay_);
  }
  const std::vector<torch::Tensor>& average() const { return average_; }

 private:
  double decay_;
  std::vector<torch::Tensor> average_;
};

// The summed ranking loss of `groups` (each group ranked on its own). Each
// group is its own forward batch, padded to its own longest program: the
// programs of one task have similar token counts, while a batch of several
// tasks would pad every program to the longest of them (x86: 7 to 66
// tokens), which made an epoch 1.7x slower (docs/journal/benchmarks-2026-11.md).
torch::Tensor GroupsLoss(CostModel& model, const ProgramSet& set, const std::vector<float>& labels,
                         const std::vector<Group>& groups, const TrainOptions& options) {
  torch::Tensor loss = torch::zeros({});
  for (const auto& g : groups) {
    if (g.empty()) continue;
    std::vector<float> y;
    for (int32_t i : g) y.push_back(labels[i]);
    auto scores = model.impl().Forward(MakeTokenBatch(set, g));
    loss = loss + LambdaRankLoss(scores, torch::tensor(y), options.pairwise_weight);
  }
  return loss;
}

// This rank's share of a batch: every world_size-th group, from its rank on.
std::vector<Group> LocalShare(const std::vector<Group>& batch, const WorkerGroup& workers) {
  std::vector<Group> local;
  for (size_t i = workers.rank(); i < batch.size(); i += workers.world_size()) local.push_back(batch[i]);
  return local;
}

// Data-parallel backward: each rank's share of the batch loss, gradients (and
// the loss, for the report) summed over the ranks, then the penalty, which
// every rank adds once to the same summed gradient. Returns the batch loss.
Expected<double> DataParallelBackward(CostModel& model, const ProgramSet& set, const std::vector<float>& labels,
                                      const std::vector<Group>& batch, const std::vector<torch::Tensor>& trainable,
                                      const TrainOptions& options) {
  auto& workers = *options.workers;
  torch::Tensor loss = GroupsLoss(model, set, labels, LocalShare(batch, workers), options) /
                       static_cast<double>(batch.size());
  if (loss.requires_grad()) loss.backward();
  std::vector<torch::Tensor> summed;
  for (const auto& p : trainable) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);  // a rank with no groups this step
    summed.push_back(p.grad());
  }
  summed.push_back(loss.detach().reshape({1}).clone());
  UCMOH_RETURN_IF_ERROR(workers.impl().AllReduceSum(summed));
  if (options.penalty) options.penalty->Evaluate(model.impl().net->named_parameters()).backward();
  return summed.back().item<double>();
}

// One optimizer step over a batch of groups; returns the batch's ranking loss.
Expected<double> TrainStep(CostModel& model, const ProgramSet& set, const std::vector<float>& labels,
                           const std::vector<Group>& batch, torch::optim::Adam& optimizer,
                           const std::vector<torch::Tensor>& trainable, const TrainOptions& options) {
  optimizer.zero_grad();
  double batch_loss = 0;
  if (options.workers && options.workers->world_size() > 1) {
    auto loss = DataParallelBackward(model, set, labels, batch, trainable, options);
    if (!loss.ok()) return loss.status();
    batch_loss = *loss;
  } else {
    torch::Tensor loss = GroupsLoss(model, set, labels, batch, options) / static_cast<double>(batch.size());
    torch::Tensor total = loss;
    if (options.penalty) total = total + options.penalty->Evaluate(model.impl().net->named_parameters());
    total.backward();
    batch_loss = loss.item<double>();
  }
  if (options.grad_clip_norm > 0) torch::nn::utils::clip_grad_norm_(trainable, options.grad_clip_norm);
  optimizer.step();
  return batch_loss;
}

Expected<double> EpochLoss(CostModel& model, const ProgramSet& fit, const std::vector<float>& labels,
                           torch::optim::Adam& optimizer, const std::vector<torch::Tensor>& trainable,
                           const TrainOptions& options, std::mt19937_64& rng) {
  model.impl().net->train();
  auto groups = MakeGroups(fit, options.programs_per_group, options.balance_intrinsics, rng);
  double loss_sum = 0;
  int steps = 0;
  for (size_t start = 0; start < groups.size(); start += options.groups_per_batch) {
    std::vector<Group> batch(groups.begin() + start,
                             groups.begin() + std::min(groups.size(), start + options.groups_per_batch));
    auto loss = TrainStep(model, fit, labels, batch, optimizer, trainable, options);
    if (!loss.ok()) return loss.status();
    loss_sum += *loss;
    ++steps;
  }
  return steps ? loss_sum / steps : 0;
}

// Every rank must train the same programs with the same options from the same
// parameters: checked, then rank 0's parameters are copied to all.
Status JoinTraining(CostModel& model, const ProgramSet& fit, const std::vector<float>& labels,
                    const TrainOptions& o) {
  if (!o.workers || o.workers->world_size() == 1) return Status::Ok();
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  mix(fit.size());
  mix(fit.tasks.size());
  for (float y : labels) mix(static_cast<uint64_t>(std::llround(double(y) * 1e6)));
  for (double v : {double(o.epochs), double(o.programs_per_group), double(o.groups_per_batch), o.learning_rate,
                   o.weight_decay, o.grad_clip_norm, o.pairwise_weight, o.epoch_average_decay,
                   double(o.balance_intrinsics), double(o.validate_per_intrinsic), double(o.patience),
                   double(o.min_validation_tasks), o.val_fraction,
                   double(o.seed)})
    mix(static_cast<uint64_t>(std::llround(v * 1e9)));
  UCMOH_RETURN_IF_ERROR(o.workers->CheckAgreement(h, "the training programs, labels or options"));
  auto params = model.impl().net->parameters();
  return o.workers->impl().BroadcastFromRankZero(params);
}

Status CheckOptions(const TrainOptions& o, const ProgramSet& train) {
  if (train.tasks.empty()) return Status::InvalidArgument("training set is empty");
  if (o.epochs < 1 || o.programs_per_group < 2 || o.groups_per_batch < 1 || o.learning_rate <= 0)
    return Status::InvalidArgument("training options: epochs >= 1, programs_per_group >= 2, "
                                   "groups_per_batch >= 1 and learning_rate > 0 are required");
  if (!(o.epoch_average_decay >= 0 && o.epoch_average_decay < 1))
    return Status::InvalidArgument("training options: epoch_average_decay must be in [0, 1), not " +
                                   std::to_string(o.epoch_average_decay));
  if (o.min_validation_tasks < 1)
    return Status::InvalidArgument("training options: min_validation_tasks must be at least 1, not " +
                                   std::to_string(o.min_validation_tasks));
  if (!(o.weight_decay >= 0 && std::isfinite(o.weight_decay)))
    return Status::InvalidArgument("training options: weight_decay must be finite and >= 0, not " +
                                   std::to_string(o.weight_decay));
  if (!(o.keep_weights > 0 && o.keep_weights <= 1))
    return Status::InvalidArgument("training options: keep_weights must be in (0, 1], not " +
                                   std::to_string(o.keep_weights));
  return Status::Ok();
}

// Scores the epoch's model (its parameters averaged over epochs when
// `average` is enabled) on the validation sets; *candidate is what the epoch
// would keep. The model's own parameters are left as training made them.
Expected<double> ValidateEpoch(CostModel& model, const std::vector<const ProgramSet*>& validation,
                               EpochAverage& average, std::vector<torch::Tensor>* candidate) {
  if (!average.enabled()) {
    *candidate = CopyParameters(model);
    return ValidationScore(model, validation);
  }
  average.Add(model);
  std::vector<torch::Tensor> trained = CopyParameters(model);
  RestoreParameters(model, average.average());
  *candidate = CopyParameters(model);
  auto score = ValidationScore(model, validation);
  RestoreParameters(model, trained);
  return score;
}

bool HasPrograms(const std::vector<const ProgramSet*>& sets) {
  for (const ProgramSet* s : sets)
    if (s->size() > 0) return true;
  return false;
}

}  // namespace

Expected<double> ValidationScore(const CostModel& model, const std::vector<const ProgramSet*>& validation) {
  double sum = 0;
  int counted = 0;
  for (const ProgramSet* set : validation) {
    if (set->size() == 0) continue;
    auto scores = model.Predict(*set);
    if (!scores.ok()) return scores.status();
    sum += EvaluateRanking(*set, *scores).pca;
    ++counted;
  }
  return counted ? sum / counted : 0.0;
}

std::pair<ProgramSet, ProgramSet> SplitValidation(const ProgramSet& train, const TrainOptions& options) {
  if (options.val_fraction <= 0) return {train, ProgramSet{}};
  SplitOptions split_options;
  split_options.kind = SplitKind::kByTask;
  split_options.test_fraction = options.val_fraction;
  split_options.seed = options.seed + 1;
  auto split = MakeSplit(train, split_options);
  if (!split.ok()) return {train, ProgramSet{}};
  std::map<std::string, int> validation_tasks;  // per intrinsic
  for (const auto& task : train.Subset(split->test).tasks) ++validation_tasks[task.intrinsic];
  std::vector<int32_t> fit = split->train, validation;
  for (int32_t p : split->test)
    (validation_tasks[train.tasks[train.task[p]].intrinsic] >= options.min_validation_tasks ? validation : fit).push_back(p);
  std::sort(fit.begin(), fit.end());
  if (validation.empty()) return {train, ProgramSet{}};
  return {train.Subset(fit), train.Subset(validation)};
}

Expected<TransferMode> ParseTransferMode(const std::string& name) {
  if (name == "scratch") return TransferMode::kScratch;
  if (name == "finetune") return TransferMode::kFinetune;
  if (name == "extract") return TransferMode::kExtract;
  return Status::InvalidArgument("unknown transfer mode '" + name + "' (scratch, finetune, extract)");
}

const char* TransferModeName(TransferMode mode) {
  switch (mode) {
    case TransferMode::kScratch: return "scratch";
    case TransferMode::kFinetune: return "finetune";
    case TransferMode::kExtract: return "extract";
  }
  return "?";
}

Expected<TrainReport> Train(CostModel& model, const ProgramSet& train, const TrainOptions& options) {
  UCMOH_RETURN_IF_ERROR(CheckOptions(options, train));
  auto [fit, val] = SplitValidation(train, options);
  if (!options.validate_per_intrinsic) return TrainWithValidation(model, fit, {&val}, options);
  std::vector<ProgramSet> per_intrinsic;
  for (const auto& name : val.Intrinsics()) per_intrinsic.push_back(val.OnlyIntrinsics({name}));
  std::vector<const ProgramSet*> sets;
  for (const auto& v : per_intrinsic) sets.push_back(&v);
  return TrainWithValidation(model, fit, sets, options);
}

Expected<TrainReport> TrainWithValidation(CostModel& model, const ProgramSet& fit,
                                          const std::vector<const ProgramSet*>& validation,
                                          const TrainOptions& options) {
  UCMOH_RETURN_IF_ERROR(CheckOptions(options, fit));
  const auto start = Clock::now();
  const bool early_stopping = HasPrograms(validation);
  UCMOH_RETURN_IF_ERROR(PrepareModel(model, fit, options));
  auto trainable = TrainableParameters(model);
  torch::optim::Adam optimizer(trainable, torch::optim::AdamOptions(options.learning_rate)
                                              .weight_decay(options.weight_decay));
  const std::vector<float> labels = fit.Labels();
  UCMOH_RETURN_IF_ERROR(JoinTraining(model, fit, labels, options));
  std::mt19937_64 rng(options.seed);

  TrainReport report;
  for (const auto& p : trainable) report.trained_parameters += p.numel();
  report.best_val_pca = -1;
  std::vector<torch::Tensor> best = CopyParameters(model);
  EpochAverage average(options.epoch_average_decay);
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    EpochReport er;
    er.epoch = epoch;
    auto loss = EpochLoss(model, fit, labels, optimizer, trainable, options, rng);
    if (!loss.ok()) return loss.status();
    er.train_loss = *loss;
    std::vector<torch::Tensor> candidate;
    auto score = ValidateEpoch(model, validation, average, &candidate);
    if (!score.ok()) return score.status();
    er.val_pca = *score;
    er.seconds = SecondsSince(epoch_start);
    er.eta_seconds = er.seconds * (options.epochs - epoch);
    report.epochs_run = epoch;
    report.final_train_loss = er.train_loss;
    if (!early_stopping || er.val_pca > report.best_val_pca) {
      report.best_val_pca = er.val_pca;
      report.best_epoch = epoch;
      best = std::move(candidate);
    }
    if (options.on_epoch) options.on_epoch(er);
    if (early_stopping && epoch - report.best_epoch >= options.patience) break;
  }
  RestoreParameters(model, best);
  for (auto& p : model.impl().net->parameters()) p.set_requires_grad(true);
  report.seconds = SecondsSince(start);
  return report;
}

}  // namespace ucmoh
