// SPDX-License-Identifier: Apache-2.0
#pragma once
// noise kernel: the noise stage's samples (docs/spec/noise.md), bit-exact with
// reference/noise.h because both evaluate reference/rng/noise_stream.h's NoiseSampleF32.
//
// Contract:
// - Grid: rows * chunks blocks of 1024 threads, chunks = ceil(n / kChunk) (kChunk = 16384
//   samples, at least one block per row); block k serves row k / chunks, samples
//   [(k % chunks) kChunk, min(n, (k % chunks + 1) kChunk)); thread x of the block writes
//   samples x, x + 1024, ... of that range. seed, offset: rows i64 (offset checked in
//   [0, 2^62) by the caller); out: rows x n f32.
// - Sample i of row b is NoiseSampleF32(generator, law, seed[b], offset[b] + i): noise is
//   keyed by (seed, counter), never by thread, so the layout above changes no bit.
// - Canonical tier: owned log, -fmad=false on the device. No shared memory, no barrier.
// Example: seed 0, offset 0, philox, uniform, n 1 -> 0x1.989fa4p-2 (tests/noise_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "reference/rng/noise_stream.h"

namespace sampcheck::gpu {

struct NoiseKernel {
  static constexpr const char* kName = "noise";
  static constexpr int kThreads = 1024;
  static constexpr std::int64_t kChunk = 16 * kThreads;

  // Blocks for rows x n: one per row even when n == 0 (the block then writes nothing).
  SAMPCHECK_HOST_DEVICE static constexpr std::int64_t Chunks(std::int64_t n) {
    return n <= 0 ? 1 : (n + kChunk - 1) / kChunk;
  }

  template <class B, class Seed, class Offset, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Seed seed, Offset offset, Out out, std::int64_t n,
                                        rng::NoiseGenerator generator, rng::NoiseLaw law) const {
    const std::int64_t chunks = Chunks(n);
    const std::int64_t row = static_cast<std::int64_t>(block.index()) / chunks;
    const std::int64_t begin = static_cast<std::int64_t>(block.index()) % chunks * kChunk;
    const std::int64_t end = begin + kChunk < n ? begin + kChunk : n;
    const auto s = static_cast<std::uint64_t>(seed.Load(row));
    const auto o = static_cast<std::uint64_t>(offset.Load(row));
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = begin + t.x; i < end; i += kThreads) {
        out.Store(row * n + i, rng::NoiseSampleF32(generator, law, s, o + static_cast<std::uint64_t>(i)));
      }
    });
  }
};

}  // namespace sampcheck::gpu
