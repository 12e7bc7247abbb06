// A fixed team of worker threads, each pinned to one CPU of this process's
// affinity mask, that runs one function on `threads` members and waits for
// all of them. Created once and reused, so timing a program never includes
// thread start-up; members sleep on a condition variable between runs so an
// idle team takes no CPU from other work on the machine.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ucmoh::cpu_gemm {

// CPUs in this process's affinity mask, ascending.
std::vector<int> AllowedCpus();

// Pins the calling thread to one CPU; false when the OS refuses.
bool PinCurrentThread(int cpu);

class ThreadTeam {
 public:
  // Member 0 is the calling thread; members 1..size-1 are workers pinned to
  // cpus[1..]. The caller pins itself (PinCaller) while it measures.
  explicit ThreadTeam(int size);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  const std::vector<int>& cpus() const { return cpus_; }

  // Runs fn(t) for t in [0, threads) and returns when all are done; member 0
  // runs on the calling thread. threads must be in [1, size()].
  void Run(int threads, const std::function<void(int)>& fn);

 private:
  void WorkerLoop(int member);

  std::vector<int> cpus_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int job_threads_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
};

}  // namespace ucmoh::cpu_gemm
