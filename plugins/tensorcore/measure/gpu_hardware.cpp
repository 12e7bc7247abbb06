#include "gpu_hardware.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "hardware.h"

namespace ucmoh::tensorcore::measure {

namespace {

int Attribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  cudaDeviceGetAttribute(&value, attribute, device);
  return value;
}

}  // namespace

Expected<HardwareParams> ReadGpuHardware(int device) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return Status::Unsupported(std::string("no CUDA device: ") + cudaGetErrorString(error));
  if (device < 0 || device >= count)
    return Status::InvalidArgument("CUDA device " + std::to_string(device) + " does not exist (this host has " +
                                   std::to_string(count) + ")");
  char name[256] = {};
  cudaDeviceProp props{};
  cudaGetDeviceProperties(&props, device);
  std::snprintf(name, sizeof(name), "%s", props.name);
  const int cc = props.major * 10 + props.minor;
  const std::string flag = "sm_" + std::to_string(cc);

  HardwareParams hw;
  hw.model = std::string(name) + " (" + flag + ")";
  hw.is_gpu = true;
  hw.cores = props.multiProcessorCount;
  hw.vector_bytes = kMaxVectorBytes;
  hw.vector_registers = 0;
  hw.cache_line_bytes = 128;
  // The runtime reports shared memory per SM, not the combined L1: the
  // carve-out's maximum stands for it.
  hw.l1_bytes = Attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  hw.l2_bytes = props.l2CacheSize;
  hw.l3_bytes = 0;
  hw.warp_size = props.warpSize;
  hw.max_threads_per_block = props.maxThreadsPerBlock;
  hw.shared_bytes_per_block = Attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  hw.registers_per_sm = Attribute(cudaDevAttrMaxRegistersPerMultiprocessor, device);
  hw.clock_ghz = Attribute(cudaDevAttrClockRate, device) / 1e6;  // kHz: the rated (boost) clock
  hw.flags = {flag, "mma.sync", "ldmatrix"};
  if (cc >= 80) hw.flags.push_back("cp.async");
  return hw;
}

GpuDetails ReadGpuDetails(int device) {
  cudaDeviceProp props{};
  cudaGetDeviceProperties(&props, device);
  GpuDetails details;
  details.memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
  details.memory_clock_mhz = Attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  details.bus_width_bits = Attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  cudaRuntimeGetVersion(&details.runtime_version);
  cudaDriverGetVersion(&details.driver_version);
  return details;
}

}  // namespace ucmoh::tensorcore::measure
