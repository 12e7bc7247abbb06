#include "ucmoh/cpu_gemm/gemm_driver.h"

#include <algorithm>
#include <cstring>

namespace ucmoh::cpu_gemm {

namespace {

int Index(GemmDim d) { return d == GemmDim::kM ? 0 : d == GemmDim::kN ? 1 : 2; }

}  // namespace

Expected<std::unique_ptr<GemmRunner>> GemmRunner::Create(const GemmPlan& plan,
                                                         std::shared_ptr<GemmOperands> operands,
                                                         const KernelLibrary& kernels) {
  const GemmSchedule& s = plan.schedule;
  const std::string& intrinsic = plan.profile.intrinsic;
  if (!kernels.cpu_supports(intrinsic)) {
    return Status::Unsupported("this CPU does not execute " + intrinsic + " instructions");
  }
  KernelFn kernel = kernels.find(intrinsic, s.mr, s.nr_vec, s.k_unroll);
  if (!kernel) {
    return Status::Unsupported("no " + intrinsic + " micro-kernel for mr=" + std::to_string(s.mr) +
                               " nr_vec=" + std::to_string(s.nr_vec) +
                               " k_unroll=" + std::to_string(s.k_unroll));
  }
  const GemmProblem& p = plan.problem;
  const GemmProblem& q = operands->problem;
  if (p.m != q.m || p.n != q.n || p.k != q.k || p.batch != q.batch ||
      operands->profile.intrinsic != intrinsic) {
    return Status::InvalidArgument("internal: operands made for another GEMM than the plan");
  }
  return std::unique_ptr<GemmRunner>(new GemmRunner(plan, std::move(operands), kernel));
}

GemmRunner::GemmRunner(const GemmPlan& plan, std::shared_ptr<GemmOperands> operands,
                       KernelFn kernel)
    : plan_(plan), ops_(std::move(operands)), kernel_(kernel) {
  group_bytes_ = plan_.profile.group_bytes();
  const int64_t mr = plan_.schedule.mr, nr = plan_.nr;
  const size_t a_panel = static_cast<size_t>(plan_.m.block_units * mr * plan_.k.block_units * group_bytes_);
  const size_t b_panel = static_cast<size_t>(plan_.k.block_units * plan_.n.block_units * nr * group_bytes_);
  scratch_.resize(static_cast<size_t>(plan_.schedule.threads));
  for (Scratch& s : scratch_) {
    if (plan_.schedule.pack_a) s.pack_a = AlignedBuffer(a_panel);
    if (plan_.schedule.pack_b) s.pack_b = AlignedBuffer(b_panel);
    s.c_tile = AlignedBuffer(static_cast<size_t>(mr * nr * plan_.profile.acc_bytes));
  }
}

void GemmRunner::Run(ThreadTeam& team) {
  const std::function<void(int)> body = [this](int thread) { RunThread(thread); };
  team.Run(static_cast<int>(plan_.schedule.threads), body);
}

GemmRunCounts GemmRunner::LastCounts() const {
  GemmRunCounts total;
  for (const Scratch& s : scratch_) {
    total.kernel_calls += s.counts.kernel_calls;
    total.k_steps += s.counts.k_steps;
    total.pack_a += s.counts.pack_a;
    total.pack_b += s.counts.pack_b;
  }
  return total;
}

void GemmRunner::RunThread(int thread) {
  Scratch& scratch = scratch_[static_cast<size_t>(thread)];
  scratch.counts = GemmRunCounts{};
  // Thread t covers units [t*u, (t+1)*u) of the parallel dimension, all of the others.
  Span range[3];
  for (GemmDim d : {GemmDim::kM, GemmDim::kN, GemmDim::kK}) {
    const DimPlan& dim = plan_.dim(d);
    const bool split = d == plan_.schedule.parallel;
    range[Index(d)] = Span{split ? thread * dim.units_per_thread : 0, dim.units_per_thread};
  }
  Span open[3];
  for (int64_t batch = 0; batch < plan_.problem.batch; ++batch) Nest(0, range, open, scratch, batch);
}

void GemmRunner::Nest(int level, const Span* range, Span* open, Scratch& scratch, int64_t batch) {
  if (level == 3) {
    Tiles(open, scratch, batch);
    return;
  }
  const GemmDim dim = plan_.schedule.loop_order[static_cast<size_t>(level)];
  const int i = Index(dim);
  const int64_t block = plan_.dim(dim).block_units;
  const int64_t end = range[i].begin + range[i].units;
  for (int64_t start = range[i].begin; start < end; start += block) {
    open[i] = Span{start, std::min(block, end - start)};
    if (plan_.schedule.pack_a && level == plan_.PackALevel()) PackA(open, scratch, batch);
    if (plan_.schedule.pack_b && level == plan_.PackBLevel()) PackB(open, scratch, batch);
    Nest(level + 1, range, open, scratch, batch);
  }
}

// A's panel in micro-panel order [m tile][k step][mr][kg]; rows past M repeat row M-1.
void GemmRunner::PackA(const Span* open, Scratch& scratch, int64_t batch) const {
  ++scratch.counts.pack_a;
  const Span& m = open[0];
  const Span& k = open[2];
  const int64_t mr = plan_.schedule.mr, in = plan_.profile.input_bytes, kg = plan_.profile.k_group;
  const uint8_t* a = ops_->A(batch);
  uint8_t* dst = scratch.pack_a.data();
  for (int64_t t = 0; t < m.units; ++t) {
    for (int64_t i = 0; i < mr; ++i) {
      const int64_t row = std::min((m.begin + t) * mr + i, plan_.problem.m - 1);
      const uint8_t* src = a + (row * ops_->kp + k.begin * kg) * in;
      uint8_t* out = dst + (t * k.units * mr + i) * group_bytes_;
      for (int64_t s = 0; s < k.units; ++s) {
        std::memcpy(out + s * mr * group_bytes_, src + s * group_bytes_, 4);
      }
    }
  }
}

// B's panel in micro-panel order [n tile][k step][nr][kg]; columns past N are zero.
void GemmRunner::PackB(const Span* open, Scratch& scratch, int64_t batch) const {
  ++scratch.counts.pack_b;
  const Span& n = open[1];
  const Span& k = open[2];
  const int64_t nr = plan_.nr, big_n = plan_.problem.n;
  const uint8_t* b = ops_->B(batch);
  uint8_t* dst = scratch.pack_b.data();
  for (int64_t t = 0; t < n.units; ++t) {
    const int64_t col0 = (n.begin + t) * nr;
    const int64_t valid = std::min(nr, big_n - col0);
    for (int64_t s = 0; s < k.units; ++s) {
      const uint8_t* src = b + ((k.begin + s) * big_n + col0) * group_bytes_;
      uint8_t* out = dst + (t * k.units + s) * nr * group_bytes_;
      std::memcpy(out, src, static_cast<size_t>(valid * group_bytes_));
      if (valid < nr) std::memset(out + valid * group_bytes_, 0, static_cast<size_t>((nr - valid) * group_bytes_));
    }
  }
}

void GemmRunner::Tiles(const Span* open, Scratch& scratch, int64_t batch) const {
  for (int64_t nt = 0; nt < open[1].units; ++nt) {
    for (int64_t mt = 0; mt < open[0].units; ++mt) Tile(mt, nt, open, scratch, batch);
  }
}

void GemmRunner::Tile(int64_t mt, int64_t nt, const Span* open, Scratch& scratch, int64_t batch) const {
  const int64_t mr = plan_.schedule.mr, nr = plan_.nr, kg = plan_.profile.k_group;
  const int64_t in = plan_.profile.input_bytes, acc = plan_.profile.acc_bytes;
  const int64_t big_m = plan_.problem.m, big_n = plan_.problem.n;
  const Span& k = open[2];
  const int64_t m_unit = open[0].begin + mt, n_unit = open[1].begin + nt;

  const void* rows[32];
  KernelCall call;
  call.a_rows = rows;
  call.k_steps = k.units;
  if (plan_.schedule.pack_a) {
    const uint8_t* panel = scratch.pack_a.data() + mt * k.units * mr * group_bytes_;
    for (int64_t i = 0; i < mr; ++i) rows[i] = panel + i * group_bytes_;
    call.a_step = mr * kg;
  } else {
    const uint8_t* a = ops_->A(batch);
    for (int64_t i = 0; i < mr; ++i) {
      const int64_t row = std::min(m_unit * mr + i, big_m - 1);
      rows[i] = a + (row * ops_->kp + k.begin * kg) * in;
    }
    call.a_step = kg;
  }
  if (plan_.schedule.pack_b) {
    call.b = scratch.pack_b.data() + nt * k.units * nr * group_bytes_;
    call.b_step = nr * kg;
  } else {
    call.b = ops_->B(batch) + (k.begin * big_n + n_unit * nr) * group_bytes_;
    call.b_step = big_n * kg;
  }
  const int64_t row0 = m_unit * mr, col0 = n_unit * nr;
  const int64_t valid_rows = std::min(mr, big_m - row0), valid_cols = std::min(nr, big_n - col0);
  uint8_t* c = ops_->C(batch) + (row0 * big_n + col0) * acc;
  ++scratch.counts.kernel_calls;
  scratch.counts.k_steps += k.units;
  if (valid_rows == mr && valid_cols == nr) {
    call.c = c;
    call.ldc = big_n;
    kernel_(call);
    return;
  }
  // Edge tile: the full micro-kernel on a zero-padded copy; only the valid part goes back.
  uint8_t* tile = scratch.c_tile.data();
  std::memset(tile, 0, static_cast<size_t>(mr * nr * acc));
  for (int64_t i = 0; i < valid_rows; ++i) {
    std::memcpy(tile + i * nr * acc, c + i * big_n * acc, static_cast<size_t>(valid_cols * acc));
  }
  call.c = tile;
  call.ldc = nr;
  kernel_(call);
  for (int64_t i = 0; i < valid_rows; ++i) {
    std::memcpy(c + i * big_n * acc, tile + i * nr * acc, static_cast<size_t>(valid_cols * acc));
  }
}

}  // namespace ucmoh::cpu_gemm
