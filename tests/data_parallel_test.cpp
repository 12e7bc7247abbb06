// Data-parallel training (worker_group.h): two ranks give the model one
// process gives with the same batches, ranks that disagree stop at once, and
// the torchrun environment is read strictly. Ranks run as threads here, over
// real c10d Gloo sockets on the loopback; registry_workers_test.cpp runs them
// as processes through the CLI, killed workers included.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "synthetic_programs.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/training.h"
#include "ucmoh/worker_group.h"

namespace ucmoh {
namespace {

using test::SmallNetwork;
using test::SyntheticSet;

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size), 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TrainOptions Finetuning(int groups_per_batch) {
  TrainOptions o;
  o.mode = TransferMode::kFinetune;
  // Four epochs, 36 steps on the set below. Each group is its own forward
  // batch (training.cpp, GroupsLoss), so one process and the ranks compute
  // the same scores; only the order gradients are summed in differs. Before
  // that, a batch padded across its groups drifted past 1e-4 by step 18
  // (docs/scaling.md).
  o.epochs = 4;
  o.learning_rate = 3e-3;
  o.programs_per_group = 8;
  o.groups_per_batch = groups_per_batch;
  o.val_fraction = 0;
  o.seed = 11;
  return o;
}

// A trained starting point, so that every copy starts from the same weights
// (a scratch start would draw them from LibTorch's one global generator,
// which threads share).
std::string StartingModelBytes(const ProgramSet& set) {
  auto model = CostModel::Create(SmallNetwork());
  EXPECT_TRUE(model.ok());
  TrainOptions o = Finetuning(4);
  o.mode = TransferMode::kScratch;
  o.epochs = 1;
  EXPECT_TRUE(Train(*model, set, o).ok());
  return *model->ToBytes();
}

struct RankOutcome {
  Status status;
  std::vector<float> scores;
};

// Trains a copy of `start` on `set` as each of `world` ranks, in threads.
std::vector<RankOutcome> TrainAsRanks(const std::string& start, const ProgramSet& set, int world,
                                      const std::vector<TrainOptions>& options) {
  std::vector<RankOutcome> out(world);
  const int port = FreePort();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world; ++rank)
    threads.emplace_back([&, rank] {
      WorkerGroupOptions g;
      g.rank = rank;
      g.world_size = world;
      g.master_port = port;
      g.timeout = std::chrono::seconds(60);
      auto group = WorkerGroup::Join(g);
      if (!group.ok()) {
        out[rank].status = group.status();
        return;
      }
      auto model = CostModel::FromBytes(start);
      TrainOptions o = options[rank];
      o.workers = *group;
      auto report = Train(*model, set, o);
      if (!report.ok()) {
        out[rank].status = report.status();
        return;
      }
      out[rank].scores = *model->Predict(set);
    });
  for (auto& t : threads) t.join();
  return out;
}

float MaxDifference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

void ExpectSameModelAsOneProcess(int world, int groups_per_batch) {
  const ProgramSet set = SyntheticSet(12, 24, 5);
  const std::string start = StartingModelBytes(set);
  auto alone = CostModel::FromBytes(start);
  ASSERT_TRUE(Train(*alone, set, Finetuning(groups_per_batch)).ok());
  const std::vector<float> expected = *alone->Predict(set);
  auto ranks = TrainAsRanks(start, set, world, std::vector<TrainOptions>(world, Finetuning(groups_per_batch)));
  for (int rank = 0; rank < world; ++rank) {
    ASSERT_TRUE(ranks[rank].status.ok()) << ranks[rank].status.message();
    // The ranks hold one model, bit for bit; it is one process's model up to
    // the order floats were summed in.
    EXPECT_EQ(ranks[rank].scores, ranks[0].scores) << "rank " << rank;
    EXPECT_LT(MaxDifference(ranks[rank].scores, expected), 1e-4) << "rank " << rank;
  }
  std::printf("%d ranks, %d groups per batch: largest score difference from one process %.3g\n", world,
              groups_per_batch, MaxDifference(ranks[0].scores, expected));
  // And training changed it: the comparison is not between two starts.
  auto untouched = CostModel::FromBytes(start);
  EXPECT_GT(MaxDifference(*untouched->Predict(set), expected), 1e-2);
}

TEST(DataParallel, TwoRanksTrainTheModelOneProcessTrains) { ExpectSameModelAsOneProcess(2, 4); }

TEST(DataParallel, UnevenBatchesAndRanksWithoutAGroup) {
  ExpectSameModelAsOneProcess(3, 4);  // 4 groups over 3 ranks; the last batch has fewer
  ExpectSameModelAsOneProcess(2, 1);  // one group per batch: rank 1 never has one
}

TEST(DataParallel, RanksThatDisagreeStopAtOnce) {
  const ProgramSet set = SyntheticSet(8, 16, 6);
  const std::string start = StartingModelBytes(set);
  std::vector<TrainOptions> options(2, Finetuning(4));
  options[1].seed = 12;
  auto ranks = TrainAsRanks(start, set, 2, options);
  for (const auto& r : ranks) {
    EXPECT_EQ(r.status.code(), Status::Code::kInvalidArgument);
    EXPECT_NE(r.status.message().find("the ranks disagree on the training programs"), std::string::npos)
        << r.status.message();
  }
}

TEST(DataParallel, TorchrunEnvironmentIsReadStrictly) {
  ::unsetenv("WORLD_SIZE");
  auto none = WorkerGroupOptionsFromEnvironment();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  ::setenv("WORLD_SIZE", "4", 1);
  ::setenv("RANK", "2", 1);
  ::setenv("MASTER_ADDR", "10.0.0.7", 1);
  ::setenv("MASTER_PORT", "23456", 1);
  auto four = WorkerGroupOptionsFromEnvironment();
  ASSERT_TRUE(four.ok()) << four.status().message();
  ASSERT_TRUE(four->has_value());
  EXPECT_EQ((*four)->rank, 2);
  EXPECT_EQ((*four)->world_size, 4);
  EXPECT_EQ((*four)->master_addr, "10.0.0.7");
  EXPECT_EQ((*four)->master_port, 23456);

  ::setenv("RANK", "4", 1);
  auto outside = WorkerGroupOptionsFromEnvironment();
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("RANK='4'"), std::string::npos) << outside.status().message();
  ::setenv("RANK", "1", 1);
  ::setenv("MASTER_PORT", "80x", 1);
  auto port = WorkerGroupOptionsFromEnvironment();
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find("MASTER_PORT='80x'"), std::string::npos) << port.status().message();
  for (const char* name : {"WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT"}) ::unsetenv(name);
}

TEST(DataParallel, JoiningAloneTimesOutWithAClearError) {
  WorkerGroupOptions g;
  g.rank = 0;
  g.world_size = 2;
  g.master_port = FreePort();
  g.timeout = std::chrono::seconds(2);
  auto group = WorkerGroup::Join(g);
  ASSERT_FALSE(group.ok());
  EXPECT_NE(group.status().message().find("joining failed"), std::string::npos) << group.status().message();
}

}  // namespace
}  // namespace ucmoh
