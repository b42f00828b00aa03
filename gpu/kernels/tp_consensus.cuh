// SPDX-License-Identifier: Apache-2.0
#pragma once
// tp_consensus kernel: the id every tensor-parallel rank keeps, computed on one device from all
// ranks' sampled ids (the arithmetic of the MIN all-reduce, not the communication); exact tier,
// bit-exact with reference/tp_consensus.h (docs/spec/tp_consensus.md).
//
// Contract:
// - One thread per request: block g's thread l handles request b = g * kThreads + l (< batch);
//   blocks of kThreads = 32. rank_ids: ranks x batch i64 (i32 inputs widened exactly by the
//   caller, every id >= 0, ranks >= 1, as the reference checks); token: batch i64; unanimous:
//   batch u8.
// - lo = min over r of rank_ids[r][b], hi = the max, folded r = 0, 1, ... (MIN and MAX on
//   integers are associative and commutative: any order, any all-reduce tree, gives the same
//   ids). token = lo (sglang, min_of_ranks) or rank_ids[0][b] (vllm, driver_rank: rank 0's id);
//   unanimous = lo == hi.
// - What the device part of a tensor-parallel run computes locally is its own row; the
//   distributed consensus itself (MPI or NCCL) is docs/spec/tp_consensus.md's matter.
// - Exact tier, integers only, no randomness.
// Example: rank_ids {{5, 2, 7}, {3, 2, 9}}: sglang -> {3, 2, 7}, vllm -> {5, 2, 7}; unanimous
// {false, true, false} (tests/gpu_kernels_test.cc, GpuTpConsensus).

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct TpConsensusKernel {
  static constexpr const char* kName = "tp_consensus";
  static constexpr int kThreads = kWarpSize;

  template <class B, class In, class Out, class OutU8>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In rank_ids, std::int64_t ranks, std::int64_t batch, bool driver_rank,
                                        Out token, OutU8 unanimous) const {
    block.ForEachThread([&](Thread t) {
      const std::int64_t b = static_cast<std::int64_t>(block.index()) * kThreads + t.x;
      if (b >= batch) return;
      const std::int64_t first = rank_ids.Load(b);
      std::int64_t lo = first, hi = first;
      for (std::int64_t r = 1; r < ranks; ++r) {
        const std::int64_t x = rank_ids.Load(r * batch + b);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      }
      token.Store(b, driver_rank ? first : lo);
      unanimous.Store(b, static_cast<std::uint8_t>(lo == hi ? 1 : 0));
    });
  }
};

}  // namespace sampcheck::gpu
