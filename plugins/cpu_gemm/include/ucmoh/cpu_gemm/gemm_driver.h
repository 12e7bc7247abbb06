// The blocked GEMM driver: runs a GemmPlan with the intrinsic's micro-kernel,
// exactly the loop nest LowerGemm describes (docs/cpu-gemm.md, "How a
// schedule runs"): per thread, the three blocked loops in schedule order over
// that thread's range (full blocks, then the tail), A / B panels packed at the
// inner of the two loops each depends on, then n tiles, m tiles, one
// micro-kernel call per tile and k block (C loaded and stored once per call).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/status.h"
#include "ucmoh/cpu_gemm/gemm_operands.h"
#include "ucmoh/cpu_gemm/micro_kernel.h"
#include "ucmoh/cpu_gemm/thread_team.h"

namespace ucmoh::cpu_gemm {

// What one execution did, counted by the driver (tests compare it with the AST).
struct GemmRunCounts {
  int64_t kernel_calls = 0;  // micro-kernel calls (= load_C / store_C executions)
  int64_t k_steps = 0;       // k-group steps over all calls (= load_A / load_B executions)
  int64_t pack_a = 0, pack_b = 0;
};

class GemmRunner {
 public:
  // Fails when `kernels` has no kernel for the plan's tile, this CPU lacks
  // the intrinsic, or the operands are for another problem.
  static Expected<std::unique_ptr<GemmRunner>> Create(const GemmPlan& plan,
                                                      std::shared_ptr<GemmOperands> operands,
                                                      const KernelLibrary& kernels);

  // One execution of the program: C += A * B for every batch.
  void Run(ThreadTeam& team);
  // Per-thread counts of the last Run, summed.
  GemmRunCounts LastCounts() const;

 private:
  struct Span {
    int64_t begin = 0, units = 0;
  };
  // Private to one thread: packing buffers and the scratch tile for edges.
  struct Scratch {
    AlignedBuffer pack_a, pack_b, c_tile;
    GemmRunCounts counts;
  };

  GemmRunner(const GemmPlan& plan, std::shared_ptr<GemmOperands> operands, KernelFn kernel);
  void RunThread(int thread);
  void Nest(int level, const Span* range, Span* open, Scratch& scratch, int64_t batch);
  void PackA(const Span* open, Scratch& scratch, int64_t batch) const;
  void PackB(const Span* open, Scratch& scratch, int64_t batch) const;
  void Tiles(const Span* open, Scratch& scratch, int64_t batch) const;
  void Tile(int64_t m_tile, int64_t n_tile, const Span* open, Scratch& scratch, int64_t batch) const;

  GemmPlan plan_;
  std::shared_ptr<GemmOperands> ops_;
  KernelFn kernel_;
  int64_t group_bytes_ = 4;  // one k-group of A or B: 4 bytes for every CPU intrinsic
  std::vector<Scratch> scratch_;
};

}  // namespace ucmoh::cpu_gemm
