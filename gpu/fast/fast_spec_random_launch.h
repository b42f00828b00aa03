// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's spec_random kernel (gpu/fast/fast_spec_random.cuh): the bit-exact
// kernels' inputs (SpecRandomInputs and SpecShape, gpu/runners/kernel_launches.h, filled by
// gpu/backend/draws_glue.h PrepareSpecRandom) and how a launcher (the checking emulator, a CUDA
// device) runs it, one block per request at the fused sampler's block sizes
// (gpu/fast/fast_sampling_launch.h).
//
// Contract: in.rule kVllm or kFlashinfer (typical_acceptance has no fast kernel: docs/gpu.md
// "Skips"); every input checked by the caller as the reference checks it. emitted
// [rows, width + 1] i64 and accepted [rows] i64 out. Describe<kThreads>(l) runs
// FastSpecRandomKernel<kThreads> over `rows` blocks.
// Example: FastSpecRandomLaunch{.in = a.in, .shape = a.shape, .emitted = e,
//   .accepted = n}.Describe<128>(emulated).

#include <cstdint>

#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/runners/kernel_launches.h"

namespace sampcheck::gpu {

template <int kBlockThreads>
struct FastSpecRandomKernel;

struct FastSpecRandomLaunch {
  SpecRandomInputs in;
  SpecShape shape;
  FastSamplingBug bug = FastSamplingBug::kNone;
  std::int64_t* emitted = nullptr;   // [rows, width + 1] out
  std::int64_t* accepted = nullptr;  // [rows] out

  template <int kThreads, class L>
  void Describe(L& l) const {
    const auto [rows, width, vocab] = shape;
    const bool vllm = in.rule == SpecRandomInputs::Rule::kVllm;
    l.template Run<FastSpecRandomKernel<kThreads>>(
        rows, l.In(in.target_probs, rows * (width + 1) * vocab, "target_probs"),
        l.In(in.draft_probs, rows * width * vocab, "draft_probs"), in.draft_probs != nullptr,
        l.In(in.drafts, rows * width, "draft_ids"), l.In(in.counts, rows, "counts"),
        l.In(in.u_f64, vllm ? rows * width : 0, "u"), l.In(in.u_f32, vllm ? 0 : rows * (width + 1), "u"),
        l.In(in.q, vllm ? rows * vocab : 0, "q"), l.In(in.bonus_q, vllm ? rows * vocab : 0, "bonus_q"),
        l.Out(emitted, rows * (width + 1), "emitted"), l.Out(accepted, rows, "num_accepted"), width, vocab, vllm, bug);
  }
};

void RunFastSpecRandomEmulated(const FastSpecRandomLaunch& launch);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA).
void RunFastSpecRandomCuda(const FastSpecRandomLaunch& launch);

}  // namespace sampcheck::gpu
