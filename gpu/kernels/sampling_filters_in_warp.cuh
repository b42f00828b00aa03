// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters' survivor steps (top_k -> top_p -> min_p, then the seeded draw) by warp 0
// alone, on at most 64 candidates in its registers: no barrier, no shared memory, the token
// of the block's steps in gpu/kernels/sampling_filters_on_survivors.cuh bit for bit (docs/gpu.md
// "The survivor chain in warp 0"; docs/spec/filters.md "Work on the survivors only").
//
// Contract:
// - SamplingFiltersOnSurvivors takes it when k <= kTreeKept = 64, the candidates are at most
//   64, and only the token is wanted (draw, write_rows false) or the block writes the row whole
//   (a row not split over blocks: its columns as dropped by every thread, then the final
//   survivors' by warp 0 after a barrier): sorted[0, total) in the canonical order, held in
//   warp 0's slots (sorted[e] in lane e mod 32, register e / 32; slots past total are not
//   read), with K = sorted[k - 1] finite. The steps are warp-level code of warp 0 (ForWarps):
//   the other warps have nothing to do but the dropped columns, and the drawn token is left in
//   lane 0's `drawn` (thread 0's, as SeededGumbelOnSurvivors leaves it).
// - The same operations on the same values as the block's steps: top_k keeps the first k (with
//   ties, and every later candidate of K's value: a prefix, found by one mask); M is the first
//   key's value; each survivor's numerator ExpF32Cr(x - M) is made once (a slot's lane) and
//   st.Prob(x) = numerator / s; every s is the canonical sum of the current prefix's
//   numerators (WarpCanonicalSum over the survivors' CanonicalOrderKey order, the positions
//   past the prefix -0.0: the block's lane folds skip them, key > last); top_p's walk takes
//   the positions 0, 1, .. in order, each numerator copied to every lane (a shuffle), so every
//   lane runs the block's thread-0 walk (TopPVisitPrefix, its cut) and the stop is the same in
//   all; min_p keeps the prefix whose probabilities pass MinPThreshold of the first's; the draw
//   scores each final survivor (SeededGumbelDrawable, SeededGumbelScore) and takes the maximum
//   in ArgmaxAboveF64's total order, which no tree changes.
// - WarpSurvivorSteps: the steps up to the draw, returning the final survivors' count n and
//   their SoftmaxStats, each survivor's numerator left in its slot (numerator / s against the
//   reference's probs: tests/gpu_filters_in_warp_test.cc; the token alone would not show it).
// - Cost: the survivors' order keys sorted once (WarpSortPairs); per canonical sum about 50
//   warp operations (gpu/block/warp_canonical_sum.cuh); the walk one shuffle a position;
//   nothing a barrier waits for: the block's chain took 7 barriers after a split row's merge.
// Example: the ln 2 row {0, -ln2, -2 ln2, -2 ln2}, top_k 3, top_p 0.75: E = 0, 4/7 keeps {0, 1}
//   (the block's example; tests/gpu_filters_seeded_draw_test.cc compares the two paths' tokens).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_canonical_sum.cuh"
#include "gpu/kernels/dropped_column.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "gpu/kernels/top_p.cuh"

namespace sampcheck::gpu {

namespace in_warp_detail {

// The first slot not in m (64 when every slot is).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t FirstSlotOutside(std::uint64_t m) {
  return (m & 1u) == 0 ? 0 : NextSlotAbove(~m, 0);
}

}  // namespace in_warp_detail

// The final survivors: sorted[0, n), their softmax statistics.
struct WarpSurvivors {
  std::int64_t n = 0;
  SoftmaxStats st{};
};

// The steps up to the draw (warp-level code of warp 0, contract above): numerator[t].v[r] is
// left holding slot e's ExpF32Cr(x - M) for e below top_k's count, so st.Prob of survivor e is
// numerator / st.sum.
template <class B, class Keys, class RN>
SAMPCHECK_KERNEL_BODY WarpSurvivors WarpSurvivorSteps(B& block, const Keys& keys, std::int64_t total, std::int64_t k,
                                                      bool ties, bool run_top_p, TopPWalk walk, float q, float m,
                                                      const FilterRules& rules, RN& numerator) {
  using in_warp_detail::FirstSlotOutside;
  auto slot = [](Thread t, int r) { return r * kWarpSize + t.lane(); };
  auto key_at = [&](Thread t, int r) { return slot(t, r) < total ? keys[t].v[r] : kNoKey; };
  // top_k: the first k, with ties every later candidate of K's value (a prefix of the order).
  std::int64_t n = k;
  if (ties) {
    auto at = Registers<int>(block);
    block.ForEachThread([&](Thread t) { at[t] = static_cast<int>(k - 1); });
    const std::uint64_t kth =
        BlockUniform(block, TreePositionValue<std::uint64_t>(block, [&](Thread t, int r) { return key_at(t, r); }, at));
    n = FirstSlotOutside(SlotMask(block, [&](Thread t, int r) { return (key_at(t, r) >> 32) <= (kth >> 32); }));
  }
  // M and the numerators, slot e's in slot e.
  const std::uint64_t first =
      BlockUniform(block, TreeFirstValue<std::uint64_t>(block, [&](Thread t, int r) { return keys[t].v[r]; }));
  const float max = ValueOfDescendingKey(first);
  auto order = Registers<SlotKeys<2>>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < 2; ++r) {
      const bool held = slot(t, r) < n;
      const std::uint64_t key = key_at(t, r);
      numerator[t].v[r] = held ? math::ExpF32Cr(ValueOfDescendingKey(key) - max) : -0.0f;
      order[t].v[r] = held ? CanonicalOrderKey(static_cast<std::uint64_t>(IndexOfKey(key)), slot(t, r)) : kNoKey;
    }
  });
  // The canonical order of top_k's survivors, each order slot's position and numerator.
  WarpSortPairs(block, order);
  auto position = Registers<SlotInts>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < 2; ++r) {
      position[t].v[r] = order[t].v[r] == kNoKey ? slot(t, r) : static_cast<int>(order[t].v[r] % 1024);
    }
  });
  const auto term = FromSlots(block, numerator, position);
  // s of the prefix [0, n): the terms of later positions are -0.0.
  auto sum_of = [&](std::int64_t prefix) {
    auto value = Registers<SlotFloats>(block);
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) {
        value[t].v[r] = order[t].v[r] != kNoKey && position[t].v[r] < prefix ? term[t].v[r] : -0.0f;
      }
    });
    return BlockUniform(block, WarpCanonicalSum(block, order, value));
  };
  if (run_top_p) {
    const float s = sum_of(n);
    auto state = Registers<TopPWalkState>(block);
    auto end = Registers<std::int64_t>(block);
    auto stopped = Registers<bool>(block);
    auto from = Registers<int>(block);
    auto word = Registers<float>(block);
    block.ForEachThread([&](Thread t) {
      state[t] = TopPWalkState{};
      end[t] = n;
      stopped[t] = false;
    });
    for (std::int64_t j = 0; j < n; ++j) {  // positions are the walk's identities, as the block's
      block.ForEachThread([&](Thread t) {
        from[t] = static_cast<int>(j % kWarpSize);
        word[t] = j < kWarpSize ? numerator[t].v[0] : numerator[t].v[1];  // no dynamic register index
      });
      const auto w = ShuffleFrom(block, word, from);
      block.ForEachThread([&](Thread t) {
        ++state[t].position;
        std::uint64_t cut = 0;
        if (TopPVisitPrefix(state[t], walk, q, static_cast<std::uint64_t>(j), w[t] / s, cut)) {
          end[t] = cut == static_cast<std::uint64_t>(j) ? j + 1 : j;
          stopped[t] = true;
        }
      });
      if (BlockUniform(block, stopped)) break;  // every lane walked the same values
    }
    n = BlockUniform(block, end);
  }
  if (m > 0.0f) {
    if (rules.min_p.first_only_at_one && m >= 1.0f) {
      n = 1;
    } else {
      const SoftmaxStats st{max, sum_of(n)};
      const float threshold = MinPThreshold(st.Prob(max), m);
      n = FirstSlotOutside(SlotMask(block, [&](Thread t, int r) {
        return slot(t, r) < n && numerator[t].v[r] / st.sum >= threshold;
      }));
    }
  }
  return WarpSurvivors{n, SoftmaxStats{max, sum_of(n)}};
}

// The seeded draw on the final survivors (warp-level code of warp 0, after WarpSurvivorSteps):
// each final survivor's score, the largest in the total order (two slots a lane, then the
// warp's tree), its index in lane 0's `drawn`.
template <class B, class Keys, class RN, class RI>
SAMPCHECK_KERNEL_BODY void WarpSeededDraw(B& block, const Keys& keys, const WarpSurvivors& survivors,
                                          const RN& numerator, const SeededGumbelKey& draw_key, RI& drawn) {
  auto value = Registers<double>(block);
  block.ForEachThread([&](Thread t) {
    value[t] = ArgmaxAboveF64::Identity();
    drawn[t] = kNoIndex;
    for (int r = 0; r < 2; ++r) {
      const int e = r * kWarpSize + t.lane();
      if (e >= survivors.n) continue;
      const float p = numerator[t].v[r] / survivors.st.sum;
      if (!SeededGumbelDrawable(p)) continue;
      const std::int64_t index = IndexOfKey(keys[t].v[r]);
      const double score = SeededGumbelScore(draw_key, static_cast<std::uint32_t>(index), p);
      if (ArgmaxAboveF64{}(score, index, value[t], drawn[t])) value[t] = score, drawn[t] = index;
    }
  });
  WarpArgmax(block, value, drawn, ArgmaxAboveF64{});
}

// The whole chain in warp 0 (contract above): the steps, with `draw` the token in thread 0's
// `drawn`, with `write_rows` the output rows out[at ..] and probs[at ..] of a row the block
// writes whole, as the block's steps write them: every thread writes its canonical lane's
// columns as dropped (out -inf, probs +0) in the phase where warp 0 takes the steps; after a
// barrier warp 0 writes the final survivors' columns (at most 64: out the row's value read
// back from logits[in ..], so that -0.0 keeps its sign; probs numerator / s, st.Prob of that
// value). Nothing in the launch reads the rows after them: no barrier.
template <class B, class Arr, class Keys, class RI>
SAMPCHECK_KERNEL_BODY void SamplingFiltersInWarp(B& block, const Keys& keys, std::int64_t total, std::int64_t k,
                                                 bool ties, bool run_top_p, TopPWalk walk, float q, float m,
                                                 const FilterRules& rules, bool draw, const SeededGumbelKey& draw_key,
                                                 RI& drawn, bool write_rows, Arr logits, std::int64_t in, Arr out,
                                                 Arr probs, std::int64_t at, std::int64_t vocab) {
  auto numerator = Registers<SlotFloats>(block);
  WarpSurvivors survivors;  // warp 0's: the other warps never read it
  block.ForWarps(WarpZero{}, [&] {
    survivors = WarpSurvivorSteps(block, keys, total, k, ties, run_top_p, walk, q, m, rules, numerator);
    if (draw) WarpSeededDraw(block, keys, survivors, numerator, draw_key, drawn);
  });
  if (!write_rows) return;
  block.ForEachThread([&](Thread t) {
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      StoreDroppedColumn(out, probs, at + i);
    }
  });
  block.Sync();  // the dropped columns' stores before the survivors' at the same addresses
  block.ForWarps(WarpZero{}, [&] {
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) {
        if (r * kWarpSize + t.lane() >= survivors.n) continue;
        const std::int64_t i = IndexOfKey(keys[t].v[r]);
        out.Store(at + i, logits.Load(in + i));
        probs.Store(at + i, numerator[t].v[r] / survivors.st.sum);
      }
    });
  });
}

}  // namespace sampcheck::gpu
