// SPDX-License-Identifier: Apache-2.0
#pragma once
// finish_rules kernel: whether each request finishes after this step's token, why, whether the
// token reaches the text, and the ids the min-tokens mask bans next; exact tier, bit-exact with
// reference/finish_rules.h (docs/spec/finish_rules.md).
//
// Contract:
// - One thread per request row: block g's thread l handles row g * kThreads + l (< rows); blocks
//   of kThreads = 32. Inputs already checked as the reference checks them (token >= 0,
//   output_len >= 1, max_tokens >= 1, 0 <= min_tokens <= max_tokens, ids >= 0 or -1 padding):
//   token rows i64; output_len, max_tokens, min_tokens rows i32; ignore_eos, keep_stop rows u8
//   (keep_stop: has_keep, else false); eos_ids rows x E i32, stop_ids rows x S i32.
// - Rule (the profile resolved by the caller into two flags): sglang checks (without
//   ignore_eos) stop_ids and eos_ids first, then length; otherwise nothing before min_tokens, then the
//   primary eos (eos_ids[b][0]; stop_reason -1 when eos_stop_reason_none, vLLM's None, else the
//   token), then stop_ids or (without ignore_eos) the other eos ids, then length.
//   text_keep: a stop-finished token is kept iff keep_stop, or (sglang) the token is 0.
// - next_banned rows x (E + S): when output_len < min_tokens the ascending distinct ids of
//   eos_ids (sglang: eos_ids[b][0] only) and stop_ids (padding skipped), then -1; else all -1. Computed without a sort
//   buffer: the k-th entry is the smallest id above the (k-1)-th (E + S is small).
// - Outputs: finish_reason rows i32 (0 running, 1 stop, 2 length), stop_reason rows i64,
//   text_keep rows u8, next_banned rows x (E + S) i32. Exact tier, integers only.
// Example (docs/spec/finish_rules.md): token 7 = eos_ids[0], output_len = max_tokens = 4,
// min_tokens 0: vllm stop with stop_reason -1, sglang stop with stop_reason 7 (tests/gpu_kernels_test.cc,
// GpuFinishRules).

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct FinishRulesKernel {
  static constexpr const char* kName = "finish_rules";
  static constexpr int kThreads = kWarpSize;

  template <class B, class I64, class I32, class U8, class Out32, class Out64, class OutU8>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, I64 token, I32 output_len, I32 max_tokens, I32 min_tokens,
                                        U8 ignore_eos, U8 keep_stop, bool has_keep, I32 eos_ids, std::int64_t n_eos,
                                        I32 stop_ids, std::int64_t n_stop, std::int64_t rows, bool sglang,
                                        bool eos_stop_reason_none, Out32 finish_reason, Out64 stop_reason,
                                        OutU8 text_keep, Out32 next_banned) const {
    block.ForEachThread([&](Thread t) {
      const std::int64_t b = static_cast<std::int64_t>(block.index()) * kThreads + t.x;
      if (b >= rows) return;
      const std::int64_t tok = token.Load(b);
      const std::int32_t len = output_len.Load(b), max = max_tokens.Load(b), min = min_tokens.Load(b);
      const bool ignore = ignore_eos.Load(b) != 0;
      const bool keep = has_keep && keep_stop.Load(b) != 0;
      auto in_eos = [&](std::int64_t first) {
        for (std::int64_t k = first; k < n_eos; ++k) {
          const std::int32_t x = eos_ids.Load(b * n_eos + k);
          if (x >= 0 && x == tok) return true;
        }
        return false;
      };
      auto in_stop = [&] {
        for (std::int64_t k = 0; k < n_stop; ++k) {
          const std::int32_t x = stop_ids.Load(b * n_stop + k);
          if (x >= 0 && x == tok) return true;
        }
        return false;
      };
      const std::int32_t primary = n_eos > 0 ? eos_ids.Load(b * n_eos) : -1;
      std::int32_t reason = 0;  // running
      std::int64_t matched = -1;
      if (sglang) {
        if (!ignore && (in_stop() || in_eos(0))) {
          reason = 1;
          matched = tok;
        } else if (len >= max) {
          reason = 2;
        }
      } else if (len >= min) {
        if (!ignore && primary >= 0 && tok == primary) {
          reason = 1;
          matched = eos_stop_reason_none ? -1 : tok;
        } else if (in_stop() || (!ignore && in_eos(1))) {
          reason = 1;
          matched = tok;
        } else if (len >= max) {
          reason = 2;
        }
      }
      finish_reason.Store(b, reason);
      stop_reason.Store(b, matched);
      const bool kept = reason != 1 || keep || (sglang && tok == 0);
      text_keep.Store(b, static_cast<std::uint8_t>(kept ? 1 : 0));
      // next_banned: ascending distinct ids by repeated "smallest id above the last one".
      const std::int64_t width = n_eos + n_stop;
      std::int64_t last = -1;
      for (std::int64_t k = 0; k < width; ++k) {
        std::int64_t next = -1;
        if (len < min) {
          for (std::int64_t m = 0; m < width; ++m) {
            if (sglang && m >= 1 && m < n_eos) continue;  // sglang bans the primary eos only
            const std::int32_t x = m < n_eos ? eos_ids.Load(b * n_eos + m) : stop_ids.Load(b * n_stop + m - n_eos);
            if (x > last && (next < 0 || x < next)) next = x;
          }
        }
        next_banned.Store(b * width + k, static_cast<std::int32_t>(next));
        if (next >= 0)
          last = next;
        else
          last = INT64_MAX;  // nothing left: the remaining entries are padding
      }
    });
  }
};

}  // namespace sampcheck::gpu
