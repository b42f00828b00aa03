// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_step's last kernel: per request, the verified tokens of its row kind (spec_greedy's for a
// greedy row, the token-wise verifier's for a random one) and the stop ids inside them,
// bit-exact with reference/spec_step.h (docs/spec/spec_step.md "Stops"). The steps before it —
// the min_tokens mask, temperature, the filters and softmax of every position, verification —
// are the kernels of their own stages (gpu/backend/spec_step_glue.cc).
//
// Contract of SpecStepStopsKernel:
// - One thread per request row b (32 rows per block; integer logic, no shared memory).
//   is_greedy u8 [rows]; greedy_emitted, random_emitted i64 [rows, width + 1] (the verifiers'
//   emitted tokens, -1 padded) and greedy_accepted, random_accepted i64 [rows]; stop_ids i32
//   [rows, n_stop] (-1 padded; n_stop 0 when absent); output_len, min_tokens i32 [rows] (null
//   arrays read as 0: has_output_len, has_min_tokens false).
// - The row's outcome is the greedy one when is_greedy[b], else the random one. Its tokens are
//   read up to the first -1; the first index i whose token equals a stop id (padding -1 never
//   equals a token) with output_len + i >= min_tokens ends the row: tokens after i become -1,
//   finished = 1, num_emitted = i + 1; no stop: num_emitted = the token count, finished 0.
//   num_accepted is the verifier's count, before stops.
// - Exact tier.
// Example (the reference's): drafts {5, 2}, greedy outcome {5, 2, 7}, stop_ids {2}, output_len
//   0, min_tokens 0: emitted {5, 2, -1}, num_accepted 2, num_emitted 2, finished
//   (tests/gpu_kernels_test.cc, GpuSpecStep).

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct SpecStepStopsKernel {
  static constexpr const char* kName = "spec_step_stops";
  static constexpr int kThreads = kWarpSize;

  template <class B, class U8, class I64, class I32, class Out64, class OutU8>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, U8 is_greedy, I64 greedy_emitted, I64 greedy_accepted,
                                        I64 random_emitted, I64 random_accepted, I32 stop_ids, std::int64_t n_stop,
                                        I32 output_len, bool has_output_len, I32 min_tokens, bool has_min_tokens,
                                        std::int64_t rows, std::int64_t width, Out64 emitted, Out64 num_accepted,
                                        Out64 num_emitted, OutU8 finished) const {
    block.ForEachThread([&](Thread t) {
      const std::int64_t b = static_cast<std::int64_t>(block.index()) * kThreads + t.x;
      if (b >= rows) return;
      const bool greedy = is_greedy.Load(b) != 0;
      const std::int64_t before = has_output_len ? output_len.Load(b) : 0;
      const std::int64_t minimum = has_min_tokens ? min_tokens.Load(b) : 0;
      std::int64_t keep = 0;
      bool stopped = false;
      for (std::int64_t i = 0; i <= width; ++i) {
        const std::int64_t tok = greedy ? greedy_emitted.Load(b * (width + 1) + i) : random_emitted.Load(b * (width + 1) + i);
        if (tok < 0) break;
        keep = i + 1;
        bool stop = false;
        for (std::int64_t s = 0; s < n_stop; ++s) stop = stop || stop_ids.Load(b * n_stop + s) == tok;
        if (stop && before + i >= minimum) {
          stopped = true;
          break;
        }
      }
      for (std::int64_t i = 0; i <= width; ++i) {
        const std::int64_t tok =
            i < keep ? (greedy ? greedy_emitted.Load(b * (width + 1) + i) : random_emitted.Load(b * (width + 1) + i))
                     : -1;
        emitted.Store(b * (width + 1) + i, tok);
      }
      num_accepted.Store(b, greedy ? greedy_accepted.Load(b) : random_accepted.Load(b));
      num_emitted.Store(b, keep);
      finished.Store(b, static_cast<std::uint8_t>(stopped ? 1 : 0));
    });
  }
};

}  // namespace sampcheck::gpu
