// The online update (online_update.h) replays a sample of each learned
// intrinsic's rehearsal programs proportional to the measured batch (bounded
// below) and dependent on it, and is a function of
// its inputs: the same batch gives bit-identical weights (the registry and a
// pulled model rely on that), another batch replays other programs.
#include <gtest/gtest.h>

#include <random>

#include "ucmoh/cost_model.h"
#include "ucmoh/online_update.h"

namespace ucmoh {
namespace {

// `tasks` x `programs` random programs of intrinsic toy.a, keyed "<prefix><n>".
ProgramSet KeyedSet(int tasks, int programs, const std::string& prefix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 2.f);
  std::uniform_real_distribution<double> lat(1e-3, 3e-3);
  ProgramSet set;
  for (int t = 0; t < tasks; ++t) {
    TaskGroup task{prefix + "task" + std::to_string(t), "toy.a", "toy", {}, ""};
    for (int p = 0; p < programs; ++p) {
      TokenMatrix m;
      m.num_tokens = 1 + p % 3;
      m.values.assign(static_cast<size_t>(m.num_tokens) * kFeatureDim, 0.f);
      for (float& v : m.values) v = u(rng);
      task.programs.push_back(static_cast<int32_t>(set.size()));
      set.task.push_back(t);
      set.latency_s.push_back(lat(rng));
      set.tokens.push_back(std::move(m));
      set.program_key.push_back(prefix + std::to_string(set.size()));
    }
    set.tasks.push_back(task);
  }
  return set;
}

CostModel TinyModel(const ProgramSet& set) {
  NetworkConfig c;
  c.hidden = 4;
  c.heads = 1;
  c.encoder_layers = 1;
  c.fc_blocks = 1;
  auto model = CostModel::Create(c);
  EXPECT_TRUE(model.ok());
  model->FitNormalizer(set);
  return *model;
}

LifelongState StateWithRehearsal(int programs) {
  LifelongState state;
  RehearsalSample sample;
  sample.intrinsic = "toy.a";
  sample.replay = KeyedSet(10, programs / 10, "old", 3);
  state.rehearsal.push_back(sample);
  return state;
}

std::vector<float> Weights(const CostModel& model) {
  std::vector<float> out;
  for (const auto& p : model.Parameters()) out.insert(out.end(), p.values.begin(), p.values.end());
  return out;
}

TEST(OnlineUpdate, ReplaysABoundedSampleOfEachIntrinsic) {
  const LifelongState state = StateWithRehearsal(100);
  const CostModel base = TinyModel(state.rehearsal[0].replay);
  OnlineUpdateOptions o;
  o.epochs = 1;
  CostModel capped = base.Clone();
  auto r = OnlineUpdate(capped, state, KeyedSet(1, 8, "batch-a", 1), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->measured_programs, 8);
  EXPECT_EQ(r->replayed_programs, 8 * o.replay_per_measured) << "8 per measured program";
  o.replay_per_measured = 1;
  CostModel floor = base.Clone();
  r = OnlineUpdate(floor, state, KeyedSet(1, 8, "batch-a", 1), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->replayed_programs, o.min_replay_per_intrinsic) << "never fewer than the minimum";
  o.replay_per_measured = 0;
  CostModel whole = base.Clone();
  r = OnlineUpdate(whole, state, KeyedSet(1, 8, "batch-a", 1), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->replayed_programs, 100) << "<= 0 replays the whole sample";
}

TEST(OnlineUpdate, SameBatchSameWeightsAnotherBatchAnotherSample) {
  const LifelongState state = StateWithRehearsal(100);
  const CostModel base = TinyModel(state.rehearsal[0].replay);
  OnlineUpdateOptions o;
  o.epochs = 2;
  CostModel first = base.Clone(), again = base.Clone(), other = base.Clone();
  const ProgramSet batch = KeyedSet(1, 8, "batch-a", 1);
  ProgramSet renamed = batch;  // the same programs under other keys draw another sample
  for (auto& key : renamed.program_key) key = "batch-b" + key;
  ASSERT_TRUE(OnlineUpdate(first, state, batch, o).ok());
  ASSERT_TRUE(OnlineUpdate(again, state, batch, o).ok());
  ASSERT_TRUE(OnlineUpdate(other, state, renamed, o).ok());
  EXPECT_EQ(Weights(first), Weights(again));
  EXPECT_NE(Weights(first), Weights(other));
  EXPECT_NE(Weights(first), Weights(base));
}

// The update trains at its own learning rate, whatever the version's step
// used: updates under steps of 0.001 and of 0.5 give the same weights, and
// another update learning rate gives others. The report says what it ran with.
TEST(OnlineUpdate, TrainsAtItsOwnLearningRateNotTheSteps) {
  const LifelongState state = StateWithRehearsal(100);
  const CostModel base = TinyModel(state.rehearsal[0].replay);
  const ProgramSet batch = KeyedSet(1, 8, "batch-a", 1);
  OnlineUpdateOptions o;
  CostModel step_default = base.Clone(), step_large = base.Clone(), faster = base.Clone();
  auto r = OnlineUpdate(step_default, state, batch, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->learning_rate, o.learning_rate);
  EXPECT_EQ(r->epochs, o.epochs);
  o.step.training.learning_rate = 0.5;
  ASSERT_TRUE(OnlineUpdate(step_large, state, batch, o).ok());
  EXPECT_EQ(Weights(step_default), Weights(step_large));
  o.learning_rate *= 10;
  ASSERT_TRUE(OnlineUpdate(faster, state, batch, o).ok());
  EXPECT_NE(Weights(step_default), Weights(faster));
  o.learning_rate = 0;
  CostModel refused = base.Clone();
  r = OnlineUpdate(refused, state, batch, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("learning rate must be > 0"), std::string::npos) << r.status().message();
  EXPECT_EQ(Weights(refused), Weights(base));
}

}  // namespace
}  // namespace ucmoh
