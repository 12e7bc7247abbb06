// The plugin side of the C ABI (ucmoh/plugin_c.h): a vendor writes a C++
// ucmoh::TargetPlugin (ucmoh/plugin.h) and exports it with
//
//   UCMOH_DEFINE_PLUGIN(MyPluginClass)
//
// in one source file. Everything here is inline and compiled by the plugin's
// own compiler and standard library; only C types reach the host. Exceptions
// never cross: each entry point turns them into UcmohError.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ucmoh/plugin.h"
#include "ucmoh/plugin_c.h"
#include "ucmoh/plugin_c_json.h"

// The plugin's definitions of the ABI's opaque objects. Each plugin library
// has its own (hidden visibility); the host never sees their layout.
struct UcmohError {
  int32_t code;
  std::string message;
};

struct UcmohPlugin {
  std::unique_ptr<ucmoh::TargetPlugin> impl;
};

struct UcmohResult {
  std::string text, text2;
  ucmoh::ProgramAst program;  // owns the strings the views below point into
  std::vector<UcmohAstNode> nodes;
  std::vector<UcmohAstBuffer> buffers;
  std::vector<UcmohTemplateInput> inputs;
  UcmohAst ast{};
  bool reusable = false;  // Lower's: kept for the thread's next Lower
};

namespace ucmoh::plugin_c {

inline std::string FromC(UcmohStr s) { return s.size ? std::string(s.data, s.size) : std::string(); }
inline UcmohStr ToC(const std::string& s) { return {s.data(), s.size()}; }

inline UcmohError* MakeError(const Status& status) {
  int32_t code = UCMOH_ERROR_INTERNAL;
  switch (status.code()) {
    case Status::Code::kInvalidArgument: code = UCMOH_ERROR_INVALID_ARGUMENT; break;
    case Status::Code::kNotFound: code = UCMOH_ERROR_NOT_FOUND; break;
    case Status::Code::kIOError: code = UCMOH_ERROR_IO; break;
    case Status::Code::kCorruption: code = UCMOH_ERROR_CORRUPTION; break;
    case Status::Code::kUnsupported: code = UCMOH_ERROR_UNSUPPORTED; break;
    default: break;
  }
  return new UcmohError{code, status.message()};
}

inline ParamMap ParamsFromC(const UcmohParams& params) {
  ParamMap out;
  for (size_t i = 0; i < params.count; ++i) {
    const UcmohParam& p = params.items[i];
    if (p.type == UCMOH_PARAM_INT) out.emplace(FromC(p.key), p.int_value);
    else if (p.type == UCMOH_PARAM_REAL) out.emplace(FromC(p.key), p.real_value);
    else out.emplace(FromC(p.key), FromC(p.string_value));
  }
  return out;
}

inline Task TaskFromC(const UcmohTask& task) { return {FromC(task.key), FromC(task.op), ParamsFromC(task.workload)}; }

inline HardwareParams HardwareFromC(const UcmohHardware& h) {
  HardwareParams out;
  out.model = FromC(h.model);
  out.is_gpu = h.is_gpu != 0;
  out.cores = h.cores;
  out.vector_bytes = h.vector_bytes;
  out.vector_registers = h.vector_registers;
  out.cache_line_bytes = h.cache_line_bytes;
  out.l1_bytes = h.l1_bytes;
  out.l2_bytes = h.l2_bytes;
  out.l3_bytes = h.l3_bytes;
  out.warp_size = h.warp_size;
  out.max_threads_per_block = h.max_threads_per_block;
  out.shared_bytes_per_block = h.shared_bytes_per_block;
  out.registers_per_sm = h.registers_per_sm;
  out.clock_ghz = h.clock_ghz;
  for (size_t i = 0; i < h.num_flags; ++i) out.flags.push_back(FromC(h.flags[i]));
  return out;
}

inline std::string& AssignFromC(std::string& out, UcmohStr c) {
  return c.size ? out.assign(c.data, c.size) : (out.clear(), out);
}

inline bool Same(UcmohStr c, const std::string& s) {
  return c.size == s.size() && (c.size == 0 || std::memcmp(c.data, s.data(), c.size) == 0);
}

inline bool SameParams(const UcmohParams& c, const ParamMap& params) {
  if (c.count != params.size()) return false;
  size_t i = 0;
  for (const auto& [key, value] : params) {
    const UcmohParam& p = c.items[i++];
    if (!Same(p.key, key) || p.type != static_cast<int32_t>(value.index())) return false;
    if (const auto* v = std::get_if<int64_t>(&value); v && p.int_value != *v) return false;
    if (const auto* v = std::get_if<double>(&value); v && p.real_value != *v) return false;
    if (const auto* v = std::get_if<std::string>(&value); v && !Same(p.string_value, *v)) return false;
  }
  return true;
}

inline bool SameHardware(const UcmohHardware& c, const HardwareParams& h) {
  if (!Same(c.model, h.model) || (c.is_gpu != 0) != h.is_gpu || c.num_flags != h.flags.size()) return false;
  const double a[] = {c.cores, c.vector_bytes, c.vector_registers, c.cache_line_bytes, c.l1_bytes, c.l2_bytes,
                      c.l3_bytes, c.warp_size, c.max_threads_per_block, c.shared_bytes_per_block,
                      c.registers_per_sm, c.clock_ghz};
  const double b[] = {h.cores, h.vector_bytes, h.vector_registers, h.cache_line_bytes, h.l1_bytes, h.l2_bytes,
                      h.l3_bytes, h.warp_size, h.max_threads_per_block, h.shared_bytes_per_block,
                      h.registers_per_sm, h.clock_ghz};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; ++i)
    if (a[i] != b[i]) return false;
  for (size_t i = 0; i < c.num_flags; ++i)
    if (!Same(c.flags[i], h.flags[i])) return false;
  return true;
}

// The id the host gave a task or hardware (5.1), or 0 for none.
template <class CStruct>
uint64_t ViewId(const CStruct& c) {
  return c.struct_size >= UCMOH_STRUCT_SIZE(CStruct, id) ? c.id : 0;
}

// A value converted from its C view, kept for the thread's next call, and
// the host's id for it (5.1).
template <class Value>
struct Kept {
  Value value;
  bool valid = false;
  uint64_t id = 0;
};

// Everything Lower keeps for its thread's next call, in one thread_local: in
// a plugin library every thread_local costs a __tls_get_addr call per use,
// and Lower runs once per program. Only Lower and stage_template touch it, so
// a plugin that is only described can still be unloaded (a thread_local with
// a destructor keeps its library mapped until the thread ends).
struct ThreadState {
  Kept<Task> task;
  Kept<HardwareParams> hardware;
  ParamMap schedule;
  std::string intrinsic;
  std::unique_ptr<UcmohResult> spare_result;  // Lower's last result, given back
};
inline ThreadState& ThisThread() {
  thread_local ThreadState state;
  return state;
}

// The kept value for a C view. Consecutive programs mostly share their task
// and hardware: an id the host gave last time means "the same", and without
// one, comparing the C view with the kept value costs a fraction of building
// it again (docs/benchmarks.md, plugin ABI).
template <class Value, class CStruct, class SameFn, class ConvertFn>
const Value& KeptView(const CStruct& c, Kept<Value>& kept, SameFn same, ConvertFn convert) {
  const uint64_t id = ViewId(c);
  if (id != 0 && id == kept.id) return kept.value;
  if (!kept.valid || !same(c, kept.value)) {
    kept.value = convert(c);
    kept.valid = true;
  }
  kept.id = id;
  return kept.value;
}

inline const Task& KeptTask(const UcmohTask& c, ThreadState& state) {
  return KeptView(
      c, state.task,
      [](const UcmohTask& v, const Task& t) {
        return Same(v.key, t.key) && Same(v.op, t.op) && SameParams(v.workload, t.workload);
      },
      TaskFromC);
}

inline const HardwareParams& KeptHardware(const UcmohHardware& c, ThreadState& state) {
  return KeptView(c, state.hardware, SameHardware, HardwareFromC);
}

// The schedule in the thread's ParamMap: when its keys are those of the last
// schedule (the same plugin's schedules mostly are), only the values are
// assigned, so no element or string is allocated.
inline const ParamMap& ReusedSchedule(const UcmohParams& c, ParamMap& kept) {
  bool same_keys = c.count == kept.size();
  size_t i = 0;
  for (auto it = kept.begin(); same_keys && it != kept.end(); ++it, ++i) same_keys = Same(c.items[i].key, it->first);
  if (!same_keys) return kept = ParamsFromC(c);
  i = 0;
  for (auto& [key, value] : kept) {
    const UcmohParam& p = c.items[i++];
    if (p.type == UCMOH_PARAM_INT) value = p.int_value;
    else if (p.type == UCMOH_PARAM_REAL) value = p.real_value;
    else if (auto* text = std::get_if<std::string>(&value)) AssignFromC(*text, p.string_value);
    else value = FromC(p.string_value);
  }
  return kept;
}

// A result for Lower to fill: the one the host gave back last, whose vectors
// keep their capacity, else a new one.
inline UcmohResult* NewResult(ThreadState& state) {
  UcmohResult* r = state.spare_result ? state.spare_result.release() : new UcmohResult;
  r->reusable = true;
  return r;
}
inline void DestroyResult(UcmohResult* r) {
  // Only Lower's results touch the thread's state (see ThreadState).
  if (!r->reusable) return delete r;
  std::unique_ptr<UcmohResult>& spare = ThisThread().spare_result;
  if (spare) return delete r;
  r->program = ProgramAst{};
  r->nodes.clear();
  r->buffers.clear();
  r->inputs.clear();
  spare.reset(r);
}

// Fills `c` (zeroed by the caller) with the C view of `s`.
inline void StageToC(const Stage& s, UcmohStage& c) {
  c.kind = static_cast<int32_t>(s.kind);
  c.name = ToC(s.name);
  c.buffer = ToC(s.buffer);
  c.src = static_cast<int32_t>(s.src);
  c.dst = static_cast<int32_t>(s.dst);
  c.bytes = s.bytes;
  c.unique_bytes = s.unique_bytes;
  c.element_stride = s.element_stride;
  c.vector_bytes = s.vector_bytes;
  c.reuse = s.reuse;
  c.intrinsic_calls = s.intrinsic_calls;
  c.flops_per_call = s.flops_per_call;
  for (int d = 0; d < kTemplateDims; ++d) c.template_values[d] = s.template_values[d];
}

inline Stage StageFromC(const UcmohStage& c) {
  Stage s;
  s.kind = static_cast<StageKind>(c.kind);
  s.name = FromC(c.name);
  s.buffer = FromC(c.buffer);
  s.src = static_cast<MemScope>(c.src);
  s.dst = static_cast<MemScope>(c.dst);
  s.bytes = c.bytes;
  s.unique_bytes = c.unique_bytes;
  s.element_stride = c.element_stride;
  s.vector_bytes = c.vector_bytes;
  s.reuse = c.reuse;
  s.intrinsic_calls = c.intrinsic_calls;
  s.flops_per_call = c.flops_per_call;
  for (int d = 0; d < kTemplateDims; ++d) s.template_values[d] = c.template_values[d];
  return s;
}

// Written in place (no temporary node copied in): Lower runs once per program.
inline void AppendNode(const AstNode& node, std::vector<UcmohAstNode>& out) {
  UcmohAstNode& c = out.emplace_back();  // value-initialized: zeros
  c.is_loop = node.is_loop ? 1 : 0;
  if (node.is_loop) {
    c.num_children = static_cast<int32_t>(node.children.size());
    c.loop_var = ToC(node.loop.var);
    c.loop_extent = node.loop.extent;
    c.loop_kind = static_cast<int32_t>(node.loop.kind);
  } else {
    StageToC(node.stage, c.stage);
  }
  for (const AstNode& child : node.children) AppendNode(child, out);
}

// Points result->ast at C views of result->program.
inline void ExposeAst(UcmohResult& r) {
  r.nodes.reserve(16);
  for (const AstNode& root : r.program.roots) AppendNode(root, r.nodes);
  for (const Buffer& b : r.program.buffers)
    r.buffers.push_back({ToC(b.name), ToC(b.dtype), b.shape.data(), b.shape.size(), static_cast<int32_t>(b.scope)});
  for (const auto& [name, value] : r.program.template_inputs) r.inputs.push_back({ToC(name), value});
  r.ast = {sizeof(UcmohAst), sizeof(UcmohAstNode), r.nodes.data(), r.nodes.size(), r.program.roots.size(),
           r.buffers.data(), r.buffers.size(), r.inputs.data(), r.inputs.size()};
}

// Runs `body` (returning Status) with exceptions turned into errors.
template <class Body>
UcmohError* Guarded(Body&& body) {
  try {
    Status s = body();
    return s.ok() ? nullptr : MakeError(s);
  } catch (const std::exception& e) {
    return MakeError(Status::Internal(std::string("plugin threw: ") + e.what()));
  } catch (...) {
    return MakeError(Status::Internal("plugin threw a non-standard exception"));
  }
}

// Text results (describe, tasks, schedules, imports, records).
inline UcmohResult* TextResult(std::string text, std::string text2 = {}) {
  auto* r = new UcmohResult;
  r->text = std::move(text);
  r->text2 = std::move(text2);
  return r;
}

// The table's entries for plugin class P.
template <class P>
struct Entries {
  static void ErrorDestroy(UcmohErrorArgs* a) { delete a->error; }
  static void ErrorCode(UcmohErrorArgs* a) { a->code = a->error->code; }
  static void ErrorMessage(UcmohErrorArgs* a) { a->message = ToC(a->error->message); }
  static void ResultDestroy(UcmohResultDestroyArgs* a) { DestroyResult(a->result); }
  static UcmohError* Create(UcmohPluginCreateArgs* a) {
    return Guarded([&] {
      a->plugin = new UcmohPlugin{std::make_unique<P>()};
      return Status::Ok();
    });
  }
  static void Destroy(UcmohPluginDestroyArgs* a) { delete a->plugin; }

  static UcmohError* Describe(UcmohDescribeArgs* a) {
    return Guarded([&] {
      a->result = TextResult(DescriptionToJson(*a->plugin->impl));
      a->json = ToC(a->result->text);
      return Status::Ok();
    });
  }
  static UcmohError* Lower(UcmohLowerArgs* a) {
    return Guarded([&] {
      ThreadState& state = ThisThread();
      auto program = a->plugin->impl->Lower(KeptTask(*a->task, state), AssignFromC(state.intrinsic, a->intrinsic),
                                            ReusedSchedule(a->schedule, state.schedule),
                                            KeptHardware(*a->hardware, state));
      if (!program.ok()) return program.status();
      UcmohResult* r = NewResult(state);
      r->program = std::move(*program);
      ExposeAst(*r);
      a->result = r;
      a->ast = &r->ast;
      return Status::Ok();
    });
  }
  static UcmohError* Tasks(UcmohTasksArgs* a) {
    return Guarded([&] {
      const std::string intrinsic = FromC(a->intrinsic);
      auto tasks = a->plugin->impl->Tasks(FromC(a->suite), intrinsic);
      if (!tasks.ok()) return tasks.status();
      a->result = TextResult(TasksToProgramLines(a->plugin->impl->Target().name, intrinsic, *tasks));
      a->lines = ToC(a->result->text);
      return Status::Ok();
    });
  }
  static UcmohError* SampleSchedules(UcmohSampleSchedulesArgs* a) {
    return Guarded([&] {
      const Task task = TaskFromC(*a->task);
      const std::string intrinsic = FromC(a->intrinsic);
      auto schedules = a->plugin->impl->SampleSchedules(task, intrinsic, a->count, a->seed);
      if (!schedules.ok()) return schedules.status();
      a->result = TextResult(SchedulesToProgramLines(a->plugin->impl->Target().name, intrinsic, task, *schedules));
      a->lines = ToC(a->result->text);
      return Status::Ok();
    });
  }
  static UcmohError* Import(UcmohImportArgs* a) {
    return Guarded([&] {
      auto imported = a->plugin->impl->Import(FromC(a->format), FromC(a->path));
      if (!imported.ok()) return imported.status();
      a->result = TextResult(RecordsToLines(*imported), SkippedToJson(imported->skipped));
      a->lines = ToC(a->result->text);
      a->skipped = ToC(a->result->text2);
      return Status::Ok();
    });
  }
  static UcmohError* CanMeasure(UcmohMeasureArgs* a) {
    return Guarded([&] { return a->plugin->impl->CanMeasure(FromC(a->intrinsic)); });
  }
  static UcmohError* Measure(UcmohMeasureArgs* a) {
    return Guarded([&] {
      MeasureOptions options;
      options.threads = a->options->threads;
      options.min_repeat_seconds = a->options->min_repeat_seconds;
      options.min_repeats = a->options->min_repeats;
      options.max_cv = a->options->max_cv;
      auto record = a->plugin->impl->Measure(TaskFromC(*a->task), FromC(a->intrinsic), ParamsFromC(a->schedule), options);
      if (!record.ok()) return record.status();
      a->result = TextResult(RecordsToLines({*record}));
      a->line = ToC(a->result->text);
      return Status::Ok();
    });
  }
  static UcmohError* StageTemplateValues(UcmohStageTemplateArgs* a) {
    return Guarded([&] {
      TemplateInputs inputs;
      for (size_t i = 0; i < a->num_inputs; ++i) inputs[FromC(a->inputs[i].name)] = a->inputs[i].value;
      auto values = a->plugin->impl->StageTemplate(FromC(a->intrinsic), inputs, StageFromC(*a->stage),
                                                   KeptHardware(*a->hardware, ThisThread()));
      if (!values.ok()) return values.status();
      for (int d = 0; d < kTemplateDims; ++d) a->values[d] = (*values)[d];
      return Status::Ok();
    });
  }

  static const UcmohPluginApi* Table() {
    static const UcmohPluginApi table = {
        sizeof(UcmohPluginApi), UCMOH_PLUGIN_C_MAJOR, UCMOH_PLUGIN_C_MINOR,
        &ErrorDestroy, &ErrorCode, &ErrorMessage, &ResultDestroy, &Create, &Destroy, &Describe, &Lower, &Tasks,
        &SampleSchedules, &Import, &CanMeasure, &Measure, &StageTemplateValues};
    return &table;
  }
};

}  // namespace ucmoh::plugin_c

// Put once in a plugin's source: UCMOH_DEFINE_PLUGIN(MyPluginClass). The
// entry point only returns the table: nothing of the plugin runs until the
// host calls plugin_create.
#define UCMOH_DEFINE_PLUGIN(PluginClass)                                                          \
  extern "C" __attribute__((visibility("default"))) const UcmohPluginApi* ucmoh_plugin_c_api() { \
    return ::ucmoh::plugin_c::Entries<PluginClass>::Table();                                      \
  }
