// The hardware of a CUDA device as the records carry it, read from the CUDA
// runtime: name and compute capability, SMs, clock, L2, shared memory and
// registers. The "sm_XX" flag is what the plugin's ArchitectureOf reads.
#pragma once

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::tensorcore::measure {

// Unsupported ("no CUDA device: <runtime's message>") where the runtime finds none.
Expected<HardwareParams> ReadGpuHardware(int device);

// The device's memory in bytes and its memory clock in MHz, for provenance.
struct GpuMemory {
  int64_t bytes = 0;
  int64_t clock_mhz = 0;
  int bus_width_bits = 0;
};
GpuMemory ReadGpuMemory(int device);

}  // namespace ucmoh::tensorcore::measure
