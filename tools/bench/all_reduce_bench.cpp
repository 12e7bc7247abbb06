// The all-reduce a data-parallel training step pays (docs/scaling.md): the
// UCMoH network's gradients, summed over N ranks with c10d's Gloo process
// group, as local processes over the loopback interface.
//   all_reduce_bench [--world N] [--repeats R]
// Prints, per payload size, the mean and p90 time of one all-reduce on rank
// 0 and the bandwidth it implies (payload bytes / time).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "ucmoh/cost_model.h"
#include "worker_group_impl.h"

namespace {

using Clock = std::chrono::steady_clock;

int RunRank(int rank, int world, int port, int repeats) {
  auto model = ucmoh::CostModel::Create(ucmoh::NetworkConfig{});
  const int64_t parameters = model.ok() ? model->num_parameters() : 0;
  if (rank == 0)
    fmt::print("all-reduce over {} local processes (Gloo, loopback); the default network has {} parameters\n",
               world, parameters);
  const std::vector<int64_t> sizes = {parameters, 1 << 20, 1 << 23};
  ucmoh::WorkerGroupOptions o;
  o.rank = rank;
  o.world_size = world;
  o.master_port = port;
  o.timeout = std::chrono::seconds(60);
  auto group = ucmoh::WorkerGroup::Join(o);
  if (!group.ok()) {
    fmt::print(stderr, "rank {}: {}\n", rank, group.status().message());
    return 1;
  }
  for (int64_t size : sizes) {
    std::vector<torch::Tensor> payload{torch::ones({size})};
    std::vector<double> ms;
    for (int i = 0; i < repeats + 3; ++i) {
      const auto start = Clock::now();
      if (auto s = (*group)->impl().AllReduceSum(payload); !s.ok()) {
        fmt::print(stderr, "rank {}: {}\n", rank, s.message());
        return 1;
      }
      if (i >= 3) ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    double mean = 0;
    for (double m : ms) mean += m / ms.size();
    if (rank == 0)
      fmt::print("{:>12} floats {:>10.2f} MB  mean {:>8.3f} ms  p90 {:>8.3f} ms  {:>8.1f} MB/s\n", size,
                 size * 4 / 1e6, mean, ms[ms.size() * 9 / 10], size * 4 / 1e3 / mean);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int world = 2, repeats = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--world") world = std::atoi(argv[i + 1]);
    else if (flag == "--repeats") repeats = std::atoi(argv[i + 1]);
  }
  const int port = 20000 + static_cast<int>(::getpid() % 20000);
  std::vector<pid_t> children;
  for (int rank = 1; rank < world; ++rank) {
    const pid_t pid = ::fork();  // before this process starts any LibTorch thread pool
    if (pid == 0) ::_exit(RunRank(rank, world, port, repeats));
    children.push_back(pid);
  }
  int rc = RunRank(0, world, port, repeats);
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
  }
  return rc;
}
