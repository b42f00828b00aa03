// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's fused sampling kernel (gpu/fast/fast_sampling.cuh, docs/gpu.md
// "gpu-fast"): the options the kernel takes and its launch description, in the scheme of
// every other kernel (gpu/runners/kernel_launches.h), run by the emulator's launcher
// (gpu/runners/emulated_runner.cc) or the device's (gpu/runners/cuda_runner.cu). The kernel header includes
// this one for the options, so the kernel is only declared here.
//
// Contract: host pointers in, host pointers out; a runner copies to and from its device
// itself. Row-major [rows, pitch] logits (pitch >= vocab; [vocab, pitch) is padding). A runner
// throws std::runtime_error when the kernel cannot run or the emulator's checks fail (the
// device's message starts with "no CUDA device" when there is none); it never aborts.

#include <cstdint>

#include "reference/profile_rules.h"

namespace sampcheck::gpu {

// A planted filter bug for the statistical harness's negative control (`wrong:` variants,
// gpu/fast/fast_backend.h); kNone in every real backend.
enum class FastSamplingBug : int {
  kNone = 0,
  kTopKKeepsKPlusOne = 1,  // the top-k select runs with k + 1
  kTopPOffByOne = 2,       // top-p accepts iff (mass before j) - e_j < p * S: one token more
};

struct FastSamplingOptions {
  // The canonical temperature rule: greedy iff double(t) < eps (reference/profile_rules.h).
  double greedy_below = reference::kCanonicalSamplingEps;
  FastSamplingBug bug = FastSamplingBug::kNone;
};

template <int kBlockThreads>
struct FastSamplingKernel;

struct FastSamplingLaunch {
  const float* logits = nullptr;         // [rows, pitch], after the steps before temperature
  const float* temperature = nullptr;    // [rows]
  const std::int32_t* top_k = nullptr;   // [rows], <= 0 or >= vocab: disabled
  const float* top_p = nullptr;          // [rows], >= 1: disabled
  const float* min_p = nullptr;          // [rows], <= 0: disabled
  const std::uint64_t* seed = nullptr;   // [rows]: the Philox key
  const std::uint64_t* position = nullptr;  // [rows]: the cuRAND subsequence
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  FastSamplingOptions options;
  std::int64_t* token = nullptr;         // [rows] out

  // One block of kThreads threads per row; the kernel keeps no row-sized work array.
  template <int kThreads, class L>
  void Describe(L& l) const {
    l.template Run<FastSamplingKernel<kThreads>>(
        rows, l.In(logits, rows * pitch, "logits"), l.In(temperature, rows, "temperature"), l.In(top_k, rows, "top_k"),
        l.In(top_p, rows, "top_p"), l.In(min_p, rows, "min_p"), l.In(seed, rows, "seed"),
        l.In(position, rows, "position"), l.Out(token, rows, "token"), vocab, pitch, options);
  }
};

// The emulator runs blocks of kFastSamplingEmulatedThreads threads (CI time: the emulator's
// cost grows with threads x phases), the device blocks of kFastSamplingDeviceThreads (one
// block per row, as FlashInfer's sampling kernels at large vocabularies). The reduction order
// differs between the two, which the distributional tier allows; the emulator checks the
// device's block size too (tests/gpu_fast_sampling_test.cc).
inline constexpr int kFastSamplingEmulatedThreads = 128;
inline constexpr int kFastSamplingDeviceThreads = 1024;

void RunFastSamplingEmulated(const FastSamplingLaunch& launch);
// The emulator at the device's block size (tests).
void RunFastSamplingEmulatedDeviceBlock(const FastSamplingLaunch& launch);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA).
void RunFastSamplingCuda(const FastSamplingLaunch& launch);

}  // namespace sampcheck::gpu
