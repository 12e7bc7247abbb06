// The lifelong sequence runner (see lifelong.h and docs/lifelong.md). Uses
// only the public model API: Train, ComputeFisher, MakeEwcPenalty, metrics.
#include "ucmoh/lifelong.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>

#include "ucmoh/ewc.h"
#include "ucmoh/metrics.h"
#include "ucmoh/sha256.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/splits.h"

namespace ucmoh {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One intrinsic's data: `fit` is trained on (and the Fisher computed on),
// `val` chooses λ (empty without a λ grid), `test` is what R reports.
struct IntrinsicData {
  ProgramSet fit, val, test;
};

Expected<ProgramSet> SplitOff(const ProgramSet& set, double fraction, uint64_t seed, ProgramSet* rest,
                              const std::string& what, const std::string& intrinsic) {
  SplitOptions o;
  o.kind = SplitKind::kByTask;
  o.test_fraction = fraction;
  o.seed = seed;
  auto split = MakeSplit(set, o);
  if (!split.ok()) return split.status().WithContext(intrinsic);
  if (split->test.empty() || split->train.empty())
    return Status::InvalidArgument(fmt::format("{}: too few tasks ({}) to hold out {} tasks", intrinsic,
                                               set.tasks.size(), what));
  *rest = set.Subset(split->train);
  return set.Subset(split->test);
}

Expected<std::vector<IntrinsicData>> PrepareData(const ProgramSet& data, const LifelongOptions& o, bool sweep) {
  std::vector<IntrinsicData> out;
  for (const auto& in : o.sequence) {
    ProgramSet all = data.OnlyIntrinsics({in});
    if (all.tasks.empty()) return Status::NotFound("intrinsic '" + in + "' has no programs in the data");
    IntrinsicData d;
    ProgramSet train;
    auto test = SplitOff(all, o.test_fraction, o.split_seed, &train, "test", in);
    if (!test.ok()) return test.status();
    d.test = std::move(*test);
    if (sweep) {
      auto val = SplitOff(train, o.validation_fraction, o.split_seed + 101, &d.fit, "validation", in);
      if (!val.ok()) return val.status();
      d.val = std::move(*val);
    } else {
      d.fit = std::move(train);
    }
    out.push_back(std::move(d));
  }
  return out;
}

Status CheckOptions(const LifelongOptions& o) {
  if (o.sequence.empty()) return Status::InvalidArgument("lifelong: the sequence is empty");
  for (size_t i = 0; i < o.sequence.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.sequence[i] == o.sequence[j])
        return Status::InvalidArgument("lifelong: intrinsic '" + o.sequence[i] + "' appears twice in the sequence");
  if (!(o.lambda >= 0)) return Status::InvalidArgument("lifelong: lambda must be >= 0");
  for (double l : o.lambda_grid)
    if (!(l >= 0)) return Status::InvalidArgument("lifelong: every lambda of the grid must be >= 0");
  if (!(o.gamma >= 0)) return Status::InvalidArgument("lifelong: gamma must be >= 0");
  if (!(o.test_fraction > 0 && o.test_fraction < 1))
    return Status::InvalidArgument("lifelong: test fraction must be in (0, 1)");
  return Status::Ok();
}

Expected<RankingMetrics> Evaluate(const CostModel& model, const ProgramSet& set) {
  auto scores = model.Predict(set);
  if (!scores.ok()) return scores.status();
  return EvaluateRanking(set, *scores);
}

Expected<CostModel> TrainScratch(const LifelongOptions& o, const ProgramSet& fit, TrainReport* report) {
  auto model = CostModel::Create(o.network);
  if (!model.ok()) return model.status();
  TrainOptions t = o.training;
  t.mode = TransferMode::kScratch;
  t.penalty = nullptr;
  auto r = Train(*model, fit, t);
  if (!r.ok()) return r.status();
  *report = *r;
  model->set_learned_intrinsics(fit.Intrinsics());
  return std::move(*model);
}

bool UsesEwc(LifelongMethod m) { return m == LifelongMethod::kEwc || m == LifelongMethod::kOnlineEwc; }

}  // namespace

Expected<LifelongMethod> ParseLifelongMethod(const std::string& name) {
  if (name == "ewc") return LifelongMethod::kEwc;
  if (name == "online-ewc") return LifelongMethod::kOnlineEwc;
  if (name == "finetune") return LifelongMethod::kFinetune;
  if (name == "joint") return LifelongMethod::kJoint;
  if (name == "separate") return LifelongMethod::kSeparate;
  return Status::InvalidArgument("unknown lifelong method '" + name +
                                 "' (ewc, online-ewc, finetune, joint, separate)");
}

const char* LifelongMethodName(LifelongMethod method) {
  switch (method) {
    case LifelongMethod::kEwc: return "ewc";
    case LifelongMethod::kOnlineEwc: return "online-ewc";
    case LifelongMethod::kFinetune: return "finetune";
    case LifelongMethod::kJoint: return "joint";
    case LifelongMethod::kSeparate: return "separate";
  }
  return "?";
}

Expected<LifelongResult> RunLifelong(const ProgramSet& data, const LifelongOptions& o) {
  UCMOH_RETURN_IF_ERROR(CheckOptions(o));
  const auto start = Clock::now();
  const bool ewc = UsesEwc(o.method);
  const bool sweep = ewc && !o.lambda_grid.empty();
  auto prepared = PrepareData(data, o, sweep);
  if (!prepared.ok()) return prepared.status();
  const std::vector<IntrinsicData>& d = *prepared;
  FisherOptions fisher_options = o.fisher;
  fisher_options.pairwise_weight = o.training.pairwise_weight;  // the loss actually trained
  const size_t n = o.sequence.size();
  auto say = [&](const std::string& line) {
    if (o.on_progress) o.on_progress(line);
  };

  LifelongResult result;
  result.intrinsics = o.sequence;
  result.method = o.method;
  result.pca.assign(n, std::vector<double>(n, 0));
  result.top1.assign(n, std::vector<double>(n, 0));

  std::optional<CostModel> model;       // the sequential / joint model
  std::vector<CostModel> separate;      // separate: model per step
  std::vector<Snapshot> snapshots;      // ewc: one per earlier step; online: the running one
  std::shared_ptr<const EwcPenalty> penalty;

  for (size_t i = 0; i < n; ++i) {
    const auto step_start = Clock::now();
    const std::string& current = o.sequence[i];
    LifelongStep step;
    step.intrinsic = current;

    if (o.method == LifelongMethod::kSeparate || (i == 0 && o.method != LifelongMethod::kJoint)) {
      say(fmt::format("step {}/{}: {} from scratch", i + 1, n, current));
      auto m = TrainScratch(o, d[i].fit, &step.train);
      if (!m.ok()) return m.status();
      if (o.method == LifelongMethod::kSeparate) separate.push_back(m->Clone());
      model = std::move(*m);
    } else if (o.method == LifelongMethod::kJoint) {
      ProgramSet seen;
      for (size_t j = 0; j <= i; ++j) seen.Append(d[j].fit);
      say(fmt::format("step {}/{}: joint on {} intrinsics from scratch", i + 1, n, i + 1));
      auto m = TrainScratch(o, seen, &step.train);
      if (!m.ok()) return m.status();
      model = std::move(*m);
    } else {
      std::vector<double> lambdas = sweep ? o.lambda_grid : std::vector<double>{ewc ? o.lambda : 0.0};
      std::optional<CostModel> best;
      std::shared_ptr<const EwcPenalty> best_penalty;
      double best_score = -std::numeric_limits<double>::infinity();
      for (double lambda : lambdas) {
        std::shared_ptr<const EwcPenalty> candidate_penalty =
            ewc ? MakeEwcPenalty(snapshots, lambda) : std::shared_ptr<const EwcPenalty>();
        CostModel candidate = model->Clone();
        TrainOptions t = o.training;
        t.mode = TransferMode::kFinetune;
        t.penalty = candidate_penalty.get();
        say(fmt::format("step {}/{}: {} ({}{})", i + 1, n, current, LifelongMethodName(o.method),
                        ewc ? fmt::format(", lambda {:g}", lambda) : std::string()));
        auto r = Train(candidate, d[i].fit, t);
        if (!r.ok()) return r.status().WithContext(current);
        double score = 0;
        if (sweep) {
          for (size_t j = 0; j <= i; ++j) {
            auto m = Evaluate(candidate, d[j].val);
            if (!m.ok()) return m.status();
            score += m->pca / static_cast<double>(i + 1);
          }
          step.lambda_trials.push_back({lambda, score});
        }
        if (!best || score > best_score) {
          best_score = score;
          best = std::move(candidate);
          best_penalty = candidate_penalty;
          step.train = *r;
          step.lambda = lambda;
        }
      }
      model = std::move(*best);
      penalty = best_penalty;
      auto learned = model->learned_intrinsics();
      if (std::find(learned.begin(), learned.end(), current) == learned.end()) learned.push_back(current);
      model->set_learned_intrinsics(learned);
    }
    if (penalty) step.penalty = EwcPenaltyValue(*penalty, *model);

    if (ewc) {
      const auto fisher_start = Clock::now();
      say(fmt::format("step {}/{}: Fisher importance on {}", i + 1, n, current));
      auto fisher = ComputeFisher(*model, d[i].fit, fisher_options);
      if (!fisher.ok()) return fisher.status().WithContext(current);
      if (o.method == LifelongMethod::kEwc || snapshots.empty()) {
        snapshots.push_back(std::move(*fisher));
      } else {
        auto merged = MergeOnline(snapshots.back(), *fisher, o.gamma);
        if (!merged.ok()) return merged.status();
        snapshots.back() = std::move(*merged);
      }
      auto bytes = SerializeSnapshot(snapshots.back());
      if (!bytes.ok()) return bytes.status();
      step.snapshot = std::move(*bytes);
      step.snapshot_sha256 = Sha256Hex(step.snapshot);
      step.fisher_seconds = SecondsSince(fisher_start);
    }

    // Row i of R, and the training loss of every intrinsic.
    for (size_t j = 0; j < n; ++j) {
      const CostModel& m = o.method == LifelongMethod::kSeparate ? separate[std::min(i, j)] : *model;
      auto metrics = Evaluate(m, d[j].test);
      if (!metrics.ok()) return metrics.status();
      result.pca[i][j] = metrics->pca;
      result.top1[i][j] = metrics->top1;
      auto loss = RankingLoss(m, d[j].fit, fisher_options);
      step.train_loss.push_back(loss.ok() ? *loss : 0.0);
    }
    step.seconds = SecondsSince(step_start);
    say(fmt::format("step {}/{}: {} done in {:.1f}s, PCA on it {:.4f}", i + 1, n, current, step.seconds,
                    result.pca[i][i]));
    result.steps.push_back(std::move(step));
  }

  result.acc_pca = AverageAccuracy(result.pca);
  result.bwt_pca = BackwardTransfer(result.pca);
  result.acc_top1 = AverageAccuracy(result.top1);
  result.bwt_top1 = BackwardTransfer(result.top1);

  if (o.plasticity_reference) {
    for (size_t j = 0; j < n; ++j) {
      double pca = result.pca[j][j], top1 = result.top1[j][j];
      // Step 0 of every method, and every step of `separate`, is exactly the
      // model trained on that intrinsic alone (same data, seed and options).
      if (j > 0 && o.method != LifelongMethod::kSeparate) {
        say(fmt::format("plasticity reference {}/{}: {} alone", j + 1, n, o.sequence[j]));
        TrainReport ignored;
        auto alone = TrainScratch(o, d[j].fit, &ignored);
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
  }
  result.final_model = std::move(*model);
  result.seconds = SecondsSince(start);
  return result;
}

}  // namespace ucmoh
