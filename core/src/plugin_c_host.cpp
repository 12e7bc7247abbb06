// The host side of the C plugin ABI: C views of the host's values going in,
// checked C++ values coming out, and the plugin's errors as Status. The rest
// of core sees a TargetPlugin, as before the ABI was C.
#include "plugin_c_host.h"

#include <array>
#include <atomic>
#include <cstring>
#include <optional>
#include <vector>

#include "placed_stage.h"
#include "ucmoh/plugin_c_json.h"

namespace ucmoh {

namespace {

UcmohStr ToC(const std::string& s) { return {s.data(), s.size()}; }
std::string FromC(UcmohStr s) { return s.size ? std::string(s.data, s.size) : std::string(); }

// A ParamMap as the C array it borrows from (valid while `params` lives).
// Lower runs once per program: up to 32 parameters live on the stack.
class ParamsView {
 public:
  explicit ParamsView(const ParamMap& params) {
    UcmohParam* out = params.size() <= inline_.size() ? inline_.data() : (heap_.resize(params.size()), heap_.data());
    for (const auto& [key, value] : params) {
      UcmohParam p{};
      p.key = ToC(key);
      if (const auto* i = std::get_if<int64_t>(&value)) p.type = UCMOH_PARAM_INT, p.int_value = *i;
      else if (const auto* r = std::get_if<double>(&value)) p.type = UCMOH_PARAM_REAL, p.real_value = *r;
      else p.type = UCMOH_PARAM_STRING, p.string_value = ToC(std::get<std::string>(value));
      out[count_++] = p;
    }
    items_ = out;
  }
  UcmohParams c() const { return {items_, count_}; }

 private:
  std::array<UcmohParam, 32> inline_;
  std::vector<UcmohParam> heap_;
  const UcmohParam* items_ = nullptr;
  size_t count_ = 0;
};

struct TaskView {
  explicit TaskView(const Task& task, uint64_t id = 0) : workload(task.workload) {
    c = {sizeof(UcmohTask), ToC(task.key), ToC(task.op), workload.c(), id};
  }
  ParamsView workload;
  UcmohTask c{};
};

struct HardwareView {
  explicit HardwareView(const HardwareParams& h, uint64_t id = 0) {
    for (const auto& f : h.flags) flags.push_back(ToC(f));
    c = {sizeof(UcmohHardware), ToC(h.model), h.is_gpu ? 1 : 0, h.cores, h.vector_bytes, h.vector_registers,
         h.cache_line_bytes, h.l1_bytes, h.l2_bytes, h.l3_bytes, h.warp_size, h.max_threads_per_block,
         h.shared_bytes_per_block, h.registers_per_sm, h.clock_ghz, flags.data(), flags.size(), id};
  }
  std::vector<UcmohStr> flags;
  UcmohHardware c{};
};

// Ids for UcmohTask::id and UcmohHardware::id: never reused in a process.
uint64_t NextViewId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The C view of the last task and hardware this thread lowered with, and
// their ids. Consecutive programs mostly share both: comparing with the kept
// copy is cheaper than building the view again, and the unchanged id lets the
// plugin skip comparing and rebuilding its own copies.
class LastViews {
 public:
  const UcmohTask& Of(const Task& task) {
    if (!task_view_ || task.key != task_.key || task.op != task_.op || task.workload != task_.workload) {
      task_view_.reset();
      task_ = task;
      task_view_.emplace(task_, NextViewId());
    }
    return task_view_->c;
  }
  const UcmohHardware& Of(const HardwareParams& hardware) {
    if (!hardware_view_ || !SameHardwareBits(hardware, hardware_)) {
      hardware_view_.reset();
      hardware_ = hardware;
      hardware_view_.emplace(hardware_, NextViewId());
    }
    return hardware_view_->c;
  }
  static LastViews& ThisThread() {
    thread_local LastViews views;
    return views;
  }

 private:
  Task task_;
  std::optional<TaskView> task_view_;  // points into task_
  HardwareParams hardware_;
  std::optional<HardwareView> hardware_view_;  // points into hardware_
};

bool InRange(int32_t value, int32_t count) { return value >= 0 && value < count; }

bool ValidStage(const UcmohStage& c) {
  return InRange(c.kind, 3) && InRange(c.src, kNumMemScopes) && InRange(c.dst, kNumMemScopes);
}

// The numbers of a stage the walker checked (ValidStage): all featurization
// reads.
void StageNumbersFromC(const UcmohStage& c, Stage* s) {
  s->kind = static_cast<StageKind>(c.kind);
  s->src = static_cast<MemScope>(c.src);
  s->dst = static_cast<MemScope>(c.dst);
  s->bytes = c.bytes;
  s->unique_bytes = c.unique_bytes;
  s->element_stride = c.element_stride;
  s->vector_bytes = c.vector_bytes;
  s->reuse = c.reuse;
  s->intrinsic_calls = c.intrinsic_calls;
  s->flops_per_call = c.flops_per_call;
  for (int d = 0; d < kTemplateDims; ++d) s->template_values[d] = c.template_values[d];
}

// A checked stage as the host's Stage, names included.
void StageFromC(const UcmohStage& c, Stage* s) {
  StageNumbersFromC(c, s);
  s->name = FromC(c.name);
  s->buffer = FromC(c.buffer);
}

// Walks the pre-order node list of a UcmohAst, whatever node size the plugin
// was built with (fields it did not know stay zero), checking counts, depth
// and enums. `Visitor` decides what a loop and a stage become (OnStage,
// EnterLoop, LeaveLoop). It runs once per program for every node, so it is a
// loop with a fixed stack rather than recursion returning a Status per node,
// and a template rather than virtual calls.
template <class Visitor>
Status WalkCAst(const UcmohAst& ast, Visitor& visitor) {
  if (ast.struct_size < UCMOH_STRUCT_SIZE(UcmohAst, num_template_inputs) || ast.node_size == 0)
    return Status::InvalidArgument("the plugin returned an AST struct this host cannot read");
  constexpr size_t kMaxDepth = 256;
  std::array<int32_t, kMaxDepth> children_left;  // of each open loop, outermost first
  size_t depth = 0, roots_left = ast.num_roots, next = 0;
  UcmohAstNode copy;
  for (;;) {
    for (; depth > 0 && children_left[depth - 1] == 0; --depth) visitor.LeaveLoop();
    if (depth > 0) --children_left[depth - 1];
    else if (roots_left-- == 0) break;
    if (next >= ast.num_nodes) return Status::InvalidArgument("the plugin's AST ends inside a loop");
    // A node of another size is copied into one of ours (zeros for fields
    // the writer did not know); one of our size is read where it lies.
    const UcmohAstNode* c = &copy;
    if (ast.node_size == sizeof(UcmohAstNode)) {
      c = &ast.nodes[next];
    } else {
      copy = UcmohAstNode{};
      std::memcpy(&copy, reinterpret_cast<const char*>(ast.nodes) + next * ast.node_size,
                  std::min(ast.node_size, sizeof(UcmohAstNode)));
    }
    ++next;
    if (!c->is_loop) {
      if (!ValidStage(c->stage)) return Status::InvalidArgument("a stage has an unknown kind or memory scope");
      visitor.OnStage(c->stage);
      continue;
    }
    if (!InRange(c->loop_kind, kNumLoopKinds) || c->num_children < 0)
      return Status::InvalidArgument("a loop has an unknown kind or a negative child count");
    if (depth == kMaxDepth) return Status::InvalidArgument("the plugin's AST nests loops deeper than 256");
    visitor.EnterLoop(*c);
    children_left[depth++] = c->num_children;
  }
  if (next != ast.num_nodes)
    return Status::InvalidArgument("the plugin's AST lists " + std::to_string(ast.num_nodes) + " nodes but its " +
                                   "roots hold " + std::to_string(next));
  return Status::Ok();
}

// The plugin's AST as the host's ProgramAst (for LowerRecord's callers:
// features --show-ast, --dump-ast, ...).
class AstReader {
 public:
  explicit AstReader(const UcmohAst& ast) : ast_(ast) { program_.roots.reserve(ast.num_roots); }

  Expected<ProgramAst> Read() {
    UCMOH_RETURN_IF_ERROR(WalkCAst(ast_, *this));
    for (size_t i = 0; i < ast_.num_buffers; ++i) {
      const UcmohAstBuffer& b = ast_.buffers[i];
      if (!InRange(b.scope, kNumMemScopes)) return Status::InvalidArgument("a buffer has an unknown memory scope");
      program_.buffers.push_back({FromC(b.name), std::vector<int64_t>(b.shape, b.shape + b.rank), FromC(b.dtype),
                                  static_cast<MemScope>(b.scope)});
    }
    for (size_t i = 0; i < ast_.num_template_inputs; ++i)
      program_.template_inputs[FromC(ast_.template_inputs[i].name)] = ast_.template_inputs[i].value;
    return std::move(program_);
  }

  void OnStage(const UcmohStage& c) { StageFromC(c, &Siblings().emplace_back().stage); }
  void EnterLoop(const UcmohAstNode& c) {
    AstNode& loop = Siblings().emplace_back();
    loop.is_loop = true;
    loop.loop = {FromC(c.loop_var), c.loop_extent, static_cast<LoopKind>(c.loop_kind)};
    loop.children.reserve(static_cast<size_t>(c.num_children));
    open_.push_back(&loop);
  }
  void LeaveLoop() { open_.pop_back(); }

 private:
  std::vector<AstNode>& Siblings() { return open_.empty() ? program_.roots : open_.back()->children; }

  const UcmohAst& ast_;
  ProgramAst program_;
  std::vector<AstNode*> open_;  // the loops being filled, outermost first
};

// The plugin's AST as featurization's placed stages, with no host AST in
// between (numbers only: featurization reads no names). Its vectors are the
// thread's, kept between programs: featurization runs once per program, and
// allocating them each time was a cost the direct C++ path does not pay.
class StagePlacer {
 public:
  explicit StagePlacer(const UcmohAst& ast) : ast_(ast), s_(ThisThread()) {
    s_.stages.clear(), s_.placed.clear(), s_.context.clear();
    s_.stages.reserve(ast.num_nodes);  // PlacedStage points into it
    s_.context.push_back(PlacedStage{});
  }

  Expected<TokenMatrix> Featurize(const HardwareParams& hardware, const IntrinsicInfo& intrinsic) {
    UCMOH_RETURN_IF_ERROR(WalkCAst(ast_, *this));
    return FeaturizePlacedStages(s_.placed, hardware, intrinsic);
  }

  void OnStage(const UcmohStage& c) {
    Stage& s = s_.stages.emplace_back();
    StageNumbersFromC(c, &s);
    PlacedStage& placed = s_.placed.emplace_back(s_.context.back());
    placed.stage = &s;
  }
  void EnterLoop(const UcmohAstNode& c) {
    s_.context.push_back(s_.context.back().Inside(static_cast<LoopKind>(c.loop_kind), c.loop_extent, loops_++));
  }
  void LeaveLoop() { s_.context.pop_back(); }

 private:
  struct Scratch {
    std::vector<Stage> stages;
    std::vector<PlacedStage> placed, context;
  };
  static Scratch& ThisThread() {
    thread_local Scratch scratch;
    return scratch;
  }

  const UcmohAst& ast_;
  Scratch& s_;
  int loops_ = 0;  // loops entered so far: the next one's id
};

}  // namespace

namespace {

// A TargetPlugin whose every call goes through a plugin's C table.
class CTargetPlugin : public TargetPlugin {
 public:
  CTargetPlugin(const UcmohPluginApi* api, std::shared_ptr<void> library)
      : api_(api), library_(std::move(library)) {}
  ~CTargetPlugin() override {
    if (!plugin_) return;
    UcmohPluginDestroyArgs args{sizeof(args), plugin_};
    api_->plugin_destroy(&args);
  }

  Status Create() {
    UcmohPluginCreateArgs args{sizeof(args), nullptr};
    UCMOH_RETURN_IF_ERROR(Take(api_->plugin_create(&args), "creating the plugin"));
    if (!args.plugin) return Status::InvalidArgument("plugin_create returned no plugin");
    plugin_ = args.plugin;
    UcmohDescribeArgs describe{sizeof(describe), plugin_, nullptr, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->describe(&describe), "describing its target"));
    auto description = DescriptionFromJson(Text(describe.result, describe.json));
    if (!description.ok()) return description.status();
    description_ = std::move(*description);
    if (!HasStageTemplate()) description_.template_input_names.clear();
    return Status::Ok();
  }

  TargetInfo Target() const override { return description_.target; }
  std::vector<IntrinsicInfo> Intrinsics() const override { return description_.intrinsics; }
  std::vector<std::string> TemplateDimNames() const override { return description_.template_dim_names; }
  std::vector<std::string> TemplateInputNames() const override { return description_.template_input_names; }
  std::vector<std::string> TaskSuites() const override { return description_.task_suites; }
  std::vector<std::string> Importers() const override { return description_.importers; }

  Expected<ProgramAst> Lower(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                             const HardwareParams& hardware) const override {
    return WithLowered<ProgramAst>(task, intrinsic, schedule, hardware,
                                   [](const UcmohAst& ast) { return AstReader(ast).Read(); });
  }

  // Lower, then featurize the plugin's C view of the AST directly.
  Expected<TokenMatrix> LowerToTokens(const Record& r, const IntrinsicInfo& info) const {
    return WithLowered<TokenMatrix>(r.task, r.intrinsic, r.schedule, r.hardware, [&](const UcmohAst& ast) {
      return StagePlacer(ast).Featurize(r.hardware, info);
    });
  }

  Expected<TemplateValues> StageTemplate(const std::string& intrinsic, const TemplateInputs& inputs,
                                         const Stage& stage, const HardwareParams& hardware) const override {
    if (!HasStageTemplate()) return TargetPlugin::StageTemplate(intrinsic, inputs, stage, hardware);
    std::vector<UcmohTemplateInput> in;
    for (const auto& [name, value] : inputs) in.push_back({ToC(name), value});
    UcmohStage c{};
    c.kind = static_cast<int32_t>(stage.kind);
    c.name = ToC(stage.name);
    c.buffer = ToC(stage.buffer);
    c.src = static_cast<int32_t>(stage.src);
    c.dst = static_cast<int32_t>(stage.dst);
    c.bytes = stage.bytes, c.unique_bytes = stage.unique_bytes, c.element_stride = stage.element_stride;
    c.vector_bytes = stage.vector_bytes, c.reuse = stage.reuse;
    c.intrinsic_calls = stage.intrinsic_calls, c.flops_per_call = stage.flops_per_call;
    HardwareView h(hardware);
    UcmohStageTemplateArgs args{sizeof(args), plugin_, ToC(intrinsic), in.data(), in.size(), &c, &h.c, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->stage_template(&args), nullptr));
    TemplateValues values{};
    for (int d = 0; d < kTemplateDims; ++d) values[d] = args.values[d];
    return values;
  }

  Expected<std::vector<Task>> Tasks(const std::string& suite, const std::string& intrinsic) const override {
    UcmohTasksArgs args{sizeof(args), plugin_, ToC(suite), ToC(intrinsic), nullptr, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->tasks(&args), nullptr));
    return TasksFromProgramLines(Text(args.result, args.lines));
  }

  Expected<std::vector<ParamMap>> SampleSchedules(const Task& task, const std::string& intrinsic, int64_t count,
                                                  uint64_t seed) const override {
    TaskView t(task);
    UcmohSampleSchedulesArgs args{sizeof(args), plugin_, &t.c, ToC(intrinsic), count, seed, nullptr, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->sample_schedules(&args), nullptr));
    return SchedulesFromProgramLines(Text(args.result, args.lines));
  }

  Expected<ImportResult> Import(const std::string& format, const std::string& path) const override {
    if (!api_->import_file) return TargetPlugin::Import(format, path);
    UcmohImportArgs args{sizeof(args), plugin_, ToC(format), ToC(path), nullptr, {}, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->import_file(&args), nullptr));
    const std::string skipped = FromC(args.skipped);
    auto records = RecordsFromLines(Text(args.result, args.lines));
    auto counts = SkippedFromJson(skipped);
    if (!records.ok()) return records.status().WithContext(Name() + ": imported records");
    if (!counts.ok()) return counts.status().WithContext(Name());
    ImportResult result;
    result.assign(records->begin(), records->end());
    result.skipped = std::move(*counts);
    return result;
  }

  Status CanMeasure(const std::string& intrinsic) const override {
    if (!api_->can_measure) return TargetPlugin::CanMeasure(intrinsic);
    UcmohMeasureArgs args{sizeof(args), plugin_, nullptr, ToC(intrinsic), {}, nullptr, nullptr, {}};
    return Take(api_->can_measure(&args), nullptr);
  }

  Expected<Record> Measure(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                           const MeasureOptions& options) const override {
    if (!api_->measure) return TargetPlugin::Measure(task, intrinsic, schedule, options);
    TaskView t(task);
    ParamsView s(schedule);
    UcmohMeasureOptions o{sizeof(o), options.threads, options.min_repeat_seconds, options.min_repeats, options.max_cv};
    UcmohMeasureArgs args{sizeof(args), plugin_, &t.c, ToC(intrinsic), s.c(), &o, nullptr, {}};
    UCMOH_RETURN_IF_ERROR(Take(api_->measure(&args), nullptr));
    auto records = RecordsFromLines(Text(args.result, args.line));
    if (!records.ok()) return records.status().WithContext(Name() + ": measured record");
    if (records->size() != 1) return Status::InvalidArgument(Name() + ": measure returned no record");
    return records->front();
  }

 private:
  std::string Name() const { return "plugin '" + description_.target.name + "'"; }

  // Calls the plugin's lower and hands its AST to `use`, then gives the
  // result back to the plugin.
  template <class T, class Use>
  Expected<T> WithLowered(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                          const HardwareParams& hardware, Use&& use) const {
    LastViews& last = LastViews::ThisThread();
    ParamsView s(schedule);
    UcmohLowerArgs args{sizeof(args), plugin_, &last.Of(task), ToC(intrinsic), s.c(), &last.Of(hardware),
                        nullptr, nullptr};
    UCMOH_RETURN_IF_ERROR(Take(api_->lower(&args), nullptr));
    Expected<T> out = args.ast ? use(*args.ast) : Expected<T>(Status::InvalidArgument("lower returned no AST"));
    Release(args.result);
    if (!out.ok()) return out.status().WithContext(Name());
    return out;
  }

  bool HasStageTemplate() const {
    return api_->minor >= 1 && api_->struct_size >= UCMOH_STRUCT_SIZE(UcmohPluginApi, stage_template) &&
           api_->stage_template != nullptr;
  }

  // The plugin's error as a Status (its code and message), given back to it.
  Status Take(UcmohError* error, const char* doing) const {
    if (!error) return Status::Ok();
    UcmohErrorArgs args{sizeof(args), error, 0, {}};
    api_->error_code(&args);
    api_->error_message(&args);
    std::string message = FromC(args.message);
    const int32_t code = args.code;
    api_->error_destroy(&args);
    if (message.empty()) message = "the plugin returned an error with no message (code " + std::to_string(code) + ")";
    if (doing) message = std::string(doing) + ": " + message;
    switch (code) {
      case UCMOH_ERROR_INVALID_ARGUMENT: return Status::InvalidArgument(message);
      case UCMOH_ERROR_NOT_FOUND: return Status::NotFound(message);
      case UCMOH_ERROR_IO: return Status::IOError(message);
      case UCMOH_ERROR_CORRUPTION: return Status::Corruption(message);
      case UCMOH_ERROR_UNSUPPORTED: return Status::Unsupported(message);
      default: return Status::Internal(message);
    }
  }

  // A text result copied out, and the result given back.
  std::string Text(UcmohResult* result, UcmohStr text) const {
    std::string out = FromC(text);
    Release(result);
    return out;
  }
  void Release(UcmohResult* result) const {
    if (!result) return;
    UcmohResultDestroyArgs args{sizeof(args), result};
    api_->result_destroy(&args);
  }

  const UcmohPluginApi* api_;
  std::shared_ptr<void> library_;  // released after ~CTargetPlugin gave the instance back
  UcmohPlugin* plugin_ = nullptr;
  PluginDescription description_;
};

}  // namespace

Status CheckPluginTable(const UcmohPluginApi* api) {
  if (!api) return Status::InvalidArgument("its entry point returned no function table");
  if (api->struct_size < UCMOH_STRUCT_SIZE(UcmohPluginApi, minor))
    return Status::InvalidArgument("its function table is " + std::to_string(api->struct_size) +
                                   " bytes, too short to hold a version");
  if (api->major != UCMOH_PLUGIN_C_MAJOR)
    return Status::AbiMismatch("it was built against plugin ABI " + std::to_string(api->major) +
                               " but this registry uses ABI " + std::to_string(UCMOH_PLUGIN_C_MAJOR) +
                               " (any minor of it loads; this plugin's is " + std::to_string(api->minor) +
                               "); rebuild the plugin against the installed headers (ucmoh/plugin_c.h)");
  if (api->struct_size < UCMOH_STRUCT_SIZE(UcmohPluginApi, measure))
    return Status::InvalidArgument("its function table is " + std::to_string(api->struct_size) +
                                   " bytes, shorter than ABI " + std::to_string(api->major) + ".0's " +
                                   std::to_string(UCMOH_STRUCT_SIZE(UcmohPluginApi, measure)) +
                                   "; rebuild it against the installed headers");
  const std::pair<const void*, const char*> required[] = {
      {reinterpret_cast<const void*>(api->error_destroy), "error_destroy"},
      {reinterpret_cast<const void*>(api->error_code), "error_code"},
      {reinterpret_cast<const void*>(api->error_message), "error_message"},
      {reinterpret_cast<const void*>(api->result_destroy), "result_destroy"},
      {reinterpret_cast<const void*>(api->plugin_create), "plugin_create"},
      {reinterpret_cast<const void*>(api->plugin_destroy), "plugin_destroy"},
      {reinterpret_cast<const void*>(api->describe), "describe"},
      {reinterpret_cast<const void*>(api->lower), "lower"},
      {reinterpret_cast<const void*>(api->tasks), "tasks"},
      {reinterpret_cast<const void*>(api->sample_schedules), "sample_schedules"}};
  for (const auto& [fn, name] : required)
    if (!fn) return Status::InvalidArgument(std::string("its function table has no '") + name + "', which every plugin must provide");
  return Status::Ok();
}

std::optional<Expected<TokenMatrix>> LowerToTokensThroughC(const TargetPlugin& plugin, const Record& record,
                                                           const IntrinsicInfo& intrinsic) {
  const auto* c = dynamic_cast<const CTargetPlugin*>(&plugin);
  if (!c) return std::nullopt;
  return c->LowerToTokens(record, intrinsic);
}

Expected<std::shared_ptr<TargetPlugin>> MakeCTargetPlugin(const UcmohPluginApi* api, std::shared_ptr<void> keep_alive) {
  auto plugin = std::make_shared<CTargetPlugin>(api, std::move(keep_alive));
  UCMOH_RETURN_IF_ERROR(plugin->Create());
  return std::shared_ptr<TargetPlugin>(std::move(plugin));
}

}  // namespace ucmoh
