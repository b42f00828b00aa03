// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's fused sampling kernel: temperature, top-k, top-p and min-p filtering and the draw
// in one block per row, written the way production samplers are (FlashInfer's
// TopKTopPSamplingFromProb / TopPSamplingFromProb kernels, include/flashinfer/sampling.cuh):
// free reduction order, no sort of the row, rejection sampling with a rising pivot, the
// uniform from the row's own Philox4x32-10 stream (docs/gpu.md "gpu-fast"). NOT bit-exact:
// judged by the statistical harness against the canonical pipeline's exact target. A small
// top-k reads the row once (its survivors gathered in shared memory), as does min-p alone when
// 64 tokens hold what it keeps; canonical rows with top-k near V, without top-k, or 1024 < k <
// V - 1024 with top-p on read it twice (proposals drawn from the masses of reads they take
// anyway, gpu/fast/fast_proposals.cuh); the other rows (vllm's and sglang's rules, min-p as a
// candidate rule) take the rejection rounds, two reads and more.
//
// Contract:
// - One block of kThreads threads (a multiple of 32, at most 1024) per row; when the row takes
//   several blocks (FastRowSlices(slice_budget, ...) > 1, gpu/fast/fast_sampling_launch.h;
//   slice_budget 1: no row does), the row's work (Row) runs in the last block of its slices
//   (gpu/fast/fast_sampling_slices.cuh), in the same launch: slices, rows x kFastSliceSlots
//   u64, then holds the row's partials and Row merges them instead of reading the row; greedy
//   rows take the first maximum of the slices' argmaxes. logits: rows x pitch f32 after the
//   steps before temperature (entries [V, pitch) are padding, never read);
//   validated by the caller: no NaN, no +inf, and every random row has a finite entry.
//   temperature, top_p, min_p: rows f32 (top_p, min_p not NaN; temperature finite, >= 0);
//   top_k: rows i32; seed, position: rows u64 (position < 2^32). token: rows i64.
//   No row-sized work array: s_i and e_i below are recomputed from the logits at every read.
// - Greedy rows (double(temperature) < options.greedy_below: the canonical 1e-5,
//   docs/spec/temperature.md): the argmax of the logits, lowest index among tied maxima, -0.0
//   equal to +0.0 (QuadRangeArgmaxF32, gpu/block/block_argmax.cuh, one compare of floats an
//   entry; a sliced row's slices give their argmaxes, merged as gpu/kernels/greedy.cuh merges
//   its slices' (MergeSliceWinnersF32)): a total order, so the free reduction order cannot
//   change it.
// - Random rows, the canonical profile's order (top_k_first, docs/spec/filters.md):
//     s_i = x_i x f32(1 / t) (FastInverseTemperature: not the reference's IEEE division);
//     order key of i: (descending value key of s_i) << 32 | i, the filters' total order
//       (larger value first, then lower index; -0.0 folded onto +0.0), smaller key = earlier;
//     survivor path, 1 <= k <= 1024 (k < V): the k smallest keys gathered in shared memory in
//       one read of the row (two or three when a lane holds 6 candidates,
//       gpu/fast/fast_top_k_survivors.cuh), sorted; e_j = ExpF32Cr(s_j
//       - m) for them (m = s of the first); warp 0 (DrawOnSurvivors: 32 lanes of contiguous
//       positions, their sums by a butterfly) sums S over them, keeps the longest
//       prefix whose every j passes top-p (E_j == 0 or E_j < p * S, E_j the mass before j;
//       p >= 1: every j) and min-p (e_j >= min(m_p, 1) when m_p > 0), and draws by inverse CDF
//       of u * (the prefix's mass) over the prefix in the order, u from word 0 of the stream
//       below, never a weight of 0, rounding past the end taking the last positive weight.
//       The rules are those of the rounds below; the prefix is their kept set because each is
//       monotone along the order. When the candidates do not fit (contract of that file), the
//       k-th key by the radix select below and two more reads gather exactly the top k. A
//       sliced row's survivors are the merge of its slices' sorted top-k lists (pairwise
//       merges, gpu/block/merge_runs.cuh, or for k <= 64 the warps' merge tree, whose last
//       level leaves them in warp 0's registers for the draw: TreeSurvivor; integer
//       comparisons, exact): the same k keys and weights in the same lanes' order, so the
//       token does not depend on the slicing;
//     min-p alone (top-k and top-p off, min-p on, V > kFastMinPProbe = 64): the survivor path
//       on the first 64 keys (a probe, gpu/fast/fast_sampling_launch.h FastSurvivorK, sliced
//       as a top-k row is) when the 64th fails min-p: every token min-p keeps is then among
//       them (e only falls along the order), and the draw is the survivor path's; else the
//       rounds below (min-p a candidate rule), m from the probe's first key;
//     top-k near V (k > 1024, V - k <= 1024): the V - k dropped tokens are the k' = V - k
//       smallest keys of the reversed order (~key), gathered the same way (their first read
//       fused with the first-key read below); kth = (the first dropped key) - 1;
//     other top-k (0 < k < V) with top-p on (p < 1): kth = the k-th smallest key, by
//       splitters from a sample of min(4096, V / 8) entries, one read counting the keys
//       between them (and taking the first key of the order, so m below costs no read of its
//       own) and one gathering those of the bin holding rank k (SelectKthKeyBySample,
//       gpu/block/sample_select.cuh), or the bit-exact filters' radix select (SelectKthKey)
//       when the sample misses; integer counts, so kth is exact. The top-k set
//       T = {i : key_i <= kth} (ties at the k-th value go to the lower indices, as canonical).
//       Otherwise T = every token, and top-k with top-p off is an acceptance rule below;
//     e_i = FastExpF32(s_i - m) (gpu/block/fast_exp.cuh: within an ulp of exp, e = 1 exactly
//       at s_i = m), m = s of the first token of the order; min-p decides by
//       ExpF32Cr(s_i - m) >= min(m_p, 1), correctly rounded and so monotone along the order
//       (taken as s_i - m >= ExpF32CrThreshold(min(m_p, 1)), reference/math/exp_threshold.h);
//     proposals (canonical rows of the two cases above or without top-k, unless min-p is a
//       candidate rule below): kFastProposals tokens drawn independently proportional to e
//       over P (every token; under the sample select the keys below its last splitter, a
//       superset of T when the sample hits) from the per-thread online-softmax masses of
//       the maximum's read or the select's count read (gpu/fast/fast_proposals.cuh; words
//       0 .. kFastProposals - 1 of the stream); one read (the near-V gather's count read, the
//       select's gather read, or its own without top-k) sums E_j for each proposal j and S;
//       the first proposal in T that passes top-p and min-p below is the token (rejection
//       sampling with proposal P: exact in exact arithmetic). All rejected: the rounds below,
//       their pivot starting at the smallest rejected key, round r on word kFastProposals + r;
//     S = sum of e over T (free order): round 0's total below, whose candidates are T's tokens
//       of positive weight;
//     rejection rounds r = 0, 1, ...: candidates C = {i in T : key_i < pivot, e_i > 0}
//       (pivot starts above every key); u = UniformClosedOpen24F32(word r of cuRAND's
//       subsequence `position` under `seed`, i.e. curand_init(seed, position, 0) and r + 1
//       curand() calls: rng::CurandPhiloxWord); j = inverse CDF of u * mass(C) over C in
//       index order (each thread owns a contiguous chunk; a block scan of the chunk sums;
//       rounding past the end takes the last candidate); accept j iff
//         top-k without select: rank(j) = #{i : key_i < key_j} < k;
//         top-p: p >= 1, or E_j == 0 (j is the first of the order), or E_j < p * S, with
//                E_j = the sum of e over T before j in the order (renormalised over T:
//                the canonical top-p reads the softmax of the top-k survivors);
//         min-p: m_p <= 0, or ExpF32Cr(s_j - m) >= min(m_p, 1) (p_j >= m_p * p_max, e = 1;
//                the ratio does not depend on which renormalised distribution min-p reads);
//       else pivot = key_j. Every rule is monotone along the order, so every token after a
//       rejected one would be rejected too: the accepted token follows the filtered
//       distribution (rejection sampling), and every round removes at least one candidate, so
//       the loop ends within |T| rounds (the first token of the order is always accepted).
// - Other profiles (options.rule, FastFilterRuleFor in gpu/fast/fast_sampling_launch.h;
//   docs/spec/pipeline.md "Order per profile"): the rows take the rounds above with
//   sglang (top_p_joint): top-k stays the rank rule (exactly k), top-p reads S = the whole
//     row's mass and accepts iff E_j <= p * S, at every p (1 included); the survivor path
//     serves it too, with S from one more read of the row;
//   vllm: the order key puts equal values by the higher index first (its stable ascending
//     top-p walk; greedy rows keep the lowest index), top-k keeps every tie of the k-th value
//     (kth |= all index bits; rank = the count of strictly larger values), min-p tokens are
//     no candidates (min-p runs first, so S is the mass passing min-p and top-k), and each
//     round's token is the race's winner argmax e_i / q_i over the candidates (q [rows, pitch],
//     vLLM's probs.div_(q).argmax() restricted by the same pivot rule: the winner over a
//     superset that lands in the kept set is the winner over the kept set).
// - Determinism: with the same inputs and the same kThreads, the same token on every run
//   (no atomics; the reduction order is fixed by the code, not by scheduling). A row reads only
//   its own inputs and its own (seed, position) stream: batch composition does not matter.
//   Between different kThreads (the emulator's instantiation and the device's) or against
//   the reference, tokens may differ where sums round differently: the distributional tier.
// - options.bug plants a filter bug for the harness's negative control (`wrong:` variants):
//   kTopKKeepsKPlusOne runs every top-k rule with k + 1; kTopPOffByOne keeps or accepts j iff
//   E_j - e_j < p * S (the nucleus takes one token more), on both paths. kNone in every real backend.
// Example: logits {0, -ln2, -2ln2, -2ln2}, temperature 1, top_k 1: token 0 for every seed;
//   temperature 0: token 0 (tests/gpu_fast_sampling_test.cc, "ContractExample").

#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/float_word.cuh"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_slices.cuh"
#include "gpu/block/sample_select.cuh"
#include "gpu/block/thread_share.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/block/warp_run_walk.cuh"
#include "gpu/block/fast_exp.cuh"
#include "gpu/fast/fast_proposals.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_top_k_survivors.cuh"
#include "reference/math/exp.h"
#include "reference/math/exp_threshold.h"
#include "reference/rng/philox.h"
#include "reference/rng/uniform.h"

namespace sampcheck::gpu {

namespace fast_detail {

inline constexpr std::uint64_t kNoKey = ~std::uint64_t{0};  // above every key of a non-NaN value
inline constexpr std::int64_t kNoToken = INT64_MAX;

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t OrderKey(float x, std::int64_t i) {
  return (std::uint64_t{DescendingValueKey(x)} << 32) | static_cast<std::uint32_t>(i);
}

// The order a profile's rules walk (FastFilterRule::ties_high_index_first): equal values by
// the higher index first under vllm's ascending top-p walk (index bits V - 1 - i), else
// OrderKey's lower index first. Either way the index bits stay below the bit length of V - 1,
// as the radix select (SelectKthKey) assumes when it skips the index digits above it.
// V - 1 - i is (i ^ 0xffffffff) + V in 32 bits: a mask, not a select, which nvcc made a branch
// around each key of a read (the loop's body twice over).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t RuleOrderKey(float x, std::int64_t i, std::int64_t vocab,
                                                                       bool high_first) {
  const std::uint32_t flip = high_first ? 0xffffffffu : 0u;
  const std::uint32_t index = (static_cast<std::uint32_t>(i) ^ flip) + (flip & static_cast<std::uint32_t>(vocab));
  return (std::uint64_t{DescendingValueKey(x)} << 32) | index;
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t IndexOfRuleKey(std::uint64_t key, std::int64_t vocab,
                                                                        bool high_first) {
  const auto low = static_cast<std::int64_t>(key & 0xffffffffu);
  return high_first ? vocab - 1 - low : low;
}

// gpu-fast's temperature: s_i = x_i x f32(1 / t), as FlashInfer's fused softmax scales its
// logits (`inv_temp` in OnlineSoftmaxFusedKernel, include/flashinfer/sampling.cuh @fb28d724).
// One multiplication an entry, where the reference's IEEE division (docs/spec/temperature.md)
// took about 10 instructions and a branch to its slow path at every key of every read; s_i may
// differ from x_i / t by a rounding, the tier's freedom (the statistical suite judges it).
// Random rows have t >= 1e-5 (smaller ones are greedy), so 1 / t is finite and positive.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float FastInverseTemperature(float t) { return 1.0f / t; }

// The order keys of a row's s_i = x_i x inv_t (FastInverseTemperature) as a SplitKeySource
// (gpu/block/key_reads.cuh), so that the reads issue their loads before the keys: index i
// is logits[base + i], of row index first + i (a slice's offset), in the profile's order
// (RuleOrderKey; high_first only for a whole row: first 0). s_i is ValueOfDescendingKey of its
// key (-0.0 read as +0.0, which changes no e_i = exp(s_i - m) and no comparison).
template <class In>
struct ScaledOrderKeys {
  In logits;
  std::int64_t base = 0;
  std::int64_t first = 0;
  float inv_t = 1.0f;
  std::int64_t vocab = 0;
  bool high_first = false;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Scale(float x) const { return x * inv_t; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Scaled(std::int64_t i) const { return Scale(Load(i)); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Load(std::int64_t i) const { return logits.Load(base + i); }
  // A QuadKeySource (gpu/block/key_reads.cuh): the logits four a load.
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load4(std::int64_t i) const { return logits.Load4(base + i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t BoundaryGap(std::int64_t i) const {
    return logits.BoundaryGap(base + i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Key(std::int64_t i, float x) const {
    return RuleOrderKey(Scale(x), first + i, vocab, high_first);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t operator()(std::int64_t i) const {
    return Key(i, Load(i));
  }
};

// The reductions' operations (commutative), each with its neutral value.
struct FloatSum {
  static constexpr float kIdentity = 0.0f;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float a, float b) const { return a + b; }
};
struct CountSum {
  static constexpr std::uint32_t kIdentity = 0;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return a + b;
  }
};
struct KeyMin {
  static constexpr std::uint64_t kIdentity = ~std::uint64_t{0};
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    return a < b ? a : b;
  }
};
struct IndexMin {  // kNoToken (no pick) is the identity
  static constexpr std::int64_t kIdentity = std::numeric_limits<std::int64_t>::max();
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return a < b ? a : b;
  }
};
struct IndexMax {
  static constexpr std::int64_t kIdentity = std::numeric_limits<std::int64_t>::min();
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return a > b ? a : b;
  }
};

// A production block reduction (CUB's BlockReduce WARP_REDUCTIONS shape): a butterfly inside
// each warp (WarpAllReduce), lane 0 of each warp stores its warp's value, then lane w of every
// warp loads warp w's value and a second butterfly combines them (CombineWarpValues,
// gpu/block/warp_min.cuh): one load a thread, where a fold in warp order loaded kWarps in
// sequence. Not the canonical 1024-lane tree: the order depends on kThreads. Op: commutative
// (the same bits in every thread), Op::kIdentity its neutral value (the lanes past the last
// warp). Consumes `lane`; returns the result (the same in every thread), then a barrier so
// that the next reduction may reuse shared memory.
template <int kThreads, class T, class B, class R, class Op>
SAMPCHECK_KERNEL_BODY T FastBlockReduce(B& block, R& lane, Op op) {
  constexpr int kWarps = kThreads / kWarpSize;
  WarpAllReduce(block, lane, op);
  SAMPCHECK_SHARED(block, T, warp_values, kWarps);
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) warp_values.Store(t.warp(), lane[t]);
  });
  block.Sync();
  const T result = CombineWarpValues<T>(
      block, kWarps, Op::kIdentity, [&](int w) { return warp_values.Load(w); }, op);
  block.Sync();
  return result;
}

// The inverse CDF of a row's weights in index order, in a free order (a production sampler's
// block scan, not the canonical sequential sum): thread t owns the contiguous chunk
// [t * c, (t + 1) * c), c = ceil(V / kThreads), and sums its weights in index order; the chunk
// masses are scanned by warps (BlockExclusiveScan, gpu/block/block_exclusive_scan.cuh: one
// barrier) and each thread stores its inclusive sum inclusive[t] = (its exclusive offset) +
// (its mass). x = target_of(total), total = inclusive[kThreads - 1]. An owner of x is a thread
// of positive mass with inclusive[t - 1] <= x < inclusive[t] (the stored values, so the ranges
// cover [0, total) without a gap). The offsets round in other trees than the chunk sums, so
// inclusive[] need not increase and two threads may own x: the lowest owner gives the token.
// Its warp walks its chunk (the lowest owner of each warp, found by a Ballot) in 32 runs, lane
// l's [l r, (l + 1) r) of the chunk, r = ceil(its length / 32), started at inclusive[t - 1]
// (WalkWarpRuns, gpu/block/warp_run_walk.cuh): the first i with w_i > 0 whose running sum
// exceeds x (the last such i of the run holding x when rounding keeps the sum at or below
// x). About 2 r reads a lane, where the owner walking its chunk alone read up to c in
// sequence. The block's smallest pick (chunks ascend with t) is the lowest owner's, found by
// FastBlockReduce. No owner (x rounded up to the total): the last i with w_i > 0, a reduction
// run only then. weight(i): w_i, finite >= 0, called three times per entry at most (never
// stored). A QuadWeights source (below: a global array's values and weight.Weight(i, x) of
// value x at i) with at least kThreads quads has chunks of whole quads instead, read four
// elements a load: c = 4 ceil(quads / kThreads) from index 0 (FixedQuadSpanOf,
// gpu/block/quad_reads.cuh: the chunks, whose sums round the token's target, never depend on
// the row's address; off a 16-byte boundary the elements are loaded one at a time), the chunk
// that reaches the tail holding it; still contiguous and in index order.
// Returns the token in every thread (-1 when every w_i is 0) and the total in
// `total`; ends with a barrier, so that its shared arrays may be reused. Barriers: 4 (6 when
// no thread picks: the fallback's reduction), where a Hillis-Steele scan took 11 and the
// warps' picks were searched in warp order, up to kWarps reads a thread.
template <class W>
concept QuadWeights = FixedQuadSource<W> && requires(const W& w, std::int64_t i) {
  { w.Weight(i, w.Load(i)) } -> std::convertible_to<float>;
  w.Load(i);
};

// A row's weights f(i, x) of its values x (a source with Load, Load4 and BoundaryGap, as
// ScaledOrderKeys' logits, or OffBoundary, as fast_spec_random's entries of several rows; x a
// float, or what the source's Load gives), a QuadWeights: one element by weights(i), its
// values by Load and Load4 (LoadQuad, gpu/block/quad_reads.cuh).
template <class Values, class F>
struct ValueWeights {
  Values values;
  F f;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(std::int64_t i) const { return f(i, values.Load(i)); }
  template <class X>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Weight(std::int64_t i, const X& x) const {
    return f(i, x);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load(std::int64_t i) const { return values.Load(i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load4(std::int64_t i) const { return values.Load4(i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t BoundaryGap(std::int64_t i) const
    requires requires { values.BoundaryGap(i); }
  {
    return values.BoundaryGap(i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool OffBoundary(std::int64_t i) const
    requires requires { values.OffBoundary(i); }
  {
    return values.OffBoundary(i);
  }
};
template <class Values, class F>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE ValueWeights<Values, F> WeightsOfValues(const Values& values, F f) {
  return {values, f};
}

template <int kThreads, class B, class Weight, class TargetOf>
SAMPCHECK_KERNEL_BODY std::int64_t FastBlockInverseCdf(B& block, std::int64_t vocab, Weight weight, TargetOf target_of,
                                                       float& total) {
  QuadSpan span{0, 0, vocab};  // without quads: every element a single, chunks of ceil(V / kThreads)
  if constexpr (QuadWeights<Weight>) {
    const QuadSpan quads = FixedQuadSpanOf(weight, 0, vocab);  // not the address's: the token's chunks
    if (quads.quads >= kThreads) span = quads;
  }
  const std::int64_t tail_at = 4 * span.quads;  // the first element past the quads
  const std::int64_t chunk = span.quads > 0 ? 4 * ((span.quads + kThreads - 1) / kThreads)
                                            : (vocab + kThreads - 1) / kThreads;
  const std::int64_t last_at = span.quads > 0 ? tail_at : vocab;  // a boundary at or past it is V
  SAMPCHECK_SHARED(block, float, inclusive, kThreads);
  // [first, end) of thread t's chunk: boundaries t c, the one at or past the tail's start (the
  // row's end without quads) at V.
  auto chunk_of = [&](std::int64_t t, std::int64_t& first, std::int64_t& end) {
    auto boundary = [&](std::int64_t u) {
      if (u == 0) return std::int64_t{0};  // also what keeps fast_inverse_cdf at 32 registers (38 without)
      const std::int64_t b = u * chunk;
      return b < last_at ? b : vocab;
    };
    first = boundary(t);
    end = boundary(t + 1);
  };
  // Each thread's contiguous chunk: its mass and its last positive weight.
  auto last = Registers<std::int64_t>(block);
  auto own = Registers<float>(block);
  block.ForEachThread([&](Thread th) {
    float acc = 0.0f;
    std::int64_t l = -1, first = 0, end = 0;
    chunk_of(th.x, first, end);
    auto add = [&](std::int64_t i, float w) {
      if (w > 0.0f) {
        acc += w;
        l = i;
      }
    };
    std::int64_t i = first;
    if constexpr (QuadWeights<Weight>) {
      for (; i + 4 <= end && i + 4 <= tail_at; i += 4) {
        const auto x = LoadQuad(weight, i, span.scalar);
        for (int j = 0; j < 4; ++j) add(i + j, weight.Weight(i + j, x.v[j]));
      }
    }
    for (; i < end; ++i) add(i, weight(i));
    own[th] = acc;
    last[th] = l;
  });
  float scanned = 0.0f;  // the scan's own total, unused: the owners' ranges end at inclusive[kThreads - 1]
  auto offset = BlockExclusiveScan<kThreads>(block, own, scanned);
  block.ForEachThread([&](Thread th) {
    own[th] = offset[th] + own[th];
    inclusive.Store(th.x, own[th]);
  });
  block.Sync();  // also the scan's: its warp sums may be rewritten
  auto x = Registers<float>(block);
  auto before = Registers<float>(block);
  auto owns = Registers<bool>(block);
  block.ForEachThread([&](Thread th) {
    total = inclusive.Load(kThreads - 1);
    x[th] = target_of(total);
    before[th] = th.x == 0 ? 0.0f : inclusive.Load(th.x - 1);
    owns[th] = last[th] >= 0 && before[th] <= x[th] && x[th] < own[th];
  });
  auto owners = Ballot(block, owns);
  auto owner = Registers<int>(block);  // each warp's lowest owner (a lane), -1: none
  auto pick = Registers<std::int64_t>(block);
  block.ForEachThread([&](Thread th) {
    owner[th] = LowestLane(owners[th]);
    pick[th] = kNoToken;
  });
  // The owner's chunk in 32 runs of `run` entries, lane l's the l-th.
  auto visit_run = [&](Thread th, const auto& visit) {
    std::int64_t chunk_first = 0, chunk_end = 0;
    chunk_of(th.warp() * kWarpSize + owner[th], chunk_first, chunk_end);
    const std::int64_t run = (chunk_end - chunk_first + kWarpSize - 1) / kWarpSize;
    const std::int64_t first = chunk_first + th.lane() * run < chunk_end ? chunk_first + th.lane() * run : chunk_end;
    const std::int64_t end = first + run < chunk_end ? first + run : chunk_end;
    for (std::int64_t i = first; i < end; ++i) {
      if (visit(i, weight(i))) break;
    }
  };
  const auto run_start = WarpValueOfLane(
      block, [&](Thread th) { return owner[th]; }, before);
  (void)WalkWarpRuns(
      block, [&](Thread th) { return owner[th] >= 0; }, run_start, x, visit_run, pick);
  std::int64_t j = FastBlockReduce<kThreads, std::int64_t>(block, pick, IndexMin{});  // ends with a barrier
  if (j == kNoToken) {  // x rounded up to the total
    j = FastBlockReduce<kThreads, std::int64_t>(block, last, IndexMax{});
  }
  return j;
}

// The rules the survivor path applies to the sorted survivors' weights (contract above):
// top-p p (joint: sglang's, against the whole row's mass row_mass, E_j <= p S), min-p mp, and
// the planted top-p bug.
struct SurvivorRules {
  float p = 1.0f;
  float mp = 0.0f;
  bool joint = false;
  float row_mass = 0.0f;
  FastSamplingBug bug = FastSamplingBug::kNone;
};

// Top-p, min-p and the draw on the k sorted survivors' weights w_0 .. w_{k-1} (weight(t, j), read
// by lane t of warp 0 for its own positions: shared memory written and synchronised, or the
// registers TreeSurvivorWeights fills; 1 <= k <= 1024, w_0 = 1, every w_j finite >= 0), by warp
// 0: lane l holds positions [l c, (l + 1) c), c = ceil(k / 32), so that the positions' order is
// the lanes' order. S, and E_j (the mass before j), come from the lanes' sums: the warp butterfly
// (WarpButterflyScan: ShuffleXor 1 .. 16) gives every lane the warp's total S and its exclusive
// prefix (IEEE addition commutes, so every lane of a group holds the same bits), and a lane
// adds its own weights to its prefix in order.
// The kept prefix ends at n, the first position that min-p (w_j >= min(mp, 1) when mp > 0) or
// top-p (E_j == 0, or E_j < p S; joint: E_j <= p row_mass) drops (each is monotone along the
// order; n >= 1: w_0 = 1 with E_0 = 0 is always kept); its mass E_n is taken with n in one
// minimum over the lanes ((n << 32) | bits of E_n). The token is the first j < n of positive
// weight whose running sum exceeds u E_n, else (rounding) the last j < n of positive weight,
// by one more minimum. take(t, j) is called by lane 0 of warp 0 (t); no barrier; the other
// warps skip it (ForWarps). A production
// sampler's order, not the canonical one: the sums round in their own tree (gpu-fast is
// judged statistically). Weights read a lane: 3c (k = 50: 6, where thread 0's sequential
// sums, walk and draw read up to 3k), shared reads in the shared form, none from registers.
template <int kThreads, class B, class Weight, class Take>
SAMPCHECK_KERNEL_BODY void DrawOnSurvivors(B& block, const Weight& weight, std::int64_t k, const SurvivorRules& rules,
                                           float u, Take take) {
  static_assert(kThreads % kWarpSize == 0, "whole warps");
  // Warp 0 alone (ForWarps): the other warps took part in its butterflies and minima until
  // 2026-12-06, with no positions of their own.
  block.ForWarps(WarpZero{}, [&] {
    const std::int64_t chunk = (k + kWarpSize - 1) / kWarpSize;
    auto begin_of = [&](Thread t) { return t.lane() * chunk < k ? t.lane() * chunk : k; };
    auto end_of = [&](Thread t) {
      const std::int64_t e = (t.lane() + 1) * chunk;
      return e < k ? e : k;
    };
    auto before = Registers<float>(block, 0.0f);  // E at the lane's first position
    auto sum = Registers<float>(block);           // the lane's mass, then its group's
    block.ForEachThread([&](Thread t) {
      float acc = 0.0f;
      for (std::int64_t j = begin_of(t); j < end_of(t); ++j) acc += weight(t, j);
      sum[t] = acc;
    });
    WarpButterflyScan(block, sum, before);  // gpu/block/block_exclusive_scan.cuh
    const float min_ratio = rules.mp < 1.0f ? rules.mp : 1.0f;
    auto cut = Registers<std::uint64_t>(block);  // (n << 32) | bits of E_n
    block.ForEachThread([&](Thread t) {
      const float mass = rules.joint ? rules.row_mass : sum[t];
      float kept = before[t];
      std::uint64_t c = kNoKey;
      for (std::int64_t j = begin_of(t); j < end_of(t); ++j) {
        const float e = weight(t, j);
        bool keep = !(rules.mp > 0.0f) || e >= min_ratio;
        if (keep && (rules.p < 1.0f || rules.joint)) {
          const float tested = rules.bug == FastSamplingBug::kTopPOffByOne ? kept - e : kept;
          keep = kept == 0.0f || (rules.joint ? tested <= rules.p * mass : tested < rules.p * mass);
        }
        if (!keep) {
          c = (static_cast<std::uint64_t>(j) << 32) | FloatWord(kept);
          break;
        }
        kept += e;
      }
      if (c == kNoKey && begin_of(t) < k && end_of(t) == k) {
        c = (static_cast<std::uint64_t>(k) << 32) | FloatWord(kept);
      }
      cut[t] = c;
    });
    WarpMin(block, cut);
    // The draw: a hit j as itself, else the lane's last positive weight l as 2048 - l (above
    // every hit: k <= 1024), so that one minimum finds the first hit or, without one, the last
    // positive weight.
    auto pick = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      const auto n = static_cast<std::int64_t>(cut[t] >> 32);
      const float target = u * WordFloat(cut[t]);
      float c = before[t];
      std::uint32_t got = 2049;  // no positive weight below n in this lane
      for (std::int64_t j = begin_of(t); j < end_of(t) && j < n; ++j) {
        const float e = weight(t, j);
        if (!(e > 0.0f)) continue;
        c += e;
        got = static_cast<std::uint32_t>(2048 - j);
        if (c > target) {
          got = static_cast<std::uint32_t>(j);
          break;
        }
      }
      pick[t] = got;
    });
    WarpMin(block, pick);
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      const std::uint32_t r = pick[t];
      take(t, static_cast<std::int64_t>(r < 1024 ? r : 2048 - r));
    });
  });
}

// Position e < 64 of the sorted survivors where the warps' merge tree's last level leaves it
// (MergeTreeRuns' `last`, gpu/block/warp_merge_tree.cuh): lane e mod 32 of warp 0, register
// e / 32, its key and weight.
struct TreeSurvivor {
  std::uint64_t key[2];
  float weight[2];
};
struct TreeSurvivorChunk {
  float weight[2];
};

// DrawOnSurvivors' positions [l c, (l + 1) c), c = ceil(k / 32) <= 2, in lane l of warp 0, from
// the tree's layout (for positions at or past k too, which the draw does not read). Warp 0
// alone.
template <class B, class R>
SAMPCHECK_KERNEL_BODY auto TreeSurvivorWeights(B& block, const R& tree, std::int64_t k) {
  auto chunk = Registers<TreeSurvivorChunk>(block);
  const int c = static_cast<int>((k + kWarpSize - 1) / kWarpSize);
  block.ForWarps(WarpZero{}, [&] {
    auto at = Registers<int>(block);
    for (int i = 0; i < c; ++i) {
      block.ForEachThread([&](Thread t) { at[t] = t.lane() * c + i; });
      const auto w = TreePositionValue<float>(block, [&](Thread t, int r) { return tree[t].weight[r]; }, at);
      block.ForEachThread([&](Thread t) { chunk[t].weight[i] = w[t]; });
    }
  });
  return chunk;
}

// The key at position `chosen` (lane 0's) of the tree's layout, to lane 0 of warp 0: its index
// is the token. Warp 0 alone.
template <class B, class R, class RI, class Out>
SAMPCHECK_KERNEL_BODY void StoreTreeSurvivorToken(B& block, const R& tree, const RI& chosen, Out token,
                                                  std::int64_t row) {
  block.ForWarps(WarpZero{}, [&] {
    const auto at = ShuffleFrom(block, chosen, Registers<int>(block, 0));  // lane 0's to every lane
    const auto key = TreePositionValue<std::uint64_t>(block, [&](Thread t, int r) { return tree[t].key[r]; }, at);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, IndexOfKey(key[t]));
    });
  });
}

// The survivors' keys in shared memory (kFastSurvivorSlots): one array per kernel on the
// device, so a split row's slice gather (gpu/fast/fast_sampling_slices.cuh) and its last
// block's merge below share it (a kernel declares at most 48 KiB of shared memory statically).
template <class B>
SAMPCHECK_KERNEL_BODY auto SurvivorKeySlots(B& block) {
  SAMPCHECK_SHARED(block, std::uint64_t, survivor_keys, kFastSurvivorSlots);
  return survivor_keys;
}

// The survivor path (contract above): top-k's k survivors in shared memory, sorted, then
// top-p, min-p and the draw on them by warp 0 (DrawOnSurvivors; at most 1024 entries). The
// survivors come from the row's slices when it took several blocks (slice_count > 1, every
// slice's list complete: gpu/fast/fast_sampling_slices.cuh), else from the two reads of the row; when
// those candidates do not fit, from the k-th key by the radix select (SelectKthKey) and two
// more reads that gather exactly the keys up to it. Every source gives the same sorted k keys,
// so a row's token does not depend on how many blocks read it.
// `lists`: kFastSurvivorSlots keys of shared memory the merge stages the slices' lists in (the
// caller's dropped_keys, unused on this path).
// probe_first: a min-p-only row's probe (k = kFastMinPProbe, p = 1, gpu/fast/fast_sampling_launch.h
// FastSurvivorK): when survivor k - 1 passes min-p, tokens past the survivors may too, so
// nothing is drawn: the row's first key goes to *probe_first and the call returns false.
// Returns whether a token was stored.
template <int kThreads, class B, class KeyOf, class Slices, class Shared, class Out>
SAMPCHECK_KERNEL_BODY bool SampleOnSurvivors(B& block, KeyOf key_of, Slices slices, std::int64_t slice_base,
                                             std::int64_t slice_count, Shared& lists, std::int64_t vocab,
                                             std::int64_t k, float p, float mp, bool joint, FastSamplingBug bug,
                                             std::uint64_t seed, std::uint64_t position, Out token, std::int64_t row,
                                             std::uint64_t* probe_first = nullptr) {
  auto survivor_keys = SurvivorKeySlots(block);
  SAMPCHECK_SHARED(block, float, survivor_weights, kFastSurvivorSlots);
  float m = 0.0f;  // s of the first token of the order: its weight is exp(0) = 1
  bool merged = false;
  // k <= 64 merged from at most 32 lists, or gathered from the row, by the warps' merge tree:
  // its last level leaves the survivors in warp 0's registers, where the draw (warp 0) takes
  // them, with no shared round trip and no barrier between (the min-p probe reads them in
  // every thread: shared memory).
  const bool in_tree = slice_count > 1 && k <= kTreeKept && slice_count <= kTreeRuns && probe_first == nullptr;
  bool from_tree = false;
  auto tree = Registers<TreeSurvivor>(block);
  std::uint64_t first = kNoKey;  // the smallest head: the row's first key
  // The merge of the slices' sorted lists (MergeSliceLists, gpu/block/row_slices.cuh): exactly
  // the row's top k, each placed at its rank (a key among the row's k smallest has every
  // smaller key of the row listed: it is among its own slice's k smallest). The lists are read
  // from global memory once, coalesced: into the warps' registers for the merge tree (k <= 64),
  // else into shared memory for the binary searches (ranking each key in the 19 other lists
  // took about 114 reads in sequence, and 160 KB of scattered global loads in one block before
  // that).
  if (slice_count > 1) {  // every list complete: its head is not the marker
    merged = MergeSliceLists<kThreads>(block, slices, slice_base, slice_count, k, kNoKey, lists, first,
                                       [&](Thread t, int position, std::uint64_t x) {
                                         const float w = math::ExpF32Cr(ValueOfDescendingKey(x) -
                                                                        ValueOfDescendingKey(first));
                                         if (in_tree) {
                                           tree[t].key[position / kWarpSize] = x;
                                           tree[t].weight[position / kWarpSize] = w;
                                           return;
                                         }
                                         survivor_keys.Store(position, x);
                                         survivor_weights.Store(position, w);
                                       });
  }
  if (merged) {
    m = ValueOfDescendingKey(first);  // first: set before the merge placed a key
    from_tree = in_tree;
    if (!in_tree) block.Sync();
  } else {
    std::uint32_t total = 0;
    bool stands = false;  // the tree's keys are the top k (GatherFastSurvivors' tree_place)
    auto tree_place = [&](Thread t, std::int64_t j, std::uint64_t x) { tree[t].key[j / kWarpSize] = x; };
    if (!GatherFastSurvivors<kThreads>(block, vocab, k, key_of, survivor_keys, total, NoPlace{}, tree_place,
                                       &stands)) {
      const std::uint64_t kth = SelectKthKey<kThreads>(block, vocab, key_of, k);
      (void)GatherUpToBound<kThreads>(block, vocab, kth, key_of, survivor_keys, total);  // exactly k keys
    }
    block.ForEachThread([&](Thread) { m = ValueOfDescendingKey(survivor_keys.Load(0)); });
    from_tree = stands && probe_first == nullptr;
    if (from_tree) {  // warp 0 weighs the keys it holds: no store, no barrier
      block.ForWarps(WarpZero{}, [&] {
        block.ForEachThread([&](Thread t) {
          for (int r = 0; r < 2; ++r) {
            if (r * kWarpSize + t.lane() >= k) continue;
            tree[t].weight[r] = math::ExpF32Cr(ValueOfDescendingKey(tree[t].key[r]) - m);
          }
        });
      });
    } else {
      block.ForEachThread([&](Thread t) {
        for (std::int64_t j = t.x; j < k; j += kThreads) {
          survivor_weights.Store(j, math::ExpF32Cr(ValueOfDescendingKey(survivor_keys.Load(j)) - m));
        }
      });
      block.Sync();
    }
  }
  if (probe_first != nullptr) {
    // The weights are monotone along the order (ExpF32Cr, s - m): when the probe's last one
    // fails min-p, so does every token after it, and the kept prefix lies in the probe.
    auto last = Registers<float>(block);
    std::uint64_t first_key = kNoKey;
    block.ForEachThread([&](Thread th) {
      last[th] = survivor_weights.Load(k - 1);
      first_key = survivor_keys.Load(0);
    });
    if (!(BlockUniform(block, last) < (mp < 1.0f ? mp : 1.0f))) {
      *probe_first = first_key;
      return false;
    }
  }
  // sglang's joint top-p (FastFilterRule::top_p_joint) reads the whole row's mass: one more read.
  float row_mass = 0.0f;
  if (joint) {
    auto lane = Registers<float>(block);
    const ThreadShare share = ShareOf(key_of, vocab, kThreads);  // a sum: any share, four a load
    block.ForEachThread([&](Thread t) {
      float acc = 0.0f;
      ForEachShareKey(key_of, share, t.x,
                      [&](std::int64_t, std::uint64_t key) { acc += math::ExpF32Cr(ValueOfDescendingKey(key) - m); });
      lane[t] = acc;
    });
    row_mass = FastBlockReduce<kThreads, float>(block, lane, FloatSum{});
  }
  const float u = rng::UniformClosedOpen24F32(rng::CurandPhiloxWord(seed, position, 0));
  const SurvivorRules rules{p, mp, joint, row_mass, bug};
  if (from_tree) {
    const auto chunk = TreeSurvivorWeights(block, tree, k);
    const std::int64_t c = (k + kWarpSize - 1) / kWarpSize;
    auto chosen = Registers<int>(block);
    DrawOnSurvivors<kThreads>(
        block, [&](Thread t, std::int64_t j) { return chunk[t].weight[j - t.lane() * c]; }, k, rules, u,
        [&](Thread t, std::int64_t j) { chosen[t] = static_cast<int>(j); });
    StoreTreeSurvivorToken(block, tree, chosen, token, row);
    return true;
  }
  DrawOnSurvivors<kThreads>(
      block, [&](Thread, std::int64_t j) { return survivor_weights.Load(j); }, k, rules, u,
      [&](Thread, std::int64_t chosen) { token.Store(row, IndexOfKey(survivor_keys.Load(chosen))); });
  return true;
}

}  // namespace fast_detail

template <int kBlockThreads>
struct FastSamplingKernel {
  static constexpr const char* kName = "fast_sampling";
  static constexpr int kThreads = kBlockThreads;
  // Two blocks per SM (gpu/runners/kernel_entry.cuh): 32 registers a thread at 1024 threads, some spilled; launched
  // for batches of more than 132 rows only (gpu/fast/fast_sampling_launch.h). Timed on an H200 at 256 x 151936, 1.4x
  // faster than one block at 64 registers: a single wave of 256 blocks, not two (docs/gpu.md "Occupancy").
  static constexpr int kMinBlocksPerSm = 2;
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024,
                "one block of whole warps, at most 1024 threads");
  static_assert(fast_detail::kFastSurvivorSlots == kFastSliceSlots, "a row's merged slices fill the survivor slots");

  template <class B, class In, class F32, class I32, class U64, class Slices, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, F32 temperature, I32 top_k, F32 top_p, F32 min_p,
                                        U64 seed, U64 position, F32 q, Slices slices, Out token, std::int64_t vocab,
                                        std::int64_t pitch, std::int64_t slice_budget,
                                        FastSamplingOptions options) const {
    Row(block, block.index(), logits, temperature, top_k, top_p, min_p, seed, position, q, slices, token, vocab, pitch,
        slice_budget, options);
  }

  // One row's work, by block `row` of this kernel or by the last block of the row's slices
  // (gpu/fast/fast_sampling_slices.cuh), which then merges the slices' partials.
  template <class B, class In, class F32, class I32, class U64, class Slices, class Out>
  SAMPCHECK_KERNEL_BODY void Row(B& block, std::int64_t row, In logits, F32 temperature, I32 top_k, F32 top_p,
                                 F32 min_p, U64 seed, U64 position, F32 q, Slices slices, Out token,
                                 std::int64_t vocab, std::int64_t pitch, std::int64_t slice_budget,
                                 FastSamplingOptions options) const {
    using fast_detail::OrderKey;
    const FastFilterRule& rule = options.rule;
    const std::int64_t base = row * pitch;
    const float t = temperature.Load(row);
    // Greedy rows (as reference/temperature.h): the argmax of the logits themselves, merged
    // from the slices' argmaxes when the row took several (gpu/fast/fast_sampling_slices.cuh,
    // its last block here).
    if (FastIsGreedy(t, options.greedy_below)) {
      const std::int64_t slice_count = FastRowSlices(slice_budget, vocab, true, 0, rule);
      auto value = Registers<float>(block);
      auto index = Registers<std::int64_t>(block);
      if (slice_count > 1) {  // the slices' winners, merged as the greedy kernel merges them
        MergeSliceWinnersF32(block, slices, row * kFastSliceSlots, slice_count, value, index);
      } else {
        // One block reads the row, a compare of floats an entry (the order keys' order on a
        // NaN-free row: the larger value, then the lower index, -0.0 equal to +0.0).
        QuadRangeArgmaxF32<kThreads>(block, logits, base, vocab, value, index);
      }
      block.ForEachThread([&](Thread th) {
        if (th.x == 0) token.Store(row, index[th]);
      });
      return;
    }
    // Random rows order the scaled logits (s_i = x_i x f32(1 / t), in which rounding can create
    // ties the logits did not have).
    // s_i and e_i are recomputed from the logits at every read: no row-sized scratch is
    // written or read back, so a pass costs one read of the logits.
    const float inv_t = fast_detail::FastInverseTemperature(t);
    // The order of the profile's rules.
    const bool high_first = rule.ties_high_index_first;
    auto key_at = [&](float s, std::int64_t i) { return fast_detail::RuleOrderKey(s, i, vocab, high_first); };
    // The keys as a split source (gpu/block/key_reads.cuh): the row's reads below issue
    // kKeyGroup loads before their keys.
    const fast_detail::ScaledOrderKeys<In> rule_keys{logits, base, 0, inv_t, vocab, high_first};
    auto scaled = [&](std::int64_t i) { return rule_keys.Scaled(i); };
    // Each thread's share of the row (gpu/block/thread_share.cuh): the reads whose per-thread
    // masses the proposals walk back take it, four elements a load on rows of 4096 or more.
    const ThreadShare share = ShareOf(rule_keys, vocab, kThreads);

    const std::int64_t k = FastTopKOf(top_k.Load(row), options.bug);
    const float p = top_p.Load(row);
    const float mp = min_p.Load(row);
    const bool top_k_on = FastTopKOn(k, vocab);
    const std::uint64_t row_seed = seed.Load(row);
    const std::uint64_t row_position = position.Load(row);
    // A small top-k: two reads of the logits, everything else on the survivors.
    // The survivor path follows the canonical rules and sglang's joint top-p; vllm's rules
    // (ties, its order, min-p first, the race) take the rejection rounds below.
    const bool survivor_rules = rule.Canonical() || (rule.top_p_joint && !rule.top_k_keeps_ties && !rule.min_p_first &&
                                                     !rule.ties_high_index_first && !rule.race);
    // A row split over several blocks (gpu/fast/fast_sampling_slices.cuh, its last block here):
    // its partials are merged here.
    // The survivors gathered first (top-k's k, or a min-p-only row's probe): what the row's
    // slices gathered when it took several.
    const std::int64_t survivors = FastSurvivorK(k, p, mp, vocab, rule);
    const std::int64_t slice_count = FastRowSlices(slice_budget, vocab, false, survivors, rule);
    const std::int64_t slice_base = row * kFastSliceSlots;
    // The near-V gather's keys below; the survivor path's merge stages the slices' lists in it.
    SAMPCHECK_SHARED(block, std::uint64_t, dropped_keys, fast_detail::kFastSurvivorSlots);
    // The first token of the order: the row's maximum. A row selected by the sample first takes
    // it from the select's count read, a min-p-only row from its probe: no read of its own.
    std::uint64_t first_key = fast_detail::kNoKey;
    // The survivor path: a small top-k's survivors; or min-p alone (canonical), whose probe's
    // survivors are drawn from when they hold every token min-p keeps (one read of the row, or
    // of each slice), else the rounds below go on from the probe's maximum (min-p a candidate
    // rule: one round, one more read).
    const bool min_p_probe = survivors != k;  // FastSurvivorK gave the probe
    if (min_p_probe || (survivor_rules && top_k_on && k <= fast_detail::kFastSurvivorSlots)) {
      const fast_detail::ScaledOrderKeys<In> key_of{logits, base, 0, inv_t};
      if (fast_detail::SampleOnSurvivors<kThreads>(block, key_of, slices, slice_base, slice_count, dropped_keys, vocab,
                                                   survivors, p, mp, rule.top_p_joint, options.bug, row_seed,
                                                   row_position, token, row, min_p_probe ? &first_key : nullptr)) {
        return;
      }
    }

    // top-k near V (more than 1024 survivors, at most 1024 dropped): the dropped tokens are
    // the survivors of the reversed order, gathered like the top k, their first read fused
    // with the one below.
    const bool near_vocab = rule.Canonical() && top_k_on && k > fast_detail::kFastSurvivorSlots &&
                            vocab - k <= fast_detail::kFastSurvivorSlots;
    const ReversedKeys<fast_detail::ScaledOrderKeys<In>> reversed{rule_keys};  // canonical: OrderKey

    const float min_ratio = mp < 1.0f ? mp : 1.0f;
    // vllm's min-p runs before top-k and top-p: its dropped tokens are no candidates, so round
    // 0's total (the mass top-p renormalises by) is that of the tokens passing both. Without
    // top-p no round's total is read, so every profile's min-p is a candidate rule: the tokens
    // min-p keeps (e_i >= min_ratio, relative to the maximum, which every filter keeps) do not
    // depend on where it runs, and rejection from fewer candidates accepts the same law. min-p
    // 1 then draws among the maximum's ties in round 0 instead of rejecting until one of them
    // is drawn (10.5 reads of the row at 64 x 128256, 3 now).
    const bool min_p_candidates = mp > 0.0f && (rule.min_p_first || !(p < 1.0f));

    // Proposals (gpu/fast/fast_proposals.cuh): canonical rows that take the rounds below (top-k
    // near V, top-k off, other top-k with top-p on) draw kFastProposals tokens from the
    // per-thread masses of the read that finds the maximum (near V and top-k off: P = every
    // token; the sample select's count read: P = the keys below its last splitter, which hold
    // T when the sample hits), then one read (fused into the near-V gather and the select's
    // gather) sums the mass before each; the first proposal the rules keep is the token, as
    // the rounds' rejection would give it. Min-p as a candidate rule keeps the rounds.
    constexpr int kProposals = fast_detail::kFastProposals;
    const bool propose = rule.Canonical() && !min_p_candidates && (near_vocab || !top_k_on || p < 1.0f);
    auto lent = fast_detail::SurvivorKeySlots(block);  // unused on these paths
    auto online = Registers<fast_detail::OnlineMass>(block);
    // Per thread: (slot 0) its part of S (the select's) or of the dropped tokens' mass (near
    // V), then (slot 1 + d) the mass before proposal d.
    auto parts = Registers<fast_detail::LaneSums<kProposals + 1>>(block);
    std::int64_t proposal[kProposals];
    std::uint64_t proposal_key[kProposals];
    std::uint64_t last_proposal_key = 0;  // the largest key of a drawn proposal (0: none drawn)
    float proposal_total = 0.0f;
    bool proposed = false;
    float m = 0.0f;  // s of the first token of the order
    // The weights these reads sum and draw from: FastExpF32 (gpu/block/fast_exp.cuh), within an
    // ulp of exp. min-p decides by the correctly rounded ExpF32Cr, monotone along the order as
    // the rules' prefix arguments need (every token after a rejected one is rejected too):
    // ExpF32Cr(s - m) >= min_ratio is s - m >= its least passing argument, found once a row
    // (reference/math/exp_threshold.h), so the reads that decide min-p per entry compare.
    auto weight_of = [&](float s) { return fast_detail::RowWeight{m}.OfValue(s); };
    auto weight = [&](std::uint64_t key) { return fast_detail::RowWeight{m}(key); };
    const float min_p_floor = mp > 0.0f ? math::ExpF32CrThreshold(min_ratio) : 0.0f;
    auto min_p_keeps = [&](float s) { return s - m >= min_p_floor; };
    auto draw_proposals = [&](std::uint64_t first_key_of_row, std::uint64_t below) {
      m = scaled(fast_detail::IndexOfRuleKey(first_key_of_row, vocab, false));
      auto mass = Registers<float>(block);
      block.ForEachThread([&](Thread th) {
        mass[th] = online[th].Mass(m);
        for (int d = 0; d <= kProposals; ++d) parts[th].v[d] = 0.0f;
      });
      float u[kProposals];
      for (int d = 0; d < kProposals; ++d) {
        const std::uint64_t word = rng::CurandPhiloxWord(row_seed, row_position, static_cast<std::uint64_t>(d));
        u[d] = rng::UniformClosedOpen24F32(word);
      }
      fast_detail::DrawProposals<kThreads, kProposals>(
          block, share, mass, lent, rule_keys,
          [&](std::uint64_t key) { return key < below ? weight(key) : 0.0f; }, u,
          proposal, proposal_total);
      for (int d = 0; d < kProposals; ++d) {
        proposal_key[d] = proposal[d] < 0 ? fast_detail::kNoKey : OrderKey(scaled(proposal[d]), proposal[d]);
        if (proposal[d] >= 0 && proposal_key[d] > last_proposal_key) last_proposal_key = proposal_key[d];
      }
      proposed = true;
    };
    // Thread t's share of the masses before the proposals, for the keys its read holds
    // (AddBeforeProposals: a key at or after the last drawn proposal adds to none of their
    // sums, an undrawn one's, kNoKey, is never read; most of a row's keys, which then cost one
    // compare). The select's gather hook (BeforeProposalsWork) adds in the read's registers and
    // gives its sums to parts after it; top-k off's read and the near-V gather's count read take
    // out-of-line reads (SumBeforeProposals, CountDroppedBeforeProposals), their sums in
    // registers (docs/gpu.md "Reading the SASS"), added here into parts' sums, which are still 0
    // then: the same bits as additions into parts.
    // The out-of-line reads' copy of the keys.
    auto proposal_keys = [&] { return fast_detail::ProposalKeysOf(proposed, proposal_key, last_proposal_key); };
    auto add_out_of_line = [&](Thread th, const fast_detail::LaneSums<kProposals>& before) {
      for (int d = 0; d < kProposals; ++d) parts[th].v[1 + d] += before.v[d];
    };

    // top-k with top-p on (top-p reads the top-k set's mass, so the set is selected first;
    // sglang's joint top-p reads the whole row's mass, so its top-k stays an acceptance rule):
    // splitters from a sample bracket the k-th key, two reads of the row (count, gather),
    // exact; the radix select of the bit-exact filters when the sample misses (at most 8 + 8
    // reads more). The profile's keys (key_at) keep their index bits below the bit length of
    // V - 1, which the radix select's skipped digits require. `slots`: dropped_keys, free
    // before the near-V gather and after it.
    // One call site, one instantiation of the select (its shared arrays and the radix
    // select's are static per instantiation: two would pass 48 KiB in the slices' kernel); its
    // fused work (the proposals') runs only when select_fuses is set.
    bool select_fuses = false;
    auto select_work = MakeSelectWork(
        fast_detail::OnlineMassWork<decltype(online)>{&select_fuses, &online},
        [&](bool hit, std::uint64_t smallest, std::uint64_t hi) {
          if (select_fuses && hit) draw_proposals(smallest, hi);
        },
        fast_detail::BeforeProposalsWork<kProposals, decltype(parts)>{
            &select_fuses, &proposed, &proposal_key, &last_proposal_key, &m, &parts},
        [&](Thread th, std::uint64_t key, bool kept) {
          if (select_fuses && proposed && kept) parts[th].v[0] += weight(key);
        });
    auto select_kth = [&](std::uint64_t* smallest) {
      const std::uint64_t key = SelectKthKeyBySample<kThreads>(
          block, vocab, rule_keys, k, dropped_keys, smallest, select_work);
      // vllm keeps every token tied with the k-th value: every index under its value key.
      return rule.top_k_keeps_ties ? key | 0xffffffffu : key;
    };
    std::uint64_t kth = fast_detail::kNoKey;
    bool selected = false;
    if (!near_vocab && top_k_on && p < 1.0f && !rule.top_p_joint) {
      // With proposals: drawn from the count read's masses below the last splitter; the
      // gather read sums the masses before them and S's part below the bin, the bin's ranking
      // the rest.
      select_fuses = propose;
      kth = select_kth(&first_key);
      select_fuses = false;
      selected = true;
    } else if (first_key == fast_detail::kNoKey) {  // not found by a probe
      auto key_lane = Registers<std::uint64_t>(block);
      block.ForEachThread([&](Thread th) {
        std::uint64_t best = fast_detail::kNoKey;
        auto visit = [&](std::int64_t, std::uint64_t key) {
          if (key < best) best = key;
          if (propose) online[th].Add(ValueOfDescendingKey(key));
        };
        if (near_vocab) {
          fast_detail::StoreLaneMinima<kThreads>(th, vocab, dropped_keys, reversed,
                                                 [&](std::int64_t i, std::uint64_t key) { visit(i, ~key); });
        } else {
          ForEachShareKey(rule_keys, share, th.x, visit);
        }
        key_lane[th] = best;
      });
      first_key = fast_detail::FastBlockReduce<kThreads, std::uint64_t>(block, key_lane, fast_detail::KeyMin{});
      if (propose) draw_proposals(first_key, fast_detail::kNoKey);
    }
    const auto first = fast_detail::IndexOfRuleKey(first_key, vocab, high_first);
    m = scaled(first);

    // top-k: T = {i : key_i <= kth}. Near V, kth is just before the first dropped key. Else,
    // with top-p on, the k-th smallest key by a sample's splitters (above); without top-p, top-k
    // is one more acceptance rule (rank(j) < k, FlashInfer's TopKSamplingFromProb).
    // S: the mass of the top-k set (what the canonical top-p renormalises by): the proposals'
    // sums, else round 0's total, whose candidates are every token of T with a positive weight.
    float top_k_mass = 0.0f;
    bool mass_known = false;
    if (near_vocab) {
      const std::int64_t dropped = vocab - k;
      std::uint32_t gathered = 0;
      constexpr int kCap = CachedCandidatesPerThread<kThreads>();
      auto count = [&](Thread th, const auto& key_of, const KeyPartition& part, const auto& candidate, auto& cache) {
        const auto counted = fast_detail::CountDroppedBeforeProposals<kCap>(key_of, part, th.x, candidate,
                                                                          proposal_keys(), fast_detail::RowWeight{m});
        counted.index.ForEach([&](std::uint32_t i) { cache.Add(key_of.Key(i, key_of.Load(i))); });
        cache.count = counted.index.count;  // every candidate counted, the first kCap held
        if (proposed) add_out_of_line(th, counted.before);
      };
      if (fast_detail::GatherBelowLaneBound<kThreads>(block, vocab, dropped, reversed, dropped_keys, gathered, count)) {
        block.ForEachThread([&](Thread th) {
          kth = ~dropped_keys.Load(dropped - 1) - 1u;  // keys are unique
          if (!proposed) return;
          for (std::int64_t j = th.x; j < dropped; j += kThreads) {
            parts[th].v[0] += weight(~dropped_keys.Load(j));
          }
        });
        block.Sync();
        selected = true;
        mass_known = proposed;
      }
    } else if (proposed) {
      mass_known = true;  // the select's hit, or top-k off (S = every token's mass)
      if (!top_k_on && p < 1.0f) {  // the masses before the proposals: one read
        block.ForEachThread([&](Thread th) {
          add_out_of_line(
              th, fast_detail::SumBeforeProposals(rule_keys, share, th.x, proposal_keys(), fast_detail::RowWeight{m}));
        });
      }
    }
    if (!selected && top_k_on && p < 1.0f && !rule.top_p_joint) {  // the near-V gather did not fit
      selected = true;
      kth = select_kth(nullptr);
    }
    auto in_top_k = [&](std::uint64_t key) { return key <= kth; };

    std::uint64_t pivot = fast_detail::kNoKey;
    // The proposals, in order: the first that every rule keeps is the token. All rejected
    // (rarely: each is kept with probability mass(kept) / mass(P)): the rounds below, their
    // candidates below the smallest rejected key (every rule is monotone along the order) and
    // their uniforms after the proposals' words.
    std::uint64_t first_word = 0;
    if (mass_known) {
      // S's part and the first proposal's mass before it; the other proposals' only when the
      // first is rejected (fast_detail::SumProposalLanes).
      float sums[kProposals + 1] = {};
      const bool before_needed = p < 1.0f;
      if (before_needed) fast_detail::SumProposalLanes<kThreads, kProposals + 1>(block, parts, lent, sums, 0, 2);
      top_k_mass = near_vocab ? proposal_total - sums[0] : (top_k_on ? sums[0] : proposal_total);
      for (int d = 0; d < kProposals; ++d) {
        if (d == 1 && before_needed) {
          fast_detail::SumProposalLanes<kThreads, kProposals + 1>(block, parts, lent, sums, 2, kProposals + 1);
        }
        const std::int64_t j = proposal[d];
        if (j < 0) continue;
        const std::uint64_t kj = proposal_key[d];
        const float ej = weight(kj);
        bool accept = (!selected || in_top_k(kj)) && (!(mp > 0.0f) || min_p_keeps(ValueOfDescendingKey(kj)));
        if (accept && before_needed) {
          const float before = sums[1 + d];
          const float tested = options.bug == FastSamplingBug::kTopPOffByOne ? before - ej : before;
          accept = before == 0.0f || tested < p * top_k_mass;
        }
        if (accept) {
          block.ForEachThread([&](Thread th) {
            if (th.x == 0) token.Store(row, j);
          });
          return;
        }
        pivot = kj < pivot ? kj : pivot;
      }
      first_word = kProposals;
    } else if (proposed) {
      first_word = kProposals;
    }

    for (std::int64_t round = 0; round <= vocab; ++round) {
      auto candidate = [&](std::uint64_t key, float s, float e) {
        return in_top_k(key) && key < pivot && e > 0.0f && (!min_p_candidates || min_p_keeps(s));
      };
      std::int64_t j = -1;
      if (!rule.race) {
        const float u = rng::UniformClosedOpen24F32(
            rng::CurandPhiloxWord(row_seed, row_position, first_word + static_cast<std::uint64_t>(round)));
        // The inverse CDF over the candidates' weights (0 for every other token).
        float round_total = 0.0f;
        // The candidates' weights from the logits, four a load (ValueWeights).
        j = fast_detail::FastBlockInverseCdf<kThreads>(
            block, vocab,
            fast_detail::WeightsOfValues(rule_keys,
                                         [&](std::int64_t i, float x) {
                                           const float s = rule_keys.Scale(x);
                                           const float e = weight_of(s);
                                           return candidate(key_at(s, i), s, e) ? e : 0.0f;
                                         }),
            [&](float total) { return u * total; }, round_total);
        if (round == 0 && !mass_known) top_k_mass = round_total;
      } else {
        // vllm: the race's winner among the candidates, argmax e_i / q_i (the lowest index
        // among equal ratios: a minimum over order keys of the ratio, a total order); round 0
        // sums the candidates' mass in the same read.
        auto best = Registers<std::uint64_t>(block);
        auto mass = Registers<float>(block);
        block.ForEachThread([&](Thread th) {
          std::uint64_t b = fast_detail::kNoKey;
          float acc = 0.0f;
          ForEachShareKey(rule_keys, share, th.x, [&](std::int64_t i, std::uint64_t key) {
            const float s = ValueOfDescendingKey(key);
            const float e = weight_of(s);
            if (!candidate(key, s, e)) return;
            acc += e;
            const std::uint64_t ratio_key = OrderKey(e / q.Load(base + i), i);
            if (ratio_key < b) b = ratio_key;
          });
          best[th] = b;
          mass[th] = acc;
        });
        const std::uint64_t won =
            fast_detail::FastBlockReduce<kThreads, std::uint64_t>(block, best, fast_detail::KeyMin{});
        if (round == 0 && p < 1.0f && !mass_known) {
          top_k_mass =
              fast_detail::FastBlockReduce<kThreads, float>(block, mass, fast_detail::FloatSum{});
        }
        j = won == fast_detail::kNoKey ? -1 : static_cast<std::int64_t>(won & 0xffffffffu);
      }
      if (j < 0) j = first;  // no candidate: unreachable while the first token is never rejected
      const float sj = scaled(j);
      const float ej = weight_of(sj);
      const std::uint64_t kj = key_at(sj, j);
      bool accept = !(mp > 0.0f) || min_p_keeps(sj);
      if (accept && top_k_on && !selected) {
        // vllm's top-k keeps ties: the rank counts the strictly larger values only.
        const std::uint64_t rank_bound = rule.top_k_keeps_ties ? kj & ~std::uint64_t{0xffffffffu} : kj;
        auto rank = Registers<std::uint32_t>(block);
        block.ForEachThread([&](Thread th) {
          std::uint32_t c = 0;
          ForEachShareKey(rule_keys, share, th.x,
                          [&](std::int64_t, std::uint64_t key) { c += key < rank_bound ? 1u : 0u; });
          rank[th] = c;
        });
        accept = static_cast<std::int64_t>(
                     fast_detail::FastBlockReduce<kThreads, std::uint32_t>(block, rank, fast_detail::CountSum{})) < k;
      }
      if (accept && (p < 1.0f || rule.top_p_joint)) {
        auto before = Registers<float>(block);
        block.ForEachThread([&](Thread th) {
          float acc = 0.0f;
          ForEachShareKey(rule_keys, share, th.x, [&](std::int64_t, std::uint64_t key) {
            if (key < kj) acc += weight_of(ValueOfDescendingKey(key));  // before j in the order: inside T
          });
          before[th] = acc;
        });
        const float ej_before =
            fast_detail::FastBlockReduce<kThreads, float>(block, before, fast_detail::FloatSum{});
        const float tested = options.bug == FastSamplingBug::kTopPOffByOne ? ej_before - ej : ej_before;
        // sglang: E_j <= p * S, S the whole row's mass (T is every token there).
        accept = ej_before == 0.0f || (rule.top_p_joint ? tested <= p * top_k_mass : tested < p * top_k_mass);
      }
      if (accept || j == first) {
        block.ForEachThread([&](Thread th) {
          if (th.x == 0) token.Store(row, j);
        });
        return;
      }
      pivot = kj;
    }
    block.ForEachThread([&](Thread th) {
      if (th.x == 0) token.Store(row, first);
    });
  }
};

}  // namespace sampcheck::gpu
