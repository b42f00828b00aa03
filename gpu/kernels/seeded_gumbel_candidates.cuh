// SPDX-License-Identifier: Apache-2.0
#pragma once
// A thread's candidates for multinomial_with_seed's draw (gpu/kernels/seeded_gumbel.cuh) kept in
// registers while the read that sums the final survivors runs, before their sum s is known: the
// entries that can still win once s is known, so that the draw scores them exactly after the
// sum instead of reading the row again (docs/gpu.md "Top-k first on the partition", read 5).
//
// Contract:
// - Offer(key, order_key, M, s_bound) in the order the thread meets its final survivors (x the
//   key's value, e = ExpF32Cr(x - M): the probability is RN(e / s)), with s_bound >= s. An entry is kept
//   unless another kept entry of the same thread is sure to score above it whatever s is:
//   * e = +0: probability +0, never drawable (SeededGumbelDrawable): not kept;
//   * e >= s_bound x 2^-126 ("safe": RN(e / s) >= RN(e / s_bound) >= 2^-126 is normal): its
//     score without s, a = LogF64Dd(e) + g (SeededGumbelScore of e), is the exact score plus
//     log s, up to |log RN(e / s) - log(e / s)| <= 2^-24 (one rounding of a normal quotient) and
//     the double roundings (LogF64Dd's 0.5 + 2^-10 ulp of |log e| <= 88, the sum's half ulp of
//     |a| <= 88 + 710, g in [-log(DBL_MAX), 32 ln 2]: under 10^-12 in all): |exact - (a - log s)| <
//     6.1e-8. So when a safe entry's a is below a kept safe entry's a by more than kMargin =
//     2^-20 (9.5e-7, over 7x twice that bound), its exact score is below that entry's (which
//     is drawable: p >= 2^-126 > 0): it cannot be the token, and is not kept;
//   * other entries (e < s_bound x 2^-126: a subnormal probability is not within 2^-24 of its
//     quotient) are kept, and drop nothing.
//   `best` is the largest a of a safe entry met; kept safe entries below best - kMargin are
//   pruned whenever best rises. More than kCap entries to keep: Overflowed(), and the caller
//   reads the row for the draw as before.
// - Dominated entries are dropped before any score is computed: an entry whose value is at
//   most that of the safe entry that set `best` (b), whose column is larger than b's and whose
//   hash word h (SglangMurmurKey) is at most b's cannot be the token, since its exact score is
//   at most b's and a tie goes to the lower column. Why the score is monotone in both: RN(e / s)
//   is non-decreasing in x (ExpF32Cr correctly rounded, one rounded subtraction and division);
//   u = h / (2^32 - 1) (one rounding) and the Gumbel noise -log(-log u) are non-decreasing in h
//   (LogF64Dd is within 0.5 + 2^-10 ulp of log, and the logs of two such u, or of two -log u,
//   differ by far more than two ulps of the result: Noise.GumbelSglangIsNonDecreasingInTheHash);
//   LogF64Dd of binary32 inputs and the final addition likewise. b stays kept until an entry
//   sure to score above it prunes it, so the winner stays among the kept entries. On a flat
//   row this is what bounds the work: a thread scores only the entries whose hash beats every
//   earlier one's (about ln n + 0.6 of n), where every entry's score was computed before
//   (three binary64 logarithms in double-double). An offered entry is hashed once, its word
//   serving the test, its score (SeededGumbelScoreOfHash) and best_hash (three times until
//   2026-12-04).
// - ForEach(f) gives the kept order keys back; when no thread of the block overflowed, the
//   draw's winner (the total order's maximum of the exact scores over the drawable survivors)
//   is among them, so scoring them exactly gives the full-row kernel's token.
// - A thread with at most kCap final survivors keeps them all (nothing overflows).
// - Deterministic: the rule depends on the thread's entries and their order only.
// Example: survivors with e = 1, 1 and 0.5 and noises g = 0.3, 0.1, 2.0: a = 0.3, 0.1 and
//   2.0 - ln 2 = 1.307; the first two are pruned when the third comes (both below 1.307 -
//   2^-20), which alone is kept (tests/gpu_filters_seeded_draw_test.cc covers the draw).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "reference/math/exp.h"
#include "reference/rng/murmur3.h"

namespace sampcheck::gpu {

template <int kCap>
struct SeededGumbelCandidates {
  static constexpr double kMargin = 0x1p-20;  // contract: over 7x twice the score's error bound
  std::uint64_t key[kCap];  // order keys: the value (hence e) and the column
  double score[kCap];       // each kept key's a (ScoreOfHash), kept beside it: not made again
  std::uint32_t count;
  double best;
  std::uint64_t best_key;   // the safe entry that set best (valid while best > -inf)
  std::uint32_t best_hash;  // its hash word
  bool overflowed;

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Reset() {
    count = 0;
    best = NegativeInfinityF64();
    best_key = 0;
    best_hash = 0;
    overflowed = false;
  }

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE static std::uint32_t Hash(const SeededGumbelKey& rng_key,
                                                                         std::uint64_t k) {
    return rng::SglangMurmurKey(rng_key.seed, rng_key.position, static_cast<std::uint32_t>(IndexOfKey(k)));
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Overflowed() const { return overflowed; }

  // a of the entry with order key k (+inf when it is not safe: never pruned), from M and the
  // bound on s, given k's hash word h = Hash(rng_key, k) (Offer hashes each entry once). Made
  // once an entry: a kept entry's a is kept beside its key for the compactions when best rises,
  // which until 2026-12-05 made it again from the key (three double-double logarithms each).
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE static double ScoreOfHash(std::uint32_t h, std::uint64_t k, float max,
                                                                         double s_bound) {
    const float e = math::ExpF32Cr(ValueOfDescendingKey(k) - max);
    if (!(static_cast<double>(e) * 0x1p126 >= s_bound)) return -NegativeInfinityF64();  // exact: a power of two
    return SeededGumbelScoreOfHash(h, e);
  }

  // A final survivor with order key k (value x: e = ExpF32Cr(x - max)), max = M, s_bound >= s.
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Offer(const SeededGumbelKey& rng_key, std::uint64_t k, float max,
                                                          double s_bound) {
    const std::uint32_t h = Hash(rng_key, k);  // once: the dominance test, the score, best_hash
    if (best != NegativeInfinityF64() && IndexOfKey(k) > IndexOfKey(best_key) &&
        ValueOfDescendingKey(k) <= ValueOfDescendingKey(best_key) && h <= best_hash) {
      return;  // dominated by the entry that set best (contract)
    }
    if (!(math::ExpF32Cr(ValueOfDescendingKey(k) - max) > 0.0f)) return;  // probability +0: never drawn
    const double a = ScoreOfHash(h, k, max, s_bound);
    if (a < best - kMargin) return;
    if (a > best && a != -NegativeInfinityF64()) {
      best = a;
      best_key = k;
      best_hash = h;
      // Compact the entries still within kMargin of the new best (selects on constant
      // indices after unrolling: registers on the device).
      std::uint32_t kept = 0;
      for (int j = 0; j < kCap; ++j) {
        const bool stays = static_cast<std::uint32_t>(j) < count && !(score[j] < best - kMargin);
        for (int d = 0; d < kCap; ++d) {
          const bool to = stays && static_cast<std::uint32_t>(d) == kept;
          key[d] = to ? key[j] : key[d];
          score[d] = to ? score[j] : score[d];
        }
        kept += stays ? 1u : 0u;
      }
      count = kept;
    }
    if (count == static_cast<std::uint32_t>(kCap)) {
      overflowed = true;
      return;
    }
    for (int d = 0; d < kCap; ++d) {
      const bool here = static_cast<std::uint32_t>(d) == count;
      key[d] = here ? k : key[d];
      score[d] = here ? a : score[d];
    }
    ++count;
  }

  template <class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEach(F f) const {
    for (int j = 0; j < kCap; ++j) {
      if (static_cast<std::uint32_t>(j) < count) f(key[j]);
    }
  }
};

}  // namespace sampcheck::gpu
