// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's flashinfer_sampling_from_probs kernel
// (gpu/fast/fast_flashinfer_sampling_from_probs.cuh): its arguments and how a launcher (the
// checking emulator, a CUDA device) runs it, one block per row at the fused sampler's block
// sizes (gpu/fast/fast_sampling_launch.h).
//
// Contract: probs [rows, pitch] f32, top_k [rows] u32, top_p and min_p [rows] f32, u [rows, width]
// f32, checked by the caller (the reference's parse and row parameters); token [rows] i64,
// valid [rows] u8 and rounds [rows] i32 out. `kind` and `top_k_first` are the first row's (the
// stage's `kernel` and `filter_apply_order` parameters hold for the whole case).
// Describe<kThreads>(l) runs FastFlashinferSamplingFromProbsKernel<kThreads> over `rows` blocks.
// Example: FastFlashinferSamplingFromProbsLaunch{.probs = p, .top_k = k, .top_p = tp, .min_p = mp,
//   .u = u, .rows = 1, .vocab = 3, .pitch = 3, .width = 2, .token = t, .valid = v,
//   .rounds = r}.Describe<128>(emulated).

#include <cstdint>

#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/kernels/flashinfer_sampling_from_probs.cuh"

namespace sampcheck::gpu {

template <int kBlockThreads>
struct FastFlashinferSamplingFromProbsKernel;

struct FastFlashinferSamplingFromProbsLaunch {
  const float* probs = nullptr;          // [rows, pitch]
  const std::uint32_t* top_k = nullptr;  // [rows]
  const float* top_p = nullptr;          // [rows]
  const float* min_p = nullptr;          // [rows]
  const float* u = nullptr;              // [rows, width]
  std::int64_t rows = 0, vocab = 0, pitch = 0, width = 0;
  FlashinferKind kind = FlashinferKind::kTopKTopP;
  bool top_k_first = false;
  FastSamplingBug bug = FastSamplingBug::kNone;
  std::int64_t* token = nullptr;   // [rows] out
  std::uint8_t* valid = nullptr;   // [rows] out
  std::int32_t* rounds = nullptr;  // [rows] out

  template <int kThreads, class L>
  void Describe(L& l) const {
    l.template Run<FastFlashinferSamplingFromProbsKernel<kThreads>>(
        rows, l.In(probs, rows * pitch, "probs"), l.In(top_k, rows, "top_k"), l.In(top_p, rows, "top_p"),
        l.In(min_p, rows, "min_p"), l.In(u, rows * width, "u"), l.Out(token, rows, "token"),
        l.Out(valid, rows, "valid"), l.Out(rounds, rows, "rounds"), vocab, pitch, width, kind, top_k_first, bug);
  }
};

void RunFastFlashinferSamplingFromProbsEmulated(const FastFlashinferSamplingFromProbsLaunch& launch);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA).
void RunFastFlashinferSamplingFromProbsCuda(const FastFlashinferSamplingFromProbsLaunch& launch);

}  // namespace sampcheck::gpu
