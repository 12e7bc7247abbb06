// serve: the measuring loop a driving host feeds over ssh.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "ucmoh/record_json.h"

namespace ucmoh::measure {

namespace {

// Measures one chunk and writes its records, each flushed as soon as it is
// done, so a host cut off mid-chunk has sent every finished record whole.
int MeasureChunk(const cpu_gemm::CpuGemmMeasurer& measurer, const std::vector<Record>& chunk,
                 const MeasureOptions& options) {
  for (const Record& program : chunk) {
    auto record = measurer.Measure(program.task, program.intrinsic, program.schedule, options);
    if (!record.ok()) return Fail(record.status().WithContext(program.task.key), kExitFailed);
    const std::string line = RecordToJsonLine(*record) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() || std::fflush(stdout) != 0) {
      return Fail(Status::IOError("stdout closed"), kExitFailed);
    }
  }
  return 0;
}

// A program line of stdin, checked against what this server measures.
Expected<Record> ReadProgram(const std::string& line, int64_t number, const std::string& target,
                             const std::string& intrinsic) {
  auto program = ProgramFromJsonLine(line);
  if (!program.ok()) return program.status().WithContext("stdin:" + std::to_string(number));
  if (program->target != target || program->intrinsic != intrinsic) {
    return Status::InvalidArgument("stdin:" + std::to_string(number) + ": a program of " + program->intrinsic +
                                   ", but this server measures " + intrinsic);
  }
  return program;
}

}  // namespace

int Serve(const HostTarget& target, const std::string& intrinsic, const MeasureOptions& options) {
  if (!target.emulation.empty()) return Fail(Status::Unsupported(target.emulation), kExitRefused);
  const Status can = CanRun(target, intrinsic);
  if (!can.ok()) return Fail(can, kExitRefused);
  const cpu_gemm::CpuGemmMeasurer measurer(target.plugin, target.host, *target.kernels);
  const std::string target_name = target.plugin.Target().name;
  std::vector<Record> chunk;
  std::string line;
  for (int64_t number = 1; std::getline(std::cin, line); ++number) {
    if (line.empty()) {
      if (int failed = MeasureChunk(measurer, chunk, options)) return failed;
      chunk.clear();
      continue;
    }
    auto program = ReadProgram(line, number, target_name, intrinsic);
    if (!program.ok()) return Fail(program.status(), kExitBadInput);
    chunk.push_back(std::move(*program));
  }
  return MeasureChunk(measurer, chunk, options);
}

}  // namespace ucmoh::measure
