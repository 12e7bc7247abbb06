/* The UCMoH plugin ABI, in C: what crosses between the registry (the host)
 * and a target plugin (a shared library a vendor builds with any compiler and
 * any C++ standard library). Modelled on OpenXLA's PJRT C API:
 *
 *   - one exported symbol, ucmoh_plugin_c_api, returns a table of function
 *     pointers (UcmohPluginApi);
 *   - a major version for breaking changes and a minor version for
 *     additions: the host loads any plugin of its major, whatever its minor,
 *     and uses only what that minor provides;
 *   - every argument struct begins with struct_size, so either side can tell
 *     how much of a struct the other knows (fields are only ever appended);
 *   - errors are objects with a code and a message, made and freed by the
 *     plugin;
 *   - plain C types only. Programs (the hot path: Lower, StageTemplate) are C
 *     structs; descriptions, tasks, schedules and records (cold paths) are the
 *     project's documented JSON lines (docs/records.md), versioned with it.
 *
 * Memory: what the host passes is borrowed for the call. What the plugin
 * returns (errors, results) is owned by the plugin until the host gives it
 * back through the matching *_destroy function.
 *
 * Vendors write C++ against ucmoh/plugin.h and export it with
 * UCMOH_DEFINE_PLUGIN (ucmoh/plugin_c_adapter.h adapts it to this table);
 * docs/plugin-abi.md describes the rules. Never edit a released struct:
 * append fields, append table entries, and bump UCMOH_PLUGIN_C_MINOR. */
#ifndef UCMOH_PLUGIN_C_H_
#define UCMOH_PLUGIN_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Majors 1-4 were the C++ interface of ucmoh/plugin.h; 5 is the first C one. */
#define UCMOH_PLUGIN_C_MAJOR 5
/* 0: describe, lower, tasks, sample_schedules, import, can_measure, measure.
 * 1: stage_template (programs given as ASTs); UcmohHardware::id and
 *    UcmohTask::id. */
#define UCMOH_PLUGIN_C_MINOR 1

/* The exported entry point: const UcmohPluginApi* ucmoh_plugin_c_api(void). */
#define UCMOH_PLUGIN_C_ENTRY "ucmoh_plugin_c_api"

/* The size of a struct up to and including `member`: the host uses a field
 * or a table entry only when the other side's struct_size covers it. */
#define UCMOH_STRUCT_SIZE(type, member) (offsetof(type, member) + sizeof(((type*)0)->member))

/* ---- plain values ---------------------------------------------------- */

/* Bytes, not NUL-terminated; UTF-8 where they are text. */
typedef struct UcmohStr {
  const char* data;
  size_t size;
} UcmohStr;

typedef enum UcmohErrorCode {
  UCMOH_ERROR_INVALID_ARGUMENT = 1,
  UCMOH_ERROR_NOT_FOUND = 2,
  UCMOH_ERROR_IO = 3,
  UCMOH_ERROR_CORRUPTION = 4,
  UCMOH_ERROR_UNSUPPORTED = 5,
  UCMOH_ERROR_INTERNAL = 6
} UcmohErrorCode;

typedef enum UcmohParamType { UCMOH_PARAM_INT = 0, UCMOH_PARAM_REAL = 1, UCMOH_PARAM_STRING = 2 } UcmohParamType;

/* One named parameter of a workload or a schedule. */
typedef struct UcmohParam {
  UcmohStr key;
  int32_t type; /* UcmohParamType */
  int64_t int_value;
  double real_value;
  UcmohStr string_value;
} UcmohParam;

typedef struct UcmohParams {
  const UcmohParam* items; /* sorted by key */
  size_t count;
} UcmohParams;

/* What a program runs on (ucmoh/target.h, HardwareParams). */
typedef struct UcmohHardware {
  size_t struct_size;
  UcmohStr model;
  int32_t is_gpu;
  double cores, vector_bytes, vector_registers, cache_line_bytes;
  double l1_bytes, l2_bytes, l3_bytes;
  double warp_size, max_threads_per_block, shared_bytes_per_block, registers_per_sm;
  double clock_ghz;
  const UcmohStr* flags;
  size_t num_flags;
  /* 5.1: nonzero when the host gives this id only to hardware equal to this
   * in every field, for the life of the process; a plugin that kept what it
   * built from the last id it saw can reuse it without comparing. 0: no id. */
  uint64_t id;
} UcmohHardware;

typedef struct UcmohTask {
  size_t struct_size;
  UcmohStr key, op;
  UcmohParams workload;
  uint64_t id; /* 5.1: as UcmohHardware::id, for tasks */
} UcmohTask;

/* ---- programs (ucmoh/program_ast.h) ----------------------------------- */

/* The numbering is the ABI's; append only. */
typedef enum UcmohLoopKind {
  UCMOH_LOOP_SERIAL = 0, UCMOH_LOOP_PARALLEL, UCMOH_LOOP_VECTORIZED, UCMOH_LOOP_UNROLLED,
  UCMOH_LOOP_GPU_GRID, UCMOH_LOOP_GPU_BLOCK, UCMOH_LOOP_GPU_WARP, UCMOH_LOOP_GPU_THREAD,
  UCMOH_LOOP_PIPELINED
} UcmohLoopKind;
typedef enum UcmohStageKind { UCMOH_STAGE_LOAD = 0, UCMOH_STAGE_COMPUTE, UCMOH_STAGE_STORE } UcmohStageKind;
typedef enum UcmohMemScope {
  UCMOH_SCOPE_GLOBAL = 0, UCMOH_SCOPE_SHARED, UCMOH_SCOPE_CACHE, UCMOH_SCOPE_REGISTER
} UcmohMemScope;

#define UCMOH_TEMPLATE_DIMS 8

typedef struct UcmohStage {
  int32_t kind; /* UcmohStageKind */
  UcmohStr name, buffer;
  int32_t src, dst; /* UcmohMemScope */
  double bytes, unique_bytes, element_stride, vector_bytes, reuse;
  double intrinsic_calls, flops_per_call;
  float template_values[UCMOH_TEMPLATE_DIMS];
} UcmohStage;

/* A loop or a stage. Nodes are listed in pre-order: a loop's num_children
 * direct children follow it, each with its own subtree. */
typedef struct UcmohAstNode {
  int32_t is_loop;
  int32_t num_children;
  UcmohStr loop_var;
  int64_t loop_extent;
  int32_t loop_kind; /* UcmohLoopKind */
  UcmohStage stage;  /* when !is_loop */
} UcmohAstNode;

typedef struct UcmohAstBuffer {
  UcmohStr name, dtype;
  const int64_t* shape;
  size_t rank;
  int32_t scope; /* UcmohMemScope */
} UcmohAstBuffer;

/* A named program-level input of the template values ("k_unroll": 4). */
typedef struct UcmohTemplateInput {
  UcmohStr name;
  double value;
} UcmohTemplateInput;

typedef struct UcmohAst {
  size_t struct_size;
  size_t node_size; /* sizeof(UcmohAstNode) as the writer knew it */
  const UcmohAstNode* nodes;
  size_t num_nodes;
  size_t num_roots; /* the first root is nodes[0]; each root's subtree follows */
  const UcmohAstBuffer* buffers;
  size_t num_buffers;
  const UcmohTemplateInput* template_inputs;
  size_t num_template_inputs;
} UcmohAst;

/* ---- opaque objects --------------------------------------------------- */

typedef struct UcmohError UcmohError;   /* a code and a message */
typedef struct UcmohPlugin UcmohPlugin; /* one plugin instance */
typedef struct UcmohResult UcmohResult; /* text or an AST the plugin returned */

/* Every function returns NULL on success, or an error the host reads with
 * error_code / error_message and gives back with error_destroy. */

typedef struct UcmohErrorArgs {
  size_t struct_size;
  UcmohError* error;
  int32_t code;     /* out (error_code): UcmohErrorCode */
  UcmohStr message; /* out (error_message): valid until error_destroy */
} UcmohErrorArgs;

typedef struct UcmohPluginCreateArgs {
  size_t struct_size;
  UcmohPlugin* plugin; /* out */
} UcmohPluginCreateArgs;

typedef struct UcmohPluginDestroyArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
} UcmohPluginDestroyArgs;

typedef struct UcmohResultDestroyArgs {
  size_t struct_size;
  UcmohResult* result;
} UcmohResultDestroyArgs;

/* The plugin's description, one JSON object (docs/plugin-abi.md):
 * {"target": {"name", "description", "hardware"}, "intrinsics": [...],
 *  "template_dim_names": [...], "template_input_names": [...],
 *  "task_suites": [...], "importers": [...]}. */
typedef struct UcmohDescribeArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  UcmohResult* result; /* out */
  UcmohStr json;       /* out, valid until result_destroy */
} UcmohDescribeArgs;

typedef struct UcmohLowerArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  const UcmohTask* task;
  UcmohStr intrinsic;
  UcmohParams schedule;
  const UcmohHardware* hardware;
  UcmohResult* result; /* out */
  const UcmohAst* ast; /* out, valid until result_destroy */
} UcmohLowerArgs;

/* A task suite's tasks for one intrinsic, as program lines (docs/records.md)
 * with empty schedules, one per line. */
typedef struct UcmohTasksArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  UcmohStr suite, intrinsic;
  UcmohResult* result; /* out */
  UcmohStr lines;      /* out */
} UcmohTasksArgs;

/* `count` distinct valid schedules of a task, reproducibly from `seed`, as
 * program lines. */
typedef struct UcmohSampleSchedulesArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  const UcmohTask* task;
  UcmohStr intrinsic;
  int64_t count;
  uint64_t seed;
  UcmohResult* result; /* out */
  UcmohStr lines;      /* out */
} UcmohSampleSchedulesArgs;

/* A foreign file through one of the plugin's importers: record lines, and
 * what was skipped as a JSON object of counts by reason. */
typedef struct UcmohImportArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  UcmohStr format, path;
  UcmohResult* result;  /* out */
  UcmohStr lines;       /* out: records */
  UcmohStr skipped;     /* out: {"reason": count, ...} */
} UcmohImportArgs;

typedef struct UcmohMeasureOptions {
  size_t struct_size;
  int32_t threads;
  double min_repeat_seconds;
  int32_t min_repeats;
  double max_cv;
} UcmohMeasureOptions;

/* can_measure: NULL when this host can measure `intrinsic`. measure: one
 * record line, carrying this host's hardware. */
typedef struct UcmohMeasureArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  const UcmohTask* task; /* NULL for can_measure */
  UcmohStr intrinsic;
  UcmohParams schedule;
  const UcmohMeasureOptions* options;
  UcmohResult* result; /* out (measure) */
  UcmohStr line;       /* out (measure) */
} UcmohMeasureArgs;

/* Minor 1: one stage's template values from named program-level inputs, for
 * programs given as ASTs (ucmoh/plugin.h, StageTemplate). */
typedef struct UcmohStageTemplateArgs {
  size_t struct_size;
  UcmohPlugin* plugin;
  UcmohStr intrinsic;
  const UcmohTemplateInput* inputs;
  size_t num_inputs;
  const UcmohStage* stage;
  const UcmohHardware* hardware;
  float values[UCMOH_TEMPLATE_DIMS]; /* out */
} UcmohStageTemplateArgs;

/* ---- the table -------------------------------------------------------- */

typedef struct UcmohPluginApi {
  size_t struct_size; /* how much of this table the plugin fills */
  int32_t major, minor;

  /* minor 0 */
  void (*error_destroy)(UcmohErrorArgs* args);
  void (*error_code)(UcmohErrorArgs* args);
  void (*error_message)(UcmohErrorArgs* args);
  void (*result_destroy)(UcmohResultDestroyArgs* args);
  UcmohError* (*plugin_create)(UcmohPluginCreateArgs* args);
  void (*plugin_destroy)(UcmohPluginDestroyArgs* args);
  UcmohError* (*describe)(UcmohDescribeArgs* args);
  UcmohError* (*lower)(UcmohLowerArgs* args);
  UcmohError* (*tasks)(UcmohTasksArgs* args);
  UcmohError* (*sample_schedules)(UcmohSampleSchedulesArgs* args);
  UcmohError* (*import_file)(UcmohImportArgs* args);  /* may be NULL: no importers */
  UcmohError* (*can_measure)(UcmohMeasureArgs* args); /* may be NULL: cannot measure */
  UcmohError* (*measure)(UcmohMeasureArgs* args);     /* may be NULL: cannot measure */

  /* minor 1 */
  UcmohError* (*stage_template)(UcmohStageTemplateArgs* args); /* may be NULL */
} UcmohPluginApi;

typedef const UcmohPluginApi* (*UcmohPluginEntry)(void);

#ifdef __cplusplus
}
#endif

#endif /* UCMOH_PLUGIN_C_H_ */
