/*
 * libucmoh: a UCMoH cost model inside a compiler's process.
 *
 * Open a model (a registry version, or a directory `registry pull` wrote),
 * score candidate programs (as ASTs, docs/ast-json.md, or as records), update
 * the model from measured latencies during a tuning run, and commit the
 * result as a new registry version. docs/compilers.md walks through it.
 *
 * The ABI: plain C, opaque handles, no C++ type crosses it. Every call
 * returns a ucmoh_code; on failure ucmoh_last_error() gives one line saying
 * what and where. UCMOH_API_VERSION is bumped on any incompatible change;
 * check ucmoh_api_version() against it at start-up.
 *
 * Threads: scoring and ucmoh_info may run on one handle from many threads at
 * once, also while an update trains (an update trains a copy; scores switch
 * to it when it is done). Updates and commits on one handle run one at a
 * time. Error messages are per thread. Different handles are independent.
 */
#ifndef UCMOH_UCMOH_H_
#define UCMOH_UCMOH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UCMOH_API_VERSION 1

#if defined(__GNUC__)
#define UCMOH_API __attribute__((visibility("default")))
#else
#define UCMOH_API
#endif

typedef enum ucmoh_code {
  UCMOH_OK = 0,
  UCMOH_INVALID_ARGUMENT = 1, /* bad input: a program, a flag, a reference */
  UCMOH_NOT_FOUND = 2,        /* a file, version, intrinsic that does not exist */
  UCMOH_IO_ERROR = 3,
  UCMOH_CORRUPTION = 4,       /* stored data fails its checksum */
  UCMOH_BUSY = 5,             /* another process holds the registry for writing */
  UCMOH_UNSUPPORTED = 6,      /* e.g. a model of an unknown feature schema */
  UCMOH_ABI_MISMATCH = 7,     /* a plugin built for another ABI */
  UCMOH_ALREADY_EXISTS = 8,
  UCMOH_INTERNAL = 9
} ucmoh_code;

/* How the programs of a call are written. */
typedef enum ucmoh_format {
  UCMOH_FORMAT_AST = 0,     /* a JSON array of AST programs, or JSON Lines of them */
  UCMOH_FORMAT_RECORDS = 1  /* JSON Lines of records (docs/records.md) */
} ucmoh_format;

typedef struct ucmoh_model ucmoh_model; /* opaque */

/* The UCMOH_API_VERSION this library was built with. */
UCMOH_API int ucmoh_api_version(void);

/* The feature schema version this library featurizes with; a model trained
 * on another is refused when opened. */
UCMOH_API int ucmoh_feature_schema_version(void);

/* The message of the last failed call on this thread ("" if none). Valid
 * until the next call on this thread. */
UCMOH_API const char* ucmoh_last_error(void);

/* Opens version `ref` ("ucmoh@stable", "ucmoh@3", "latest"; NULL: latest)
 * of the registry at `registry_path`. `plugins_json` names the plugin
 * manifest (NULL: $UCMOH_PLUGINS, ./plugins.json, or the one installed
 * beside this library). The registry is read, not locked, until a commit.
 * `registry_path` may also be a server, "http://HOST:PORT" (`registry serve`):
 * the version is pulled into the local cache ($UCMOH_CACHE_DIR, else
 * $XDG_CACHE_HOME/ucmoh, else ~/.cache/ucmoh), every file verified by sha256,
 * and opened as a pulled model (it scores; updating needs a local registry). */
UCMOH_API ucmoh_code ucmoh_open_registry(const char* registry_path, const char* ref, const char* plugins_json,
                                         ucmoh_model** out);

/* Opens a directory written by `registry pull` (manifest.json, weights.bin).
 * A pulled model scores and updates (under the forgetting state pulled with
 * it, forgetting/); committing needs its registry (ucmoh_open_registry). */
UCMOH_API ucmoh_code ucmoh_open_pulled(const char* directory, const char* plugins_json, ucmoh_model** out);

/* Frees the handle (NULL is allowed). Uncommitted updates are lost. */
UCMOH_API void ucmoh_close(ucmoh_model* model);

/* Scores `size` bytes of programs: writes one score per program, in input
 * order, larger = predicted faster, into scores[0 .. *count). Fails with
 * UCMOH_INVALID_ARGUMENT naming the first bad program and field (JSON path),
 * or when capacity < the number of programs (*count then says how many). */
UCMOH_API ucmoh_code ucmoh_score(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size,
                                 float* scores, size_t capacity, size_t* count);

/* Updates the model in place from measured programs: `latencies_s[i]` is the
 * i-th program's measured latency in seconds (NULL: each program's own
 * "latency_s" / record latency). Programs are ranked within their task
 * ("task" of an AST; programs without one form one task). Trains `epochs`
 * epochs (0: the default, 2) at the update's learning rate (0.0001, not the
 * version's training rate) under the forgetting control of the version it
 * was opened at: its method's EWC penalty and rehearsal replay. */
UCMOH_API ucmoh_code ucmoh_update(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size,
                                  const double* latencies_s, size_t latency_count, int epochs);

/* Commits the updated model as a new version of its registry (parent: the
 * version it was opened at), evaluated on every learned intrinsic's pinned
 * held-out tasks; "latest" moves to it. Writes the new version's number. */
UCMOH_API ucmoh_code ucmoh_commit(ucmoh_model* model, int64_t* version);

/* The programs' feature tokens as one fixed-length row each, the input the
 * registry's XGBoost baseline reads (docs/features.md, "Flat features"):
 * `max_tokens` tokens of the feature schema's dimensions, zero-padded or
 * truncated, then the program's token count. Writes *count = programs and
 * *width = max_tokens x dimensions + 1, and rows x width floats, row-major,
 * into features[0 .. capacity); fails with UCMOH_INVALID_ARGUMENT when
 * capacity is too small (*count and *width then say what is needed) or
 * max_tokens < 1. For a model that learns beside this one from the same
 * programs (a tuning run's tree model: ucmoh.tvm.TokenBoost). Reads no model
 * state. Added in the library of 2026-12-05 (API version 1: an addition). */
UCMOH_API ucmoh_code ucmoh_flat_features(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size,
                                         int max_tokens, float* features, size_t capacity, size_t* count,
                                         size_t* width);

/* The arithmetic later ucmoh_score calls use: "float32" (the default: the
 * same scores on every CPU) or "bf16" (the network's matmuls after the first
 * on bfloat16: about 1.4x the float32 rate on CPUs with AMX or AVX-512 BF16,
 * scores within a fraction of a percent of float32's and dependent on the
 * CPU; docs/benchmarks.md, "bf16 scoring"). An unknown name is
 * UCMOH_INVALID_ARGUMENT; on a CPU without a bf16 matmul, scoring then fails
 * with UCMOH_UNSUPPORTED. Added in the library of 2026-11-25 (API version 1). */
UCMOH_API ucmoh_code ucmoh_set_precision(ucmoh_model* model, const char* precision);

/* A JSON object describing the model: source, registry_version, intrinsics,
 * feature_schema, network, metrics, precision, updates, and last_update (null
 * before any: the method and λ it trained under, measured and replayed
 * programs, the EWC penalty after it, its final loss and seconds). Owned by the library; valid
 * until the next ucmoh_info call on this thread. */
UCMOH_API ucmoh_code ucmoh_info(ucmoh_model* model, const char** json);

#ifdef __cplusplus
}
#endif

#endif /* UCMOH_UCMOH_H_ */
