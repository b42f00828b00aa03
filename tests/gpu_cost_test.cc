// SPDX-License-Identifier: Apache-2.0
// The cost model (gpu/cost/cost_model.h, gpu/cost/sampling_cost.h, docs/gpu.md "Cost model"): budgets of
// counted work for each sampling kernel, spec_step's verifiers and flashinfer_sampling_from_probs,
// a planted kernel that reads the row twice and fails its budget, determinism of the counts,
// and the estimate's formula on hand-worked counters.
// No timing: every assertion is on counts the emulator makes the same way on every machine.
//
// The budgets are today's counts (sampcheck_cost_table, docs/gpu.md "Cost model"), so that a
// change that reads the row more often, or adds barriers, fails here; a change that reads it
// less lowers the budget in the same commit. The goals: at most 4 row passes for gpu (met in
// the typical cases) and 3 for gpu-fast (met in the typical cases), worst cases at most twice
// the typical case. Rows: 2 of V = 128256, the device benchmark's logits (counts are
// per row: each row is one block; docs/gpu.md lists the same counts at 64 x 128256).
#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/cost/calibration.h"
#include "gpu/cost/cost_model.h"
#include "gpu/cost/sampling_cost.h"
#include "gpu/runners/kernel_runner.h"
#include "core/split_mix64.h"

namespace sampcheck::gpu {
namespace {

constexpr std::int64_t kRows = 2;
constexpr std::int64_t kVocab = 128256;

struct BudgetCase {
  int line;
  const char* name;
  bool fast;  // gpu-fast, else gpu
  SamplingCostShape shape;
  CostBudget budget;
};

SamplingCostShape Shape(float min_p, bool flat) {
  SamplingCostShape s;
  s.rows = kRows;
  s.vocab = kVocab;
  s.min_p = min_p;
  s.flat = flat;
  return s;
}

SamplingCostShape TopK(std::int64_t k) {
  SamplingCostShape s = Shape(0.0f, false);
  s.top_k = static_cast<std::int32_t>(k);
  return s;
}

// Flat rows are all alike, so one row gives the per-row counts (and halves the emulation time
// of these two cases, the longest of the table: a chunk per 1024 entries of the walk).
SamplingCostShape Flat(SamplingCostShape s) {
  s.flat = true;
  s.rows = 1;
  return s;
}

SamplingCostShape MinPAlone(float m) {
  SamplingCostShape s = Shape(m, false);
  s.top_k = 0;
  s.top_p = 1.0f;
  return s;
}

SamplingCostShape TopPAlone(float p) {
  SamplingCostShape s = Shape(0.0f, false);
  s.top_k = 0;
  s.top_p = p;
  return s;
}

// Today's counts on these 2 rows (the first 2 rows of the benchmark's batch), rounded up at
// the second decimal. gpu: 2 row passes (two reads of the logits to gather the top-k
// survivors, gpu/block/top_k_survivors.cuh: the thread maxima, then the count with the
// candidates kept in registers; the draw on the survivors in the same kernel, no row written)
// with 18 barriers (top-k 50, top-p 0.9) and 21 with min-p (0.05 or 1: one more softmax sum
// on the survivors and min-p's prefix); flat rows the same 2 and 18 (the thread maxima give
// exactly k candidates). 26 and 36 before the count's scan by warps (3 -> 1 barrier), the
// merge's lists staged in shared memory (+1), the survivor statistics' maximum read from the
// first survivor (2 fewer per sum, min-p's largest probability without a reduction: 2 fewer),
// min-p's prefix length without a scan (3 -> 1) and one word per step for the survivors'
// number (no barrier after its read, none after reading the last survivor's key). One more pass while the gather read the row a third time. Before the draw on
// the survivors, the output rows were written and the draw launch read probs: 4.0004 passes
// with three reads (the survivors' values read back for the rows) with 34 and 44 barriers
// (its 9); 36 and 48 while each survivor statistic ended with a barrier its register result
// does not need. gpu-fast 2 and 11 with top-k 50 (top-p 0.9, min-p 0, 0.05 or 1, flat rows):
// the same two reads gather its survivors (gpu/fast/fast_top_k_survivors.cuh; 3 with the
// third read), 8 barriers in each slice block, then the ticket's
// broadcast (1) and the merge in the row's last block (2: the lists staged in shared
// memory, then ranked there), in one launch; 12 with the count's thread-0 scan (3 barriers
// where the warps' scan takes 1) and the merge's binary searches in global memory; 11 when the merge
// was a second launch (one launch more, 8 us in the model: the barrier the last block adds
// is the price of that launch, gpu/block/last_block.cuh). gpu's 34 did not move: its merge
// lost the barrier after its completeness flag (read by block-level code now). Before the k-th thread maximum by rank (2 barriers),
// the warp-aware sort of the candidates' slots only (3 for ~50) (gpu/block/bitonic_sort.cuh)
// and the two-barrier canonical reduction (gpu/block/block_reduce.cuh): gpu 170 and 203,
// gpu-fast 117 (two networks of 55 stages each); the worst cases below 14 barriers more (the
// reductions' 9 -> 2);
// the fractions below are the few scalar reads of block-level code. Its worst cases: top-k
// V - 1 5.0007 and 28 (136 before the k-th by rank and the warp-aware sort; the dropped token gathered by the
// reversed order, its first read fused with
// the maximum's; then round 0's scan and the top-p mass before the drawn token), top-p 0.999
// without top-k 3.0007 and 20 (the maximum, round 0's scan, the mass before the drawn token;
// nothing row-sized is written or read back). gpu's worst cases (top-k off or k > 1024) run
// top_k_first on one radix partition of the row (gpu/kernels/sampling_filters_on_partition.cuh:
// level 0 split by 15 splitters from a sample of the row taken first, so that the first read
// counts the buckets too; the k-th key from the partition, the softmax statistics and masks
// fused into its reads): 4 reads of the logits, 5 with a k-th key, 6 with min_p too, plus the
// partition's scratch keys (8 bytes each; a refined bucket of at most 16384 keys read once
// into registers); the draw scores the candidates the final sum's read kept, those that can
// still win once s is known (gpu/kernels/seeded_gumbel_candidates.cuh; their overflow is a
// ballot read after the sum's reduction: no barrier), and reads the row only when some
// thread overflowed; with a k-th key, the scatter read also folds every thread's lane, which
// is the top-k survivors' whenever the thread's largest key survives (all threads but one at
// top-k V - 1), so only the other threads read their entries for the survivors' sum; with
// top-k on, the first read also keeps each thread's 24 smallest keys (16 before 2026-11-29,
// later: top-k V - 1 3.38 passes, top-k 5000 1.25), so a thread holding all
// of its keys up to a bound scatters or folds them instead of reading its entries (every
// thread at top-k 5000: the scatter of the k-th key's bucket, the survivors' sum and the final
// one; at top-k V - 1 those whose top-p 0.9 survivors are held, for the final one): top-k V - 1
// 2.54 and 41, top-k V - 100 (K refined from its bucket) 2.78 and 46, top-p 0.999
// without top-k 4.56 and 87, top-k 5000 with top-p 0.9 1.12 and 26 (48 and 28 while the
// entries before the rank's were set aside by thread 0 a barrier before the others read where
// it stopped, not found by every thread from their sizes; 43, 50 and 93 while every
// refinement of the walk took a step of the chunk loop of its own, not beside the sort of the
// chunk before it; 47, 55, 101 and 30 while the partition's digit slots took 2 barriers, warp 0
// scanning the warps' totals between them: one barrier less per count, at level 0 and in
// every refined bucket; 2.75, 2.98, 4.77 and
// 1.24 passes while the first two refined level-0 buckets went through the scratch before
// their refinement: gpu/block/radix_partition.cuh "Held buckets"; 50, 58 and 120 while the walk's splitter buckets were cut into
// 16 parts, not 32: fewer, fuller chunks; 2.79 and 90, 4.90 and
// 224, 1.24 and 37 while a chunk walked took two barriers and a splitter bucket's sub-buckets
// were radix digits, some just over 1024 keys and refined again: the walk now takes the chunks
// as probabilities placed beside it, gpu/block/radix_partition.cuh "Chunk loop", and a
// splitter bucket is cut into 16 parts of equal width; 3.53 and 98 at top-k V - 1 before K
// came from each thread's 4 largest keys of the first read, k >= n - 3: no bucket refined or
// stored for K, the scatter read's fold restricted to the top-k survivors, no thread reading
// its entries for their sum; 3.88 and 4.24 while the threads read their entries; the level-0 buckets past
// the walk's reach by mass are scattered only if the walk gets there: no row pass less, the
// stores of 1.4 and 1.0 passes less at top-k V - 1 and top-p 0.999), flat rows 2.01 and 13, 2.01 and
// 13 (14 before the one-barrier digit slots of level 0's count), min-p 1 alone 3.00 and 10 (4.88 and 3.01 at top-k V - 1 while every thread read its
// entries for that sum). Before, the draw was folded into a last read (one barrier): top-k V - 1 5.88
// passes and 98 barriers, top-p 0.999 without top-k 5.90 and 224, top-k 5000 with top-p 0.9
// 5.24 and 37 (2 barriers per chunk walked: the next chunk's warp sort runs beside the walk
// in a second buffer, which reads up to 1024 scratch keys for nothing where the walk stops:
// + 0.01 passes), flat rows with top-k V - 1 4.01 and 14, with top-p 0.999 3.01 and 14 (a flat
// row's keys are its indices: nothing read after level 0 but the sums and the last read),
// min-p 1 alone 3.00 and 12 (the draw from the final survivors cached in registers by the
// sum's read, whose overflow flags take 2 barriers: 4.00 and 10 while the draw read the row
// again); before (the chunk sort in 3 barriers, the walk's verdict a
// fourth; flat rows' chunks read from the row, 2 barriers each): 5.87 and 145, 5.89 and 354,
// 5.23 and 51, 4.92 and 239, 5.01 and 265; before that, with the draw's launch reading probs (one pass, 9 barriers): top-k
// V - 1 6.87 passes and 153 barriers,
// top-p 0.999 without top-k 6.89 and 362, top-k 5000 with top-p 0.9 6.23 and 59 (167, 376 and
// 73 with the 9-barrier reduction); before the sample came first (level 0 a read of its own, each refined bucket read twice, a barrier
// after each stack read, 6 barriers per chunk walked instead of 4), 8.41 and 264, 8.90 and
// 611, 7.35 and 102; before that, the full-row steps (a copy, a radix select of the k-th key
// over the row, the statistics before and after the walk, 4-bit radix digits from level 0
// on), 22.18 and 283, 16.54 and 632, 20.08 and 133. Flat rows with top-k V - 1 5.92 and 247,
// with top-p 0.999 6.01 and 273 (261 and 287 with the 9-barrier reduction; a flat row is in index order: no partition, the walk's
// chunks are read from the row, 3 barriers each; the sample adds 0.008; 372 and 412 barriers
// before, 12.82 and 924, 12.01 and 1001 when the buckets' scratch keys were read three times,
// 8 bytes each; before the partition path, 30.64 and 911, 17.00 and 944); min-p 1 alone 5.00
// and 18 (32, then 9.00 and 59). gpu-fast's top-k 5000 with
// top-p 0.9 (1024 < k < V - 1024: its survivor gather does not apply): 6.04 and 56 with the
// k-th key by a sample's splitters (gpu/block/sample_select.cuh: the sample, a count read and
// a gather read; the maximum and the rounds' reads as before), 9.51 and 59 when the radix
// select gathered the last few keys (at most 8 per warp) in one read, 12.01 and 68 with the
// filters' 4-bit radix select of the k-th key (SelectKthKey), 30.0009 and 92 with the
// bit-by-bit select it had before (one read per key bit). gpu-fast's min-p 1 alone: 2.00 and
// 6 (the maximum, then one inverse-CDF round over the tokens min-p keeps; 15 while the round's
// scan took 11 barriers, a Hillis-Steele scan in shared memory, where the scan by warps takes
// 2, gpu/fast/fast_sampling.cuh FastBlockInverseCdf; 18 when the round's owner and its
// fallback were two block reductions), 10.5 and 258 when
// min-p was an acceptance test of the rejection rounds (a round per rejected token). Rows differ a little: docs/gpu.md
// lists the counts at 64 x 128256. gpu-fast's proposals (gpu/fast/fast_proposals.cuh: 8 draws
// from the masses of the maximum's read or the select's count read, the masses before them
// summed in the near-V gather's or the select's gather read, or in one read without top-k)
// took its worst cases to about 2 passes: top-k V - 1 2.004 and 14 (flat rows the same),
// top-p 0.999 without top-k 2.004 and 6 (flat rows the same), top-k 5000 with top-p 0.9 2.04
// and 22 (from 4.0007 and 28, 3.0007 and 20, 5.04 and 54 with the rejection rounds); top-k
// V - 1 12 since its dropped tokens' count is scanned by warps (1 barrier instead of 3).
// 2026-12-01: the typical rows' barriers rose by 17 (gpu 18 -> 35, 21 -> 38; gpu-fast 11 ->
// 28) and gpu-fast's near-V gather's by 8 (12 -> 20), traded for serial work: the k-th lane
// minimum by pairwise merges of the 32 warp-sorted runs (KthSmallestSlot, gpu/block/
// bitonic_sort.cuh: 10 barriers where ranking each key over the 32 runs took 2, at most 40
// reads a key where it took 192), the slice's list stored by k threads before a barrier (+1;
// thread 0 stored it, a load and a store a key in sequence) and the split row's merge of 20
// lists by the same pairwise merges (gpu/block/merge_runs.cuh: 2 x 4 barriers, 30 reads a
// key at top-k 50 where ranking each key in the 19 other lists took about 114). The block's
// critical path at 1 x 128256 fell from 666 to 331 (gpu) and from 624 to 289 (gpu-fast)
// accesses: the model's fitted barrier cost is 0 and its access cost 0.12 us (docs/gpu.md
// "Calibrating"); untimed on a device. Later on 2026-12-01 gpu's typical rows took one
// barrier more (35 -> 36, 38 -> 39): the split row's lane grouping by a merge of lane-order
// keys (GroupMergedByLane, then in gpu/kernels/sampling_filters_slices.cuh: 2 barriers where every
// thread compared its lane with all k keys after 1; 52 reads in sequence -> 21).
// The typical rows' passes 2.01 -> 1.01 on 2026-12-03 (gpu's, split into slices at 2 rows,
// and gpu-fast's): read 1 of the survivor gather keeps each lane's 6 smallest keys (LaneKeys,
// gpu/block/cached_candidates.cuh), which hold every candidate on these rows, so read 2 is
// not made. gpu's typical rows one barrier more since later that day (36, 39, 43 and 39
// before): the lane grouping (now GroupCandidatesByLane, gpu/block/top_k_survivors.cuh) merges
// its lane-order keys in `grouped` itself, whose 1024 slots hold any gather's candidates (the
// buffer of their own held 512), and a barrier separates the merge's searches from the stores
// of the keys at their places; the one-block rows (256 x V) group their candidates so too,
// from one read. Since 2026-12-05 gpu's slices gather their lists by the tree path
// (gpu/block/lane_key_tree.cuh: 7 barriers where 12 were, and the list stored from the tree's
// lanes, no barrier of its own): the budgets are the counts since, 23, 26, 32 and 26 (37, 40,
// 44 and 40 before). Since 2026-12-07 the budgets of the rows the day's barriers bear on are
// their counts again (the tree's vote, a split row's merge loading its lists, the lane
// grouping by warp 0, the merge tree of four runs a level, gpu-fast's draw from the tree's
// registers): gpu 23, 26, 32 and 26 -> 15, 18, 24 and 18; gpu-fast 14, 14, 22, 14, 13 and 25
// -> 7, 7, 15, 7, 7 and 19 (the last two: min-p alone's probe, its flat rows). Later that day
// a slice's ticket taken by warp 0 in its tree's last level (WarpTakesTicket,
// gpu/block/last_block.cuh: LastBlockOf's barrier goes where the tree's keys stand): gpu 14,
// 17, 24 and 17, gpu-fast 6, 6, 15, 6, 6 and 19 (flat rows fall back to the gather's sort,
// whose ticket is LastBlockOf's still). Then the merge of a split row's 20 lists in two levels
// (level 1 of fan-in 5, MergeTreeRuns' loaded partners, gpu/block/warp_merge_tree.cuh: one
// barrier where three levels of four took two): gpu 13, 16, 23 and 16, gpu-fast 5, 5, 14 and 5
// (min-p alone's probe merges 16 lists, two levels of four already). Then gpu's lane grouping
// of a split row's at most 64 merged keys from the merge tree's registers in warp 0 (no
// barrier between the merge and the grouping, GroupCandidatesByLane,
// gpu/block/top_k_survivors.cuh): gpu 12, 15, 22 and 15. Then gpu's survivor steps by warp 0
// alone when only the token is wanted and at most 64 candidates stand (SamplingFiltersInWarp,
// gpu/kernels/sampling_filters_in_warp.cuh: no grouping, canonical sums in registers, the
// walk and the draw in the warp; the merge keeps one barrier to tell the block): gpu 6, 6, 16
// and 6 (flat rows: their slices' gathers fall back to the sort).
const BudgetCase kBudgets[] = {
    {__LINE__, "gpu, top-k 50, top-p 0.9", false, Shape(0.0f, false), {1.01, 6}},
    {__LINE__, "gpu, + min-p 0.05", false, Shape(0.05f, false), {1.01, 6}},
    // Flat rows 7 more since 2026-12-03 (36 before): read 1 of the gather takes four elements a
    // load (gpu/block/quad_reads.cuh), so a thread's maximum on a flat row is the first index of
    // its first quad and T lets about 4k candidates through, not k (a network over 256 slots,
    // not 64); their critical path at 64 x 128256 still fell, 269 -> 201.
    {__LINE__, "gpu, flat rows", false, Shape(0.0f, true), {1.01, 16}},
    {__LINE__, "gpu, min-p 1", false, Shape(1.0f, false), {1.01, 6}},
    // The partition path's rows: 21 barriers more since 2026-12-01 (41, 46, 87, 26, 13 and 13
    // before): level 0's sample of 1024 keys sorted by BitonicSortSlots (21 barriers) where
    // every thread ranked its key against all 1024 (one barrier, 1024 reads in sequence): the
    // critical path at 4 x 128256 fell by about 1000 accesses in each (top-k 5000 5510 -> 4498).
    // 15, 15, 15 and 12 barriers more since 2026-12-02 (62, 67, 108 and 47 before): the walk's
    // chunks after the first are summed unsorted (gpu/block/radix_partition.cuh "Chunks in any
    // order"), and one that needs the order is sorted then, with two barriers more than in the
    // pipeline; the critical paths fell (PartitionWalkSumsItsPositionsOnTheWarp below: 15418,
    // 7087 and 7507 -> 5506, 4486 and 4909 at one row), top-k 5000's alone rose, by 22 accesses
    // at 64 rows (most of its chunks need the order). 3 fewer each since a chunk whose ties
    // are its only reason to need the order is summed unsorted (WarpAnyOrderSum's tie passes).
    // 1 more here and in the flat rows since level 0's bucket table (partition_detail::CellTable)
    // is filled in a phase of its own: its two reads take about one shared read a key for the
    // bucket, where the splitters' binary search took 4 (critical paths at 64 x 128256: top-p
    // 0.999 5700 -> 5060, flat rows 1176 -> 824 and 1044 -> 692). 40, 40, 40 and 30 more since
    // 2026-12-02 (75, 80, 121 and 57 before), a loosened barrier budget traded for serial
    // reads: a chunk sorted after its any-order walk is sorted by pairwise merges of its 32
    // warp-sorted runs (MergeRuns: 10 barriers more a chunk; 4 such chunks here, 3 at top-k
    // 5000), where each key was ranked by a binary search of every other warp's run, 186 reads
    // (critical paths at 64 x 128256: top-p 0.999 4244 -> 3505, top-k V - 1 3110 -> 2411,
    // V - 100 3527 -> 2867, top-k 5000 2058 -> 1556). 9 more where K is refined (V - 100 and
    // top-k 5000) since 2026-12-02 (120 and 87 before), traded alike: the rank's chunk is
    // sorted by the same pairwise merges (10 barriers where its binary searches took 2 and up
    // to 186 reads a key; critical paths at 64 x 128256: V - 100 2358 -> 2255, top-k 5000 1457
    // -> 1322). 13 more each since 2026-12-03 (115, 129, 161 and 96 before), traded alike: a
    // visit's first chunk of more than 512 keys is sorted by the same merges after its walk
    // (kFirstChunkRanked in gpu/block/radix_partition.cuh), where the pipeline ranked each key
    // by binary searches of every other warp's run (211 reads at 1024 keys; critical paths at
    // 64 x 128256: top-k 5000 1274 -> 1121, V - 1 1907 -> 1855, V - 100 2174 -> 2126, top-p
    // 0.999 2376 -> 2357). 9 fewer each since 2026-12-06 (128, 142, 174, 109, 35 and 35
    // before): level 0's sample sort runs the network's crossing levels transposed
    // (gpu/block/bitonic_sort.cuh "Layout": 12 barriers over 1024 slots, 21 stage by stage).
    {__LINE__, "gpu, top-k V - 1", false, TopK(kVocab - 1), {2.54, 119}},
    {__LINE__, "gpu, top-k V - 100", false, TopK(kVocab - 100), {2.78, 133}},
    {__LINE__, "gpu, top-k off, top-p 0.999", false, TopPAlone(0.999f), {4.56, 165}},
    {__LINE__, "gpu, top-k 5000, top-p 0.9", false, TopK(5000), {1.12, 100}},
    {__LINE__, "gpu, flat rows, top-k V - 1", false, Flat(TopK(kVocab - 1)), {2.01, 26}},
    {__LINE__, "gpu, flat rows, top-k off, top-p 0.999", false, Flat(TopPAlone(0.999f)), {2.01, 26}},
    // 2 passes since 2026-12-03 (3 before): min-p's read keeps the entries that may pass it
    // (MinPValueBound, gpu/kernels/min_p.cuh) and the final sum folds them without a read.
    {__LINE__, "gpu, min-p 1, top-k and top-p off", false, MinPAlone(1.0f), {2.01, 10}},
    // Flat rows the same since 2026-12-04 (3 passes before): every entry equals the max, so it
    // passes min-p whatever the sum, and min-p's read gives each lane's draw candidates and
    // final fold (the lane's count of ones) without a read of its own.
    {__LINE__, "gpu, flat rows, min-p 1, top-k and top-p off", false, Flat(MinPAlone(1.0f)), {2.01, 10}},
    // gpu-fast's survivor rows (top-k 50, and below min-p alone's probe of 64) since
    // 2026-12-05, budgets at their counts (28, 28, 35, 28, 22 and 30 before, looser than the
    // counts): the survivor gather's tree path (gpu/fast/fast_top_k_survivors.cuh "The tree
    // path": the warps' merge tree over each lane's 3 smallest kept keys, 7 barriers where the
    // lane minima, their k-th, the candidates' scan and write and their sort took 12; a slice's
    // list stored by the tree's lanes, no barrier of its own): 20 -> 14 per row at these rows.
    // Flat rows take its other case (a lane holds 4 of the k), whose bound, the tree's k-th,
    // lets fewer candidates through than the k-th lane minimum did (a smaller network).
    {__LINE__, "gpu-fast, top-k 50, top-p 0.9", true, Shape(0.0f, false), {1.01, 5}},
    {__LINE__, "gpu-fast, + min-p 0.05", true, Shape(0.05f, false), {1.01, 5}},
    // 7 more since 2026-12-03 (28 before), as gpu's flat rows: read 1 four elements a load
    // (ForEachQuadKey, gpu/block/key_reads.cuh) lets about 4k candidates through. 1 fewer
    // since 2026-12-06: a network over 128 slots or more takes its barrier after a transposed
    // level (gpu/block/bitonic_sort.cuh) with the final store's, no longer one a stage.
    {__LINE__, "gpu-fast, flat rows", true, Shape(0.0f, true), {1.01, 14}},
    {__LINE__, "gpu-fast, min-p 1", true, Shape(1.0f, false), {1.01, 5}},
    {__LINE__, "gpu-fast, top-k V - 1", true, TopK(kVocab - 1), {2.01, 20}},
    {__LINE__, "gpu-fast, top-k off, top-p 0.999", true, TopPAlone(0.999f), {2.01, 6}},
    // 115 since 2026-12-01 (21 before): the sample select's ranks by sorting networks
    // (gpu/block/sample_select.cuh: each of the 4 sample chunks and the bin sorted by
    // BitonicSortSlots, 21 barriers each, then binary searches), where every thread compared
    // its keys with all 4096 sample keys (4 intervals of 1024 reads) and then with all the
    // bin's: the critical path at 4 x 128256 fell from 5048 to 1193 accesses.
    // 2.05 passes since 2026-12-02 (2.04 before): the proposals' draw by warps (gpu/fast/
    // fast_proposals.cuh DrawProposals) sums every index of a proposal's owning thread (32
    // lanes, a run each) and its run's lane reads its run again, where one thread read the
    // owner's indices up to the pick (about half): 0.004 passes more at 2 x 128256 (2.036 ->
    // 2.040), traded for the draw's serial work (about 210 accesses in sequence -> 12; the
    // critical path at 64 x 128256 1342 -> 977).
    // 62 since 2026-12-02 (115 before): the splitters from a window of the sample around
    // their ranks, found by a sorted subsample (gpu/block/sample_select.cuh "Window": 2 sorts
    // and a scan where the 4 chunks' sorts and binary searches were; critical path at 64 x
    // 128256 977 -> 643). 61 since 2026-12-02: the bin holding rank k is found alike by every
    // warp (DigitOfRank, gpu/block/radix_select.cuh), where thread 0 searched the bins and
    // folded the warps' minima, then stored the answers for the others to read between two
    // barriers, and the bins are summed by warps (SumDigitCounts: one shared load a lane where
    // threads 0 .. 15 loaded 32 each); critical path at 64 x 128256 643 -> 558. 63 since
    // 2026-12-03: the proposals follow each thread's share of the row by quads
    // (gpu/block/thread_share.cuh), another order of the same law, and here one of the 2 rows
    // rejects its first proposal (probability about 0.27 a row), which sums the others' masses
    // (SumProposalLanes: 2 barriers); critical path at 64 x 128256 558 -> 364. 44 since
    // 2026-12-06 (63 before): the subsample's, the window's and the bin's sorts run the
    // network's crossing levels transposed (gpu/block/bitonic_sort.cuh "Layout": 11 barriers
    // over 1024 slots, 9 over 512, where stage by stage took 21 and 15; critical path at 64 x
    // 128256 270 -> 246).
    {__LINE__, "gpu-fast, top-k 5000, top-p 0.9", true, TopK(5000), {2.05, 44}},
    // 1 pass since 2026-12-03 (2 before: the maximum's read, then one round over the tokens
    // min-p keeps): the first 64 keys gathered as a top-k row's survivors hold them (a probe,
    // gpu/fast/fast_sampling_launch.h FastSurvivorK), in 16 slices a row (1024 / 64), for the
    // survivor path's barriers (6 before). Flat rows keep every token, which the probe cannot
    // hold: its read finds the maximum, one round reads the row again in the last block (2
    // passes as before, 30 barriers: the flat slices' larger networks, then the round's).
    {__LINE__, "gpu-fast, min-p 1, top-k and top-p off", true, MinPAlone(1.0f), {1.01, 6}},
    // Flat rows 25 since 2026-12-06 (26), as gpu-fast's flat rows above.
    {__LINE__, "gpu-fast, flat rows, min-p 1, top-k and top-p off", true, Flat(MinPAlone(1.0f)), {2.01, 19}},
    {__LINE__, "gpu-fast, flat rows, top-k V - 1", true, Flat(TopK(kVocab - 1)), {2.01, 20}},
    {__LINE__, "gpu-fast, flat rows, top-k off, top-p 0.999", true, Flat(TopPAlone(0.999f)), {2.01, 6}},
};

TEST(GpuCost, SamplingKernelsStayWithinTheirBudgets) {
  for (const BudgetCase& c : kBudgets) {
    SCOPED_TRACE(testing::Message() << "line " << c.line << ": " << c.name);
    const std::vector<float> logits = SamplingCostLogits(c.shape);
    const auto launches = c.fast ? CountGpuFastSampling(c.shape, logits.data()) : CountGpuSampling(c.shape, logits.data());
    // Both paths split each of the 2 rows into slices when its top-k survivors are gathered
    // (top-k 50 here): floor(132 SMs / 2 rows) = 66, capped at 128256 / 4096 = 31 slices of at
    // least 4096 entries, and at 1024 / 50 = 20 so that 20 lists of 50 keys fill the 1024
    // merge slots: 20 blocks per row in one launch (gpu/block/row_slices.cuh), whose last
    // block per row merges (gpu/block/last_block.cuh); gpu's path wants only the token, drawn
    // by that block on the survivors: no launch writing the output rows, none reading probs.
    // gpu-fast's min-p-only rows gather a probe of 64 keys the same way: 1024 / 64 = 16 slices.
    const bool min_p_probe = c.fast && c.shape.top_k == 0 && c.shape.top_p >= 1.0f && c.shape.min_p > 0.0f;
    const std::int64_t slices = c.shape.top_k == 50 ? 20 : min_p_probe ? 16 : 1;
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(CheckBudget(launches, c.shape.rows, c.shape.vocab, c.budget), "");
    // Every other launch runs one block per row: gpu's in its row kernel; gpu-fast's in the
    // slice kernel still (2 rows are one wave at one block per SM: each row whole in its only
    // block, gpu/fast/fast_sampling_launch.h). gpu-fast, and gpu's survivor path (its draw
    // on the survivors, no row written), read no row-sized array but the logits: gpu three
    // times; its partition path at most 6 times and its sample of 1024 entries (its contract).
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const bool first = slices > 1 && i == 0;
      if (c.fast) {
        EXPECT_EQ(launches[i].kernel, "fast_sampling_slices");
      } else {
        EXPECT_EQ(launches[i].kernel, first ? "sampling_filters_slices" : "sampling_filters");
      }
      EXPECT_EQ(launches[i].blocks, c.shape.rows * (first ? slices : 1)) << launches[i].kernel;
    }
    const double logits_passes = LogitsPasses(launches, c.shape.rows, c.shape.vocab);
    if (c.fast) {
      EXPECT_DOUBLE_EQ(logits_passes, RowPasses(launches, c.shape.rows, c.shape.vocab));
    } else if (c.shape.top_k > 0 && c.shape.top_k <= 1024) {
      EXPECT_DOUBLE_EQ(logits_passes, RowPasses(launches, c.shape.rows, c.shape.vocab));
      EXPECT_LE(logits_passes, 2.01);
    } else {
      EXPECT_LE(logits_passes, 6.01);
    }
  }
}

// top_p's full-row walks (gpu/kernels/top_p.cuh, TopPWalkRow on the radix partition) in the
// profiles whose order runs them: vllm's ascending walk (min_p first, then top_k and top_p on
// the row) and sglang's (joint: every position of top_k's prefix walked, each dropped on its
// own), top-k off and top-p 0.9 so that the walk covers most of the row, one row of the
// benchmark's logits (the other paths' budgets are per row too). Each chunk of the walk is one
// barrier of the partition's chunk loop (gpu/block/radix_partition.cuh "Chunk loop"): vllm
// 14.50 passes and 202 barriers, sglang 14.99 and 220 (201 and 219 before level 0's bucket
// table, filled in a phase of its own; 180 and 198 while level 0's sample was
// ranked by every thread against all 1024 keys, not sorted by a 21-barrier network; 193 and 216 while every refinement took
// a step of the chunk loop of its own, not beside the sort of the chunk before it; 211 and 237
// while a refined bucket's digit slots took 2 barriers, 1 now; 14.68 and 15.19 passes while the
// first two refined level-0 buckets went through the scratch before their refinement,
// "Held buckets"; 14.70 and 234, 15.21 and 258 were
// budgets above the counts; 548 and 613 while these walks took their chunks as keys, 3
// barriers each: the place, the verdict and the barrier after its read; vllm 15.56 passes
// while its walk read each key's value from the row, 0.86 passes). The
// passes are the full-row steps' (the copy, the counts, the softmax statistics, the mask, the
// output probs and the draw); the walk reads the row only at the partition's level 0.
struct ProfileBudgetCase {
  int line;
  const char* name;
  FilterRules rules;
  CostBudget budget;
};

const ProfileBudgetCase kProfileBudgets[] = {
    {__LINE__, "gpu, vllm, top-k off, top-p 0.9",
     FilterRules{TopKRule{true}, TopPWalk::kVllmAscending, MinPRule{}, FilterOrder::kMinPFirst, DegenerateRowRule{}},
     {14.50, 202}},
    {__LINE__, "gpu, sglang, top-k off, top-p 0.9",
     FilterRules{TopKRule{}, TopPWalk::kSglang, MinPRule{}, FilterOrder::kJoint, DegenerateRowRule{}}, {14.99, 220}},
};

TEST(GpuCost, TopPFullRowWalksStayWithinTheirBudgets) {
  for (const ProfileBudgetCase& c : kProfileBudgets) {
    SCOPED_TRACE(testing::Message() << "line " << c.line << ": " << c.name);
    SamplingCostShape shape = TopPAlone(0.9f);
    shape.rows = 1;
    shape.rules = c.rules;
    const std::vector<float> logits = SamplingCostLogits(shape);
    const auto launches = CountGpuSampling(shape, logits.data());
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0].kernel, "sampling_filters");
    EXPECT_EQ(CheckBudget(launches, shape.rows, shape.vocab, c.budget), "");
  }
}

// The partition path's walk of P positions (gpu/block/radix_partition.cuh "Chunk loop"): warp 0
// adds the positions that cannot end it, 32 a lane a chunk (gpu/block/warp_running_sum.cuh),
// and thread 0 walks the rest; the chunks after the first are summed unsorted where every
// order gives the same sum ("Chunks in any order": about 8 accesses a chunk) and sorted where
// not (about 220), so the critical path is the partition's and those sorts, below P / 2:
// thread 0 reading two probabilities a shared access (ranks 2j and 2j + 1 in one 8-byte word)
// made it about P / 2 plus the partition's (32281, 13347 and 13770 here until 2026-12-01), one
// read a position at least P; every chunk sorted, 15418, 7087 and 7507 (until 2026-12-02); a
// chunk with a tie sorted, 5506, 4486 and 4909 (until the tie passes, 2026-12-02); 5292, 4272
// and 4695 while level 0 searched the splitters for each key's bucket (4 reads, 1 now); 4655,
// 3639 and 4060 while the first chunk's rounds each read every position left (windowed now);
// 4602, 3586 and 4007 while every thread read the 32 warps' counts, extremes and, for the
// reach, 16 x 32 bucket sums in sequence after level 0's first read (one load each and a
// butterfly now, CombineWarpValues in gpu/block/warp_min.cuh); 3972, 2956 and 3377 while every
// sorted chunk after the first took 2 rounds of the warp's sum (TopPSumRounds, gpu/kernels/
// top_p.cuh: one per binade it may leave now); 3890, 2874 and 3295 while a chunk sorted after
// its any-order walk ranked each key by a binary search of every other warp's run (186 reads;
// pairwise merges now, MergeRuns: at most 40, for 10 barriers more); 3209, 2193 and 2614
// while the partition's digit slots (DigitSlots, level 0 and each refinement) had lane 0
// store the warp's 16 totals and every lane load 16 (8 of each now, a word of two digits'
// totals each); 3081, 2129 and 2534 while warp 0 read every unsorted chunk's 512 weight words
// (the warps' parts summed ahead now, AnyOrderParts in gpu/block/warp_running_sum.cuh); 2407,
// 1971 and 2376 while thread 0 wrote every entry a scatter pushed (thread j the j-th now) and
// the chunk loop read again the entry it had popped and put back a step before (kept now);
// 2198, 1902 and 2283 while every thread read the 32 warps' lists of largest keys in sequence
// for K near n (a list a lane and shuffles now, LargestKeyOfRank in gpu/kernels/
// sampling_filters_on_partition.cuh), thread 0 moved the buckets before the rank's aside and
// back (thread j the j-th now) and the rank's chunk was sorted by binary searches (pairwise
// merges now); 2198, 1778 and 2046 while a key in a cell of one splitter always read that
// splitter (only a key in the splitter's eighth of the cell reads it now, CellTable in
// gpu/block/radix_partition.cuh). Flat rows with top-k V - 1 walk no chunk (their keys are
// computed): their critical path, 551, is the row's reads and K's merge (675 while every
// thread read the 128 keys). P from the logits by std::sort and double sums (the f32 walk's
// cut is within a few positions of it); one row, so that the critical path is that row's
// block's (P = 55432, 18560, 18560 and 4336 here; 115430 on the flat row). Top-k 5000's walk
// starts with a chunk of 1024 keys: 1231 while the pipeline ranked them by binary searches of
// every other warp's run (sorted by merges after the walk now, kFirstChunkRanked in
// gpu/block/radix_partition.cuh). The budgets are today's critical paths: 50 to 52 fewer since
// 2026-12-06 (2122, 1697, 1967, 1069 and 551 before), level 0's sample sort running the
// network's crossing levels transposed (gpu/block/bitonic_sort.cuh: 20 accesses, 72 before).
TEST(GpuCost, PartitionWalkSumsItsPositionsOnTheWarp) {
  struct Case {
    int line;
    const char* name;
    SamplingCostShape shape;
    std::int64_t max_critical_path;
  };
  const Case cases[] = {
      {__LINE__, "top-k off, top-p 0.999", TopPAlone(0.999f), 2070},
      {__LINE__, "top-k V - 1, top-p 0.9", TopK(kVocab - 1), 1645},
      {__LINE__, "top-k V - 100, top-p 0.9", TopK(kVocab - 100), 1915},
      {__LINE__, "top-k 5000, top-p 0.9", TopK(5000), 1017},
      {__LINE__, "flat rows, top-k V - 1, top-p 0.9", Flat(TopK(kVocab - 1)), 501},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "line " << c.line << ": " << c.name);
    SamplingCostShape shape = c.shape;
    shape.rows = 1;
    const std::vector<float> logits = SamplingCostLogits(shape);
    std::vector<double> x(logits.begin(), logits.begin() + shape.vocab);
    std::sort(x.begin(), x.end(), std::greater<>());
    if (shape.top_k > 0) x.resize(static_cast<std::size_t>(shape.top_k));
    double s = 0.0;
    for (const double v : x) s += std::exp(v - x[0]);
    std::int64_t positions = 0;
    for (double cum = 0.0; positions < static_cast<std::int64_t>(x.size()) && cum < shape.top_p; ++positions) {
      cum += std::exp(x[static_cast<std::size_t>(positions)] - x[0]) / s;
    }
    const auto launches = CountGpuSampling(shape, logits.data());
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0].kernel, "sampling_filters");
    EXPECT_LT(launches[0].critical_path, positions / 2);
    EXPECT_LE(launches[0].critical_path, c.max_critical_path);
  }
}

// gpu's min-p-only rows take the partition path's first read alone (no sample, no held keys:
// top-k and top-p off), whose count and smallest and largest keys no partition of the row
// changes: four entries a load (RowOrderKeys, gpu/block/radix_select.cuh). The longest chain
// before the first barrier is then about V / 4096 = 32 loads a thread and a few shared
// accesses; one entry a load makes it at least V / 1024 = 125 (134 until 2026-12-04). The
// min-p read after it sums the canonical lanes in their order, each warp loading four strides
// of its lanes' entries a quad a lane (gpu/block/lane_quads.cuh): about 32 loads too (at least
// 125 until 2026-12-07), so no interval holds a read of one entry a load.
TEST(GpuCost, MinPAloneReadsTakeFourEntriesALoad) {
  SamplingCostShape shape = MinPAlone(1.0f);
  shape.rows = 1;
  const std::vector<float> logits = SamplingCostLogits(shape);
  const auto launches = CountGpuSampling(shape, logits.data());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].kernel, "sampling_filters");
  const std::vector<std::int64_t>& chains = launches[0].critical_intervals;
  ASSERT_GE(chains.size(), 3u);
  EXPECT_GE(chains[0], kVocab / 4096);
  EXPECT_LE(chains[0], kVocab / 4096 + 16);
  const std::int64_t sum_read = *std::max_element(chains.begin() + 1, chains.end());
  EXPECT_GE(sum_read, kVocab / 4096);
  EXPECT_LE(sum_read, kVocab / 4096 + 16);
}

// The launches a sampling path ran, in order: kernel, blocks, barriers of its busiest block.
struct LaunchShape {
  const char* kernel;
  std::int64_t blocks;
  std::int64_t barriers;
};

void ExpectLaunches(const std::vector<LaunchCounters>& launches, const std::vector<LaunchShape>& expected) {
  ASSERT_EQ(launches.size(), expected.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "launch " << i);
    EXPECT_EQ(launches[i].kernel, expected[i].kernel);
    EXPECT_EQ(launches[i].blocks, expected[i].blocks);
    EXPECT_EQ(launches[i].max_block_barriers, expected[i].barriers);
  }
}

// Greedy rows (temperature 0; the device benchmark's case 5, whose goal is a fraction of the
// copy's bandwidth): an argmax needs each logit once, so both paths must read the logits
// exactly once and nothing else row-sized. Both take every slice the batch offers:
// floor(132 / 2) = 66 capped at 128256 / 4096 = 31, 62 blocks, the row's last block merging
// the slices' winners: the greedy stage's argmax kernel (GreedyLaunch), 2 barriers (its warps'
// tree, the ticket; 6 with one block a row and the canonical tree before 2026-12-01), in gpu
// and, for a batch of greedy rows only, in gpu-fast since 2026-12-06 (its fused kernel's greedy
// rows before: the same read and tree since 2026-12-04; 3 barriers with a block minimum of
// order keys).
TEST(GpuCost, GreedyRowsReadTheLogitsOnce) {
  SamplingCostShape s = Shape(0.0f, false);
  s.greedy = true;
  const std::vector<float> logits = SamplingCostLogits(s);
  const auto gpu = CountGpuSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(gpu, {{"greedy", 62, 2}}));
  EXPECT_DOUBLE_EQ(LogitsPasses(gpu, s.rows, s.vocab), 1.0);
  EXPECT_DOUBLE_EQ(RowPasses(gpu, s.rows, s.vocab), 1.0);
  const auto fast = CountGpuFastSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(fast, {{"greedy", 62, 2}}));
  EXPECT_DOUBLE_EQ(LogitsPasses(fast, s.rows, s.vocab), 1.0);
  EXPECT_DOUBLE_EQ(RowPasses(fast, s.rows, s.vocab), 1.0);
}

// gpu-fast at 1 x 128256, top-k 50, top-p 0.9 (the decode latency case): one row split over
// 20 blocks (floor(132 SMs / 1) = 132, capped at 128256 / 4096 = 31 and at 1024 / 50 = 20),
// each reading its slice of 6412 or 6413 entries once (the survivor gather of
// gpu/fast/fast_top_k_survivors.cuh on the slice, whose read 1 keeps each lane's 6 smallest
// keys since 2026-12-03; twice before, 3 reads before its count kept the candidates in
// registers) and taking the row's ticket; the block that draws the last one
// merges the 20 sorted lists of 50 keys from the scratch and draws
// (gpu/block/last_block.cuh), in the same launch: 1 pass over the logits in all, 28
// barriers in that block of 1024 threads (the gather: the lane minima (1), their k-th by
// pairwise merges of the 32 warp-sorted runs (10, gpu/block/bitonic_sort.cuh), the count and
// its scan by warps (1), the gather (1), the warp-aware sort of its ~50 candidates in 64
// slots (3); the list stored by 50 threads (1); the ticket's broadcast (1); the merge: its
// lists staged in shared memory (1), the 20 lists merged pairwise in 5 levels (2 x 4,
// gpu/block/merge_runs.cuh), the merged keys placed (1)), 18 in the others, 20 tickets
// (11 and 9 until 2026-12-01, when the k-th was found by ranking each key over the 32 runs,
// thread 0 stored the list and the merge ranked each key in the 19 other lists: more serial
// reads, fewer barriers; docs/gpu.md "Sorting networks and the canonical reduction"). Later on
// 2026-12-03 the k-th went to the warps' merge tree (6 barriers, gpu/block/warp_merge_tree.cuh,
// for k <= 64), and so did the merge of the 20 lists (MergeSliceLists, gpu/block/row_slices.cuh:
// the lists loaded into the warps' registers, 5 levels, 4 barriers; every warp loads the 20
// heads, 32 x 20 x 8 = 5120 bytes of the same words, where the staged copy served them): 20
// barriers in the last block, 14 in the others; 14 and 8 since 2026-12-05, the slice's gather
// by the tree path (gpu/fast/fast_top_k_survivors.cuh: the warps' merge tree over each lane's
// 3 smallest kept keys, 7 barriers where the lane minima (1), their k-th (6), the scan (1),
// the gather (1) and the sort (3) took 12, the list stored by the tree's lanes before the
// gather's last barrier, not by 50 threads before one of its own); 13 and 7 since 2026-12-07
// (the tree's vote on the lanes' fourth keys in its last barrier: one minimum, no barrier of
// its own, gpu/block/lane_key_tree.cuh), and 12 and 7 later that day (the lists' merge loads
// each odd list at its first level from the scratch: no store and barrier before the tree,
// MergeSliceLists, gpu/block/row_slices.cuh), and 8 and 5 later still (the merge tree merges
// four runs a level after its first in the slice's gather, and four lists a level from its
// first in the merge: 2 barriers where 4 were in each tree, gpu/block/warp_merge_tree.cuh),
// then 7 and 5 (the tree's last level leaves the k <= 64 survivors in warp 0's registers,
// where the draw takes them: no barrier after the placement, gpu/fast/fast_sampling.cuh),
// then 6 and 4: warp 0 decides the tree's vote in its last level and, the keys standing,
// takes the row's ticket there (WarpTakesTicket, gpu/block/last_block.cuh), so the tree's one
// barrier after its last level also tells the block whether it drew the last ticket, where
// LastBlockOf's own barrier followed: a slice block's 4 are the runs' store, the tree's two
// levels and that barrier; the last block adds the merge's 2 (20 x 4 + 2 in the launch). Then
// 5 and 4: the merge of the 20 lists takes two levels, the first of fan-in 5 (MergeTreeRuns'
// loaded partners, gpu/block/warp_merge_tree.cuh), so the last block adds 1 (20 x 4 + 1).
// The lists were read from
// the scratch once (1000 keys, 8000 bytes), their heads checked in the staged copy: the
// busiest block moves its slice's read and those, under 34676 bytes (59764 with two reads
// until 2026-12-03; 59924 while block-level code loaded the 20 heads from the scratch before
// staging, until 2026-12-01). With the thread-0 scan (3
// barriers) and the merge's binary searches and heads read per thread from global memory:
// 12 and 11 barriers, 378164 bytes in the last block (30 us in the model, 16 us now). Before the last
// block merged, two launches: the slices (10 barriers) then a merge block (1): 11 barriers per
// row, one launch more (8 us in the model); before the slices, one block read the whole row
// three times: 1 block, 3.0 passes, 117 barriers, at one SM's share of the bandwidth.
TEST(GpuCost, FastSamplingSplitsOneRowOverBlocks) {
  SamplingCostShape s = Shape(0.0f, false);
  s.rows = 1;
  const std::vector<float> logits = SamplingCostLogits(s);
  const auto launches = CountGpuFastSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(launches, {{"fast_sampling_slices", 20, 5}}));
  EXPECT_EQ(CheckBudget(launches, s.rows, s.vocab, {1.01, 5}), "");
  EXPECT_GE(LogitsPasses(launches, s.rows, s.vocab), 1.0);
  EXPECT_EQ(launches[0].barriers, 20 * 4 + 1);
  EXPECT_LE(launches[0].max_block_global_bytes, 6413 * 4 + 1000 * 8 + 32 * 20 * 8 + 1024);
  EXPECT_EQ(launches[0].atomics, 20);
}

// gpu at 1 x 128256, top-k 50, top-p 0.9 (the decode latency case), split as gpu-fast is
// (gpu/kernels/sampling_filters_slices.cuh): 20 slice blocks of 6412 or 6413 entries, each
// running the one-block survivor gather on its slice (gpu/block/top_k_survivors.cuh: one
// read since 2026-12-03, its read 1 keeping each thread's 6 smallest keys; two before, three
// before its count kept the candidates in registers; 10 barriers: the k-th thread maximum by rank (2), the count's scan and the gather,
// the warp-aware sort of the ~50 candidates in 64 slots (3); 116 with two 1024-slot networks
// of 55 stages) and taking the row's ticket (1 barrier); the block that draws the last one
// (gpu/block/last_block.cuh) then merges the 20 lists of 50 keys and runs top-p on the
// survivors without reading the logits (the lists staged in shared memory, their merge and
// the lane grouping (3), then the survivor steps' 5: the top-p walk's sum (2) and verdict
// (1), the final sum (2); the lists' completeness is read by block-level code), then
// draws the token on its ~45 final survivors (one per thread, the one-barrier warp-first
// argmax) and writes only the token: 18 barriers in that block, one launch, no output rows,
// no draw launch reading probs. 1 pass over the logits (2 until 2026-12-03: the slices'
// gather read its slice twice) and 18 barriers per row (26 with the
// count's thread-0 scan, the merge's searches in global memory, each sum's own maximum and a
// barrier after every read of the survivors' number and last key). Before
// (2026-11-29), 4 launches (with the third read): the slices (10), a merge launch (15, a barrier after the
// completeness flag), 20 blocks writing the output rows (reading the survivors' values back,
// 180 bytes; no barrier), the draw reading probs (one block, 9 barriers): 4.0004 passes and 34
// barriers. The one-block run (planned for 132 rows: no slice) counts 14 (its exact-k top_k
// step takes no barrier, the draw's 1 replaces the barrier after the row writes; 23 before
// the changes above, 32 with the draw launch). Planned for 64 rows, a row takes floor(132 / 64) = 2 slices.
// Since 2026-12-01: 35, 22 and 27 (the 2-slice merge is one level: no barrier of its own):
// the k-th thread maximum by pairwise merges of the 32 warp-sorted runs (10 barriers where the
// ranks over the runs took 2), the slice's list stored by 50 threads (+1 barrier) and the 20
// lists merged pairwise (+8, gpu/block/merge_runs.cuh), for fewer serial reads (tests above).
// Then 36 and 28: the merged keys' lane grouping by a merge (GroupMergedByLane, +1). Since
// 2026-12-03, 37 and 29 (the lane grouping's merge in `grouped` itself, GroupCandidatesByLane:
// +1), and the one-block run reads the row once (2 passes before: its reads 2 and 3 went by
// canonical lanes, for the lane grouping that its candidates now take from the sorted ones,
// 3 barriers: 22 -> 25). Later that day the k-th thread maximum by the warps' merge tree (6
// barriers instead of 10, gpu/block/warp_merge_tree.cuh) and the 20 lists' merge too
// (MergeSliceLists, gpu/block/row_slices.cuh: 4 barriers instead of 8, every warp loading the
// 20 heads): 29, 21 and 25. Since 2026-12-05 a gather of k <= 64 takes the tree
// path (gpu/block/lane_key_tree.cuh: 7 barriers where the maxima's store, their k-th, the
// candidates' scan and write and their sort took 12), and a slice's gather stores its list
// from the tree's lanes (no barrier of its own): 23, 16 and 19. Since 2026-12-07 the tree's
// vote takes no barrier of its own (gpu/block/lane_key_tree.cuh): 22, 15 and 18; and the lists'
// merge loads the odd lists at its first level (MergeSliceLists: no barrier before the tree):
// 21, 15 and 17; and the lane grouping of at most 64 candidates by warp 0 alone in its registers
// (GroupCandidatesByLane, gpu/block/top_k_survivors.cuh: 1 barrier where 3 were): 19, 13 and 15;
// and the warps' merge tree of four runs a level after its first (four lists a level from its
// first in the merge; gpu/block/warp_merge_tree.cuh: 2 barriers where 4 were, in the slices'
// gathers and in the merge of 20 lists; the merge of 2 has none either way): 15, 11 and 13;
// and the row's ticket taken by warp 0 in the slice tree's last level when its keys stand
// (WarpTakesTicket, gpu/block/last_block.cuh: LastBlockOf's barrier goes, the tree's tells
// the block): 14, 11 and 12; and the 20 lists' merge in two levels, the first of fan-in 5
// (MergeTreeRuns' loaded partners, gpu/block/warp_merge_tree.cuh: 1 barrier where 2 were; the
// merge of 2 lists has none): 13, 11 and 12; and the lane grouping of the merged keys from the
// merge tree's registers in warp 0, with no barrier after the merge (GroupCandidatesByLane,
// gpu/block/top_k_survivors.cuh): 12, 11 and 11; and the survivor steps by warp 0 alone
// (SamplingFiltersInWarp, gpu/kernels/sampling_filters_in_warp.cuh: the grouping, the two
// canonical sums of two barriers, the walk's and the draw's go; a split row's merge takes one
// for warp 0's verdict on its keys, the one-block row none): 6, 4 and 5.
TEST(GpuCost, SamplingFiltersSplitOneRowOverBlocks) {
  SamplingCostShape s = Shape(0.0f, false);
  s.rows = 1;
  const std::vector<float> logits = SamplingCostLogits(s);
  const auto launches = CountGpuSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(launches, {{"sampling_filters_slices", 20, 6}}));
  EXPECT_LE(launches[0].max_block_global_bytes, 6413 * 4 + 1000 * 8 + 32 * 20 * 8 + 1024);
  EXPECT_EQ(launches[0].atomics, 20);
  // No output row written (neither the masked logits nor the probabilities), the token alone.
  EXPECT_EQ(launches[0].Global("logits_out").store_bytes, 0);
  EXPECT_EQ(launches[0].Global("probs").store_bytes, 0);
  EXPECT_EQ(launches[0].Global("token").store_bytes, 8);
  EXPECT_EQ(CheckBudget(launches, s.rows, s.vocab, {1.01, 6}), "");
  EXPECT_DOUBLE_EQ(LogitsPasses({launches[0]}, s.rows, s.vocab), 1.0);
  s.plan_rows = 132;
  const auto one_block = CountGpuSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(one_block, {{"sampling_filters", 1, 4}}));
  EXPECT_EQ(one_block[0].GlobalStoreBytes(), 8);
  EXPECT_EQ(CheckBudget(one_block, s.rows, s.vocab, {1.01, 4}), "");
  EXPECT_DOUBLE_EQ(LogitsPasses(one_block, s.rows, s.vocab), 1.0);
  s.plan_rows = 64;
  const auto two = CountGpuSampling(s, logits.data());
  ASSERT_NO_FATAL_FAILURE(ExpectLaunches(two, {{"sampling_filters_slices", 2, 5}}));
  EXPECT_EQ(CheckBudget(two, s.rows, s.vocab, {1.01, 5}), "");
}

TEST(GpuCost, CountsAreDeterministic) {
  SamplingCostShape s = Shape(0.05f, false);
  s.rows = 1;
  const std::vector<float> logits = SamplingCostLogits(s);
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "gpu-fast" : "gpu");
    const auto a = fast ? CountGpuFastSampling(s, logits.data()) : CountGpuSampling(s, logits.data());
    const auto b = fast ? CountGpuFastSampling(s, logits.data()) : CountGpuSampling(s, logits.data());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].barriers, b[i].barriers);
      EXPECT_EQ(a[i].phases, b[i].phases);
      EXPECT_EQ(a[i].warp_ops, b[i].warp_ops);
      EXPECT_EQ(a[i].longest_chain, b[i].longest_chain);
      EXPECT_EQ(a[i].critical_path, b[i].critical_path);
      EXPECT_EQ(a[i].GlobalLoadBytes(), b[i].GlobalLoadBytes());
      EXPECT_EQ(a[i].GlobalStoreBytes(), b[i].GlobalStoreBytes());
      EXPECT_EQ(a[i].SharedBytes(), b[i].SharedBytes());
    }
  }
}

// A copy of one [1, 4096] f32 row by 128 threads, reading the row `reads` times (the planted
// fault: a second read): 1 row pass per read, no barrier.
std::vector<LaunchCounters> CopyRow(int reads) {
  std::vector<float> in(4096, 1.0f), out(4096);
  LaunchRecorder rec;
  (void)emu::Launch("copy_row", 1, 128, [&](Block& block) {
    GlobalArray<float> x(in.data(), 4096, "logits");
    GlobalArray<float> o(out.data(), 4096, "out");
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < 4096; i += 128) {
        float v = 0.0f;
        for (int r = 0; r < reads; ++r) v = x.Load(i);
        o.Store(i, v);
      }
    });
  });
  return rec.launches();
}

TEST(GpuCost, BudgetCatchesASecondReadOfTheRow) {
  const CostBudget one_pass{1.0, 0};
  EXPECT_EQ(CheckBudget(CopyRow(1), 1, 4096, one_pass), "");
  const std::string failure = CheckBudget(CopyRow(2), 1, 4096, one_pass);
  EXPECT_NE(failure.find("copy_row at 1 x 4096: 2 passes over the row, budget 1"), std::string::npos) << failure;
}

TEST(GpuCost, BudgetCatchesAnExtraBarrier) {
  std::vector<float> in(4096, 1.0f);
  LaunchRecorder rec;
  (void)emu::Launch("sync_twice", 1, 128, [&](Block& block) {
    GlobalArray<float> x(in.data(), 4096, "logits");
    block.ForEachThread([&](Thread t) { (void)x.Load(t.x); });
    block.Sync();
    block.Sync();
  });
  const std::string failure = CheckBudget(rec.launches(), 1, 4096, CostBudget{1.0, 1});
  EXPECT_NE(failure.find("sync_twice at 1 x 4096: 2 barriers per row, budget 1"), std::string::npos) << failure;
}

// The formula of gpu/cost/cost_model.h worked by hand on the H100 constants: 264 blocks of 1024
// threads, 10^6 bytes loaded per block, 10 barriers and a critical path of 1000 per block.
// Blocks per SM: min(32, 2048 / 1024) = 2, resident = min(264, 132 x 2) = 264, one wave, 2
// blocks on each SM; per block 3.35e12 / 132 / 2 = 1.268939e10 B/s:
//   block = 1e6 / 1.268939e10 + 10 x 0.5e-6 + 1000 / 1.98e9 = 78.8060 + 5 + 0.5051 = 84.3111 us
//   memory = 2.64e8 / 3.35e12 = 78.8060 us; total = 8 + max(78.8060, 84.3111) = 92.3111 us.
// One block more (265) needs a second wave: 8 + 2 x 84.3111 = 176.622 us (the bytes per block
// stay 1e6).
// Counters of `blocks` blocks of 1024 threads of `kernel`, each loading 10^6 bytes of logits
// with 10 barriers and a critical path of 1000 (the hand calculations below).
LaunchCounters HandCounters(const char* kernel, std::int64_t blocks) {
  LaunchCounters l;
  l.kernel = kernel;
  l.blocks = blocks;
  l.threads = 1024;
  l.max_block_barriers = 10;
  l.critical_path = 1000;
  ArrayTraffic a;
  a.name = "logits";
  a.load_bytes = blocks * 1000000;
  l.global.push_back(a);
  return l;
}

// The H100's constants with the block terms the hand calculations use (a barrier 0.5 us, an
// access one cycle at 1.98 GHz), whatever a device run fitted (gpu/cost/calibration.h).
DeviceConstants HandDevice() {
  DeviceConstants d = DeviceConstants::H100Sxm();
  d.barrier_s = 0.5e-6;
  d.access_s = 1.0 / 1.98e9;
  return d;
}

TEST(GpuCost, EstimateFollowsTheFormula) {
  auto counters = [](std::int64_t blocks) { return HandCounters("hand", blocks); };
  const DeviceConstants h100 = HandDevice();
  const CostEstimate one_wave = Estimate(counters(264), h100);
  // The expected microseconds are the hand calculation above written to 4-6 significant digits;
  // the tolerance is that rounding (the estimate is a double formula, not an exact-tier output).
  EXPECT_NEAR(one_wave.memory_s * 1e6, 78.8060, 1e-3);
  EXPECT_NEAR(one_wave.blocks_s * 1e6, 84.3111, 1e-3);
  EXPECT_NEAR(one_wave.total_s * 1e6, 92.3111, 1e-3);
  EXPECT_NEAR(Estimate(counters(265), h100).total_s * 1e6, 176.622, 1e-2);
  // A sequence is the sum of its launches.
  EXPECT_NEAR(Estimate(std::vector<LaunchCounters>{counters(264), counters(264)}, h100).total_s * 1e6, 184.622, 1e-2);
}

// The occupancy table (gpu/cost/kernel_occupancy.h) as the H100 constants carry it: rows keyed
// by the kernels' own names and block sizes. Expected blocks per SM by hand from the CUDA
// occupancy calculator's rules (cuda_occupancy.h) and ptxas' sm_90 counts in docs/gpu.md
// ("Occupancy"): top_p 64 registers x 1024 threads = 65536 = one SM's register file, 1 block;
// sampling_filters 64 registers (no launch bound), 1 block; fast_sampling 32 registers under
// its launch bound of 2 blocks per SM, 2 (the 2048 threads limit it).
TEST(GpuCost, OccupancyComesFromTheSm90Table) {
  const DeviceConstants h100 = DeviceConstants::H100Sxm();
  ASSERT_FALSE(h100.occupancy.empty());
  struct Case {
    int line;
    const char* kernel;
    int threads;
    int blocks_per_sm;
    const char* type;
  };
  // The same name at another block size is another row (SglangRankDrawKernel<32>: 32 blocks, the
  // per-SM block limit).
  const Case cases[] = {
      {__LINE__, "top_p", 1024, 1, "TopPKernel"},
      {__LINE__, "sampling_filters", 1024, 1, "SamplingFiltersKernel"},
      {__LINE__, "fast_sampling", 1024, 2, "FastSamplingKernel<1024>"},
      {__LINE__, "sglang_rank_draw", 32, 32, "SglangRankDrawKernel<32>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const KernelOccupancy* row = FindKernelOccupancy(h100.occupancy, c.kernel, c.threads);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->blocks_per_sm, c.blocks_per_sm);
    EXPECT_STREQ(row->type, c.type);
  }
  // A kernel the table lacks falls back to the thread limit.
  EXPECT_EQ(FindKernelOccupancy(h100.occupancy, "fast_sampling", 512), nullptr);
  LaunchCounters toy;
  toy.kernel = "hand";
  toy.threads = 256;
  EXPECT_EQ(BlocksPerSm(toy, h100), 8);  // 2048 / 256
}

// The formula with the occupancy table: the counters of EstimateFollowsTheFormula under the name
// of a kernel the table gives 1 block per SM (top_p, 1024 threads). Resident = 132 x 1, two
// waves of 132, 1 block on each SM; per block 3.35e12 / 132 = 2.537879e10 B/s:
//   block = 1e6 / 2.537879e10 + 10 x 0.5e-6 + 1000 / 1.98e9 = 39.4030 + 5 + 0.5051 = 44.9081 us
//   total = 8 + max(78.8060, 2 x 44.9081) = 97.8162 us (92.3111 us at 2 blocks per SM: the
// barriers and the critical path are paid once per wave). The estimate is a double-precision
// model, not an exact tier: the tolerance of 1e-3 us covers the hand values' rounding to 1e-4 us.
TEST(GpuCost, EstimateUsesTheKernelsBlocksPerSm) {
  const LaunchCounters l = HandCounters("top_p", 264);
  const DeviceConstants h100 = HandDevice();
  const CostEstimate e = Estimate(l, h100);
  EXPECT_NEAR(e.blocks_s * 1e6, 89.8162, 1e-3);
  EXPECT_NEAR(e.total_s * 1e6, 97.8162, 1e-3);
  DeviceConstants threads_only = h100;
  threads_only.occupancy = {};
  EXPECT_NEAR(Estimate(l, threads_only).total_s * 1e6, 92.3111, 1e-3);
}

// Calibration (gpu/cost/calibration.h) on planted constants. Copies: 1 MB in 6.25 us and 10 MB in
// 8.5 us lie on t = 6 us + bytes / 4e12 (1e6 / 4e12 = 0.25 us, 1e7 / 4e12 = 2.5 us). Block terms:
// runs made by the formula itself with barrier_s = 2^-21 s and access_s = 2^-23 s (grid points)
// from hand-made counters of different barrier counts and critical paths are fitted back
// exactly; their log errors are then 0.
TEST(GpuCost, CalibrationRecoversPlantedConstants) {
  const MeasuredCopy copies[] = {{1e6, 6.25e-6}, {1e7, 8.5e-6}};
  const DeviceConstants copied = FitCopies(copies, HandDevice());
  // The fit is double-precision least squares, not an exact tier: sums of products near 1e14
  // and 1e-5 round at about 1e-16 relative, so 1e-9 on values of 6 (us) and 4 (TB/s) is far
  // above its rounding and far below what a wrong line would give.
  EXPECT_NEAR(copied.launch_s * 1e6, 6.0, 1e-9);
  EXPECT_NEAR(copied.hbm_bytes_per_s / 1e12, 4.0, 1e-9);
  EXPECT_DOUBLE_EQ(copied.sm_bytes_per_s, copied.hbm_bytes_per_s / copied.sms);
  // One copy size cannot separate the two: unchanged.
  const MeasuredCopy one[] = {{1e6, 6.25e-6}, {1e6, 6.5e-6}};
  EXPECT_EQ(FitCopies(one, HandDevice()).launch_s, HandDevice().launch_s);

  DeviceConstants planted = copied;
  planted.barrier_s = std::exp2(-21.0);
  planted.access_s = std::exp2(-23.0);
  std::vector<MeasuredLaunches> runs;
  for (const auto& [barriers, path] : {std::pair{4, 100}, std::pair{40, 200}, std::pair{10, 20000}}) {
    LaunchCounters l = HandCounters("hand", 132);
    l.max_block_barriers = barriers;
    l.critical_path = path;
    l.global[0].load_bytes = 132 * 1000;  // little memory: the block terms decide
    runs.push_back({"hand", Estimate(l, planted).total_s, {l}});
  }
  const DeviceConstants fitted = FitBlockTerms(runs, copied);
  EXPECT_EQ(fitted.barrier_s, planted.barrier_s);
  EXPECT_EQ(fitted.access_s, planted.access_s);
  // The fitted constants are the planted ones, so each estimate repeats the planted formula
  // and the log error is 0; 1e-12 only allows for the log of a ratio of two doubles.
  for (const auto& r : runs) EXPECT_NEAR(LogError(r, fitted), 0.0, 1e-12);
  EXPECT_EQ(FitBlockTerms({}, copied).access_s, copied.access_s);
}

// ScaleRows: 4 counted rows to 64 multiplies blocks, summed counts and bytes by 16 and keeps
// the per-block maxima (hand-made counters).
TEST(GpuCost, ScaleRowsScalesSumsAndKeepsMaxima) {
  LaunchCounters l;
  l.blocks = 4;
  l.threads = 1024;
  l.barriers = 40;
  l.max_block_barriers = 12;
  l.phases = 100;
  l.longest_chain = 7;
  l.critical_path = 70;
  ArrayTraffic a;
  a.name = "logits";
  a.elements = 4 * 1000;
  a.loads = 4000;
  a.load_bytes = 16000;
  l.global.push_back(a);
  const LaunchCounters s = ScaleRows(l, 4, 64);
  EXPECT_EQ(s.blocks, 64);
  EXPECT_EQ(s.barriers, 640);
  EXPECT_EQ(s.phases, 1600);
  EXPECT_EQ(s.max_block_barriers, 12);
  EXPECT_EQ(s.longest_chain, 7);
  EXPECT_EQ(s.critical_path, 70);
  EXPECT_EQ(s.global[0].elements, 64000);
  EXPECT_EQ(s.global[0].loads, 64000);
  EXPECT_EQ(s.global[0].load_bytes, 256000);
  EXPECT_DOUBLE_EQ(RowPasses({s}, 64, 1000), 1.0);
}

// The speculative verifiers of spec_step and flashinfer_sampling_from_probs' kernels, at 2
// requests of V = 8192 (1024 threads per row) with K = 2 drafts: row passes over [2, 8192]
// (every position of the [2, 3, 8192] target counts as one pass over the batch) and barriers.
constexpr std::int64_t kSpecRows = 2, kSpecWidth = 2, kSpecVocab = 8192;

// Positive rows summing to about 1 (weights (r >> 40) + 1, each divided by their f32 sum).
std::vector<float> ProbabilityRows(std::int64_t rows, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> p(static_cast<std::size_t>(rows * kSpecVocab));
  for (std::int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    const auto row = std::span<float>(p).subspan(static_cast<std::size_t>(r * kSpecVocab), kSpecVocab);
    for (float& x : row) {
      x = static_cast<float>((rng.Next() >> 40) + 1);
      sum += x;
    }
    for (float& x : row) x = x / sum;
  }
  return p;
}

struct SpecCost {
  std::vector<LaunchCounters> launches;
  std::vector<std::int64_t> accepted;
};

// `coin` for every draft's uniform: 0 accepts every draft in SGLang's rule (0 <= p / 1), the
// worst case of its per-position work.
SpecCost CountSpecVerifier(const char* which, double coin) {
  const std::vector<float> target = ProbabilityRows(kSpecRows * (kSpecWidth + 1), 11);
  const std::vector<float> draft = ProbabilityRows(kSpecRows * kSpecWidth, 12);
  const std::vector<float> q(static_cast<std::size_t>(kSpecRows * kSpecVocab), 1.0f);
  const std::vector<std::int32_t> drafts = {3, 5, 7, 9};
  const std::vector<std::int64_t> counts(kSpecRows, kSpecWidth);
  const std::vector<double> u(static_cast<std::size_t>(kSpecRows * kSpecWidth), coin);
  const std::vector<std::int32_t> top_k(kSpecRows, 50);
  const std::vector<float> top_p(kSpecRows, 0.9f), final_u(kSpecRows, 0.5f);
  const SpecShape shape{kSpecRows, kSpecWidth, kSpecVocab};
  SpecCost out;
  std::vector<std::int64_t> emitted(static_cast<std::size_t>(kSpecRows * (kSpecWidth + 1)));
  out.accepted.assign(kSpecRows, -1);
  const auto runner = MakeEmulatedRunner();
  LaunchRecorder recorder;
  const std::string name = which;
  if (name == "spec_verify_sglang") {
    SpecVerifySglangLaunch l;
    l.probs = target.data();
    l.drafts = drafts.data();
    l.counts = counts.data();
    l.top_k = top_k.data();
    l.top_p = top_p.data();
    l.u = u.data();
    l.final_u = final_u.data();
    l.shape = shape;
    l.emitted = emitted.data();
    l.accepted = out.accepted.data();
    runner->Run(l);
  } else if (name == "spec_verify_block") {
    runner->Run(SpecVerifyBlockLaunch(target.data(), draft.data(), drafts.data(), counts.data(), u.data(), q.data(),
                                      q.data(), shape, emitted.data(), out.accepted.data()));
  } else {
    SpecRandomInputs in;
    in.target_probs = target.data();
    in.draft_probs = draft.data();
    in.drafts = drafts.data();
    in.counts = counts.data();
    in.u_f64 = u.data();
    in.q = q.data();
    in.bonus_q = q.data();
    runner->Run(SpecRandomLaunch(in, shape, emitted.data(), out.accepted.data()));
  }
  out.launches = recorder.launches();
  return out;
}

// flashinfer_sampling_from_probs at [2, 8192], top_k 50, top_p 0.9, min_p 0.5, 16 uniforms of 0.75.
struct FlashinferCost {
  std::vector<LaunchCounters> launches;
  std::vector<std::int32_t> rounds;
};

FlashinferCost CountFlashinfer(FlashinferKind kind, bool top_k_first) {
  constexpr std::int64_t kWidthU = 16;
  const std::vector<float> probs = ProbabilityRows(kSpecRows, 13);
  const std::vector<std::uint32_t> top_k(kSpecRows, 50);
  const std::vector<float> top_p(kSpecRows, 0.9f), min_p(kSpecRows, 0.5f);
  const std::vector<float> u(static_cast<std::size_t>(kSpecRows * kWidthU), 0.75f);
  std::vector<std::int64_t> token(kSpecRows);
  std::vector<std::uint8_t> valid(kSpecRows);
  FlashinferCost out;
  out.rounds.assign(kSpecRows, 0);
  FlashinferSamplingFromProbsLaunch l;
  l.probs = probs.data();
  l.top_k = top_k.data();
  l.top_p = top_p.data();
  l.min_p = min_p.data();
  l.u = u.data();
  l.kind = kind;
  l.top_k_first = top_k_first;
  l.rows = kSpecRows;
  l.width = kWidthU;
  l.vocab = kSpecVocab;
  l.token = token.data();
  l.valid = valid.data();
  l.rounds = out.rounds.data();
  const auto runner = MakeEmulatedRunner();
  LaunchRecorder recorder;
  runner->Run(l);
  out.launches = recorder.launches();
  return out;
}

// Budgets. spec_verify_sglang's passes are its contract's bound (gpu/kernels/spec_verify_sglang.cuh):
// per position read, 1 copy of the row, then per renorm step 1 maximum, at most 6 search
// passes, 1 sum and 1 division = 19; the final draw 2 (total and scan); plus the scalar reads
// of work[x] (0.01): 3 positions (every draft accepted) 59.01, 1 position (draft 0 rejected)
// 21.01. Today: 58.63 and 20.50. The barriers, and the other kernels' budgets, are today's
// counts (as kBudgets above): block verification 8.01 / 8.51 passes (two normalising sums and
// the excess sum per position, the final race over q), vllm 2.5 / 2.88 (one race over q and
// the target row), flashinfer 2 to 4 passes for 1 or 2 rejection rounds, 10.82 under
// top_k_first (the radix select of top_k_renorm_probs).
struct SpecBudget {
  int line;
  const char* kernel;
  double coin;
  std::int64_t accepted;  // per request, to show which path was counted
  CostBudget budget;
};

const SpecBudget kSpecBudgets[] = {
    {__LINE__, "spec_verify_sglang", 0.0, 2, {59.01, 860}},
    {__LINE__, "spec_verify_sglang", 0.999, 0, {21.01, 308}},
    {__LINE__, "spec_verify_block", 0.0, 2, {8.01, 112}},
    {__LINE__, "spec_verify_block", 0.999, 0, {8.51, 112}},
    {__LINE__, "spec_random_vllm", 0.0, 2, {2.51, 9}},
    {__LINE__, "spec_random_vllm", 0.999, 0, {2.88, 9}},
};

TEST(GpuCost, SpecVerifiersStayWithinTheirBudgets) {
  for (const SpecBudget& b : kSpecBudgets) {
    SCOPED_TRACE(testing::Message() << "line " << b.line << ": " << b.kernel << ", coin " << b.coin);
    const SpecCost c = CountSpecVerifier(b.kernel, b.coin);
    ASSERT_EQ(c.launches.size(), 1u);
    EXPECT_EQ(c.launches[0].blocks, kSpecRows);
    EXPECT_EQ(c.accepted[0], b.accepted);
    EXPECT_EQ(CheckBudget(c.launches, kSpecRows, kSpecVocab, b.budget), "");
  }
}

TEST(GpuCost, FlashinferSamplingFromProbsStaysWithinItsBudgets) {
  struct Row {
    int line;
    FlashinferKind kind;
    bool top_k_first;
    CostBudget budget;
  };
  const Row rows[] = {
      {__LINE__, FlashinferKind::kTopKTopP, false, {3.57, 75}},
      {__LINE__, FlashinferKind::kTopK, false, {3.57, 75}},
      {__LINE__, FlashinferKind::kTopP, false, {2.69, 73}},
      {__LINE__, FlashinferKind::kMinP, false, {2.82, 52}},
      {__LINE__, FlashinferKind::kTopKTopP, true, {10.82, 120}},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(testing::Message() << "line " << r.line);
    const FlashinferCost c = CountFlashinfer(r.kind, r.top_k_first);
    ASSERT_EQ(c.launches.size(), 1u);
    EXPECT_EQ(c.launches[0].blocks, kSpecRows);
    EXPECT_EQ(CheckBudget(c.launches, kSpecRows, kSpecVocab, r.budget), "");
  }
}

}  // namespace
}  // namespace sampcheck::gpu
