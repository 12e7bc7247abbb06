// The lifelong sequence runner (see lifelong.h and docs/lifelong.md): the
// lifelong step in a loop, or the joint / separate baselines, and the
// continual-learning matrices. Uses only the public model API.
#include "ucmoh/lifelong.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <optional>

#include "ucmoh/fisher.h"
#include "ucmoh/metrics.h"
#include "ucmoh/sha256.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/task_split.h"

namespace ucmoh {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One intrinsic's data: `train` is what a step learns from, `test` what R reports.
struct IntrinsicData {
  ProgramSet train, test;
};

// One program per ProgramKey, the last one read, as the registry keeps them
// (a records file may measure the same program twice).
ProgramSet LastOfEachProgram(const ProgramSet& set) {
  std::unordered_map<std::string, int32_t> last;
  for (size_t p = 0; p < set.size(); ++p) last[set.ProgramKeyAt(static_cast<int32_t>(p))] = static_cast<int32_t>(p);
  if (last.size() == set.size()) return set;
  std::vector<int32_t> kept;
  for (const auto& [key, p] : last) kept.push_back(p);
  std::sort(kept.begin(), kept.end());
  return set.Subset(kept);
}

// Each intrinsic split by the same pinned rule add-intrinsic uses.
Expected<std::vector<IntrinsicData>> PrepareData(const ProgramSet& data, const LifelongOptions& o) {
  std::vector<IntrinsicData> out;
  for (const auto& in : o.sequence) {
    ProgramSet all = LastOfEachProgram(data.OnlyIntrinsics({in}));
    if (all.tasks.empty()) return Status::NotFound("intrinsic '" + in + "' has no programs in the data");
    auto split = PinTaskSplit(TaskKeys(all), o.test_fraction, o.split_seed);
    if (!split.ok()) return split.status().WithContext(in);
    auto halves = ApplyTaskSplit(all, *split);
    if (!halves.ok()) return halves.status().WithContext(in);
    out.push_back({std::move(halves->train), std::move(halves->held_out)});
  }
  return out;
}

Status CheckOptions(const LifelongOptions& o) {
  if (o.sequence.empty()) return Status::InvalidArgument("lifelong: the sequence is empty");
  for (size_t i = 0; i < o.sequence.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.sequence[i] == o.sequence[j])
        return Status::InvalidArgument("lifelong: intrinsic '" + o.sequence[i] + "' appears twice in the sequence");
  if (!(o.test_fraction > 0 && o.test_fraction < 1))
    return Status::InvalidArgument("lifelong: test fraction must be in (0, 1)");
  return Status::Ok();
}

Expected<RankingMetrics> Evaluate(const CostModel& model, const ProgramSet& set) {
  auto scores = model.Predict(set);
  if (!scores.ok()) return scores.status();
  return EvaluateRanking(set, *scores);
}

// The baselines train as `registry train` does, with its own defaults
// (TrainOptions{}: intrinsic-balanced batches, per-intrinsic validation,
// epoch averaging, 60 epochs), not the step's: joint is the user's real
// alternative to a lineage, retraining on everything. Only the seed, the
// workers and the network are the run's.
Expected<CostModel> TrainScratch(const LifelongOptions& o, const ProgramSet& train, TrainReport* report) {
  auto model = CostModel::Create(o.step.network);
  if (!model.ok()) return model.status();
  TrainOptions t;
  t.seed = o.step.training.seed;
  t.workers = o.step.training.workers;
  t.mode = TransferMode::kScratch;
  auto r = Train(*model, CanonicalOrder(train), t);
  if (!r.ok()) return r.status();
  *report = *r;
  model->set_learned_intrinsics(train.Intrinsics());
  return std::move(*model);
}

void Say(const LifelongOptions& o, const std::string& line) {
  if (o.step.on_progress) o.step.on_progress(line);
}

// Mean LambdaRank loss on a training set (0 when it has no rankable task).
double TrainLoss(const CostModel& model, const ProgramSet& train, const LifelongOptions& o) {
  auto loss = RankingLoss(model, train, FisherOptionsFor(o.step.training));
  return loss.ok() ? *loss : 0.0;
}

std::vector<double> TrainLosses(const CostModel& model, const std::vector<IntrinsicData>& d, const LifelongOptions& o) {
  std::vector<double> losses;
  for (const auto& data : d) losses.push_back(TrainLoss(model, data.train, o));
  return losses;
}

void SetRow(LifelongResult& result, size_t i, const std::vector<EvaluationCell>& row) {
  for (size_t j = 0; j < row.size(); ++j) {
    result.pca[i][j] = row[j].metrics.pca;
    result.top1[i][j] = row[j].metrics.top1;
  }
}

// The lifelong step in a loop (every method but joint and separate).
Status RunSteps(const std::vector<IntrinsicData>& d, const LifelongOptions& o, LifelongResult& result) {
  std::optional<CostModel> model;
  LifelongState state;
  for (size_t i = 0; i < d.size(); ++i) {
    const auto start = Clock::now();
    LifelongStepInput in;
    in.model = model ? &*model : nullptr;
    in.state = std::move(state);
    in.intrinsic = o.sequence[i];
    in.train = &d[i].train;
    for (size_t j = 0; j < d.size(); ++j) in.evaluate.push_back({o.sequence[j], &d[j].test});
    Say(o, fmt::format("step {}/{}: {}", i + 1, d.size(), in.intrinsic));
    auto r = RunLifelongStep(in, o.step);
    if (!r.ok()) return r.status();
    LifelongStepReport step;
    step.intrinsic = in.intrinsic;
    step.train_seconds = r->train_seconds;
    step.fisher_seconds = r->fisher_seconds;
    step.evaluate_seconds = r->evaluate_seconds;
    step.train = r->train;
    step.lambda = r->lambda;
    step.lambda_trials = r->lambda_trials;
    step.penalty = r->penalty;
    step.fit_programs = r->fit_programs;
    step.replayed_programs = r->replayed_programs;
    if (MethodUsesEwc(o.step.method) && !r->state.snapshots.empty()) {
      auto bytes = SerializeSnapshot(r->state.snapshots.back());
      if (!bytes.ok()) return bytes.status();
      step.snapshot = std::move(*bytes);
      step.snapshot_sha256 = Sha256Hex(step.snapshot);
    }
    SetRow(result, i, r->row);
    model = std::move(r->model);
    state = std::move(r->state);
    step.train_loss = TrainLosses(*model, d, o);
    step.seconds = SecondsSince(start);
    result.steps.push_back(std::move(step));
  }
  result.final_model = std::move(*model);
  return Status::Ok();
}

// joint: from scratch on everything seen so far; separate: on each intrinsic alone.
Status RunBaseline(const std::vector<IntrinsicData>& d, const LifelongOptions& o, LifelongResult& result) {
  const bool joint = o.step.method == LifelongMethod::kJoint;
  std::vector<CostModel> separate;
  ProgramSet seen;
  for (size_t i = 0; i < d.size(); ++i) {
    const auto start = Clock::now();
    LifelongStepReport step;
    step.intrinsic = o.sequence[i];
    seen.Append(d[i].train);
    Say(o, fmt::format("step {}/{}: {} from scratch", i + 1, d.size(), joint ? "everything seen" : step.intrinsic));
    auto m = TrainScratch(o, joint ? seen : d[i].train, &step.train);
    if (!m.ok()) return m.status();
    step.train_seconds = SecondsSince(start);
    separate.push_back(std::move(*m));
    for (size_t j = 0; j < d.size(); ++j) {  // separate: intrinsic j is scored by its own model once learned
      const CostModel& scorer = joint ? separate.back() : separate[std::min(i, j)];
      auto m = Evaluate(scorer, d[j].test);
      if (!m.ok()) return m.status();
      result.pca[i][j] = m->pca;
      result.top1[i][j] = m->top1;
      step.train_loss.push_back(TrainLoss(scorer, d[j].train, o));
    }
    step.seconds = SecondsSince(start);
    result.steps.push_back(std::move(step));
  }
  result.final_model = std::move(separate.back());
  return Status::Ok();
}

// A fresh network's PCA on every intrinsic (the FWT reference).
Status FreshScores(const std::vector<IntrinsicData>& d, const LifelongOptions& o, LifelongResult& result) {
  for (size_t j = 0; j < d.size(); ++j) {
    NetworkConfig config = o.step.network;
    config.seed = o.step.network.seed ^ o.step.training.seed;  // as Train(kScratch) seeds it
    auto fresh = CostModel::Create(config);
    if (!fresh.ok()) return fresh.status();
    fresh->FitNormalizer(d[j].train);
    auto m = Evaluate(*fresh, d[j].test);
    if (!m.ok()) return m.status();
    result.fresh_pca.push_back(m->pca);
  }
  for (size_t j = 1; j < d.size(); ++j)
    result.fwt_pca += (result.pca[j - 1][j] - result.fresh_pca[j]) / static_cast<double>(d.size() - 1);
  return Status::Ok();
}

// Each intrinsic trained alone from scratch, against R's diagonal.
Status PlasticityReference(const std::vector<IntrinsicData>& d, const LifelongOptions& o, LifelongResult& result) {
  const size_t n = d.size();
  for (size_t j = 0; j < n; ++j) {
    double pca = result.pca[j][j], top1 = result.top1[j][j];
    // Step 0 of every sequential method, and every step of `separate`, is the
    // model trained on that intrinsic alone (same data, seed and options).
    const bool same = j == 0 ? o.step.method != LifelongMethod::kJoint : o.step.method == LifelongMethod::kSeparate;
    if (!same) {
      Say(o, fmt::format("plasticity reference {}/{}: {} alone", j + 1, n, o.sequence[j]));
      TrainReport ignored;
      auto alone = TrainScratch(o, d[j].train, &ignored);
      if (!alone.ok()) return alone.status();
      auto m = Evaluate(*alone, d[j].test);
      if (!m.ok()) return m.status();
      pca = m->pca;
      top1 = m->top1;
    }
    result.alone_pca.push_back(pca);
    result.alone_top1.push_back(top1);
    result.plasticity_gap_pca.push_back(pca - result.pca[j][j]);
    result.plasticity_gap_top1.push_back(top1 - result.top1[j][j]);
    result.mean_plasticity_gap_pca += result.plasticity_gap_pca.back() / static_cast<double>(n);
    result.mean_plasticity_gap_top1 += result.plasticity_gap_top1.back() / static_cast<double>(n);
  }
  return Status::Ok();
}

}  // namespace

Expected<LifelongResult> RunLifelong(const ProgramSet& data, const LifelongOptions& o) {
  UCMOH_RETURN_IF_ERROR(CheckOptions(o));
  const auto start = Clock::now();
  auto prepared = PrepareData(data, o);
  if (!prepared.ok()) return prepared.status();
  const size_t n = o.sequence.size();
  LifelongResult result;
  result.intrinsics = o.sequence;
  result.method = o.step.method;
  result.pca.assign(n, std::vector<double>(n, 0));
  result.top1.assign(n, std::vector<double>(n, 0));
  const bool baseline = o.step.method == LifelongMethod::kJoint || o.step.method == LifelongMethod::kSeparate;
  UCMOH_RETURN_IF_ERROR(baseline ? RunBaseline(*prepared, o, result) : RunSteps(*prepared, o, result));
  result.acc_pca = AverageAccuracy(result.pca);
  result.bwt_pca = BackwardTransfer(result.pca);
  result.acc_top1 = AverageAccuracy(result.top1);
  result.bwt_top1 = BackwardTransfer(result.top1);
  UCMOH_RETURN_IF_ERROR(FreshScores(*prepared, o, result));
  if (o.plasticity_reference) UCMOH_RETURN_IF_ERROR(PlasticityReference(*prepared, o, result));
  result.seconds = SecondsSince(start);
  return result;
}

}  // namespace ucmoh
