// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's inverse_cdf kernel (gpu/fast/fast_inverse_cdf.cuh): its arguments
// and how a launcher (the checking emulator, a CUDA device) runs it, one block per row at the
// fused sampler's block sizes (gpu/fast/fast_sampling_launch.h).
//
// Contract: probs [rows, pitch] f32 and u [rows] f32, checked by the caller; token [rows] i64
// out. Describe<kThreads>(l) runs FastInverseCdfKernel<kThreads> over `rows` blocks.
// Example: FastInverseCdfLaunch{.probs = p, .u = u, .rows = 1, .vocab = 3, .pitch = 3,
//   .token = t}.Describe<128>(emulated).

#include <cstdint>

#include "gpu/fast/fast_sampling_launch.h"

namespace sampcheck::gpu {

template <int kBlockThreads>
struct FastInverseCdfKernel;

struct FastInverseCdfLaunch {
  const float* probs = nullptr;  // [rows, pitch]
  const float* u = nullptr;      // [rows]
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  FastSamplingBug bug = FastSamplingBug::kNone;
  std::int64_t* token = nullptr;  // [rows] out

  template <int kThreads, class L>
  void Describe(L& l) const {
    l.template Run<FastInverseCdfKernel<kThreads>>(rows, l.In(probs, rows * pitch, "probs"), l.In(u, rows, "u"),
                                                   l.Out(token, rows, "token"), vocab, pitch, bug);
  }
};

void RunFastInverseCdfEmulated(const FastInverseCdfLaunch& launch);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA).
void RunFastInverseCdfCuda(const FastInverseCdfLaunch& launch);

}  // namespace sampcheck::gpu
