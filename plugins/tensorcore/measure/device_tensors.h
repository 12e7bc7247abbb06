// What tensorcore-measure does on the GPU besides the measured kernels: fill
// inputs, compute the reference output, and compare. Plain C++ interface;
// every function returns a cudaError_t as int (0 = success).
#pragma once

#include <cstdint>

#include "conv_shape.h"

namespace ucmoh::tensorcore::measure {

enum class ElementType { kF16, kS8, kF32, kS32 };

int ElementBytes(ElementType type);

// Integers in [-2, 2] from a hash of (seed, index): products and sums stay
// exact in f16 and f32 for every reduction the suites have, so a kernel's
// output can be compared with the reference almost exactly.
int FillSmallIntegers(void* data, int64_t count, ElementType type, uint32_t seed);

// y = conv(x, w) directly (one thread per output), accumulated in f32 for f16
// inputs and s32 for s8; the reference of every kernel of that input type.
int ReferenceConv(const ConvShape& shape, const void* x, const void* w, ElementType input, void* reference);

// The outputs of `y` (of `output` type) farther from the reference (f32 or
// s32, by `input`) than rounding allows: none for s32 and f32, |ref| / 512
// for f16 (its accumulation rounds once sums pass 2048). Writes the count.
int CountMismatches(const void* y, ElementType output, const void* reference, ElementType input, int64_t count,
                    int64_t* mismatches);

}  // namespace ucmoh::tensorcore::measure
