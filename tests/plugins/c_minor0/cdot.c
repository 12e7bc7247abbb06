/* cdot: a target plugin written in plain C against the frozen ABI 5.0 header
 * (tests/plugins/abi_5_0/ucmoh/plugin_c.h), the way a vendor who shipped
 * before minor 1 did. The current host must load it, lower and featurize its
 * programs, and say (not crash) that it has no stage_template, which minor 0
 * did not have.
 *
 * Target "cdot": one intrinsic, cdot.dot4 (a 4-wide s8 dot product), a task
 * suite "tiny" of one gemv, schedules {"tile": 1, 2, 4, ...}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucmoh/plugin_c.h"

#if UCMOH_PLUGIN_C_MINOR != 0
#error "cdot must be built against the frozen ABI 5.0 header"
#endif

struct UcmohError {
  int32_t code;
  char* message;
};
struct UcmohPlugin {
  int unused;
};
/* Every result: a text, or an AST with the storage its views point into. */
struct UcmohResult {
  char* text;
  UcmohAstNode nodes[4];
  UcmohAstBuffer buffers[2];
  int64_t shapes[2][1];
  UcmohAst ast;
};

static UcmohStr Str(const char* s) {
  UcmohStr out = {s, strlen(s)};
  return out;
}

static UcmohError* Fail(int32_t code, const char* message) {
  UcmohError* e = (UcmohError*)malloc(sizeof(UcmohError));
  e->code = code;
  e->message = strdup(message);
  return e;
}

static UcmohResult* TextResult(char* text) {
  UcmohResult* r = (UcmohResult*)calloc(1, sizeof(UcmohResult));
  r->text = text;
  return r;
}

static void ErrorDestroy(UcmohErrorArgs* a) {
  free(a->error->message);
  free(a->error);
}
static void ErrorCode(UcmohErrorArgs* a) { a->code = a->error->code; }
static void ErrorMessage(UcmohErrorArgs* a) { a->message = Str(a->error->message); }
static void ResultDestroy(UcmohResultDestroyArgs* a) {
  free(a->result->text);
  free(a->result);
}
static UcmohError* Create(UcmohPluginCreateArgs* a) {
  a->plugin = (UcmohPlugin*)calloc(1, sizeof(UcmohPlugin));
  return NULL;
}
static void Destroy(UcmohPluginDestroyArgs* a) { free(a->plugin); }

static const char* kDescription =
    "{\"target\": {\"name\": \"cdot\", \"description\": \"a C plugin of ABI 5.0\", \"hardware\": "
    "{\"model\": \"CDot C-1\", \"is_gpu\": false, \"cores\": 1, \"vector_bytes\": 16, \"cache_line_bytes\": 64, "
    "\"l1_bytes\": 32768, \"clock_ghz\": 1.0, \"flags\": [\"dot4\"]}}, "
    "\"intrinsics\": [{\"name\": \"cdot.dot4\", \"instruction\": \"dot4\", \"shape\": {\"m\": 1, \"n\": 1, \"k\": 4}, "
    "\"input_type\": \"s8\", \"accum_type\": \"s32\", \"ops_per_call\": 8, \"description\": \"4-wide s8 dot\"}], "
    "\"template_dim_names\": [\"tile_log2\", \"u1\", \"u2\", \"u3\", \"u4\", \"u5\", \"u6\", \"u7\"], "
    "\"task_suites\": [\"tiny\"], \"importers\": []}";

static UcmohError* Describe(UcmohDescribeArgs* a) {
  a->result = TextResult(strdup(kDescription));
  a->json = Str(a->result->text);
  return NULL;
}

static int IsDot4(UcmohStr intrinsic) { return intrinsic.size == 9 && memcmp(intrinsic.data, "cdot.dot4", 9) == 0; }

static const char* kTaskLine =
    "{\"target\": \"cdot\", \"intrinsic\": \"cdot.dot4\", \"task\": {\"key\": \"tiny.gemv.m256k64\", \"op\": "
    "\"gemv\", \"workload\": {\"m\": 256, \"k\": 64}}, \"schedule\": {%s}}\n";

static UcmohError* Tasks(UcmohTasksArgs* a) {
  if (!IsDot4(a->intrinsic)) return Fail(UCMOH_ERROR_NOT_FOUND, "cdot has no such intrinsic");
  if (a->suite.size != 4 || memcmp(a->suite.data, "tiny", 4) != 0)
    return Fail(UCMOH_ERROR_NOT_FOUND, "cdot has no such task suite");
  char* text = (char*)malloc(512);
  snprintf(text, 512, kTaskLine, "");
  a->result = TextResult(text);
  a->lines = Str(text);
  return NULL;
}

static UcmohError* SampleSchedules(UcmohSampleSchedulesArgs* a) {
  if (a->count > 6) return Fail(UCMOH_ERROR_INVALID_ARGUMENT, "cdot has only 6 schedules per task");
  char* text = (char*)calloc(1, 4096);
  for (int64_t i = 0; i < a->count; ++i) {
    char schedule[32], line[512];
    snprintf(schedule, sizeof schedule, "\"tile\": %d", 1 << (int)i);
    snprintf(line, sizeof line, kTaskLine, schedule);
    strcat(text, line);
  }
  a->result = TextResult(text);
  a->lines = Str(text);
  return NULL;
}

static int64_t IntParam(const UcmohParams* params, const char* key, int64_t fallback) {
  for (size_t i = 0; i < params->count; ++i)
    if (params->items[i].key.size == strlen(key) && memcmp(params->items[i].key.data, key, strlen(key)) == 0 &&
        params->items[i].type == UCMOH_PARAM_INT)
      return params->items[i].int_value;
  return fallback;
}

static void MemoryStage(UcmohAstNode* node, int32_t kind, const char* name, const char* buffer, double bytes) {
  memset(node, 0, sizeof *node);
  node->stage.kind = kind;
  node->stage.name = Str(name);
  node->stage.buffer = Str(buffer);
  node->stage.src = kind == UCMOH_STAGE_LOAD ? UCMOH_SCOPE_GLOBAL : UCMOH_SCOPE_REGISTER;
  node->stage.dst = kind == UCMOH_STAGE_LOAD ? UCMOH_SCOPE_REGISTER : UCMOH_SCOPE_GLOBAL;
  node->stage.bytes = node->stage.unique_bytes = node->stage.vector_bytes = bytes;
  node->stage.element_stride = 1;
  node->stage.reuse = 1;
}

/* for i in m / tile: load A, tile x (k / 4) dot4 calls, store C. */
static UcmohError* Lower(UcmohLowerArgs* a) {
  if (!IsDot4(a->intrinsic)) return Fail(UCMOH_ERROR_NOT_FOUND, "cdot has no such intrinsic");
  const int64_t m = IntParam(&a->task->workload, "m", 0), k = IntParam(&a->task->workload, "k", 0);
  const int64_t tile = IntParam(&a->schedule, "tile", 0);
  if (m <= 0 || k % 4 != 0 || tile <= 0 || m % tile != 0)
    return Fail(UCMOH_ERROR_INVALID_ARGUMENT, "cdot: tile must divide m, and k must be a multiple of 4");
  UcmohResult* r = (UcmohResult*)calloc(1, sizeof(UcmohResult));
  r->nodes[0].is_loop = 1;
  r->nodes[0].num_children = 3;
  r->nodes[0].loop_var = Str("i_tile");
  r->nodes[0].loop_extent = m / tile;
  r->nodes[0].loop_kind = UCMOH_LOOP_SERIAL;
  MemoryStage(&r->nodes[1], UCMOH_STAGE_LOAD, "load_A", "A", (double)(tile * k));
  r->nodes[2].stage.kind = UCMOH_STAGE_COMPUTE;
  r->nodes[2].stage.name = Str("dot4");
  r->nodes[2].stage.intrinsic_calls = (double)(tile * k / 4);
  r->nodes[2].stage.flops_per_call = 8;
  r->nodes[2].stage.element_stride = 1;
  r->nodes[2].stage.reuse = 1;
  for (int d = 0; tile >> d > 1; ++d) r->nodes[2].stage.template_values[0] = (float)(d + 1);
  MemoryStage(&r->nodes[3], UCMOH_STAGE_STORE, "store_C", "C", (double)(tile * 4));
  r->shapes[0][0] = m * k;
  r->shapes[1][0] = m;
  r->buffers[0].name = Str("A"), r->buffers[0].dtype = Str("s8"), r->buffers[0].shape = r->shapes[0];
  r->buffers[1].name = Str("C"), r->buffers[1].dtype = Str("s32"), r->buffers[1].shape = r->shapes[1];
  r->buffers[0].rank = r->buffers[1].rank = 1;
  r->ast.struct_size = sizeof(UcmohAst);
  r->ast.node_size = sizeof(UcmohAstNode);
  r->ast.nodes = r->nodes;
  r->ast.num_nodes = 4;
  r->ast.num_roots = 1;
  r->ast.buffers = r->buffers;
  r->ast.num_buffers = 2;
  a->result = r;
  a->ast = &r->ast;
  return NULL;
}

__attribute__((visibility("default"))) const UcmohPluginApi* ucmoh_plugin_c_api(void) {
  static const UcmohPluginApi table = {
      sizeof(UcmohPluginApi), UCMOH_PLUGIN_C_MAJOR, UCMOH_PLUGIN_C_MINOR,
      ErrorDestroy, ErrorCode, ErrorMessage, ResultDestroy, Create, Destroy, Describe, Lower, Tasks,
      SampleSchedules, NULL, NULL, NULL};
  return &table;
}
