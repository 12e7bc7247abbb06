#include "ucmoh/x86/autotvm_importer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string_view>
#include <utility>

#include "ucmoh/x86/autotvm_hardware.h"
#include "ucmoh/x86/autotvm_log.h"
#include "ucmoh/x86/autotvm_templates.h"
#include "ucmoh/cpu_gemm/latency_timer.h"
#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

namespace {

// Plugins link only the plugin API, not core's file helpers.
Expected<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IOError("cannot read " + path);
  return text;
}

// The fp32 FMA intrinsic the CPU's widest vectors give: what TVM's llvm
// backend vectorizes these templates to.
Expected<IntrinsicInfo> FmaIntrinsicOf(const HardwareParams& hardware) {
  auto has = [&](const char* flag) { return std::count(hardware.flags.begin(), hardware.flags.end(), flag) > 0; };
  const char* name = has("avx512f") ? "x86.avx512" : has("avx2") && has("fma") ? "x86.avx2" : nullptr;
  for (const cpu_gemm::CpuGemmIntrinsic& intrinsic : X86Intrinsics())
    if (name && intrinsic.info.name == name) return intrinsic.info;
  return Status::Unsupported("the CPU '" + hardware.model + "' has neither AVX-512 nor AVX2 + FMA");
}

// Machine and intrinsic of one target string, looked up once per log.
struct TargetContext {
  std::string target;
  AutoTvmMachine machine;
  IntrinsicInfo intrinsic;
};

Expected<TargetContext> ContextOf(const std::string& target) {
  auto machine = AutoTvmMachineOf(target);
  if (!machine.ok()) return machine.status();
  auto intrinsic = FmaIntrinsicOf(machine->hardware);
  if (!intrinsic.ok()) return intrinsic.status();
  return TargetContext{target, std::move(*machine), std::move(*intrinsic)};
}

// Where a line came from: the log's file name and the line's number.
struct LinePlace {
  const std::string& source;
  int64_t line = 0;
};

Expected<Record> RecordOf(const AutoTvmEntry& entry, const TargetContext& context, const LinePlace& place) {
  auto program = AutoTvmTaskScheduleOf(entry, context.intrinsic, context.machine.threads);
  if (!program.ok()) return program.status();
  Record record;
  record.target = "x86";
  record.intrinsic = context.intrinsic.name;
  record.task = std::move(program->task);
  record.schedule = std::move(program->schedule);
  record.hardware = context.machine.hardware;
  record.provenance.kind = "imported";
  record.provenance.source = place.source;
  record.provenance.details = {{"format", std::string(kAutoTvmFormat)},
                               {"line", place.line},
                               {"tvm_target", entry.target},
                               {"tvm_version", entry.tvm_version},
                               {"config_index", entry.config_index},
                               {"timestamp", entry.timestamp},
                               {"threads_assumed", context.machine.threads},
                               {"instance_assumed", context.machine.instance}};
  return record;
}

// One line: a record, or a counted failure.
Status ImportLine(std::string_view line, const LinePlace& place, TargetContext* context, AutoTvmImport* out) {
  auto entry = ParseAutoTvmLine(line);
  if (!entry.ok()) return entry.status();
  if (context->target != entry->target) {
    auto made = ContextOf(entry->target);
    if (!made.ok()) return made.status();
    *context = std::move(*made);
  }
  auto record = RecordOf(*entry, *context, place);
  if (!record.ok()) return record.status();
  if (entry->error_no != 0) return ++out->failures[AutoTvmErrorName(entry->error_no)], Status::Ok();
  if (entry->costs_s.empty()) return Status::InvalidArgument("error_no is 0 but result[0] holds no cost");
  for (double cost : entry->costs_s)
    if (!std::isfinite(cost) || cost <= 0) return Status::InvalidArgument("error_no is 0 but a cost is not positive");
  record->latency = cpu_gemm::SummarizeSamples(entry->costs_s);
  out->records.push_back(std::move(*record));
  return Status::Ok();
}

}  // namespace

Expected<AutoTvmImport> ImportAutoTvmLog(const std::string& path) {
  auto text = ReadText(path);
  if (!text.ok()) return text.status();
  const std::string source = path.substr(path.find_last_of('/') + 1);
  AutoTvmImport out;
  TargetContext context;
  std::string_view rest(*text);
  for (int64_t line_no = 1; !rest.empty(); ++line_no) {
    const size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Status status = ImportLine(line, LinePlace{source, line_no}, &context, &out);
    if (!status.ok()) return status.WithContext(path + ":" + std::to_string(line_no));
  }
  return out;
}

}  // namespace ucmoh::x86
