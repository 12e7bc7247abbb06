// The AST JSON form (ast_program.h, docs/ast-json.md): writer, validating
// reader, and featurization through the intrinsic's plugin.
#include "ucmoh/ast_program.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "ucmoh/hardware_json.h"
#include "ucmoh/program_featurizer.h"

namespace ucmoh {

namespace {

using json = nlohmann::json;

// ---- writing ----------------------------------------------------------------

json StageToJson(const Stage& s, const std::string& intrinsic) {
  if (s.kind == StageKind::kCompute) {
    json j = {{"kind", "compute"}, {"name", s.name}, {"intrinsic", intrinsic},
              {"calls", s.intrinsic_calls}, {"flops_per_call", s.flops_per_call}};
    if (!s.buffer.empty()) j["buffer"] = s.buffer;
    return j;
  }
  return {{"kind", StageKindName(s.kind)}, {"name", s.name}, {"buffer", s.buffer},
          {"src", MemScopeName(s.src)},     {"dst", MemScopeName(s.dst)},
          {"bytes", s.bytes},               {"unique_bytes", s.unique_bytes},
          {"element_stride", s.element_stride}, {"vector_bytes", s.vector_bytes},
          {"reuse", s.reuse}};
}

json NodesToJson(const std::vector<AstNode>& nodes, const std::string& intrinsic) {
  json out = json::array();
  for (const AstNode& n : nodes) {
    if (!n.is_loop) {
      out.push_back({{"stage", StageToJson(n.stage, intrinsic)}});
      continue;
    }
    out.push_back({{"loop", {{"var", n.loop.var}, {"extent", n.loop.extent}, {"kind", LoopKindName(n.loop.kind)}}},
                   {"body", NodesToJson(n.children, intrinsic)}});
  }
  return out;
}

// ---- reading ----------------------------------------------------------------

// The JSON path of the value being read; extended on the way down and cut
// back on the way up, so reading a valid program builds no strings.
class Path {
 public:
  explicit Path(std::string root) : text_(std::move(root)) {}
  Status Error(const std::string& key, const std::string& what) const {
    return Status::InvalidArgument(text_ + (key.empty() ? "" : "." + key) + ": " + what);
  }
  const std::string& text() const { return text_; }

  // Appends a segment for the lifetime of the scope.
  class Scope {
   public:
    Scope(Path& p, const std::string& segment) : p_(p), size_(p.text_.size()) { p_.text_ += segment; }
    ~Scope() { p_.text_.resize(size_); }
   private:
    Path& p_;
    size_t size_;
  };

 private:
  std::string text_;
};

std::string Index(size_t i) { return "[" + std::to_string(i) + "]"; }

Status CheckKeys(const json& j, const Path& path, std::initializer_list<const char*> allowed) {
  if (!j.is_object()) return path.Error("", "must be an object");
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || item.key() == a;
    if (!known) return path.Error(item.key(), "unknown field");
  }
  return Status::Ok();
}

Expected<std::string> String(const json& j, const Path& path, const char* key, bool required, bool non_empty) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) return path.Error(key, "missing");
    return std::string();
  }
  if (!it->is_string()) return path.Error(key, "must be a string");
  if (non_empty && it->get_ref<const std::string&>().empty()) return path.Error(key, "must not be empty");
  return it->get<std::string>();
}

// A finite number >= min; `fallback` when absent and not required.
Expected<double> Number(const json& j, const Path& path, const char* key, double min, std::optional<double> fallback) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (!fallback) return path.Error(key, "missing");
    return *fallback;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < min) {
    std::ostringstream what;
    what << "must be a finite number >= " << min;
    return path.Error(key, what.str());
  }
  return it->get<double>();
}

template <typename Enum>
Expected<Enum> Named(const json& j, const Path& path, const char* key, Expected<Enum> (*parse)(const std::string&)) {
  auto text = String(j, path, key, true, true);
  if (!text.ok()) return text.status();
  auto value = parse(*text);
  if (!value.ok()) return path.Error(key, value.status().message());
  return value;
}

// What the reader checks across the tree: declared buffers and the intrinsic.
struct ReadContext {
  std::set<std::string> buffers;
  std::string intrinsic;      // of the first compute stage (or the program's "intrinsic")
  std::string intrinsic_path; // where it was named
  int stages = 0, computes = 0;
};

Status ReadMoveStage(const json& j, Path& path, ReadContext& ctx, Stage& s) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"kind", "name", "buffer", "src", "dst", "bytes", "unique_bytes",
                                            "element_stride", "vector_bytes", "reuse"}));
  auto buffer = String(j, path, "buffer", true, true);
  if (!buffer.ok()) return buffer.status();
  if (!ctx.buffers.count(*buffer)) return path.Error("buffer", "unknown buffer '" + *buffer + "' (declare it in $.buffers)");
  s.buffer = *buffer;
  auto src = Named<MemScope>(j, path, "src", ParseMemScope);
  if (!src.ok()) return src.status();
  auto dst = Named<MemScope>(j, path, "dst", ParseMemScope);
  if (!dst.ok()) return dst.status();
  s.src = *src;
  s.dst = *dst;
  auto bytes = Number(j, path, "bytes", 0, std::nullopt);
  if (!bytes.ok()) return bytes.status();
  s.bytes = *bytes;
  struct Field { const char* key; double* out; double min; double fallback; };
  for (const Field& f : {Field{"unique_bytes", &s.unique_bytes, 0, *bytes}, Field{"element_stride", &s.element_stride, 0, 1},
                         Field{"vector_bytes", &s.vector_bytes, 0, 0}, Field{"reuse", &s.reuse, 0, 1}}) {
    auto v = Number(j, path, f.key, f.min, f.fallback);
    if (!v.ok()) return v.status();
    *f.out = *v;
  }
  return Status::Ok();
}

Status ReadComputeStage(const json& j, Path& path, ReadContext& ctx, Stage& s) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"kind", "name", "buffer", "intrinsic", "calls", "flops_per_call"}));
  auto intrinsic = String(j, path, "intrinsic", true, true);
  if (!intrinsic.ok()) return intrinsic.status();
  if (ctx.intrinsic.empty()) {
    ctx.intrinsic = *intrinsic;
    ctx.intrinsic_path = path.text() + ".intrinsic";
  } else if (*intrinsic != ctx.intrinsic) {
    return path.Error("intrinsic", "'" + *intrinsic + "' differs from '" + ctx.intrinsic + "' (" + ctx.intrinsic_path +
                                       "): a program calls one intrinsic");
  }
  auto buffer = String(j, path, "buffer", false, false);
  if (!buffer.ok()) return buffer.status();
  s.buffer = *buffer;
  auto calls = Number(j, path, "calls", 0, std::nullopt);
  if (!calls.ok()) return calls.status();
  auto flops = Number(j, path, "flops_per_call", 0, std::nullopt);
  if (!flops.ok()) return flops.status();
  s.intrinsic_calls = *calls;
  s.flops_per_call = *flops;
  ++ctx.computes;
  return Status::Ok();
}

Expected<Stage> ReadStage(const json& j, Path& path, ReadContext& ctx) {
  if (!j.is_object()) return path.Error("", "must be an object");
  Stage s;
  auto kind = Named<StageKind>(j, path, "kind", ParseStageKind);
  if (!kind.ok()) return kind.status();
  s.kind = *kind;
  auto name = String(j, path, "name", false, false);
  if (!name.ok()) return name.status();
  s.name = *name;
  Status read = s.kind == StageKind::kCompute ? ReadComputeStage(j, path, ctx, s) : ReadMoveStage(j, path, ctx, s);
  if (!read.ok()) return read;
  ++ctx.stages;
  return s;
}

Expected<std::vector<AstNode>> ReadNodes(const json& j, Path& path, ReadContext& ctx);

Expected<AstNode> ReadLoop(const json& loop, Path& path) {
  Path::Scope in(path, ".loop");
  UCMOH_RETURN_IF_ERROR(CheckKeys(loop, path, {"var", "extent", "kind"}));
  auto extent = loop.find("extent");
  if (extent == loop.end()) return path.Error("extent", "missing");
  if (!extent->is_number_integer() || extent->get<int64_t>() < 1) return path.Error("extent", "must be an integer >= 1");
  auto var = String(loop, path, "var", false, false);
  if (!var.ok()) return var.status();
  auto kind = Named<LoopKind>(loop, path, "kind", ParseLoopKind);
  if (!kind.ok()) return kind.status();
  return AstNode::MakeLoop(*var, extent->get<int64_t>(), *kind, {});
}

Expected<AstNode> ReadNode(const json& node, Path& path, ReadContext& ctx) {
  if (!node.is_object()) return path.Error("", "must be an object with \"loop\" and \"body\", or \"stage\"");
  if (node.contains("stage")) {
    UCMOH_RETURN_IF_ERROR(CheckKeys(node, path, {"stage"}));
    Path::Scope in(path, ".stage");
    auto stage = ReadStage(node["stage"], path, ctx);
    if (!stage.ok()) return stage.status();
    return AstNode::MakeStage(std::move(*stage));
  }
  if (!node.contains("loop")) return path.Error("", "needs \"loop\" (with \"body\") or \"stage\"");
  UCMOH_RETURN_IF_ERROR(CheckKeys(node, path, {"loop", "body"}));
  auto loop = ReadLoop(node["loop"], path);
  if (!loop.ok()) return loop.status();
  if (!node.contains("body")) return path.Error("body", "missing");
  Path::Scope in(path, ".body");
  auto body = ReadNodes(node["body"], path, ctx);
  if (!body.ok()) return body.status();
  loop->children = std::move(*body);
  return loop;
}

Expected<std::vector<AstNode>> ReadNodes(const json& j, Path& path, ReadContext& ctx) {
  if (!j.is_array() || j.empty()) return path.Error("", "must be a non-empty array of nodes");
  std::vector<AstNode> nodes;
  nodes.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    Path::Scope in(path, Index(i));
    auto node = ReadNode(j[i], path, ctx);
    if (!node.ok()) return node.status();
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

Expected<Buffer> ReadBuffer(const json& j, const Path& path) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"name", "shape", "dtype", "scope"}));
  Buffer b;
  auto name = String(j, path, "name", true, true);
  if (!name.ok()) return name.status();
  b.name = *name;
  auto shape = j.find("shape");
  if (shape == j.end()) return path.Error("shape", "missing");
  if (!shape->is_array() || shape->empty()) return path.Error("shape", "must be a non-empty array of extents");
  for (size_t i = 0; i < shape->size(); ++i) {
    const json& e = (*shape)[i];
    if (!e.is_number_integer() || e.get<int64_t>() < 1) return path.Error("shape" + Index(i), "must be an integer >= 1");
    b.shape.push_back(e.get<int64_t>());
  }
  auto dtype = String(j, path, "dtype", true, true);
  if (!dtype.ok()) return dtype.status();
  if (TypeBits(*dtype) == 0 && *dtype != "tf32")
    return path.Error("dtype", "unknown dtype '" + *dtype + "' (f64, f32, tf32, f16, bf16, s32, u32, s16, s8, u8, s4, u4)");
  b.dtype = *dtype;
  auto scope = Named<MemScope>(j, path, "scope", ParseMemScope);
  if (!scope.ok()) return scope.status();
  b.scope = *scope;
  return b;
}

Status ReadBuffers(const json& j, Path& path, ProgramAst& ast, ReadContext& ctx) {
  auto it = j.find("buffers");
  if (it == j.end()) return path.Error("buffers", "missing");
  if (!it->is_array()) return path.Error("buffers", "must be an array");
  Path::Scope in(path, ".buffers");
  for (size_t i = 0; i < it->size(); ++i) {
    Path::Scope at(path, Index(i));
    auto b = ReadBuffer((*it)[i], path);
    if (!b.ok()) return b.status();
    if (!ctx.buffers.insert(b->name).second) return path.Error("name", "buffer '" + b->name + "' is declared twice");
    ast.buffers.push_back(std::move(*b));
  }
  return Status::Ok();
}

Status ReadTemplateInputs(const json& j, const Path& path, const std::vector<std::string>& names, TemplateInputs& out) {
  auto it = j.find("template_inputs");
  if (it == j.end()) return path.Error("template_inputs", "missing");
  if (!it->is_object()) return path.Error("template_inputs", "must be an object of numbers");
  for (const auto& item : it->items()) {
    if (std::find(names.begin(), names.end(), item.key()) == names.end())
      return path.Error("template_inputs." + item.key(), "not an input of this intrinsic's plugin");
    if (!item.value().is_number() || !std::isfinite(item.value().get<double>()))
      return path.Error("template_inputs." + item.key(), "must be a finite number");
    out[item.key()] = item.value().get<double>();
  }
  for (const auto& name : names)
    if (!out.count(name)) return path.Error("template_inputs." + name, "missing");
  return Status::Ok();
}

Status FillTemplates(std::vector<AstNode>& nodes, const TargetPlugin& plugin, const AstProgram& p, Path& path) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    Path::Scope at(path, Index(i));
    AstNode& n = nodes[i];
    if (n.is_loop) {
      Path::Scope body(path, ".body");
      UCMOH_RETURN_IF_ERROR(FillTemplates(n.children, plugin, p, path));
      continue;
    }
    auto values = plugin.StageTemplate(p.intrinsic, p.ast.template_inputs, n.stage, p.hardware);
    if (!values.ok()) return path.Error("stage", values.status().message());
    n.stage.template_values = *values;
  }
  return Status::Ok();
}

// The plugin of the program's intrinsic, its hardware and template values.
Status ResolveWithPlugin(const json& j, Path& path, const PluginSet& plugins, const ReadContext& ctx, AstProgram& p) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(ctx.intrinsic);
  if (!plugin) {
    std::string known;
    for (const auto& i : plugins.AllIntrinsics()) known += (known.empty() ? "" : ", ") + i.name;
    return Status::NotFound(ctx.intrinsic_path + ": unknown intrinsic '" + ctx.intrinsic + "' (loaded: " + known + ")");
  }
  p.intrinsic = ctx.intrinsic;
  p.hardware = plugin->target.hardware;
  if (auto hw = j.find("hardware"); hw != j.end()) {
    auto parsed = HardwareFromJson(*hw);
    if (!parsed.ok()) return path.Error("hardware", parsed.status().message());
    p.hardware = *parsed;
  }
  const std::vector<std::string> names = plugin->plugin->TemplateInputNames();
  if (names.empty()) return Status::Unsupported(ctx.intrinsic_path + ": " + plugin->target.name +
                                                " does not take programs as ASTs (its plugin names no template inputs)");
  UCMOH_RETURN_IF_ERROR(ReadTemplateInputs(j, path, names, p.ast.template_inputs));
  Path::Scope body(path, ".body");
  return FillTemplates(p.ast.roots, *plugin->plugin, p, path);
}

Status ReadHeader(const json& j, const Path& path, AstProgram& p, ReadContext& ctx) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"ast_format", "task", "intrinsic", "hardware", "latency_s",
                                            "template_inputs", "buffers", "body"}));
  if (auto f = j.find("ast_format"); f != j.end() && (!f->is_number_integer() || f->get<int64_t>() != kAstFormatVersion))
    return path.Error("ast_format", "this reader knows format " + std::to_string(kAstFormatVersion));
  auto task = String(j, path, "task", false, false);
  if (!task.ok()) return task.status();
  p.task = task->empty() ? "ast" : *task;
  auto latency = Number(j, path, "latency_s", 0, 0.0);
  if (!latency.ok()) return latency.status();
  p.latency_s = *latency;
  auto intrinsic = String(j, path, "intrinsic", false, true);
  if (!intrinsic.ok()) return intrinsic.status();
  if (!intrinsic->empty()) {
    ctx.intrinsic = *intrinsic;
    ctx.intrinsic_path = path.text() + ".intrinsic";
  }
  return Status::Ok();
}

}  // namespace

Expected<AstProgram> RecordAsAstProgram(const PluginSet& plugins, const Record& record) {
  auto ast = LowerRecord(plugins, record);
  if (!ast.ok()) return ast.status();
  AstProgram p;
  p.task = record.task.key;
  p.intrinsic = record.intrinsic;
  p.hardware = record.hardware;
  p.ast = std::move(*ast);
  p.latency_s = record.latency.median_s;
  return p;
}

json AstProgramToJson(const AstProgram& p) {
  json buffers = json::array();
  for (const Buffer& b : p.ast.buffers)
    buffers.push_back({{"name", b.name}, {"shape", b.shape}, {"dtype", b.dtype}, {"scope", MemScopeName(b.scope)}});
  json j = {{"ast_format", kAstFormatVersion}, {"task", p.task},  {"intrinsic", p.intrinsic},
            {"hardware", HardwareToJson(p.hardware)}, {"template_inputs", p.ast.template_inputs},
            {"buffers", buffers}, {"body", NodesToJson(p.ast.roots, p.intrinsic)}};
  if (p.latency_s > 0) j["latency_s"] = p.latency_s;
  return j;
}

Expected<AstProgram> AstProgramFromJson(const json& j, const PluginSet& plugins, const std::string& root) {
  Path path(root);
  AstProgram p;
  ReadContext ctx;
  UCMOH_RETURN_IF_ERROR(ReadHeader(j, path, p, ctx));
  UCMOH_RETURN_IF_ERROR(ReadBuffers(j, path, p.ast, ctx));
  if (!j.contains("body")) return path.Error("body", "missing");
  {
    Path::Scope body(path, ".body");
    auto roots = ReadNodes(j["body"], path, ctx);
    if (!roots.ok()) return roots.status();
    p.ast.roots = std::move(*roots);
  }
  if (ctx.computes == 0) return path.Error("body", "has no compute stage (it names the intrinsic)");
  UCMOH_RETURN_IF_ERROR(ResolveWithPlugin(j, path, plugins, ctx, p));
  return p;
}

Expected<std::vector<AstProgram>> ParseAstPrograms(const std::string& text, const PluginSet& plugins) {
  std::vector<AstProgram> out;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    json all = json::parse(text, nullptr, false);
    if (all.is_discarded()) return Status::InvalidArgument("$: not valid JSON");
    out.reserve(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      auto p = AstProgramFromJson(all[i], plugins, "$" + Index(i));
      if (!p.ok()) return p.status();
      out.push_back(std::move(*p));
    }
    return out;
  }
  std::istringstream lines(text);
  std::string line;
  for (int64_t number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return Status::InvalidArgument("line " + std::to_string(number) + ": not valid JSON");
    auto p = AstProgramFromJson(j, plugins);
    if (!p.ok()) return p.status().WithContext("line " + std::to_string(number));
    out.push_back(std::move(*p));
  }
  return out;
}

Expected<TokenMatrix> FeaturizeAstProgram(const PluginSet& plugins, const AstProgram& program) {
  const IntrinsicInfo* info = plugins.Intrinsic(program.intrinsic);
  if (!info) return Status::NotFound("unknown intrinsic '" + program.intrinsic + "'");
  return Featurize(program.ast, program.hardware, *info);
}

Expected<ProgramSet> AstProgramSet(const PluginSet& plugins, const std::vector<AstProgram>& programs) {
  std::vector<TaskedProgram> tasked;
  tasked.reserve(programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    const AstProgram& p = programs[i];
    auto tokens = FeaturizeAstProgram(plugins, p);
    if (!tokens.ok()) return tokens.status().WithContext("program " + std::to_string(i));
    const LoadedPlugin* plugin = plugins.ForIntrinsic(p.intrinsic);
    tasked.push_back({p.task, p.intrinsic, plugin ? plugin->target.name : "", std::move(*tokens), p.latency_s, ""});
  }
  return GroupIntoTasks(std::move(tasked));
}

}  // namespace ucmoh
