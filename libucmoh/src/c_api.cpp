// The C boundary (ucmoh/ucmoh.h): every entry point catches everything,
// turns a Status into a ucmoh_code plus this thread's message, and passes
// only C types. The work is ScoringModel's.
#include "ucmoh/ucmoh.h"

#include <boost/dll/runtime_symbol_info.hpp>
#include <exception>
#include <memory>
#include <string>

#include "scoring_model.h"
#include "ucmoh/features.h"
#include "ucmoh/flat_features.h"
#include "ucmoh/plugin_loader.h"

struct ucmoh_model {
  std::unique_ptr<ucmoh::sdk::ScoringModel> model;
};

namespace {

thread_local std::string last_error;
thread_local std::string last_info;  // what ucmoh_info last returned on this thread

ucmoh_code Fail(const ucmoh::Status& status) {
  using Code = ucmoh::Status::Code;
  last_error = status.message();
  switch (status.code()) {
    case Code::kOk: return UCMOH_OK;
    case Code::kInvalidArgument: return UCMOH_INVALID_ARGUMENT;
    case Code::kNotFound: return UCMOH_NOT_FOUND;
    case Code::kIOError: return UCMOH_IO_ERROR;
    case Code::kCorruption: return UCMOH_CORRUPTION;
    case Code::kBusy: return UCMOH_BUSY;
    case Code::kUnsupported: return UCMOH_UNSUPPORTED;
    case Code::kAbiMismatch: return UCMOH_ABI_MISMATCH;
    case Code::kAlreadyExists: return UCMOH_ALREADY_EXISTS;
    case Code::kInternal: return UCMOH_INTERNAL;
  }
  return UCMOH_INTERNAL;
}

ucmoh_code Ok() {
  last_error.clear();
  return UCMOH_OK;
}

// Runs `body` (returning a ucmoh_code); an exception becomes UCMOH_INTERNAL.
template <typename Body>
ucmoh_code Guard(Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(ucmoh::Status::Internal(std::string("unexpected error: ") + e.what()));
  } catch (...) {
    return Fail(ucmoh::Status::Internal("unexpected error"));
  }
}

// The plugin manifest: the caller's, $UCMOH_PLUGINS, ./plugins.json, the one
// installed beside this library (PREFIX/lib/libucmoh.so ->
// PREFIX/share/ucmoh/plugins.json), else the registry tool's default.
std::string PluginManifest(const char* given) {
  if (given && *given) return given;
  if (const char* env = std::getenv("UCMOH_PLUGINS"); env && *env) return env;
  boost::system::error_code ec;
  if (boost::filesystem::is_regular_file("plugins.json", ec)) return "plugins.json";
  const auto installed = (boost::dll::this_line_location(ec).parent_path() / UCMOH_LIB_TO_PLUGIN_MANIFEST).lexically_normal();
  if (!ec && boost::filesystem::is_regular_file(installed, ec)) return installed.string();
  return ucmoh::DefaultPluginManifestPath();
}

ucmoh::sdk::ProgramFormat Format(ucmoh_format f) {
  return f == UCMOH_FORMAT_RECORDS ? ucmoh::sdk::ProgramFormat::kRecords : ucmoh::sdk::ProgramFormat::kAst;
}

ucmoh_code Opened(ucmoh::Expected<std::unique_ptr<ucmoh::sdk::ScoringModel>> opened, ucmoh_model** out) {
  if (!opened.ok()) return Fail(opened.status());
  *out = new ucmoh_model{std::move(*opened)};
  return Ok();
}

ucmoh_code CheckHandle(const ucmoh_model* model, const char* programs, bool bad_format) {
  if (!model) return Fail(ucmoh::Status::InvalidArgument("model handle is NULL"));
  if (!programs) return Fail(ucmoh::Status::InvalidArgument("programs is NULL"));
  if (bad_format) return Fail(ucmoh::Status::InvalidArgument("format must be UCMOH_FORMAT_AST or UCMOH_FORMAT_RECORDS"));
  return UCMOH_OK;
}

}  // namespace

extern "C" {

int ucmoh_api_version(void) { return UCMOH_API_VERSION; }

int ucmoh_feature_schema_version(void) { return ucmoh::kFeatureSchemaVersion; }

const char* ucmoh_last_error(void) { return last_error.c_str(); }

ucmoh_code ucmoh_open_registry(const char* registry_path, const char* ref, const char* plugins_json, ucmoh_model** out) {
  return Guard([&] {
    if (!registry_path || !out) return Fail(ucmoh::Status::InvalidArgument("registry_path and out must not be NULL"));
    *out = nullptr;
    return Opened(ucmoh::sdk::ScoringModel::OpenRegistry(registry_path, ref && *ref ? ref : "latest",
                                                        PluginManifest(plugins_json)), out);
  });
}

ucmoh_code ucmoh_open_pulled(const char* directory, const char* plugins_json, ucmoh_model** out) {
  return Guard([&] {
    if (!directory || !out) return Fail(ucmoh::Status::InvalidArgument("directory and out must not be NULL"));
    *out = nullptr;
    return Opened(ucmoh::sdk::ScoringModel::OpenPulled(directory, PluginManifest(plugins_json)), out);
  });
}

void ucmoh_close(ucmoh_model* model) { delete model; }

ucmoh_code ucmoh_score(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size, float* scores,
                       size_t capacity, size_t* count) {
  return Guard([&] {
    const bool bad_format = format != UCMOH_FORMAT_AST && format != UCMOH_FORMAT_RECORDS;
    if (ucmoh_code c = CheckHandle(model, programs, bad_format); c != UCMOH_OK) return c;
    if (!count) return Fail(ucmoh::Status::InvalidArgument("count must not be NULL"));
    auto result = model->model->Score(Format(format), std::string_view(programs, size));
    if (!result.ok()) return Fail(result.status());
    *count = result->size();
    if (result->size() > capacity || (!scores && !result->empty()))
      return Fail(ucmoh::Status::InvalidArgument("scores has room for " + std::to_string(capacity) + " of " +
                                                 std::to_string(result->size()) + " programs"));
    std::copy(result->begin(), result->end(), scores);
    return Ok();
  });
}

ucmoh_code ucmoh_update(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size,
                        const double* latencies_s, size_t latency_count, int epochs) {
  return Guard([&] {
    const bool bad_format = format != UCMOH_FORMAT_AST && format != UCMOH_FORMAT_RECORDS;
    if (ucmoh_code c = CheckHandle(model, programs, bad_format); c != UCMOH_OK) return c;
    std::vector<double> latencies;
    if (latencies_s) latencies.assign(latencies_s, latencies_s + latency_count);
    ucmoh::Status s = model->model->Update(Format(format), std::string_view(programs, size), latencies, epochs);
    return s.ok() ? Ok() : Fail(s);
  });
}

ucmoh_code ucmoh_flat_features(ucmoh_model* model, ucmoh_format format, const char* programs, size_t size,
                               int max_tokens, float* features, size_t capacity, size_t* count, size_t* width) {
  return Guard([&] {
    const bool bad_format = format != UCMOH_FORMAT_AST && format != UCMOH_FORMAT_RECORDS;
    if (ucmoh_code c = CheckHandle(model, programs, bad_format); c != UCMOH_OK) return c;
    if (!count || !width) return Fail(ucmoh::Status::InvalidArgument("count and width must not be NULL"));
    auto rows = model->model->FlatFeatures(Format(format), std::string_view(programs, size), max_tokens);
    if (!rows.ok()) return Fail(rows.status());
    *width = static_cast<size_t>(ucmoh::FlatFeatureWidth(max_tokens));
    *count = rows->size() / *width;
    if (rows->size() > capacity || (!features && !rows->empty()))
      return Fail(ucmoh::Status::InvalidArgument("features has room for " + std::to_string(capacity) + " of " +
                                                 std::to_string(rows->size()) + " values"));
    std::copy(rows->begin(), rows->end(), features);
    return Ok();
  });
}

ucmoh_code ucmoh_commit(ucmoh_model* model, int64_t* version) {
  return Guard([&] {
    if (!model || !version) return Fail(ucmoh::Status::InvalidArgument("model and version must not be NULL"));
    auto committed = model->model->Commit();
    if (!committed.ok()) return Fail(committed.status());
    *version = *committed;
    return Ok();
  });
}

ucmoh_code ucmoh_set_precision(ucmoh_model* model, const char* precision) {
  return Guard([&] {
    if (!model || !precision) return Fail(ucmoh::Status::InvalidArgument("model and precision must not be NULL"));
    const ucmoh::Status set = model->model->SetPrecision(precision);
    return set.ok() ? Ok() : Fail(set);
  });
}

ucmoh_code ucmoh_info(ucmoh_model* model, const char** json) {
  return Guard([&] {
    if (!model || !json) return Fail(ucmoh::Status::InvalidArgument("model and json must not be NULL"));
    last_info = model->model->Info();
    *json = last_info.c_str();
    return Ok();
  });
}

}  // extern "C"
