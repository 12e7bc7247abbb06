// A plugin whose `lower` hands the host a C AST built by hand, wrong in the
// way the schedule's "fault" names (or right, for "none" and for nodes of
// another size, as a writer of another minor would lay them out). The host
// must featurize the right ones and refuse each wrong one with one clear
// error, never reading past the nodes it was given.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "minimal_plugin.h"

namespace {

class BadAst : public broken::MinimalPlugin {
 public:
  BadAst() : MinimalPlugin("badast", {"badast.dot4"}) {}
};

std::string Fault(const UcmohParams& schedule) {
  for (size_t i = 0; i < schedule.count; ++i)
    if (ucmoh::plugin_c::FromC(schedule.items[i].key) == "fault")
      return ucmoh::plugin_c::FromC(schedule.items[i].string_value);
  return "none";
}

UcmohAstNode Loop(int32_t children) {
  UcmohAstNode n{};
  n.is_loop = 1;
  n.num_children = children;
  n.loop_var = {"i", 1};
  n.loop_extent = 4;
  n.loop_kind = UCMOH_LOOP_SERIAL;
  return n;
}

UcmohAstNode StageNode(int32_t kind) {
  UcmohAstNode n{};
  n.stage.kind = kind;
  n.stage.src = UCMOH_SCOPE_GLOBAL;
  n.stage.dst = kind == UCMOH_STAGE_COMPUTE ? UCMOH_SCOPE_REGISTER : UCMOH_SCOPE_SHARED;
  n.stage.bytes = n.stage.unique_bytes = 64;
  n.stage.element_stride = 1;
  n.stage.intrinsic_calls = kind == UCMOH_STAGE_COMPUTE ? 1 : 0;
  n.stage.flops_per_call = kind == UCMOH_STAGE_COMPUTE ? 512 : 0;
  return n;
}

// loop(4) { load; compute }, then the fault.
std::vector<UcmohAstNode> Nodes(const std::string& fault) {
  std::vector<UcmohAstNode> nodes = {Loop(2), StageNode(UCMOH_STAGE_LOAD), StageNode(UCMOH_STAGE_COMPUTE)};
  if (fault == "count_mismatch") nodes[0].num_children = 1;
  if (fault == "ends_in_loop") nodes[0].num_children = 3;
  if (fault == "negative_children") nodes[0].num_children = -1;
  if (fault == "bad_loop_kind") nodes[0].loop_kind = 99;
  if (fault == "bad_stage_kind") nodes[2].stage.kind = 7;
  if (fault == "bad_scope") nodes[1].stage.src = -1;
  if (fault == "too_deep") nodes.insert(nodes.begin(), 300, Loop(1));
  return nodes;
}

// Lays the nodes out `node_size` bytes apart in r->text: a smaller node is
// cut before its last bytes, a larger one is padded with 0xab garbage the
// host must not read.
void LayOut(const std::vector<UcmohAstNode>& nodes, size_t node_size, UcmohResult& r) {
  r.text.assign(nodes.size() * node_size, '\xab');
  for (size_t i = 0; i < nodes.size(); ++i)
    std::memcpy(&r.text[i * node_size], &nodes[i], std::min(node_size, sizeof(UcmohAstNode)));
}

UcmohError* Lower(UcmohLowerArgs* a) {
  const std::string fault = Fault(a->schedule);
  auto* r = new UcmohResult;
  r->nodes = Nodes(fault);
  size_t node_size = sizeof(UcmohAstNode);
  // An older writer's node ends before the last template value (zero here).
  if (fault == "narrow_nodes") node_size -= sizeof(float);
  if (fault == "wide_nodes") node_size += 24;
  LayOut(r->nodes, node_size, *r);
  r->ast = {sizeof(UcmohAst), node_size, reinterpret_cast<const UcmohAstNode*>(r->text.data()), r->nodes.size(),
            1, nullptr, 0, nullptr, 0};
  if (fault == "short_struct") r->ast.struct_size = sizeof(size_t);
  a->result = r;
  a->ast = fault == "no_ast" ? nullptr : &r->ast;
  return nullptr;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const UcmohPluginApi* ucmoh_plugin_c_api() {
  static UcmohPluginApi table = [] {
    UcmohPluginApi t = *ucmoh::plugin_c::Entries<BadAst>::Table();
    t.lower = &Lower;
    return t;
  }();
  return &table;
}
