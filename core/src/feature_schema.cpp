// Names and meanings of every token dimension, in column order. docs/features.md
// is generated from this table (`registry features --schema`), so the two agree.
#include <stdexcept>

#include "feature_dims.h"
#include "ucmoh/features.h"

namespace ucmoh {

namespace {

std::vector<FeatureDim> BuildSchema() {
  const char* kLog = "log2(1 + x) of ";
  std::vector<FeatureDim> s = {
      {"tok_target", "1 on the target token, else 0"},
      {"tok_intrinsic", "1 on the intrinsic token, else 0"},
      {"tok_load", "1 on a load stage token"},
      {"tok_compute", "1 on a compute stage token"},
      {"tok_store", "1 on a store stage token"},
  };
  for (int k = 0; k < kNumLoopKinds; ++k) {
    std::string kind = LoopKindName(static_cast<LoopKind>(k));
    s.push_back({"loop_" + kind,
                 std::string(kLog) + "the product of extents of the stage's enclosing " + kind +
                     " loops"});
  }
  s.push_back({"loop_depth", std::string(kLog) + "the number of loops enclosing the stage"});
  s.push_back({"loop_iterations",
               std::string(kLog) + "how many times the stage executes (product of all enclosing extents)"});
  s.push_back({"mem_bytes", std::string(kLog) + "bytes moved by one execution of a load/store"});
  s.push_back({"mem_unique_bytes", std::string(kLog) + "distinct bytes touched by one execution"});
  s.push_back({"mem_total_bytes", std::string(kLog) + "bytes moved over all executions"});
  s.push_back({"mem_stride", std::string(kLog) + "element stride of consecutive accesses"});
  s.push_back({"mem_vector_bytes", std::string(kLog) + "bytes per memory instruction"});
  s.push_back({"mem_reuse", std::string(kLog) + "compute uses per loaded byte"});
  for (const char* dir : {"src", "dst"}) {
    for (int m = 0; m < kNumMemScopes; ++m) {
      std::string scope = MemScopeName(static_cast<MemScope>(m));
      s.push_back({std::string(dir) + "_" + scope,
                   std::string("1 when the load/store's ") + dir + " scope is " + scope});
    }
  }
  s.push_back({"calls_per_exec", std::string(kLog) + "intrinsic calls per execution of a compute stage"});
  s.push_back({"total_calls", std::string(kLog) + "intrinsic calls over all executions"});
  s.push_back({"total_flops",
               std::string(kLog) + "flops of the compute stage over all executions; on the "
                                   "intrinsic token, of the whole program"});
  s.push_back({"arith_intensity",
               std::string(kLog) + "program flops / bytes loaded from global memory (compute "
                                   "and intrinsic tokens)"});
  s.push_back({"hw_is_gpu", "target token: 1 for a GPU"});
  s.push_back({"hw_is_cpu", "target token: 1 for a CPU"});
  const char* hw[][2] = {
      {"hw_cores", "CPU cores or GPU SMs"},
      {"hw_vector_bytes", "widest SIMD register, bytes"},
      {"hw_vector_registers", "architectural SIMD registers"},
      {"hw_cache_line", "cache line bytes"},
      {"hw_l1", "L1 data bytes per core/SM"},
      {"hw_l2", "L2 bytes"},
      {"hw_l3", "L3 bytes"},
      {"hw_warp_size", "threads per warp"},
      {"hw_max_threads_per_block", "max threads per block"},
      {"hw_shared_per_block", "shared memory bytes per block"},
      {"hw_registers_per_sm", "32-bit registers per SM"},
  };
  for (const auto& d : hw) s.push_back({d[0], std::string("target token: ") + kLog + d[1]});
  s.push_back({"hw_clock_ghz", "target token: nominal clock in GHz (0: unknown)"});
  s.push_back({"in_m", std::string("intrinsic token: ") + kLog + "m lanes of one call"});
  s.push_back({"in_n", std::string("intrinsic token: ") + kLog + "n lanes of one call"});
  s.push_back({"in_k", std::string("intrinsic token: ") + kLog + "k depth of one call"});
  s.push_back({"in_ops_per_call", std::string("intrinsic token: ") + kLog + "ops per call"});
  s.push_back({"in_input_bits", "intrinsic token: bits per input element / 8"});
  s.push_back({"in_accum_bits", "intrinsic token: bits per accumulator element / 8"});
  s.push_back({"in_integer_input", "intrinsic token: 1 for integer inputs"});
  s.push_back({"in_float_input", "intrinsic token: 1 for floating-point inputs"});
  const std::string kMove = "load/store with loop_stride_bytes: ";
  s.push_back({"reuse_loop_extent", kMove + kLog + "the extent of the innermost enclosing loop (extent > 1) "
                                                   "that does not move the access: how often its data is reused"});
  s.push_back({"reuse_distance_iters", kMove + kLog + "the iterations of the loops inside that reuse loop: "
                                                      "executions between two uses"});
  s.push_back({"reuse_distance_bytes", kMove + kLog + "distinct bytes every load/store inside that reuse loop "
                                                      "touches in one of its iterations: what must stay cached"});
  s.push_back({"footprint_per_thread", kMove + kLog + "distinct bytes the access touches inside its outermost "
                                                      "parallel loop (the whole nest without one)"});
  s.push_back({"inner_stride_bytes", kMove + kLog + "bytes the access moves per iteration of the innermost "
                                                    "enclosing loop (extent > 1) that moves it"});
  s.push_back({"strides_known", "1 on a load/store whose AST gives loop_stride_bytes (the five above apply)"});
  s.push_back({"inner_loop_extent", std::string("stage tokens: ") + kLog +
                                        "the extent of the innermost enclosing loop with extent > 1"});
  s.push_back({"unrolled_body", std::string("stage tokens: ") + kLog +
                                    "the product of extents of the unrolled loops directly around the stage "
                                    "(its straight-line copies)"});
  for (int t = 0; t < kTemplateDims; ++t) {
    s.push_back({"template_" + std::to_string(t),
                 "stage tokens: value " + std::to_string(t) +
                     " of the plugin's feature template (see the plugin's TemplateDimNames)"});
  }
  return s;
}

}  // namespace

const std::vector<FeatureDim>& FeatureSchema() {
  static const std::vector<FeatureDim> schema = [] {
    auto s = BuildSchema();
    // A mismatch is a programming error caught by every test run.
    if (s.size() != static_cast<size_t>(kFeatureDim) || dims::kGenericEnd != kGenericDims)
      throw std::logic_error("feature schema table does not match kFeatureDim");
    return s;
  }();
  return schema;
}

}  // namespace ucmoh
