// The AST JSON form (ast_program.h, docs/ast-json.md): writer, validating
// reader, and featurization through the intrinsic's plugin.
#include "ucmoh/ast_program.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <simdjson.h>

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
  json j = {{"kind", StageKindName(s.kind)}, {"name", s.name}, {"buffer", s.buffer},
            {"src", MemScopeName(s.src)},     {"dst", MemScopeName(s.dst)},
            {"bytes", s.bytes},               {"unique_bytes", s.unique_bytes},
            {"element_stride", s.element_stride}, {"vector_bytes", s.vector_bytes},
            {"reuse", s.reuse}};
  if (!s.loop_stride_bytes.empty()) j["loop_stride_bytes"] = s.loop_stride_bytes;
  return j;
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
// simdjson's DOM: compilers send thousands of programs per call, and scoring
// through the C API must keep up with the in-process path (docs/benchmarks.md).

using simdjson::dom::element;
using simdjson::dom::element_type;

// The JSON path of the value being read; extended on the way down and cut
// back on the way up, so reading a valid program builds no strings.
class Path {
 public:
  explicit Path(std::string root) : text_(std::move(root)) {}
  Status Error(std::string_view key, const std::string& what) const {
    return Status::InvalidArgument(text_ + (key.empty() ? "" : "." + std::string(key)) + ": " + what);
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

// Callers check the type first (is_object, is_array, IsNumber, ...).
simdjson::dom::object AsObject(const element& e) {
  simdjson::dom::object o;
  if (e.get(o) != simdjson::SUCCESS) return {};
  return o;
}
simdjson::dom::array AsArray(const element& e) {
  simdjson::dom::array a;
  if (e.get(a) != simdjson::SUCCESS) return {};
  return a;
}
double AsDouble(const element& e) {
  double d = 0;
  if (e.get(d) != simdjson::SUCCESS) return std::nan("");
  return d;
}
int64_t AsInt(const element& e) {
  int64_t i = 0;
  if (e.get(i) != simdjson::SUCCESS) return {};
  return i;
}

bool IsNumber(const element& e) {
  const element_type t = e.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

Status CheckKeys(const element& j, const Path& path, std::initializer_list<std::string_view> allowed) {
  if (!j.is_object()) return path.Error("", "must be an object");
  for (const auto& field : AsObject(j)) {
    bool known = false;
    for (std::string_view a : allowed) known = known || field.key == a;
    if (!known) return path.Error(field.key, "unknown field");
  }
  return Status::Ok();
}

// j[key], or nothing when absent.
std::optional<element> Field(const element& j, std::string_view key) {
  element e;
  if (j.at_key(key).get(e)) return std::nullopt;
  return e;
}

Expected<std::string_view> String(const element& j, const Path& path, std::string_view key, bool required,
                                  bool non_empty) {
  auto e = Field(j, key);
  if (!e) {
    if (required) return path.Error(key, "missing");
    return std::string_view();
  }
  if (!e->is_string()) return path.Error(key, "must be a string");
  std::string_view text;
  if (e->get(text) != simdjson::SUCCESS) return path.Error(key, "must be a string");
  if (non_empty && text.empty()) return path.Error(key, "must not be empty");
  return text;
}

// A finite number >= min; `fallback` when absent and not required.
Expected<double> Number(const element& j, const Path& path, std::string_view key, double min,
                        std::optional<double> fallback) {
  auto e = Field(j, key);
  if (!e) {
    if (!fallback) return path.Error(key, "missing");
    return *fallback;
  }
  const double v = IsNumber(*e) ? AsDouble(*e) : std::nan("");
  if (!std::isfinite(v) || v < min) {
    std::ostringstream what;
    what << "must be a finite number >= " << min;
    return path.Error(key, what.str());
  }
  return v;
}

// An integer >= 1 (loop extents, buffer shapes).
Expected<int64_t> Extent(const element& e, const Path& path, std::string_view key) {
  if (!e.is_int64() || AsInt(e) < 1) return path.Error(key, "must be an integer >= 1");
  return AsInt(e);
}

template <typename Enum>
Expected<Enum> Named(const element& j, const Path& path, std::string_view key,
                     Expected<Enum> (*parse)(const std::string&)) {
  auto text = String(j, path, key, true, true);
  if (!text.ok()) return text.status();
  auto value = parse(std::string(*text));
  if (!value.ok()) return path.Error(key, value.status().message());
  return value;
}

// What the reader checks across the tree: declared buffers and the intrinsic.
struct ReadContext {
  std::vector<std::string> buffers;
  std::string intrinsic;       // of the first compute stage (or the program's "intrinsic")
  std::string intrinsic_path;  // where it was named
  int computes = 0;
  int depth = 0;               // loops enclosing the node being read
  bool Declared(std::string_view name) const {
    return std::find(buffers.begin(), buffers.end(), name) != buffers.end();
  }
};

// "loop_stride_bytes": one finite number >= 0 per enclosing loop, or absent.
Status ReadLoopStrides(const element& j, const Path& path, int depth, std::vector<double>& out) {
  auto field = Field(j, "loop_stride_bytes");
  if (!field) return Status::Ok();
  if (!field->is_array()) return path.Error("loop_stride_bytes", "must be an array of numbers");
  for (element v : AsArray(*field)) {
    const double x = IsNumber(v) ? AsDouble(v) : std::nan("");
    if (!std::isfinite(x) || x < 0)
      return path.Error("loop_stride_bytes", "[" + std::to_string(out.size()) + "] must be a finite number >= 0");
    out.push_back(x);
  }
  if (out.size() != static_cast<size_t>(depth))
    return path.Error("loop_stride_bytes", std::to_string(out.size()) + " values for " + std::to_string(depth) +
                                               " enclosing loops (one per loop, outermost first)");
  return Status::Ok();
}

Status ReadMoveStage(const element& j, Path& path, ReadContext& ctx, Stage& s) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"kind", "name", "buffer", "src", "dst", "bytes", "unique_bytes",
                                            "element_stride", "vector_bytes", "reuse", "loop_stride_bytes"}));
  auto buffer = String(j, path, "buffer", true, true);
  if (!buffer.ok()) return buffer.status();
  if (!ctx.Declared(*buffer))
    return path.Error("buffer", "unknown buffer '" + std::string(*buffer) + "' (declare it in $.buffers)");
  s.buffer = std::string(*buffer);
  auto src = Named<MemScope>(j, path, "src", ParseMemScope);
  if (!src.ok()) return src.status();
  auto dst = Named<MemScope>(j, path, "dst", ParseMemScope);
  if (!dst.ok()) return dst.status();
  s.src = *src;
  s.dst = *dst;
  auto bytes = Number(j, path, "bytes", 0, std::nullopt);
  if (!bytes.ok()) return bytes.status();
  s.bytes = *bytes;
  struct Optional { std::string_view key; double* out; double fallback; };
  for (const Optional& f : {Optional{"unique_bytes", &s.unique_bytes, *bytes}, Optional{"element_stride", &s.element_stride, 1},
                            Optional{"vector_bytes", &s.vector_bytes, 0}, Optional{"reuse", &s.reuse, 1}}) {
    auto v = Number(j, path, f.key, 0, f.fallback);
    if (!v.ok()) return v.status();
    *f.out = *v;
  }
  return ReadLoopStrides(j, path, ctx.depth, s.loop_stride_bytes);
}

Status ReadComputeStage(const element& j, Path& path, ReadContext& ctx, Stage& s) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"kind", "name", "buffer", "intrinsic", "calls", "flops_per_call"}));
  auto intrinsic = String(j, path, "intrinsic", true, true);
  if (!intrinsic.ok()) return intrinsic.status();
  if (ctx.intrinsic.empty()) {
    ctx.intrinsic = std::string(*intrinsic);
    ctx.intrinsic_path = path.text() + ".intrinsic";
  } else if (*intrinsic != ctx.intrinsic) {
    return path.Error("intrinsic", "'" + std::string(*intrinsic) + "' differs from '" + ctx.intrinsic + "' (" +
                                       ctx.intrinsic_path + "): a program calls one intrinsic");
  }
  auto buffer = String(j, path, "buffer", false, false);
  if (!buffer.ok()) return buffer.status();
  s.buffer = std::string(*buffer);
  auto calls = Number(j, path, "calls", 0, std::nullopt);
  if (!calls.ok()) return calls.status();
  auto flops = Number(j, path, "flops_per_call", 0, std::nullopt);
  if (!flops.ok()) return flops.status();
  s.intrinsic_calls = *calls;
  s.flops_per_call = *flops;
  ++ctx.computes;
  return Status::Ok();
}

Expected<Stage> ReadStage(const element& j, Path& path, ReadContext& ctx) {
  if (!j.is_object()) return path.Error("", "must be an object");
  Stage s;
  auto kind = Named<StageKind>(j, path, "kind", ParseStageKind);
  if (!kind.ok()) return kind.status();
  s.kind = *kind;
  auto name = String(j, path, "name", false, false);
  if (!name.ok()) return name.status();
  s.name = std::string(*name);
  Status read = s.kind == StageKind::kCompute ? ReadComputeStage(j, path, ctx, s) : ReadMoveStage(j, path, ctx, s);
  if (!read.ok()) return read;
  return s;
}

Expected<std::vector<AstNode>> ReadNodes(const std::optional<element>& j, Path& path, ReadContext& ctx);

Expected<AstNode> ReadLoop(const element& loop, Path& path) {
  Path::Scope in(path, ".loop");
  UCMOH_RETURN_IF_ERROR(CheckKeys(loop, path, {"var", "extent", "kind"}));
  auto extent_field = Field(loop, "extent");
  if (!extent_field) return path.Error("extent", "missing");
  auto extent = Extent(*extent_field, path, "extent");
  if (!extent.ok()) return extent.status();
  auto var = String(loop, path, "var", false, false);
  if (!var.ok()) return var.status();
  auto kind = Named<LoopKind>(loop, path, "kind", ParseLoopKind);
  if (!kind.ok()) return kind.status();
  return AstNode::MakeLoop(std::string(*var), *extent, *kind, {});
}

Expected<AstNode> ReadNode(const element& node, Path& path, ReadContext& ctx) {
  if (!node.is_object()) return path.Error("", "must be an object with \"loop\" and \"body\", or \"stage\"");
  if (auto stage = Field(node, "stage")) {
    UCMOH_RETURN_IF_ERROR(CheckKeys(node, path, {"stage"}));
    Path::Scope in(path, ".stage");
    auto read = ReadStage(*stage, path, ctx);
    if (!read.ok()) return read.status();
    return AstNode::MakeStage(std::move(*read));
  }
  auto loop_field = Field(node, "loop");
  if (!loop_field) return path.Error("", "needs \"loop\" (with \"body\") or \"stage\"");
  UCMOH_RETURN_IF_ERROR(CheckKeys(node, path, {"loop", "body"}));
  auto loop = ReadLoop(*loop_field, path);
  if (!loop.ok()) return loop.status();
  auto body_field = Field(node, "body");
  if (!body_field) return path.Error("body", "missing");
  Path::Scope in(path, ".body");
  ++ctx.depth;
  auto body = ReadNodes(body_field, path, ctx);
  --ctx.depth;
  if (!body.ok()) return body.status();
  loop->children = std::move(*body);
  return loop;
}

Expected<std::vector<AstNode>> ReadNodes(const std::optional<element>& j, Path& path, ReadContext& ctx) {
  if (!j || !j->is_array() || AsArray(*j).size() == 0)
    return path.Error("", "must be a non-empty array of nodes");
  std::vector<AstNode> nodes;
  size_t i = 0;
  for (element child : AsArray(*j)) {
    Path::Scope in(path, Index(i++));
    auto node = ReadNode(child, path, ctx);
    if (!node.ok()) return node.status();
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

Expected<Buffer> ReadBuffer(const element& j, const Path& path) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"name", "shape", "dtype", "scope"}));
  Buffer b;
  auto name = String(j, path, "name", true, true);
  if (!name.ok()) return name.status();
  b.name = std::string(*name);
  auto shape = Field(j, "shape");
  if (!shape) return path.Error("shape", "missing");
  if (!shape->is_array() || AsArray(*shape).size() == 0)
    return path.Error("shape", "must be a non-empty array of extents");
  size_t i = 0;
  for (element e : AsArray(*shape)) {
    auto extent = Extent(e, path, "shape" + Index(i++));
    if (!extent.ok()) return extent.status();
    b.shape.push_back(*extent);
  }
  auto dtype = String(j, path, "dtype", true, true);
  if (!dtype.ok()) return dtype.status();
  b.dtype = std::string(*dtype);
  if (TypeBits(b.dtype) == 0 && b.dtype != "tf32")
    return path.Error("dtype", "unknown dtype '" + b.dtype + "' (f64, f32, tf32, f16, bf16, s32, u32, s16, s8, u8, s4, u4)");
  auto scope = Named<MemScope>(j, path, "scope", ParseMemScope);
  if (!scope.ok()) return scope.status();
  b.scope = *scope;
  return b;
}

Status ReadBuffers(const element& j, Path& path, ProgramAst& ast, ReadContext& ctx) {
  auto buffers = Field(j, "buffers");
  if (!buffers) return path.Error("buffers", "missing");
  if (!buffers->is_array()) return path.Error("buffers", "must be an array");
  Path::Scope in(path, ".buffers");
  size_t i = 0;
  for (element e : AsArray(*buffers)) {
    Path::Scope at(path, Index(i++));
    auto b = ReadBuffer(e, path);
    if (!b.ok()) return b.status();
    if (ctx.Declared(b->name)) return path.Error("name", "buffer '" + b->name + "' is declared twice");
    ctx.buffers.push_back(b->name);
    ast.buffers.push_back(std::move(*b));
  }
  return Status::Ok();
}

Status ReadTemplateInputs(const element& j, const Path& path, const std::vector<std::string>& names,
                          TemplateInputs& out) {
  auto inputs = Field(j, "template_inputs");
  if (!inputs) return path.Error("template_inputs", "missing");
  if (!inputs->is_object()) return path.Error("template_inputs", "must be an object of numbers");
  for (const auto& field : AsObject(*inputs)) {
    const std::string key = "template_inputs." + std::string(field.key);
    if (std::find(names.begin(), names.end(), field.key) == names.end())
      return path.Error(key, "not an input of this intrinsic's plugin");
    if (!IsNumber(field.value) || !std::isfinite(AsDouble(field.value)))
      return path.Error(key, "must be a finite number");
    out[std::string(field.key)] = AsDouble(field.value);
  }
  for (const auto& name : names)
    if (!out.count(name)) return path.Error("template_inputs." + name, "missing");
  return Status::Ok();
}

Status FillTemplates(std::vector<AstNode>& nodes, const TargetPlugin& plugin, const AstProgram& p, Path& path) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    AstNode& n = nodes[i];
    if (n.is_loop) {
      Path::Scope body(path, Index(i) + ".body");
      UCMOH_RETURN_IF_ERROR(FillTemplates(n.children, plugin, p, path));
      continue;
    }
    auto values = plugin.StageTemplate(p.intrinsic, p.ast.template_inputs, n.stage, p.hardware);
    if (!values.ok()) {
      Path::Scope at(path, Index(i));
      return path.Error("stage", values.status().message());
    }
    n.stage.template_values = *values;
  }
  return Status::Ok();
}

// Programs of one call mostly share their hardware and plugin: each
// distinct hardware object is read once, each plugin's input names asked once.
class ReadCache {
 public:
  const std::vector<std::string>& InputNames(const LoadedPlugin& plugin) {
    if (names_of_ != &plugin) {
      names_ = plugin.plugin->TemplateInputNames();
      names_of_ = &plugin;
    }
    return names_;
  }

  Expected<HardwareParams> Read(const element& e) {
    std::string text = simdjson::minify(e);
    if (text == last_text_ && last_) return *last_;
    auto parsed = HardwareFromJson(nlohmann::json::parse(text));
    if (!parsed.ok()) return parsed.status();
    last_text_ = std::move(text);
    last_ = *parsed;
    return parsed;
  }

 private:
  std::string last_text_;
  std::optional<HardwareParams> last_;
  const LoadedPlugin* names_of_ = nullptr;
  std::vector<std::string> names_;
};

// The plugin of the program's intrinsic, its hardware and template values.
Status ResolveWithPlugin(const element& j, Path& path, const PluginSet& plugins, const ReadContext& ctx,
                         ReadCache& cache, AstProgram& p) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(ctx.intrinsic);
  if (!plugin) {
    std::string known;
    for (const auto& i : plugins.AllIntrinsics()) known += (known.empty() ? "" : ", ") + i.name;
    return Status::NotFound(ctx.intrinsic_path + ": unknown intrinsic '" + ctx.intrinsic + "' (loaded: " + known + ")");
  }
  p.intrinsic = ctx.intrinsic;
  p.hardware = plugin->target.hardware;
  if (auto hw = Field(j, "hardware")) {
    auto parsed = cache.Read(*hw);
    if (!parsed.ok()) return path.Error("hardware", parsed.status().message());
    p.hardware = *parsed;
  }
  const std::vector<std::string>& names = cache.InputNames(*plugin);
  if (names.empty())
    return Status::Unsupported(ctx.intrinsic_path + ": " + plugin->target.name +
                               " does not take programs as ASTs (its plugin names no template inputs)");
  UCMOH_RETURN_IF_ERROR(ReadTemplateInputs(j, path, names, p.ast.template_inputs));
  Path::Scope body(path, ".body");
  return FillTemplates(p.ast.roots, *plugin->plugin, p, path);
}

Status ReadHeader(const element& j, const Path& path, AstProgram& p, ReadContext& ctx) {
  UCMOH_RETURN_IF_ERROR(CheckKeys(j, path, {"ast_format", "task", "intrinsic", "hardware", "latency_s",
                                            "template_inputs", "buffers", "body"}));
  if (auto f = Field(j, "ast_format"); f && (!f->is_int64() || AsInt(*f) != kAstFormatVersion))
    return path.Error("ast_format", "this reader knows format " + std::to_string(kAstFormatVersion));
  auto task = String(j, path, "task", false, false);
  if (!task.ok()) return task.status();
  p.task = task->empty() ? "ast" : std::string(*task);
  auto latency = Number(j, path, "latency_s", 0, 0.0);
  if (!latency.ok()) return latency.status();
  p.latency_s = *latency;
  auto intrinsic = String(j, path, "intrinsic", false, true);
  if (!intrinsic.ok()) return intrinsic.status();
  if (!intrinsic->empty()) {
    ctx.intrinsic = std::string(*intrinsic);
    ctx.intrinsic_path = path.text() + ".intrinsic";
  }
  return Status::Ok();
}

Expected<AstProgram> ReadProgram(const element& j, const PluginSet& plugins, ReadCache& cache,
                                 const std::string& root) {
  Path path(root);
  AstProgram p;
  ReadContext ctx;
  UCMOH_RETURN_IF_ERROR(ReadHeader(j, path, p, ctx));
  UCMOH_RETURN_IF_ERROR(ReadBuffers(j, path, p.ast, ctx));
  auto body = Field(j, "body");
  if (!body) return path.Error("body", "missing");
  {
    Path::Scope in(path, ".body");
    auto roots = ReadNodes(body, path, ctx);
    if (!roots.ok()) return roots.status();
    p.ast.roots = std::move(*roots);
  }
  if (ctx.computes == 0) return path.Error("body", "has no compute stage (it names the intrinsic)");
  UCMOH_RETURN_IF_ERROR(ResolveWithPlugin(j, path, plugins, ctx, cache, p));
  return p;
}

Status ParseError(const std::string& where, simdjson::error_code error) {
  return Status::InvalidArgument(where + ": not valid JSON (" + simdjson::error_message(error) + ")");
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

Expected<Record> AstProgramAsRecord(const PluginSet& plugins, const AstProgram& program, Provenance provenance) {
  if (!(program.latency_s > 0)) return Status::InvalidArgument("a record needs a measured latency_s > 0");
  const LoadedPlugin* plugin = plugins.ForIntrinsic(program.intrinsic);
  if (!plugin) return Status::NotFound("no loaded plugin supplies intrinsic '" + program.intrinsic + "'");
  Record r;
  r.target = plugin->target.name;
  r.intrinsic = program.intrinsic;
  r.task.key = program.task.empty() ? "ast" : program.task;
  r.task.op = "program";
  for (const auto& [name, value] : program.ast.template_inputs) {
    if (value == std::floor(value) && std::abs(value) < 9e15) r.schedule[name] = static_cast<int64_t>(value);
    else r.schedule[name] = value;
  }
  r.latency.median_s = r.latency.mean_s = r.latency.min_s = program.latency_s;
  r.provenance = std::move(provenance);
  r.hardware = program.hardware;
  json ast = AstProgramToJson(program);
  for (const char* own : {"task", "hardware", "latency_s"}) ast.erase(own);
  r.ast = ast.dump();
  return r;
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

Expected<AstProgram> ParseAstProgram(std::string_view text, const PluginSet& plugins, const std::string& path) {
  simdjson::dom::parser parser;
  element j;
  if (auto error = parser.parse(text.data(), text.size()).get(j)) return ParseError(path, error);
  ReadCache cache;
  return ReadProgram(j, plugins, cache, path);
}

Expected<std::vector<AstProgram>> ParseAstPrograms(std::string_view text, const PluginSet& plugins) {
  std::vector<AstProgram> out;
  simdjson::dom::parser parser;
  ReadCache cache;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '[') {
    element all;
    if (auto error = parser.parse(text.data(), text.size()).get(all)) return ParseError("$", error);
    size_t i = 0;
    for (element program : AsArray(all)) {
      auto p = ReadProgram(program, plugins, cache, "$" + Index(i++));
      if (!p.ok()) return p.status();
      out.push_back(std::move(*p));
    }
    return out;
  }
  int64_t number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const std::string where = "line " + std::to_string(++number);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    element j;
    if (auto error = parser.parse(line.data(), line.size()).get(j)) return ParseError(where, error);
    auto p = ReadProgram(j, plugins, cache, "$");
    if (!p.ok()) return p.status().WithContext(where);
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
    tasked.push_back({p.task, p.intrinsic, plugin ? plugin->target.name : "", std::move(*tokens), p.latency_s, "",
                      HardwareKey(p.hardware)});
  }
  return GroupIntoTasks(std::move(tasked));
}

}  // namespace ucmoh
