// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters' top_k_first order (top_k -> top_p -> min_p, then the probabilities) on the
// row when the top-k survivors do not fit in shared memory (k > 1024, top-k off): the k-th key
// and top_p's walk both come from one radix partition of the row into scratch, and the
// softmax statistics, the masks and the outputs are fused into the reads the steps need
// anyway; bit-exact with the full-row steps of gpu/kernels/sampling_filters.cuh (docs/gpu.md
// "Top-k first on the partition"; docs/spec/filters.md "Work on the survivors only").
//
// Contract:
// - Taken when the order is kTopKFirst, the top_p walk (if any) is a prefix rule (kExclusive,
//   kTieGroup) and the row has a finite entry; otherwise it returns false before writing
//   anything (the first read is then spent for nothing) and the caller runs the full-row steps.
//   A row whose smallest key at level 0 is a NaN's or a +inf's stops there with `degenerate`
//   set (the caller's degenerate-row chain).
// - Reads of the row (each one read of the logits, f32): the partition's sample of 1024 entries
//   (none when top_k and top_p are both off); (1) the partition's level 0 gives the number n
//   of finite entries and the smallest key, whose value is the row's max M (the first entry
//   of the order survives every step, so M is the max of every row the steps see; the key
//   folds -0.0 onto +0.0, and x - M, hence every ExpF32Cr(x - M), has the same bits with
//   either zero), and counts the sample's buckets (with top-k on, each thread also keeps its
//   24 smallest keys, SmallestKeys, and its 4 largest, LargestKeys: with n - 3 <= k < n, K is
//   the (n - k + 1)-th largest of those, taken at level 0 from the warps' lists after the
//   read's first barrier; then nothing is refined for K, and without top_p nothing is
//   partitioned); (2) the scatter into scratch, folding ExpF32Cr(x - M) per lane when top_p
//   runs (top-k off or k >= n: s of the row; with K from the largest keys, only the keys up to
//   its bound: the top-k survivors' lane of every thread); with a k-th key from the partition,
//   a thread that holds all of its keys up to the last stored bucket scatters them from its
//   held keys and neither reads nor folds its entries.
//   Then, with top-k on and k < n - 3, the partition refines only the bucket holding rank k
//   (gpu/block/radix_partition.cuh PartitionAndVisit) to find K, and (3) the lanes are summed
//   over the top-k survivors (key <= K; ties kept: value key <= K's) and counted: a thread whose
//   largest key survives has its lane from the scatter read's fold (which then folds every
//   thread's entries with top_p on), a thread that holds all of its survivors among the 24
//   smallest keys the scatter read kept (SmallestKeys) folds those, and only the other
//   threads read their entries (none at top-k 5000; with K from the largest keys every lane
//   is the fold's). With top_p on,
//   the scatter stores no level-0 bucket past the walk's reach by mass (TopPReach) unless the
//   walk gets there.
//   top_p's walk (thread 0, TopPVisitPrefix on each sorted chunk, the same steps as
//   TopPWalkRow) visits the partition front first up to its first drop or the last survivor.
//   min_p (m > 0) adds one read: the sum over the walk's survivors gives s' and the threshold
//   Prob(M) x min(m, 1) (RowMaxProb of that row: Prob is monotone and M survives), or m >= 1
//   with first_only_at_one keeps the smallest key. With the draw alone (write_rows false),
//   that read also keeps each thread's entries that may pass min_p whatever s' is (x - M at
//   or above MinPValueBound, gpu/kernels/min_p.cuh), up to kCachedCandidates in index order,
//   and a thread that kept all of them folds them in (4) instead of reading its entries: a
//   read fewer where min_p keeps few (min_p 1); a thread whose entries kept there all equal M
//   (each passes min_p whatever s' is) offers them there to the draw's candidates below, and
//   its fold in (4) is the count of them: a read fewer on flat rows. (4) One read writes
//   `out` and sums the final survivors, (5) one writes `probs` (neither written when
//   write_rows is false) and folds the seeded draw (`draw`, gpu/kernels/seeded_gumbel.cuh:
//   each thread's indices in order with SeededGumbelDrawable and SeededGumbelScore of the
//   probability it writes, which is FoldSeededGumbelRow over the probs row; then
//   WarpFirstBlockArgmax, the total order's winner in thread 0's `drawn`): the full-row
//   kernel's token without reading probs back.
//   min_p's read and, with write_rows false, (4) take held keys the same way.
//   With the draw alone (write_rows false), (4) also keeps each thread's final survivors that
//   can still win once s is known (SeededGumbelCandidates, at most 8: an entry whose score
//   without s is more than 2^-20 below another's cannot win); when none overflowed (a warp
//   ballot read after the sum's reduction), the draw scores them exactly and (5) is not made.
// - Sums: each lane folds its survivors in index order from -0.0 and CanonicalBlockReduce
//   combines the lanes: the full-row steps' folds also add ExpF32Cr(-inf - M) = +0 for each
//   dropped entry, which changes only the sign of a zero, and every sum here is at least
//   ExpF32Cr(0) = 1, so s has the same bits (as on the survivors,
//   gpu/kernels/sampling_filters_on_survivors.cuh).
// - Outputs: out = the row's value for final survivors (-0.0 keeps its sign), -inf elsewhere;
//   probs = ExpF32Cr(x - M) / s for final survivors, +0 elsewhere (ExpF32Cr(-inf) / s = +0).
// - Deterministic: the partition's integer counts and fixed scans, the canonical sum order.
// Example: the ln 2 row {0, -ln2, -2 ln2, -2 ln2} with top-k off and top_p 0.75 (n = 4 <= 1024:
//   one chunk): E = 0, 0.5, 0.75 keeps {0, 1}; probs (2/3, 1/3, 0, 0) rounded, the full-row
//   result (tests/gpu_filters_test.cc, PartitionPathMatchesReference).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/fast_exp.cuh"
#include "gpu/block/lane_quads.cuh"
#include "gpu/block/radix_partition.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "gpu/kernels/seeded_gumbel_candidates.cuh"
#include "gpu/kernels/top_k.cuh"
#include "gpu/kernels/top_p.cuh"
#include "reference/math/exp.h"

namespace sampcheck::gpu {

// The 32 warps' votes of SurvivorSumOfRow: the partition's per-warp counts of level 0
// (gpu/block/radix_partition.cuh), dead once the partition is done: shared memory is scarce in
// every kernel that takes this path (49,040 bytes of the 49,152 a kernel may declare statically
// in sampling_filters_slices since the weighted chunk walk's 4 KiB; 8 over with these 32 words
// before the one block scan).
template <class B>
SAMPCHECK_KERNEL_BODY auto SurvivorSumVotes(B& block) {
  return partition_detail::SharedArrays(block).many;
}

struct NoVote {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(Thread) const { return false; }
};
struct NoKnownLane {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(Thread, float&, std::uint32_t&) const { return false; }
};

// The walk's reach for the partition (gpu/block/radix_partition.cuh NoPartitionReach): a key's
// weight exp(x - x_ref) against the sample's largest value, and half the mass past p as a
// margin, so that the buckets after the walk's cut are seldom scattered for nothing and seldom
// needed: the walk stops once its sum over the top-k survivors (at most the row's total weight,
// so the bound is conservative) reaches p, and rounding moves that sum by far less than (1 -
// p) / 2 (the sums are estimates: a walk that gets past them pays two reads more). The weight
// is FastExpF32 (gpu/block/fast_exp.cuh, within an ulp, the same bits on host and device):
// which buckets are stored first changes no result, so it needs no correctly rounded ExpF32Cr,
// whose binary64 arithmetic made most of the first read's instructions (docs/gpu.md "Where the
// worst rows' time goes").
struct TopPReach {
  bool active = false;
  float p = 1.0f;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Active() const { return active; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Mass(std::uint64_t ref, std::uint64_t key) const {
    return FastExpF32(ValueOfDescendingKey(key) - ValueOfDescendingKey(ref));
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Fraction() const { return 0.5f + 0.5f * p; }
};

// A thread's smallest keys of the first read, at most kSmallestKeys, as a max-heap while they are
// offered (key[0] the largest held; each key above its two children, 2j + 1 and 2j + 2): Offer
// keeps a key while there is room (sifted up), else a smaller key takes the largest's place at the
// root (sifted down: at most 4 levels for 24 keys); Order then puts them in the order met (their
// indices' increasing order: keys are offered so, and a key's low word is its index), which
// ForEachUpTo needs, once, after the read. `dropped` is the smallest key not held, so every key of
// the thread up to a bound is held exactly when dropped > bound (Holds). Once the keys are full
// most offers are one comparison with the root (DropsAbove: a key above it is dropped; one is
// replaced about kSmallestKeys x ln(m / kSmallestKeys) times for m keys in random order), which
// the read makes on copies in registers (HeldSmallestKeys::Mine). The keys live in the stack frame
// on the device (24 words beside a 1024-thread block's state at 64 registers; the hook reaches
// them through a pointer), so a run-time index costs what a constant one does: a replacement moves
// at most 4 keys, where keeping the order met moved the 23 after the largest down one, a load and
// a store each, and a scan for the next largest loaded all 24 (docs/gpu.md "Where the worst rows'
// time goes").
inline constexpr int kSmallestKeys = partition_detail::kHeldKeysPerThread;
struct SmallestKeys {
  std::uint64_t key[kSmallestKeys];
  int count;
  std::uint64_t dropped;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Reset() {
    count = 0;
    dropped = kNoKey;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Offer(std::uint64_t k) {
    if (count < kSmallestKeys) {
      int j = count++;
      while (j > 0) {
        const int parent = (j - 1) / 2;
        const std::uint64_t above = key[parent];
        if (!(k > above)) break;
        key[j] = above;
        j = parent;
      }
      key[j] = k;
      return;
    }
    if (DropsAbove(key[0], k, dropped)) return;
    const std::uint64_t top = key[0];
    dropped = top < dropped ? top : dropped;
    int j = 0;
    for (int child = 1; child < kSmallestKeys; child = 2 * j + 1) {
      std::uint64_t below = key[child];
      if (child + 1 < kSmallestKeys) {
        const std::uint64_t right = key[child + 1];
        child = right > below ? child + 1 : child;
        below = right > below ? right : below;
      }
      if (!(below > k)) break;
      key[j] = below;
      j = child;
    }
    key[j] = k;
  }
  // A full heap's first test: k above its root `top` is not held (keys are unique) and may
  // lower `dropped`; most offers end here. Static, so that a caller may keep the root and
  // `dropped` in registers (HeldSmallestKeys::Mine).
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE static bool DropsAbove(std::uint64_t top, std::uint64_t k,
                                                                      std::uint64_t& dropped) {
    if (!(k > top)) return false;
    // A store only when k is below every dropped key so far (rarely, once the heap holds the
    // smallest keys met): a select wrote `dropped` back to the frame at every key.
    if (k < dropped) dropped = k;
    return true;
  }
  // The held keys in the order met, by insertion on their indices (from the heap's order: about
  // count^2 / 4 moves), once a thread.
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Order() {
    for (int i = 1; i < count; ++i) {
      const std::uint64_t k = key[i];
      int j = i;
      for (; j > 0 && IndexOfKey(key[j - 1]) > IndexOfKey(k); --j) key[j] = key[j - 1];
      key[j] = k;
    }
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Holds(std::uint64_t bound) const { return dropped > bound; }
  // f(key) for each held key up to `bound`, in the order met (after Order). The emulator checks
  // that order, which the device trusts: a fold in another order would change a sum's bits.
  template <class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachUpTo(std::uint64_t bound, F&& f) const {
    for (int j = 0; j < count; ++j) {
      SAMPCHECK_HOST_ASSERT(j == 0 || IndexOfKey(key[j - 1]) < IndexOfKey(key[j]));
      if (key[j] <= bound) f(key[j]);
    }
  }
};

// A thread's kLargestKeys largest keys of the first read, in decreasing order (0 pads: every
// finite key's value key is above +inf's, so above 0), for a k-th key near n: the r-th
// largest key of the row, r = n - k + 1 <= kLargestKeys, is among its thread's held ones (the
// thread holds at most r - 1 keys above it), and so is each of the r - 1 above it, so it is
// the r-th largest of every thread's held keys together (LargestKeyOfRank). Every index into
// `key` is a constant after unrolling (registers on the device).
inline constexpr int kLargestKeys = 4;
struct LargestKeys {
  std::uint64_t key[kLargestKeys];
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Reset() {
    for (int j = 0; j < kLargestKeys; ++j) key[j] = 0;
  }
  // Keys are unique: k goes in above the first held key below it, the rest move down one. A
  // key not above the last held one changes none (most of a thread's keys once it holds four:
  // about 4 (1 + ln(m / 4)) of m keys in random order enter), one comparison.
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Offer(std::uint64_t k) {
    if (!(k > key[kLargestKeys - 1])) return;
    for (int j = kLargestKeys - 1; j >= 0; --j) {
      if (k > key[j]) key[j] = j > 0 && k > key[j - 1] ? key[j - 1] : k;
    }
  }
};

// Each lane's list merged with every other lane's of its warp, so that every lane holds the
// warp's kLargestKeys largest: xor-butterfly rounds in which every lane offers its partner's
// list (a copy taken before the round) to its own. The lanes' lists hold disjoint keys (so
// does every pair a round merges). Block-level code, shuffles only.
template <class B, class R>
SAMPCHECK_KERNEL_BODY void WarpMergeLargestKeys(B& block, R& merged) {
  for (int mask = kWarpSize / 2; mask >= 1; mask /= 2) {
    auto sent = Registers<LargestKeys>(block);
    block.ForEachThread([&](Thread t) { sent[t] = merged[t]; });
    for (int j = 0; j < kLargestKeys; ++j) {
      auto mine = Registers<std::uint64_t>(block);
      block.ForEachThread([&](Thread t) { mine[t] = sent[t].key[j]; });
      auto other = ShuffleXor(block, mine, mask);
      block.ForEachThread([&](Thread t) { merged[t].Offer(other[t]); });
    }
  }
}

// Each warp's kLargestKeys largest held keys into lists[warp x kLargestKeys + j]
// (WarpMergeLargestKeys, lane 0 storing). Block-level code with no barrier: the caller orders
// the stores before the reads.
template <class B, class R, class Shared>
SAMPCHECK_KERNEL_BODY void PublishLargestKeys(B& block, R& largest, Shared& lists) {
  auto merged = Registers<LargestKeys>(block);
  block.ForEachThread([&](Thread t) { merged[t] = largest[t]; });
  WarpMergeLargestKeys(block, merged);
  block.ForEachThread([&](Thread t) {
    if (t.lane() != 0) return;
    for (int j = 0; j < kLargestKeys; ++j) lists.Store(t.warp() * kLargestKeys + j, merged[t].key[j]);
  });
}

// The r-th largest key of the row (1 <= r <= kLargestKeys, at most the row's in-range keys)
// from the 32 warps' lists of PublishLargestKeys, after a barrier: block-level code, the same
// in every thread. Lane l of every warp reads warp l's list (kLargestKeys shared reads a
// thread) and WarpMergeLargestKeys merges the 32 lists, where each thread read all 32 lists in
// turn (128 reads in sequence) until 2026-12-02.
template <class B, class Shared>
SAMPCHECK_KERNEL_BODY std::uint64_t LargestKeyOfRank(B& block, Shared& lists, std::int64_t r) {
  static_assert(kCanonicalLanes / kWarpSize == kWarpSize, "one list per lane");
  auto merged = Registers<LargestKeys>(block);
  block.ForEachThread([&](Thread t) {
    for (int j = 0; j < kLargestKeys; ++j) merged[t].key[j] = lists.Load(t.lane() * kLargestKeys + j);
  });
  WarpMergeLargestKeys(block, merged);
  std::uint64_t kth = 0;
  block.ForEachThread([&](Thread t) {
    for (int j = 0; j < kLargestKeys; ++j) {
      if (j == r - 1) kth = merged[t].key[j];
    }
  });
  return kth;
}

// The partition's Hold hook over each thread's SmallestKeys (gpu/block/radix_partition.cuh
// NoPartitionHold), which also keeps each thread's LargestKeys and publishes them to `lists`
// (32 x kLargestKeys keys: the chunk buffer's first words, free between the sample's sort and
// the first chunk; its upper half holds level 0's bucket table then). Publish, after the read,
// also puts each thread's held keys in the order offered (SmallestKeys::Order), which ForEach
// and the kernel's folds of them need.
template <class R, class RL, class Shared>
struct HeldSmallestKeys {
  R* keys;
  RL* largest;
  Shared* lists;
  bool active;
  // A thread's keys while the read offers them, a value of the read's own: the largest keys,
  // and of the smallest whether they are full, their root and `dropped`, in registers; the heap
  // stays in the thread's SmallestKeys, reached only when a key enters it. Through the hook's
  // pointer every key loaded the count, the root, `dropped` and the fourth largest key from the
  // stack frame (generic loads, again after each store of the read's counts, which they may
  // alias): now a full heap's common offer (DropsAbove) and LargestKeys' touch no memory.
  struct Mine {
    SmallestKeys* keys;
    LargestKeys largest;
    bool full;
    std::uint64_t top;
    std::uint64_t dropped;
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Offer(std::uint64_t key) {
      largest.Offer(key);
      if (full && SmallestKeys::DropsAbove(top, key, dropped)) return;
      keys->dropped = dropped;
      keys->Offer(key);
      full = keys->count == kSmallestKeys;
      top = keys->key[0];
      dropped = keys->dropped;
    }
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Active() const { return active; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread t) const {
    SmallestKeys& mine = (*keys)[t];
    const bool full = mine.count == kSmallestKeys;
    return {&mine, (*largest)[t], full, full ? mine.key[0] : kNoKey, mine.dropped};
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread t, const Mine& mine) const {
    mine.keys->dropped = mine.dropped;
    (*largest)[t] = mine.largest;
  }
  template <class B>
  SAMPCHECK_KERNEL_BODY void Publish(B& block) const {
    block.ForEachThread([&](Thread t) { (*keys)[t].Order(); });
    PublishLargestKeys(block, *largest, *lists);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Holds(Thread t, std::uint64_t bound) const {
    return (*keys)[t].Holds(bound);
  }
  template <class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEach(Thread t, F&& f) const {
    (*keys)[t].ForEachUpTo(kNoKey, f);
  }
};

// The partition's Fold hook (gpu/block/radix_partition.cuh NoPartitionFold) for the scatter
// read's lane sums: while `folding`, each thread's canonical lane sum of ExpF32Cr(x - max) over
// its keys <= hi (in index order), their number and the largest key folded, given back to
// `lane`, `count` and `last`. level0 sets folding, max and hi before the scatter; a thread's
// Take copies them and its three values into the read's registers (Mine). As a lambda over
// references it loaded folding, hi, max and the three values from the stack frame at every
// key and stored the three back (17 memory accesses a key besides its load, in the SASS).
template <class RF, class RC, class RK>
struct SurvivorLaneFold {
  const bool* folding;
  const std::uint64_t* hi;
  const float* max;
  RF* lane;
  RC* count;
  RK* last;
  struct Mine {
    bool folding = false;
    std::uint64_t hi = 0;
    float max = 0.0f;
    float sum = -0.0f;
    std::uint32_t count = 0;
    std::uint64_t last = 0;
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(std::uint64_t key) {
      if (!folding || key > hi) return;  // hi: K's bound when known at level 0, else every finite key
      sum = sum + math::ExpF32Cr(ValueOfDescendingKey(key) - max);
      ++count;
      last = key > last ? key : last;
    }
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread t) const {
    if (!*folding) return {};
    return {true, *hi, *max, (*lane)[t], (*count)[t], (*last)[t]};
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread t, const Mine& mine) const {
    if (!mine.folding) return;
    (*lane)[t] = mine.sum;
    (*count)[t] = mine.count;
    (*last)[t] = mine.last;
  }
};

// One read of row[base, base + vocab): s = the canonical sum of ExpF32Cr(x - max) over the
// entries with keep(x, i) (each lane in index order), their number in `kept` (counted only when
// kept >= 0 on entry); write(t, i, x, keep) sees thread t's entries (the fused mask), except
// when known(t, acc, c) gives thread t's fold and count without reading its entries. With
// `vote`, `any` says whether vote_of(t) held for some thread after the read: each warp's ballot
// goes to shared memory before the sum's reduction, whose barriers order it before the reads,
// so the vote costs no barrier of its own.
template <class B, class Arr, class Keep, class Write, class Vote, class Known = NoKnownLane>
SAMPCHECK_KERNEL_BODY float SurvivorSumOfRow(B& block, Arr row, std::int64_t base, std::int64_t vocab, float max,
                                             Keep keep, Write write, std::int64_t& kept, bool vote, Vote vote_of,
                                             bool& any, Known known = {}) {
  auto lane = Registers<float>(block);
  auto count = Registers<std::uint32_t>(block);
  auto reads = Registers<bool>(block);
  block.ForEachThread([&](Thread t) {
    float acc = -0.0f;  // the sum's identity
    std::uint32_t c = 0;
    // Known: this lane's fold and count, already made, and its entries not read.
    reads[t] = !known(t, acc, c);
    lane[t] = acc;
    count[t] = c;
  });
  // Each lane's entries in index order, four to a load by its warp (gpu/block/lane_quads.cuh:
  // where one entry a load kept one load in flight a thread, lane_scan.cuh's kGroup 1).
  ForEachLaneEntryByQuads(block, row, base, vocab, reads, [&](Thread t, std::int64_t i, float x) {
    if (!keep(x, i)) {
      write(t, i, x, false);
      return;
    }
    write(t, i, x, true);
    lane[t] = lane[t] + math::ExpF32Cr(x - max);
    ++count[t];
  });
  auto votes = SurvivorSumVotes(block);
  if (vote) {
    auto mine = Registers<bool>(block);
    block.ForEachThread([&](Thread t) { mine[t] = vote_of(t); });
    StoreWarpBallots(block, mine, votes);
  }
  auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
  std::uint32_t total = 0;
  if (kept >= 0) BlockExclusiveScan<kCanonicalLanes>(block, count, total);  // next barrier: the Sync below
  float sum = 0.0f;
  block.ForEachThread([&](Thread t) { sum = s[t]; });
  any = vote && AnyWarpBallot(block, kCanonicalLanes / kWarpSize, votes);
  block.Sync();
  kept = total;
  return sum;
}

// With `draw`, the drawn token in thread 0's `drawn` (contract above); write_rows false: out
// and probs are not written.
template <class B, class Arr, class S, class RI>
SAMPCHECK_KERNEL_BODY bool SamplingFiltersOnPartition(B& block, Arr logits, std::int64_t in, Arr out, Arr probs,
                                                      std::int64_t at, std::int64_t vocab, std::int64_t k, float p,
                                                      float m, const FilterRules& rules, S scratch,
                                                      std::int64_t scratch_base, bool& degenerate, bool write_rows,
                                                      bool draw, const SeededGumbelKey& key, RI& drawn) {
  if (rules.order != FilterOrder::kTopKFirst) return false;
  TopPWalk walk;
  float q;
  const bool run_top_p = ResolveTopP(rules.top_p, p, walk, q);
  if (run_top_p && walk != TopPWalk::kExclusive && walk != TopPWalk::kTieGroup) return false;
  const bool top_k = TopKActive(k, vocab, rules.top_k);
  const bool ties = rules.top_k.ties_kept;
  auto sorted = PartitionChunk(block);  // shared with top_p's walk
  SAMPCHECK_SHARED(block, std::uint64_t, verdict, 3);  // stop flag, cut key (slot 2: TopPWalkRow's layout)

  std::uint64_t n = 0, smallest = 0;
  float max = 0.0f;
  std::uint64_t hi = kLastFiniteDescending;  // the top-k survivors: key <= hi
  std::int64_t survivors = 0;                // their number
  SoftmaxStats st{};
  bool unused_vote = false;  // SurvivorSumOfRow's vote, when none is taken
  // The fold of the scatter read over every finite entry: s when no rank is needed; with a
  // rank, the top-k survivors' lane of every thread whose keys all survive (its largest key
  // <= K's bound: every thread but one at top-k V - 1), so that only the other threads read
  // their entries for the survivors' sum.
  auto lane = Registers<float>(block);
  auto lane_count = Registers<std::uint32_t>(block);
  auto lane_last = Registers<std::uint64_t>(block);  // the largest key folded
  bool folding = false;
  // With top-k on, each thread's smallest keys met by the partition's first read
  // (SmallestKeys, the partition's Hold hook): a thread holding all of its keys up to a sum's
  // bound folds them instead of reading its entries (top-k 5000: about 5 survivors a thread,
  // every lane held), and when every thread holds its keys up to the k-th key's bucket the
  // scatter stores them from the held keys without reading the row.
  // Their largest keys too (LargestKeys): when k is within kLargestKeys - 1 of n, K is the
  // (n - k + 1)-th largest of them, known at level 0: no bucket is refined for it, the scatter
  // stores none for it, and the scatter read's fold takes only the top-k survivors (key <= K's
  // bound), so that every lane's survivors' sum is made by then (top-k V - 1).
  auto smallest_keys = Registers<SmallestKeys>(block);
  auto largest_keys = Registers<LargestKeys>(block);
  const bool caching = top_k;
  if (caching) {
    block.ForEachThread([&](Thread t) {
      smallest_keys[t].Reset();
      largest_keys[t].Reset();
    });
  }
  std::uint64_t held_kth = kNoKey;  // K from the largest keys, or kNoKey
  auto level0 = [&](std::uint64_t count, std::uint64_t first, std::uint64_t) -> std::int64_t {
    n = count;
    smallest = first;
    degenerate = n > 0 && IsDegenerateFirstKey(first);
    if (n == 0 || degenerate) return -1;
    max = ValueOfDescendingKey(first);
    const bool rank_k = top_k && static_cast<std::uint64_t>(k) < n;
    if (rank_k && n - static_cast<std::uint64_t>(k) + 1 <= static_cast<std::uint64_t>(kLargestKeys)) {
      held_kth = LargestKeyOfRank(block, sorted, static_cast<std::int64_t>(n) - k + 1);
      hi = ties ? ((held_kth >> 32) << 32) | 0xffffffffu : held_kth;
    }
    const bool partition_rank = rank_k && held_kth == kNoKey;
    if (!run_top_p) return partition_rank ? k : -1;
    folding = true;
    block.ForEachThread([&](Thread t) {
      lane[t] = -0.0f;
      lane_count[t] = 0;
      lane_last[t] = 0;
    });
    return partition_rank ? k : 0;
  };
  const SurvivorLaneFold<decltype(lane), decltype(lane_count), decltype(lane_last)> fold{
      &folding, &hi, &max, &lane, &lane_count, &lane_last};
  // Thread t's fold of its keys <= bound that pass keep(key), from its held keys, when it holds
  // them all: the entries it would read, in the same order.
  auto held_lane = [&](Thread t, std::uint64_t bound, float& acc, std::uint32_t& c, auto&& keep) {
    if (!caching || !smallest_keys[t].Holds(bound)) return false;
    smallest_keys[t].ForEachUpTo(bound, [&](std::uint64_t key) {
      if (!keep(key)) return;
      acc = acc + math::ExpF32Cr(ValueOfDescendingKey(key) - max);
      ++c;
    });
    return true;
  };
  auto ready = [&](std::uint64_t kth) {
    if (kth == kNoKey) kth = held_kth;
    if (kth != kNoKey) {
      hi = ties ? ((kth >> 32) << 32) | 0xffffffffu : kth;
      if (!run_top_p) return false;
      survivors = ties ? 0 : -1;  // exactly k: keys are unique, no count needed
      const float s = SurvivorSumOfRow(
          block, logits, in, vocab, max, [&](float x, std::int64_t i) { return OrderKey(x, i, false) <= hi; },
          [](Thread, std::int64_t, float, bool) {}, survivors, false, NoVote{}, unused_vote,
          [&](Thread t, float& acc, std::uint32_t& c) {
            // Held keys first: a scatter from held keys folds nothing (every thread holds its
            // survivors then), so the fold is used only when they are not all held.
            if (held_lane(t, hi, acc, c, [](std::uint64_t) { return true; })) return true;
            if (lane_last[t] > hi) return false;
            acc = lane[t];
            c = lane_count[t];
            return true;
          });
      st = SoftmaxStats{max, s};
      if (!ties) survivors = k;
      return true;
    }
    auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
    block.ForEachThread([&](Thread t) { st = SoftmaxStats{max, s[t]}; });
    block.Sync();
    survivors = static_cast<std::int64_t>(n);
    return true;
  };

  // top_p's walk over the visited chunks (TopPWalkRow's prefix rules), up to `survivors`.
  bool done = false;
  std::uint64_t cut = 0, last = 0;
  auto state = Registers<TopPWalkState>(block);
  auto walked = Registers<std::uint64_t>(block);  // thread 0: the last key walked
  auto walk_chunk = [&](std::uint32_t count, auto&& key_of) {
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      TopPWalkState s = state[t];
      bool stop = false;
      std::uint64_t stop_cut = 0, seen = walked[t];
      for (std::uint32_t j = 0; j < count && !stop && s.position < survivors; ++j) {
        const std::uint64_t key = key_of(j);
        ++s.position;
        seen = key;
        stop = TopPVisitPrefix(s, walk, q, key, st.Prob(ValueOfDescendingKey(key)), stop_cut);
      }
      state[t] = s;
      walked[t] = seen;
      verdict.Store(0, stop ? 1u : (s.position >= survivors ? 2u : 0u));
      verdict.Store(1, stop ? stop_cut : 0u);
      verdict.Store(2, seen);
    });
    // No barrier while the walk goes on: the next chunk's place (or load) has one before
    // thread 0 writes the verdict again.
    return ReadWalkVerdict(block, verdict, done, cut, last, false);
  };
  // The partition follows level 0 unless both top_k and top_p are off (min_p alone needs n
  // and M only): then no sample is taken.
  // With a k-th key the walk ends at the last top-k survivor (ties kept: the last key of K's
  // value), so the partition scatters no bucket past it.
  const VisitBound visit_bound = ties ? VisitBound::kRankValue : VisitBound::kRankKey;
  auto weight = [&](std::uint64_t key) { return st.Prob(ValueOfDescendingKey(key)); };
  // The chunk loop's walk (TopPWalkChunk) with a prefix rule, up to the last survivor: its
  // `safe` is TopPWalkSafe's prefix-rule bound (Prob is monotone along the order).
  std::int64_t sorted_walked = 0;  // block-level: the same in every thread
  auto rule = [&] { return TopPWalkRule{walk, q, 0.0f, survivors, vocab}; };  // survivors: known after level 0
  auto walk_weights = [&](std::uint32_t count, auto words) {
    return TopPWalkChunk(block, state, count, words, rule(), NoChunkMarks{}, sorted_walked);
  };
  // Its chunks after the first unsorted where their sum allows it (TopPWalkChunkAnyOrder).
  auto any_order = [&](std::uint32_t count, auto words, auto parts) {
    return TopPWalkChunkAnyOrder(block, state, count, words, rule(), parts);
  };
  auto finish_walk = [&](bool stopped, std::uint64_t key) {
    done = stopped;
    cut = stopped ? key : 0u;
    last = key;
  };
  PartitionAndVisit(block, logits, in, vocab, false, false, 0, kLastFiniteDescending, scratch, scratch_base, sorted,
                    false, run_top_p || top_k, visit_bound, level0, fold, ready,
                    WeightedVisit<decltype(walk_chunk), decltype(weight), decltype(walk_weights), decltype(finish_walk),
                                  NoPartitionMarks, AnyOrderWalk<decltype(any_order)>>{
                        walk_chunk, weight, walk_weights, finish_walk, {}, {true, any_order, AnyOrderGridBelow(q)}},
                    TopPReach{run_top_p, q},
                    HeldSmallestKeys<decltype(smallest_keys), decltype(largest_keys), decltype(sorted)>{
                        &smallest_keys, &largest_keys, &sorted, caching});
  if (n == 0 || degenerate) return false;  // no finite entry: the full-row steps' NaN probabilities
  // The survivors of top_k and top_p: key <= bound.
  std::uint64_t bound = hi;
  if (run_top_p) bound = done ? cut : last;
  const bool draw_alone = draw && !write_rows;
  // Each thread's draw candidates (SeededGumbelCandidates, below): the final sum's read fills
  // them, or min_p's read where every entry of the thread that read keeps equals the max M.
  // Such an entry passes min_p whatever s' is (Prob(x) = Prob(M) >= Prob(M) x min(m, 1): the
  // product is at most Prob(M) before its rounding, hence after it), so the thread's final
  // survivors are the same entries in the same order: its final fold is its fold in min_p's
  // read, which adds ExpF32Cr(0) = 1 per entry (exact up to 2^24), and it reads nothing more.
  // Flat rows with min_p alone: 3 reads -> 2.
  auto cache = Registers<SeededGumbelCandidates<kCachedCandidates>>(block);
  auto at_max = Registers<bool>(block);  // every entry min_p's read kept equals M
  auto at_max_count = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    cache[t].Reset();
    at_max[t] = false;
  });
  // min_p on that row: one more read for its s'. With the draw alone, each thread that reads
  // its entries there keeps those that may pass min_p whatever s' is (x - M at or above
  // MinPValueBound: near the max for a large m), in index order, so that the final read below
  // folds them instead of reading the row again (min_p 1 alone: 3 reads -> 2).
  bool min_p = false;
  float threshold = 0.0f;
  auto min_p_candidates = Registers<CandidateCache<kCachedCandidates>>(block);
  bool min_p_cached = false;
  if (m > 0.0f) {
    if (rules.min_p.first_only_at_one && m >= 1.0f) {
      bound = smallest;  // the first alone
    } else {
      const float lowest = MinPValueBound(m);
      min_p_cached = draw_alone && lowest > NegativeInfinity();
      block.ForEachThread([&](Thread t) {
        min_p_candidates[t].count = 0;
        at_max[t] = draw_alone;
        at_max_count[t] = 0;
      });
      std::int64_t kept = -1;
      const float s = SurvivorSumOfRow(
          block, logits, in, vocab, max, [&](float x, std::int64_t i) { return OrderKey(x, i, false) <= bound; },
          [&](Thread t, std::int64_t i, float x, bool keep) {
            if (!keep) return;
            if (min_p_cached && x - max >= lowest) min_p_candidates[t].Add(OrderKey(x, i, false));
            if (!at_max[t]) return;
            at_max[t] = x == max && at_max_count[t] < (std::uint32_t{1} << 24);  // +-0 alike: x - M = +-0
            ++at_max_count[t];
            if (at_max[t]) cache[t].Offer(key, OrderKey(x, i, false), max, static_cast<double>(n));
          },
          kept, false, NoVote{}, unused_vote,
          [&](Thread t, float& acc, std::uint32_t& c) {
            if (!held_lane(t, bound, acc, c, [](std::uint64_t) { return true; })) return false;
            min_p_candidates[t].count = kCachedCandidates + 1;  // held: the final read takes its held keys
            at_max[t] = false;                                   // likewise
            return true;
          });
      const SoftmaxStats top_p_stats{max, s};
      threshold = MinPThreshold(top_p_stats.Prob(max), m);
      st = top_p_stats;
      min_p = true;
    }
  }
  const SoftmaxStats before_min_p = st;
  auto final_keep = [&](float x, std::int64_t i) {
    return OrderKey(x, i, false) <= bound && (!min_p || before_min_p.Prob(x) >= threshold);
  };
  std::int64_t kept = -1;
  bool overflowed = false;
  // The draw alone (no row written): each thread keeps in registers, during the sum's read,
  // the final survivors that can still win once s is known (SeededGumbelCandidates: at most
  // kCachedCandidates; its first ones after min_p, which usually keeps few; without min_p the
  // nucleus' thousands pruned by their scores without s), so that when no thread overflowed
  // (the warps' ballots, read after the sum's reduction: no barrier more) the draw scores them
  // and reads the row no more. n bounds s: every term is at most ExpF32Cr(0) = 1, so each
  // lane's fold is at most its count and the tree's sums of those integers are exact.
  const float s = SurvivorSumOfRow(
      block, logits, in, vocab, max, final_keep,
      [&](Thread t, std::int64_t i, float x, bool keep) {
        if (write_rows) out.Store(at + i, keep ? x : NegativeInfinity());
        if (draw_alone && keep) cache[t].Offer(key, OrderKey(x, i, false), max, static_cast<double>(n));
      },
      kept, draw_alone, [&](Thread t) { return cache[t].Overflowed(); }, overflowed,
      [&](Thread t, float& acc, std::uint32_t& c) {  // no row written: the held keys will do
        if (write_rows) return false;
        if (at_max[t]) {  // min_p's fold of ones: -0.0 (the identity) without entries
          c = at_max_count[t];
          acc = c == 0 ? -0.0f : static_cast<float>(c);
          return true;
        }
        cache[t].Reset();  // a thread that reads or folds its keys offers them again
        auto keep_held = [&](std::uint64_t order_key) {
          if (min_p && !(before_min_p.Prob(ValueOfDescendingKey(order_key)) >= threshold)) return false;
          if (draw_alone) cache[t].Offer(key, order_key, max, static_cast<double>(n));
          return true;
        };
        if (held_lane(t, bound, acc, c, keep_held)) return true;
        if (!min_p_cached || min_p_candidates[t].Overflowed()) return false;
        // min_p's candidates, in index order: every final survivor of this lane among them.
        min_p_candidates[t].ForEach([&](std::uint64_t order_key) {
          if (!keep_held(order_key)) return;
          acc = acc + math::ExpF32Cr(ValueOfDescendingKey(order_key) - max);
          ++c;
        });
        return true;
      });
  const SoftmaxStats final_stats{max, s};
  auto value = Registers<double>(block);
  if (draw_alone && !overflowed) {
    // The full-row fold's pairs: a final survivor's probability from its key's value
    // (-0.0 comes back as +0.0: x - M has the same bits), every other column +0, never
    // drawn; the winner is the total order's maximum, whichever thread scores a pair.
    block.ForEachThread([&](Thread t) {
      double best = ArgmaxAboveF64::Identity();
      std::int64_t j = kNoIndex;
      cache[t].ForEach([&](std::uint64_t k) {
        const float prob = final_stats.Prob(ValueOfDescendingKey(k));
        const std::int64_t i = IndexOfKey(k);
        if (!SeededGumbelDrawable(prob)) return;
        const double score = SeededGumbelScore(key, static_cast<std::uint32_t>(i), prob);
        if (ArgmaxAboveF64{}(score, i, best, j)) best = score, j = i;
      });
      value[t] = best;
      drawn[t] = j;
    });
    WarpFirstBlockArgmax<double>(block, value, drawn, ArgmaxAboveF64{});
    block.Sync();
    return true;
  }
  // probs, and the seeded draw folded into the same read: each thread over its indices in
  // order, as FoldSeededGumbelRow over the probs written (the same bits, one read fewer).
  block.ForEachThread([&](Thread t) {
    double best = ArgmaxAboveF64::Identity();
    std::int64_t j = kNoIndex;
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const float x = logits.Load(in + i);
      const float prob = final_keep(x, i) ? final_stats.Prob(x) : 0.0f;
      if (write_rows) probs.Store(at + i, prob);
      if (!draw || !SeededGumbelDrawable(prob)) continue;
      const double score = SeededGumbelScore(key, static_cast<std::uint32_t>(i), prob);
      if (ArgmaxAboveF64{}(score, i, best, j)) best = score, j = i;
    }
    value[t] = best;
    drawn[t] = j;
  });
  if (draw) WarpFirstBlockArgmax<double>(block, value, drawn, ArgmaxAboveF64{});
  block.Sync();
  return true;
}

}  // namespace sampcheck::gpu
