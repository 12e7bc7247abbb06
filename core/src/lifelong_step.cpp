// One lifelong step (lifelong_step.h): replay, EWC with normalised Fisher
// importance, λ by the validation rule, Fisher and rehearsal of the new
// intrinsic, and its evaluation row. Uses only the public model API.
#include "ucmoh/lifelong_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include "ucmoh/ewc.h"
#include "ucmoh/fisher.h"
#include "ucmoh/splits.h"

namespace ucmoh {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A candidate that learns the new intrinsic this much worse on its validation
// programs than the best candidate does is not eligible: λ must not buy
// retention by refusing to learn.
constexpr double kPlasticityGuard = 0.02;

Status CheckStep(const LifelongStepInput& in, const LifelongStepOptions& o) {
  if (o.method == LifelongMethod::kJoint || o.method == LifelongMethod::kSeparate)
    return Status::InvalidArgument(std::string("lifelong step: '") + LifelongMethodName(o.method) +
                                   "' is a study baseline, not a step (registry lifelong runs it)");
  if (!in.train || in.train->size() == 0)
    return Status::InvalidArgument("lifelong step: no training programs for '" + in.intrinsic + "'");
  if (!(o.lambda >= 0) || !std::isfinite(o.lambda)) return Status::InvalidArgument("lifelong step: lambda must be >= 0");
  for (double l : o.lambda_grid)
    if (!(l >= 0) || !std::isfinite(l)) return Status::InvalidArgument("lifelong step: every lambda of the grid must be >= 0");
  if (!(o.gamma >= 0)) return Status::InvalidArgument("lifelong step: gamma must be >= 0");
  if (o.rehearsal_programs < 2) return Status::InvalidArgument("lifelong step: rehearsal programs must be >= 2");
  for (const auto& h : in.evaluate)
    if (!h.tasks) return Status::InvalidArgument("lifelong step: no held-out tasks for '" + h.intrinsic + "'");
  return Status::Ok();
}

bool Covers(const std::vector<std::string>& intrinsics, const std::string& name) {
  return std::find(intrinsics.begin(), intrinsics.end(), name) != intrinsics.end();
}

// Relearning: the intrinsic's own snapshot and sample must not hold it back.
LifelongState WithoutIntrinsic(LifelongState state, const std::string& name) {
  auto& s = state.snapshots;
  s.erase(std::remove_if(s.begin(), s.end(), [&](const Snapshot& x) { return Covers(x.intrinsics, name); }), s.end());
  auto& r = state.rehearsal;
  r.erase(std::remove_if(r.begin(), r.end(), [&](const RehearsalSample& x) { return x.intrinsic == name; }), r.end());
  return state;
}

// What the step trains and scores on, built once.
struct StepData {
  ProgramSet fit, validation;            // the new intrinsic, canonical order
  ProgramSet train;                      // fit + replayed programs
  std::vector<const ProgramSet*> scored;  // validation sets early stopping and λ see
  int64_t replayed = 0;
};

StepData PrepareStepData(const LifelongStepInput& in, const LifelongState& state, const LifelongStepOptions& o) {
  StepData d;
  auto [fit, validation] = SplitValidation(CanonicalOrder(*in.train), o.training);
  d.fit = std::move(fit);
  d.validation = std::move(validation);
  d.train = WithReplay(d.fit, state, o, &d.replayed);
  return d;
}

void PointScoredSets(StepData& d, const LifelongState& state, const LifelongStepOptions& o) {
  d.scored = {&d.validation};
  if (o.method == LifelongMethod::kFinetune) return;  // the baseline sees only the new intrinsic
  for (const auto& r : state.rehearsal) d.scored.push_back(&r.validation);
}

struct Candidate {
  CostModel model{nullptr};
  TrainReport report;
  LambdaTrial trial;
  double penalty = 0;
};

Expected<Candidate> TrainCandidate(const LifelongStepInput& in, const StepData& d,
                                   const std::vector<Snapshot>& snapshots, double lambda,
                                   const LifelongStepOptions& o) {
  Candidate c;
  if (in.model) {
    c.model = in.model->Clone();
  } else {
    auto fresh = CostModel::Create(o.network);
    if (!fresh.ok()) return fresh.status();
    c.model = std::move(*fresh);
  }
  auto penalty = snapshots.empty() ? nullptr : MakeEwcPenalty(snapshots, lambda);
  TrainOptions t = o.training;
  t.mode = in.model ? TransferMode::kFinetune : TransferMode::kScratch;
  t.refit_normalizer = o.refit_normalizer;
  t.keep_weights = o.keep_weights;  // checked by Train; scratch (the first step) ignores it
  t.penalty = penalty.get();
  auto report = TrainWithValidation(c.model, d.train, d.scored, t);
  if (!report.ok()) return report.status().WithContext(in.intrinsic);
  c.report = *report;
  if (penalty) c.penalty = EwcPenaltyValue(*penalty, c.model);
  c.trial.lambda = lambda;
  c.trial.validation_pca = report->best_val_pca;
  auto new_pca = ValidationScore(c.model, {&d.validation});  // 0 without validation tasks
  if (!new_pca.ok()) return new_pca.status();
  c.trial.new_validation_pca = *new_pca;
  return c;
}

// The λ rule: among candidates whose loss stayed finite and that learned the
// new intrinsic within kPlasticityGuard of the best, the best mean validation
// PCA over every seen intrinsic; ties go to the smaller λ. None eligible (every
// candidate diverged): nothing, and the step is refused.
std::optional<size_t> ChooseCandidate(std::vector<Candidate>& candidates) {
  double best_new = -1;
  for (const auto& c : candidates)
    if (std::isfinite(c.report.final_train_loss)) best_new = std::max(best_new, c.trial.new_validation_pca);
  std::optional<size_t> chosen;
  for (size_t i = 0; i < candidates.size(); ++i) {
    auto& c = candidates[i];
    c.trial.eligible = std::isfinite(c.report.final_train_loss) && c.trial.new_validation_pca >= best_new - kPlasticityGuard;
    if (!c.trial.eligible) continue;
    if (!chosen || c.trial.validation_pca > candidates[*chosen].trial.validation_pca ||
        (c.trial.validation_pca == candidates[*chosen].trial.validation_pca &&
         c.trial.lambda < candidates[*chosen].trial.lambda))
      chosen = i;
  }
  return chosen;
}

Status Diverged(const std::string& intrinsic, const std::vector<Candidate>& candidates) {
  std::string losses;
  for (const auto& c : candidates)
    losses += fmt::format("{}{:g} at lambda {:g}", losses.empty() ? "" : ", ", c.report.final_train_loss, c.trial.lambda);
  return Status::InvalidArgument(fmt::format(
      "{}: training diverged (final loss {}); nothing is kept: lower --lr or lambda", intrinsic, losses));
}

// Without validation tasks (an intrinsic with fewer than about 40 training
// tasks has none: SplitValidation) the λ rule compares candidates on held-back
// programs instead: a fifth of every training task's programs, of the new
// intrinsic and of each replayed one, that no candidate trains on. Until
// 2026-11-28 such a grid compared nothing (every candidate scored 0 and the
// smallest λ won; then the step was refused). The chosen λ is trained again on
// everything, so the kept model is the one a --lambda step would give.
constexpr double kHeldBackFraction = 0.2;

struct HeldBack {
  StepData rest;                  // what the candidates train on
  std::vector<ProgramSet> check;  // [0] the new intrinsic, then each replayed intrinsic
};

std::pair<ProgramSet, ProgramSet> SplitPrograms(const ProgramSet& set, uint64_t seed) {
  SplitOptions split_options;
  split_options.kind = SplitKind::kWithinTask;
  split_options.test_fraction = kHeldBackFraction;
  split_options.seed = seed;
  auto split = MakeSplit(set, split_options);
  if (!split.ok()) return {set, ProgramSet{}};  // empty, or no task has two programs
  return {set.Subset(split->train), set.Subset(split->test)};
}

HeldBack HoldBackPrograms(const StepData& d, LifelongState state, const LifelongStepOptions& o) {
  const uint64_t seed = o.training.seed + 2;  // SplitValidation draws with seed + 1
  HeldBack h;
  auto [fit, check] = SplitPrograms(d.fit, seed);
  h.check.push_back(std::move(check));
  for (auto& r : state.rehearsal) {
    auto [replay, held] = SplitPrograms(r.replay, seed);
    r.replay = std::move(replay);
    h.check.push_back(std::move(held));
  }
  h.rest.fit = std::move(fit);
  h.rest.train = WithReplay(h.rest.fit, state, o, &h.rest.replayed);
  h.rest.scored = d.scored;  // early stopping sees what the kept model's training sees
  return h;
}

// The trial's scores on the held-back programs: the new intrinsic's, and the
// mean over every intrinsic that has some.
Status ScoreOnHeldBack(Candidate& c, const std::vector<ProgramSet>& check) {
  std::vector<const ProgramSet*> sets;
  for (const auto& s : check) sets.push_back(&s);
  auto new_pca = ValidationScore(c.model, {sets.front()});
  if (!new_pca.ok()) return new_pca.status();
  auto mean_pca = ValidationScore(c.model, sets);
  if (!mean_pca.ok()) return mean_pca.status();
  c.trial.new_validation_pca = *new_pca;
  c.trial.validation_pca = *mean_pca;
  c.trial.held_back_programs = true;
  return Status::Ok();
}

Status CheckLambdaRuleCanChoose(const std::string& intrinsic, const HeldBack& h) {
  if (h.check.front().size() > 0) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{}: --lambda-grid has nothing to choose lambda by: it has no validation tasks and no training task with "
      "two programs to hold back; pass --lambda",
      intrinsic));
}

std::vector<double> LambdaCandidates(const std::vector<Snapshot>& snapshots, const LifelongStepOptions& o) {
  if (snapshots.empty()) return {0.0};
  if (o.lambda_grid.empty()) return {o.lambda};
  std::vector<double> grid = o.lambda_grid;
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

// The new intrinsic's normalised Fisher snapshot, over the loss training uses.
Expected<Snapshot> StepFisher(const CostModel& model, const ProgramSet& fit, const LifelongStepOptions& o) {
  FisherOptions f = FisherOptionsFor(o.training);
  f.seed = o.training.seed;
  auto fisher = ComputeFisher(model, fit, f);
  if (!fisher.ok()) return fisher.status();
  NormalizeImportance(*fisher);
  return fisher;
}

}  // namespace

Expected<std::vector<Snapshot>> PenaltySnapshots(const LifelongState& state, const LifelongStepOptions& o) {
  if (!MethodUsesEwc(o.method) || state.snapshots.empty()) return std::vector<Snapshot>{};
  if (o.method != LifelongMethod::kOnlineEwc) return state.snapshots;
  Snapshot merged = state.snapshots.front();
  for (size_t i = 1; i < state.snapshots.size(); ++i) {
    auto m = MergeOnline(merged, state.snapshots[i], o.gamma);
    if (!m.ok()) return m.status();
    merged = std::move(*m);
  }
  return std::vector<Snapshot>{std::move(merged)};
}

ProgramSet WithReplay(const ProgramSet& fit, const LifelongState& state, const LifelongStepOptions& o,
                      int64_t* replayed) {
  ProgramSet train = fit;
  int64_t appended = 0;
  if (MethodReplays(o.method))
    for (const auto& r : state.rehearsal) {
      train.Append(r.replay);
      appended += static_cast<int64_t>(r.replay.size());
    }
  if (replayed) *replayed = appended;
  return train;
}

FisherOptions FisherOptionsFor(const TrainOptions& training) {
  FisherOptions f;
  f.programs_per_group = training.programs_per_group;
  f.pairwise_weight = training.pairwise_weight;
  return f;
}

Expected<std::vector<EvaluationCell>> EvaluateHeldOut(const CostModel& model, const std::vector<HeldOutTasks>& held_out) {
  std::vector<EvaluationCell> row;
  for (const auto& h : held_out) {
    // Canonical order: a program's score depends (in the last bits) on the
    // batch it is padded into, and near-ties must break the same way
    // whichever entry point read the records.
    const ProgramSet tasks = CanonicalOrder(*h.tasks);
    auto scores = model.Predict(tasks);
    if (!scores.ok()) return scores.status().WithContext(h.intrinsic);
    row.push_back({h.intrinsic, EvaluateRanking(tasks, *scores)});
  }
  return row;
}

Expected<LifelongStepResult> RunLifelongStep(const LifelongStepInput& in, const LifelongStepOptions& o) {
  UCMOH_RETURN_IF_ERROR(CheckStep(in, o));
  auto say = [&](const std::string& line) {
    if (o.on_progress) o.on_progress(line);
  };
  const LifelongState state = WithoutIntrinsic(in.state, in.intrinsic);
  auto snapshots = PenaltySnapshots(state, o);
  if (!snapshots.ok()) return snapshots.status();
  for (const auto& s : *snapshots)
    if (in.model) UCMOH_RETURN_IF_ERROR(CheckSnapshotFits(s, *in.model));
  StepData d = PrepareStepData(in, state, o);
  PointScoredSets(d, state, o);
  const std::vector<double> lambdas = LambdaCandidates(*snapshots, o);
  std::optional<HeldBack> held;
  if (lambdas.size() > 1 && d.validation.size() == 0) {
    held = HoldBackPrograms(d, state, o);
    UCMOH_RETURN_IF_ERROR(CheckLambdaRuleCanChoose(in.intrinsic, *held));
  }
  const StepData& trial_data = held ? held->rest : d;

  LifelongStepResult result;
  const auto train_start = Clock::now();
  std::vector<Candidate> candidates;
  for (double lambda : lambdas) {
    say(fmt::format("{}: {} on {} programs + {} replayed{}{}", in.intrinsic, LifelongMethodName(o.method),
                    trial_data.fit.size(), trial_data.replayed,
                    snapshots->empty() ? "" : fmt::format(", lambda {:g}", lambda),
                    held ? " (a fifth of each task held back to choose lambda)" : ""));
    auto c = TrainCandidate(in, trial_data, *snapshots, lambda, o);
    if (!c.ok()) return c.status();
    if (held) UCMOH_RETURN_IF_ERROR(ScoreOnHeldBack(*c, held->check));
    candidates.push_back(std::move(*c));
  }
  const std::optional<size_t> chosen = ChooseCandidate(candidates);
  if (!chosen) return Diverged(in.intrinsic, candidates);
  if (!o.lambda_grid.empty() && candidates.size() > 1)
    for (const auto& c : candidates) result.lambda_trials.push_back(c.trial);
  Candidate kept = std::move(candidates[*chosen]);
  if (held) {
    say(fmt::format("{}: lambda {:g} chosen; trained again on every program", in.intrinsic, kept.trial.lambda));
    auto full = TrainCandidate(in, d, *snapshots, kept.trial.lambda, o);
    if (!full.ok()) return full.status();
    full->trial = kept.trial;
    kept = std::move(*full);
    if (!std::isfinite(kept.report.final_train_loss)) {
      std::vector<Candidate> diverged;
      diverged.push_back(std::move(kept));
      return Diverged(in.intrinsic, diverged);
    }
  }
  result.train_seconds = SecondsSince(train_start);
  result.model = std::move(kept.model);
  result.train = kept.report;
  result.lambda = kept.trial.lambda;
  result.lambda_applied = !snapshots->empty();
  result.penalty = kept.penalty;
  std::vector<std::string> learned = in.model ? in.model->learned_intrinsics() : std::vector<std::string>{};
  if (!Covers(learned, in.intrinsic)) learned.push_back(in.intrinsic);
  result.model.set_learned_intrinsics(learned);

  result.state = state;
  if (MethodUsesEwc(o.method)) {
    const auto fisher_start = Clock::now();
    say(in.intrinsic + ": Fisher importance");
    auto fisher = StepFisher(result.model, d.fit, o);
    if (!fisher.ok()) return fisher.status().WithContext(in.intrinsic);
    result.state.snapshots.push_back(std::move(*fisher));
    result.fisher_seconds = SecondsSince(fisher_start);
  }
  result.state.rehearsal.push_back(
      DrawRehearsal(in.intrinsic, d.fit, d.validation, o.rehearsal_programs, o.rehearsal_seed));
  result.fit_programs = static_cast<int64_t>(d.fit.size());
  result.replayed_programs = d.replayed;

  const auto evaluate_start = Clock::now();
  auto row = EvaluateHeldOut(result.model, in.evaluate);
  if (!row.ok()) return row.status();
  result.row = std::move(*row);
  result.evaluate_seconds = SecondsSince(evaluate_start);
  return result;
}

}  // namespace ucmoh
