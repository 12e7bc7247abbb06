// A conv2d problem as the measured kernels see it: plain ints, usable on the
// host and on the device (the plugin's ConvProblem is the host-side truth;
// measurement_plan.cpp converts).
#pragma once

#ifdef __CUDACC__
#define UCMOH_HOST_DEVICE __host__ __device__
#else
#define UCMOH_HOST_DEVICE
#endif

namespace ucmoh::tensorcore::measure {

struct ConvShape {
  int n, h, w, c, k, r, s, p, q;
  int pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w;
  UCMOH_HOST_DEVICE int gemm_m() const { return n * p * q; }
  UCMOH_HOST_DEVICE int gemm_k() const { return r * s * c; }
};

}  // namespace ucmoh::tensorcore::measure
