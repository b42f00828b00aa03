// SPDX-License-Identifier: Apache-2.0
// The checking host emulator (gpu/emulator/emulator.h, docs/gpu.md "The emulator"): each check catches
// a planted fault with the right kernel, block, thread and index, and passes the corrected
// kernel; warp operations follow CUDA's lane semantics; the canonical block reduction equals
// the reference's.
// Expected threads and indices come from the planted kernels' own construction (worked out by
// hand in each test's comment); warp results from the CUDA C++ Programming Guide's definitions
// of __shfl_down_sync, __shfl_xor_sync and __ballot_sync.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_quads.cuh"
#include "gpu/block/quad_reads.cuh"
#include "gpu/block/thread_share.cuh"
#include "reference/reductions.h"

namespace sampcheck::gpu {
namespace {

using Kind = Violation::Kind;

// --- races ---------------------------------------------------------------------------------

// Thread t writes s[t] in one phase and reads s[t + 1] in the next with no barrier between:
// thread 0's read of s[1], written by thread 1 since the last barrier, is the first race.
TEST(GpuEmulatorRace, CatchesNeighbourReadWithoutBarrier) {
  std::vector<float> out(64);
  const LaunchReport r = emu::Launch("race", 1, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, float, s, 65);
    GlobalArray<float> o(out.data(), 64, "out");
    block.ForEachThread([&](Thread t) {
      s.Store(t.x, 1.0f);
      if (t.x == 0) s.Store(64, 0.0f);
    });
    block.ForEachThread([&](Thread t) { o.Store(t.x, s.Load(t.x + 1)); });  // the fault: no Sync before
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violations[0].kind, Kind::kRace);
  EXPECT_EQ(r.violations[0].kernel, "race");
  EXPECT_EQ(r.violations[0].block, 0);
  EXPECT_EQ(r.violations[0].thread, 0);
  EXPECT_EQ(r.violations[0].array, "s");
  EXPECT_EQ(r.violations[0].index, 1);
  EXPECT_NE(r.violations[0].Message().find("written by thread 1 and read by thread 0"), std::string::npos)
      << r.violations[0].Message();
}

TEST(GpuEmulatorRace, PassesNeighbourReadAfterBarrier) {
  std::vector<float> out(64);
  const LaunchReport r = emu::Launch("race", 1, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, float, s, 65);
    GlobalArray<float> o(out.data(), 64, "out");
    block.ForEachThread([&](Thread t) {
      s.Store(t.x, 1.0f);
      if (t.x == 0) s.Store(64, 0.0f);
    });
    block.Sync();
    block.ForEachThread([&](Thread t) { o.Store(t.x, s.Load(t.x + 1)); });
  });
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[63], 0.0f);
}

// Every thread writes s[0]: thread 1 is the first to write a word thread 0 wrote.
TEST(GpuEmulatorRace, CatchesTwoWritersOfOneWord) {
  const LaunchReport r = emu::Launch("ww", 2, 32, [&](Block& block) {
    SAMPCHECK_SHARED(block, int, s, 1);
    block.ForEachThread([&](Thread t) { s.Store(0, t.x); });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violations[0].kind, Kind::kRace);
  EXPECT_EQ(r.violations[0].thread, 1);
  EXPECT_EQ(r.violations[0].index, 0);
  // Threads 1..31 of both blocks each race: 62 in all.
  EXPECT_EQ(r.total, 62);
  EXPECT_EQ(r.violations[0].block, 0);
}

// Thread 0 reads s[5] then thread 5 writes it, same epoch: read-then-write race at thread 5.
TEST(GpuEmulatorRace, CatchesWriteAfterAnotherThreadsRead) {
  const LaunchReport r = emu::Launch("war", 1, 8, [&](Block& block) {
    SAMPCHECK_SHARED(block, int, s, 8);
    block.ForEachThread([&](Thread t) { s.Store(t.x, 0); });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) (void)s.Load(5);
      if (t.x == 5) s.Store(5, 1);
    });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kRace);
  EXPECT_EQ(r.violations[0].thread, 5);
  EXPECT_EQ(r.violations[0].index, 5);
}

// --- out of bounds --------------------------------------------------------------------------

// Thread t reads s[t + 1] from an array of 16 written by all 16 threads: thread 15 reads s[16].
TEST(GpuEmulatorBounds, CatchesSharedReadPastTheEnd) {
  const LaunchReport r = emu::Launch("oob", 1, 16, [&](Block& block) {
    SAMPCHECK_SHARED(block, float, s, 16);
    block.ForEachThread([&](Thread t) { s.Store(t.x, 1.0f); });
    block.Sync();
    block.ForEachThread([&](Thread t) { (void)s.Load(t.x + 1); });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kOutOfBounds);
  EXPECT_EQ(r.violations[0].thread, 15);
  EXPECT_EQ(r.violations[0].index, 16);
  EXPECT_EQ(r.violations[0].array, "s");
}

// Block b thread t stores out[b * 8 + t + 1] into an array of 16 (2 blocks x 8): block 1
// thread 7 stores index 16; the store is dropped, nothing past the array is touched.
TEST(GpuEmulatorBounds, CatchesGlobalStorePastTheEnd) {
  std::vector<int> out(17, -1);
  const LaunchReport r = emu::Launch("oob_global", 2, 8, [&](Block& block) {
    GlobalArray<int> o(out.data(), 16, "out");
    block.ForEachThread([&](Thread t) { o.Store(block.index() * 8 + t.x + 1, t.x); });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kOutOfBounds);
  EXPECT_EQ(r.violations[0].block, 1);
  EXPECT_EQ(r.violations[0].thread, 7);
  EXPECT_EQ(r.violations[0].index, 16);
  EXPECT_EQ(r.violations[0].array, "out");
  EXPECT_EQ(out[16], -1);
}

TEST(GpuEmulatorBounds, CatchesNegativeGlobalLoad) {
  std::vector<int> in(8, 3);
  const LaunchReport r = emu::Launch("oob_negative", 1, 8, [&](Block& block) {
    GlobalArray<const int> g(in.data(), 8, "in");
    block.ForEachThread([&](Thread t) { (void)g.Load(t.x - 1); });
  });
  ASSERT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].thread, 0);
  EXPECT_EQ(r.violations[0].index, -1);
}

TEST(GpuEmulatorBounds, PassesInBoundsAccess) {
  std::vector<int> out(16, -1);
  const LaunchReport r = emu::Launch("in_bounds", 2, 8, [&](Block& block) {
    GlobalArray<int> o(out.data(), 16, "out");
    block.ForEachThread([&](Thread t) { o.Store(block.index() * 8 + t.x, t.x); });
  });
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(out[15], 7);
}

// --- 16-byte loads (gpu/block/quad_reads.cuh) ------------------------------------------------

// Thread 0 loads elements 4 .. 7 of a 16-byte-aligned array of 8: their values, one access of
// 16 bytes (the array's element size stays 4).
TEST(GpuQuadReads, Load4ReadsFourElementsInOneAccess) {
  alignas(16) float in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  Quad<float> q{};
  const LaunchReport r = emu::Launch("load4", 1, 1, [&](Block& block) {
    GlobalArray<const float> g(in, 8, "in");
    block.ForEachThread([&](Thread) { q = g.Load4(4); });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(q.v[0], 4.0f);
  EXPECT_EQ(q.v[3], 7.0f);
  ASSERT_EQ(r.counters.global.size(), 1u);
  EXPECT_EQ(r.counters.global[0].loads, 1);
  EXPECT_EQ(r.counters.global[0].load_bytes, 16);
  EXPECT_EQ(r.counters.global[0].element_bytes, 4);
  EXPECT_EQ(r.counters.critical_path, 1);
}

// Element 1 of a 16-byte-aligned array lies 4 bytes past a boundary: the device would fault.
TEST(GpuQuadReads, CatchesAMisalignedLoad4) {
  alignas(16) float in[8] = {};
  const LaunchReport r = emu::Launch("load4_misaligned", 1, 2, [&](Block& block) {
    GlobalArray<const float> g(in, 8, "in");
    block.ForEachThread([&](Thread t) {
      if (t.x == 1) (void)g.Load4(1);
    });
  });
  ASSERT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kMisaligned);
  EXPECT_EQ(r.violations[0].thread, 1);
  EXPECT_EQ(r.violations[0].index, 1);
}

// Elements 4 .. 7 of an array of 6: element 7 is past the end.
TEST(GpuQuadReads, CatchesALoad4PastTheEnd) {
  alignas(16) float in[8] = {};
  const LaunchReport r = emu::Launch("load4_oob", 1, 1, [&](Block& block) {
    GlobalArray<const float> g(in, 6, "in");
    block.ForEachThread([&](Thread) { (void)g.Load4(4); });
  });
  ASSERT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kOutOfBounds);
  EXPECT_EQ(r.violations[0].index, 7);
}

// The contract's example: base 1 of an aligned array, n = 10, 4 threads: head 3 (elements 0,
// 1, 2 by threads 0, 1, 2), one quad (3 .. 6 by thread 0), tail 3 (7, 8, 9 by threads 0, 1, 2).
TEST(GpuQuadReads, SplitsARangeAtTheBoundaries) {
  alignas(16) float in[16];
  for (int i = 0; i < 16; ++i) in[i] = static_cast<float>(i);
  std::vector<int> thread_of(10, -1);
  QuadSpan span;
  const LaunchReport r = emu::Launch("quad_split", 1, 4, [&](Block& block) {
    GlobalArray<const float> g(in, 16, "in");
    span = QuadSpanOf(g, 1, 10);
    block.ForEachThread([&](Thread t) {
      ForEachQuadElement(g, 1, span, 4, t.x, [&](std::int64_t i, float x) {
        EXPECT_EQ(x, static_cast<float>(i + 1));
        thread_of[static_cast<std::size_t>(i)] = t.x;
      });
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(span.head, 3);
  EXPECT_EQ(span.quads, 1);
  EXPECT_EQ(span.tail, 3);
  EXPECT_EQ(thread_of, (std::vector<int>{0, 1, 2, 0, 0, 0, 0, 0, 1, 2}));
  EXPECT_EQ(r.counters.global[0].loads, 7);  // 3 + 1 + 3
}

// Every base 0 .. 7 and length 0 .. 40, 4 and 8 threads, groups of 1, 2 and 4 quads: each
// element once, with its value, in increasing order within a thread, and n / 4 - 1 to n / 4
// 16-byte loads.
template <int kGroup>
void VisitEveryElementOnce() {
  SCOPED_TRACE(testing::Message() << "groups of " << kGroup);
  alignas(16) float in[48];
  for (int i = 0; i < 48; ++i) in[i] = static_cast<float>(i);
  for (const int threads : {4, 8}) {
    for (std::int64_t base = 0; base < 8; ++base) {
      for (std::int64_t n = 0; n <= 40; ++n) {
        SCOPED_TRACE(testing::Message() << threads << " threads, base " << base << ", n " << n);
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        std::int64_t quads = 0;
        const LaunchReport r = emu::Launch("quad_every", 1, threads, [&](Block& block) {
          GlobalArray<const float> g(in, 48, "in");
          const QuadSpan span = QuadSpanOf(g, base, n);
          quads = span.quads;
          block.ForEachThread([&](Thread t) {
            std::int64_t last = -1;
            ForEachQuadElement<kGroup>(g, base, span, threads, t.x, [&](std::int64_t i, float x) {
              EXPECT_GT(i, last);
              last = i;
              EXPECT_EQ(x, static_cast<float>(base + i));
              ++seen[static_cast<std::size_t>(i)];
            });
          });
        });
        ASSERT_TRUE(r.ok()) << r.Summary();
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
        EXPECT_GE(quads, n / 4 - 1);
        EXPECT_LE(quads, n / 4);
        const std::int64_t loads = r.counters.global.empty() ? 0 : r.counters.global[0].loads;
        EXPECT_EQ(loads, n - 3 * quads);
      }
    }
  }
}

TEST(GpuQuadReads, VisitsEveryElementOnceInEveryAlignment) {
  VisitEveryElementOnce<1>();
  VisitEveryElementOnce<2>();
  VisitEveryElementOnce<kQuadGroup>();
}

// A source that logs its loads and the visits, in the order they come: "L q" for the load of
// quad q (elements 4q .. 4q + 3), "V i" for the visit of element i.
struct LoggedQuads {
  std::vector<std::string>* log;
  float Load(std::int64_t i) const {
    log->push_back("l " + std::to_string(i));
    return static_cast<float>(i);
  }
  Quad<float> Load4(std::int64_t i) const {
    log->push_back("L " + std::to_string(i / 4));
    return {{static_cast<float>(i), static_cast<float>(i + 1), static_cast<float>(i + 2), static_cast<float>(i + 3)}};
  }
  std::int64_t BoundaryGap(std::int64_t) const { return 0; }
};

// The contract by hand: n = 40 from a boundary (10 quads, no head or tail), 4 threads, groups
// of 4: thread 0's quads 0, 4, 8 (12 is past the span), thread 2's 2 and 6 (10 is past it),
// each group's loads before its first visit; a group of 2 makes two groups of thread 0, {0,
// 4} and {8}.
TEST(GpuQuadReads, AGroupLoadsItsQuadsBeforeItsVisits) {
  auto events = [](auto group, int t) {
    std::vector<std::string> log;
    const LoggedQuads src{&log};
    ForEachQuadElement<decltype(group)::value>(src, 0, QuadSpanOf(src, 0, 40), 4, t, [&](std::int64_t i, float x) {
      EXPECT_EQ(x, static_cast<float>(i));
      log.push_back("V " + std::to_string(i));
    });
    return log;
  };
  auto visits = [](std::vector<std::string> log, int quad) {
    for (int j = 0; j < 4; ++j) log.push_back("V " + std::to_string(4 * quad + j));
    return log;
  };
  using G4 = std::integral_constant<int, 4>;
  using G2 = std::integral_constant<int, 2>;
  EXPECT_EQ(events(G4{}, 0), visits(visits(visits({"L 0", "L 4", "L 8"}, 0), 4), 8));
  EXPECT_EQ(events(G4{}, 2), visits(visits({"L 2", "L 6"}, 2), 6));
  std::vector<std::string> two = visits(visits({"L 0", "L 4"}, 0), 4);
  two.push_back("L 8");
  EXPECT_EQ(events(G2{}, 0), visits(two, 8));
}

// A source of several rows at their own addresses says whether any read is off a boundary
// (OffBoundary), not a head: FixedQuadSpanOf takes it (head 0, quads n / 4, tail n % 4, scalar
// when off), QuadSpanOf, whose head would be a gap, does not compile with it.
struct TwoRows {
  bool off = false;
  Quad<float> Load4(std::int64_t) const { return {}; }
  bool OffBoundary(std::int64_t) const { return off; }
};
template <class A>
concept SplitsAtItsHead = requires(const A& a) { QuadSpanOf(a, 0, 10); };
static_assert(FixedQuadSource<TwoRows> && !SplitsAtItsHead<TwoRows>);
static_assert(FixedQuadSource<GlobalArray<const float>> && SplitsAtItsHead<GlobalArray<const float>>);

TEST(GpuQuadReads, SplitsASourceOfSeveralRowsFromIndexZero) {
  for (const bool off : {false, true}) {
    const QuadSpan span = FixedQuadSpanOf(TwoRows{off}, 0, 10);
    EXPECT_EQ(span.head, 0);
    EXPECT_EQ(span.quads, 2);
    EXPECT_EQ(span.tail, 2);
    EXPECT_EQ(span.scalar, off);
  }
}

// --- canonical lanes by quads (gpu/block/lane_quads.cuh) -----------------------------------

// One launch of ForEachLaneEntryByQuads over `vocab` entries from element `offset` of a 16-byte
// aligned array whose element e is e + 0.5: each thread's calls (index, value) in order.
struct LaneQuadsRun {
  LaunchReport report;
  std::vector<std::vector<std::pair<std::int64_t, float>>> calls;
};
template <class Wants>
LaneQuadsRun RunLaneQuads(std::int64_t vocab, std::int64_t offset, Wants wants_of) {
  std::vector<float> in(static_cast<std::size_t>(offset + vocab));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in.data()) % 16, 0u);  // operator new's alignment on x86-64
  for (std::size_t e = 0; e < in.size(); ++e) in[e] = static_cast<float>(e) + 0.5f;
  LaneQuadsRun run;
  run.calls.resize(kCanonicalLanes);
  run.report = emu::Launch("lane_quads", 1, kCanonicalLanes, [&](Block& block) {
    GlobalArray<const float> g(in.data(), static_cast<std::int64_t>(in.size()), "logits");
    auto wants = Registers<bool>(block);
    block.ForEachThread([&](Thread t) { wants[t] = wants_of(t.x); });
    ForEachLaneEntryByQuads(block, g, offset, vocab, wants,
                            [&](Thread t, std::int64_t i, float x) { run.calls[t.x].emplace_back(i, x); });
  });
  return run;
}

// The strided read's calls, by the contract's loop: thread t's entries t, t + 1024, ... with
// the values the array holds (e + 0.5 at element offset + i).
std::vector<std::pair<std::int64_t, float>> StridedCalls(int t, std::int64_t vocab, std::int64_t offset) {
  std::vector<std::pair<std::int64_t, float>> v;
  for (std::int64_t i = t; i < vocab; i += kCanonicalLanes) v.emplace_back(i, static_cast<float>(offset + i) + 0.5f);
  return v;
}

// Every thread that wants sees exactly the strided read's calls, the others none: lengths
// around the strides and groups of four strides (1, 1023, 1025, 2050, 4097, 8195), every base
// 0 .. 3 (quads, or their elements one load each off a boundary), and wants of every lane, of
// none, of a mixed warp's (thread 37 left out: warp 1 reads strided) and of every third lane.
TEST(GpuLaneQuads, CallsAreTheStridedReadsInEveryAlignmentAndWarp) {
  const std::vector<std::function<bool(int)>> wants = {
      [](int) { return true; }, [](int) { return false; }, [](int t) { return t != 37; },
      [](int t) { return t % 3 != 0; }};
  for (const std::int64_t vocab : {1, 1023, 1025, 2050, 4097, 8195}) {
    for (std::int64_t offset = 0; offset < 4; ++offset) {
      for (std::size_t w = 0; w < wants.size(); ++w) {
        const LaneQuadsRun run = RunLaneQuads(vocab, offset, wants[w]);
        ASSERT_TRUE(run.report.ok()) << run.report.Summary();
        for (int t = 0; t < kCanonicalLanes; ++t) {
          const auto expected = wants[w](t) ? StridedCalls(t, vocab, offset) : decltype(StridedCalls(t, 0, 0)){};
          ASSERT_EQ(run.calls[t], expected) << "vocab " << vocab << ", offset " << offset << ", wants " << w
                                            << ", thread " << t;
        }
      }
    }
  }
}

// Counted at V = 128256 (125 strides and a quarter: 32 groups), every lane wanting: the bytes
// are one read of the row (4 V), the loads a quarter of the strided read's (V / 4 quads) and
// each thread's chain 32 loads, where the strided read's is 126 (threads 0 .. 255 hold 126
// entries). Off a boundary the quads' elements load one at a time: V loads, a chain of 128
// (lanes 8 .. 15 of warps 0 .. 7 load in every group, four elements each). With thread 37 left
// out, its warp reads strided and loads none of lane 37's 126 entries (37 < 256): 4 (V - 126)
// bytes, and warp 1's lanes make one load an entry, 126.
TEST(GpuLaneQuads, LoadsTheRowOnceAQuarterOfTheAccesses) {
  constexpr std::int64_t kV = 128256;
  auto logits = [](const LaunchReport& r) { return r.counters.Global("logits"); };
  const LaneQuadsRun aligned = RunLaneQuads(kV, 0, [](int) { return true; });
  ASSERT_TRUE(aligned.report.ok()) << aligned.report.Summary();
  EXPECT_EQ(logits(aligned.report).load_bytes, 4 * kV);
  EXPECT_EQ(logits(aligned.report).loads, kV / 4);
  EXPECT_EQ(aligned.report.counters.critical_path, 32);
  const LaneQuadsRun off = RunLaneQuads(kV, 1, [](int) { return true; });
  ASSERT_TRUE(off.report.ok()) << off.report.Summary();
  EXPECT_EQ(logits(off.report).load_bytes, 4 * kV);
  EXPECT_EQ(logits(off.report).loads, kV);
  EXPECT_EQ(off.report.counters.critical_path, 128);
  const LaneQuadsRun mixed = RunLaneQuads(kV, 0, [](int t) { return t != 37; });
  ASSERT_TRUE(mixed.report.ok()) << mixed.report.Summary();
  EXPECT_EQ(logits(mixed.report).load_bytes, 4 * (kV - 126));
  EXPECT_EQ(mixed.report.counters.critical_path, 126);
}

// --- a thread's share of a row (gpu/block/thread_share.cuh) ---------------------------------

// The contract's example, by its lists: a share by quads of 10 elements, head 3, one quad,
// tail 3, 4 threads.
TEST(GpuThreadShare, ListsTheContractExample) {
  const ThreadShare s{10, 4, true, {0, 2, 2}};
  auto list = [&](int t) {
    std::vector<std::int64_t> v;
    for (std::int64_t j = 0; j < s.Count(t); ++j) v.push_back(s.IndexAt(t, j));
    return v;
  };
  EXPECT_EQ(list(0), (std::vector<std::int64_t>{0, 1, 2, 3, 8}));
  EXPECT_EQ(list(1), (std::vector<std::int64_t>{4, 5, 6, 7, 9}));
  EXPECT_TRUE(list(2).empty());
  EXPECT_TRUE(list(3).empty());
}

// The keys of index i are i over a global array at bases 0 .. 3 of a 16-byte aligned vector:
// 4095 entries are fewer than 1024 quads (strided), 4099 and 4102 at least 1024 (quads from
// index 0 at every base: FixedQuadSpanOf, its elements one load each off a boundary, so the
// lists do not depend on the base). For each of 8 threads, ForEachShareKey visits exactly Count and
// IndexAt's list in order, the lists cover the row once, and ForEachShareKeyUntil visits
// positions [lo, hi) (runs inside and across quads, and the head) and stops at the first true.
struct IndexKeys {
  GlobalArray<const float> a;
  std::int64_t base = 0;
  float Load(std::int64_t i) const { return a.Load(base + i); }
  auto Load4(std::int64_t i) const { return a.Load4(base + i); }
  std::int64_t BoundaryGap(std::int64_t i) const { return a.BoundaryGap(base + i); }
  std::uint64_t Key(std::int64_t i, float x) const {
    EXPECT_EQ(x, static_cast<float>(base + i));
    return static_cast<std::uint64_t>(i);
  }
  std::uint64_t operator()(std::int64_t i) const { return Key(i, Load(i)); }
};
static_assert(QuadKeySource<IndexKeys>);

TEST(GpuThreadShare, VisitsEachThreadsListInOrder) {
  constexpr int kThreads = 8;
  std::vector<float> in(4108);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(in.data()) % 16, 0u);
  for (std::int64_t base = 0; base < 4; ++base) {
    for (const std::int64_t n : {4095, 4099, 4102}) {
      SCOPED_TRACE(testing::Message() << "base " << base << ", n " << n);
      std::vector<int> seen(static_cast<std::size_t>(n), 0);
      ThreadShare share;
      const LaunchReport r = emu::Launch("thread_share", 1, kThreads, [&](Block& block) {
        const IndexKeys keys{GlobalArray<const float>(in.data(), static_cast<std::int64_t>(in.size()), "in"), base};
        share = ShareOf(keys, n, kThreads);
        block.ForEachThread([&](Thread t) {
          std::vector<std::int64_t> visited;
          ForEachShareKey(keys, share, t.x, [&](std::int64_t i, std::uint64_t key) {
            EXPECT_EQ(key, static_cast<std::uint64_t>(i));
            visited.push_back(i);
            ++seen[static_cast<std::size_t>(i)];
          });
          ASSERT_EQ(static_cast<std::int64_t>(visited.size()), share.Count(t.x));
          for (std::size_t j = 0; j < visited.size(); ++j) {
            EXPECT_EQ(visited[j], share.IndexAt(t.x, static_cast<std::int64_t>(j)));
            if (j > 0) {
              EXPECT_GT(visited[j], visited[j - 1]);
            }
          }
          const std::int64_t count = share.Count(t.x);
          for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                   {0, 1}, {0, 9}, {1, 6}, {2, 11}, {count - 5, count}}) {
            std::vector<std::int64_t> run;
            const bool stopped = ForEachShareKeyUntil(keys, share, t.x, lo, hi, [&](std::int64_t i, std::uint64_t) {
              run.push_back(i);
              return false;
            });
            EXPECT_FALSE(stopped);
            ASSERT_EQ(static_cast<std::int64_t>(run.size()), hi - lo);
            for (std::int64_t j = lo; j < hi; ++j) {
              EXPECT_EQ(run[static_cast<std::size_t>(j - lo)], share.IndexAt(t.x, j));
            }
          }
          std::int64_t last = -1;
          EXPECT_TRUE(ForEachShareKeyUntil(keys, share, t.x, 1, count, [&](std::int64_t i, std::uint64_t) {
            last = i;
            return i == share.IndexAt(t.x, 6);
          }));
          EXPECT_EQ(last, share.IndexAt(t.x, 6));
        });
      });
      ASSERT_TRUE(r.ok()) << r.Summary();
      EXPECT_EQ(share.quads, n != 4095);
      EXPECT_EQ(share.span.head, 0);
      EXPECT_EQ(share.span.scalar, base != 0);
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
    }
  }
}

// --- divergent barriers ---------------------------------------------------------------------

// Threads 0..15 of 32 reach a barrier that 16..31 skip: thread 16 is the first that did not.
TEST(GpuEmulatorBarrier, CatchesBarrierReachedByHalfTheBlock) {
  const LaunchReport r = emu::Launch("divergent", 1, 32, [&](Block& block) {
    block.ForEachThread([&](Thread t) {
      if (t.x < 16) block.Sync();
    });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violations[0].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(r.violations[0].thread, 16);
  EXPECT_NE(r.violations[0].Message().find("not reached by every thread"), std::string::npos);
}

// Each phase's barriers are counted afresh: a clean phase, then threads 0..15 of 32 reach a
// barrier (divergent: thread 16 is the first that did not), then every thread reaches one
// (not divergent, but a barrier inside a phase: reported at thread 0, the first to reach the
// most). Counts carried over from the second phase would make the third divergent too.
TEST(GpuEmulatorBarrier, ChecksEveryPhaseOnItsOwnBarriers) {
  const LaunchReport r = emu::Launch("phases", 1, 32, [&](Block& block) {
    block.ForEachThread([&](Thread) {});
    block.ForEachThread([&](Thread t) {
      if (t.x < 16) block.Sync();
    });
    block.ForEachThread([&](Thread) { block.Sync(); });
  });
  ASSERT_EQ(r.total, 2);
  EXPECT_EQ(r.violations[0].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(r.violations[0].thread, 16);
  EXPECT_NE(r.violations[0].Message().find("not reached by every thread"), std::string::npos);
  EXPECT_EQ(r.violations[1].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(r.violations[1].thread, 0);
  EXPECT_NE(r.violations[1].Message().find("a barrier inside a phase"), std::string::npos);
}

// A warp operation inside a phase is a collective not every lane reaches together.
TEST(GpuEmulatorBarrier, CatchesWarpOpInsidePhase) {
  const LaunchReport r = emu::Launch("warp_in_phase", 1, 32, [&](Block& block) {
    auto v = Registers<int>(block, 1);
    block.ForEachThread([&](Thread t) {
      if (t.x == 3) (void)ShuffleDown(block, v, 1);
    });
  });
  ASSERT_EQ(r.total, 1);
  EXPECT_EQ(r.violations[0].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(r.violations[0].thread, 3);
}

TEST(GpuEmulatorBarrier, PassesBarriersBetweenPhases) {
  const LaunchReport r = emu::Launch("uniform", 3, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, int, s, 64);
    block.ForEachThread([&](Thread t) { s.Store(t.x, t.x); });
    block.Sync();
    block.ForEachThread([&](Thread t) { (void)s.Load(63 - t.x); });
    block.Sync();
  });
  EXPECT_TRUE(r.ok()) << r.Summary();
}

// --- uninitialised shared memory ------------------------------------------------------------

// Only even threads write s[t]; thread t then reads s[t ^ 1]: thread 0 reads s[1], unwritten.
TEST(GpuEmulatorUninitialised, CatchesReadOfUnwrittenWord) {
  const LaunchReport r = emu::Launch("uninit", 1, 32, [&](Block& block) {
    SAMPCHECK_SHARED(block, float, s, 32);
    block.ForEachThread([&](Thread t) {
      if (t.x % 2 == 0) s.Store(t.x, 1.0f);
    });
    block.Sync();
    block.ForEachThread([&](Thread t) { (void)s.Load(t.x ^ 1); });
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violations[0].kind, Kind::kUninitialisedRead);
  EXPECT_EQ(r.violations[0].thread, 0);
  EXPECT_EQ(r.violations[0].index, 1);
  EXPECT_EQ(r.total, 16);  // threads 0, 2, ..., 30 read odd words
}

TEST(GpuEmulatorUninitialised, PassesReadAfterEveryWordWritten) {
  const LaunchReport r = emu::Launch("init", 1, 32, [&](Block& block) {
    SAMPCHECK_SHARED(block, float, s, 32);
    block.ForEachThread([&](Thread t) { s.Store(t.x, 1.0f); });
    block.Sync();
    block.ForEachThread([&](Thread t) { (void)s.Load(t.x ^ 1); });
  });
  EXPECT_TRUE(r.ok()) << r.Summary();
}

// --- warp operations ------------------------------------------------------------------------

TEST(GpuEmulatorWarp, ShuffleDownKeepsOwnValueBeyondTheWarp) {
  std::vector<int> got(64);
  const LaunchReport r = emu::Launch("shfl_down", 1, 64, [&](Block& block) {
    auto v = Registers<int>(block);
    block.ForEachThread([&](Thread t) { v[t] = 100 + t.x; });
    auto w = ShuffleDown(block, v, 16);
    block.ForEachThread([&](Thread t) { got[static_cast<std::size_t>(t.x)] = w[t]; });
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(got[0], 116);   // lane 0 <- lane 16
  EXPECT_EQ(got[15], 131);  // lane 15 <- lane 31
  EXPECT_EQ(got[16], 116);  // lane 16: 16 + 16 >= 32, own value
  EXPECT_EQ(got[32], 148);  // warp 1 lane 0 <- warp 1 lane 16 (thread 48), never warp 0
  EXPECT_EQ(got[47], 163);
  EXPECT_EQ(got[48], 148);
}

TEST(GpuEmulatorWarp, ShuffleXorAndBallot) {
  std::vector<int> x(64);
  std::vector<std::uint32_t> b(64);
  const LaunchReport r = emu::Launch("xor_ballot", 1, 64, [&](Block& block) {
    auto v = Registers<int>(block);
    auto p = Registers<bool>(block);
    block.ForEachThread([&](Thread t) {
      v[t] = t.x;
      p[t] = t.x % 3 == 0;
    });
    auto w = ShuffleXor(block, v, 5);
    auto m = Ballot(block, p);
    block.ForEachThread([&](Thread t) {
      x[static_cast<std::size_t>(t.x)] = w[t];
      b[static_cast<std::size_t>(t.x)] = m[t];
    });
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(x[0], 5);
  EXPECT_EQ(x[5], 0);
  EXPECT_EQ(x[33], 36);  // 33 = warp 1 lane 1; lane 1 ^ 5 = 4 -> thread 36
  // Warp 0: lanes 0, 3, ..., 30 -> 0x49249249. Warp 1: threads 33, 36, ..., 63 are multiples of
  // 3, i.e. lanes 1, 4, ..., 31 -> 0x92492492.
  EXPECT_EQ(b[0], 0x49249249u);
  EXPECT_EQ(b[31], 0x49249249u);
  EXPECT_EQ(b[32], 0x92492492u);
}

// Each lane names its own source: lane l of a 64-thread block takes lane (3 l + 1) mod 32 of its
// warp (35 is 3 mod 32: CUDA's source lane modulo the width), never the other warp's.
TEST(GpuEmulatorWarp, ShuffleFromTakesEachLanesSource) {
  std::vector<int> x(64);
  const LaunchReport r = emu::Launch("shuffle_from", 1, 64, [&](Block& block) {
    auto v = Registers<int>(block);
    auto from = Registers<int>(block);
    block.ForEachThread([&](Thread t) {
      v[t] = 100 + t.x;
      from[t] = 3 * t.lane() + 1;
    });
    auto w = ShuffleFrom(block, v, from);
    block.ForEachThread([&](Thread t) { x[static_cast<std::size_t>(t.x)] = w[t]; });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(x[0], 101);       // lane 0 <- lane 1
  EXPECT_EQ(x[11], 102);      // 34 mod 32 = 2
  EXPECT_EQ(x[31], 100 + 30); // 94 mod 32 = 30
  EXPECT_EQ(x[32], 133);      // warp 1 lane 0 <- warp 1 lane 1 (thread 33)
  EXPECT_EQ(x[43], 134);      // warp 1 lane 11 <- lane 2 (thread 34)
  EXPECT_EQ(r.counters.warp_ops, 1);
}

// ExchangeXor: each lane's value becomes combine(mine, lane ^ m's), both as they were before the
// exchange (lane 9 gets lane 0's value, not lane 0's result, though lane 0 is combined first).
// A 40-thread block: warp 1 holds lanes 0 .. 7 (threads 32 .. 39); with m = 9, lane 0
// of warp 1 (thread 32) pairs with lane 9 (past the block), so it reads its own value, as
// ShuffleXor does. Values 100 + t, combine 1000 a + b. Inside ForWarps keeping warp 1 only,
// warp 0's registers stay as they were. One warp operation a call.
TEST(GpuEmulatorWarp, ExchangeXorCombinesTheValuesBeforeTheExchange) {
  std::vector<long> got(40), subset(40);
  const LaunchReport r = emu::Launch("exchange_xor", 1, 40, [&](Block& block) {
    auto v = Registers<long>(block);
    block.ForEachThread([&](Thread t) { v[t] = 100 + t.x; });
    ExchangeXor(
        block, 9, [&](Thread t) -> long& { return v[t]; }, [](Thread, long a, long b) { return 1000 * a + b; });
    block.ForEachThread([&](Thread t) { got[static_cast<std::size_t>(t.x)] = v[t]; });
    block.ForEachThread([&](Thread t) { v[t] = t.x; });
    block.ForWarps([](int w) { return w == 1; }, [&] {
      ExchangeXor(
          block, 1, [&](Thread t) -> long& { return v[t]; },
          [](Thread t, long a, long b) { return t.x * 100 + a - b; });
    });
    block.ForEachThread([&](Thread t) { subset[static_cast<std::size_t>(t.x)] = v[t]; });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(got[0], 100 * 1000 + 109);   // lane 0 <- lane 9
  EXPECT_EQ(got[9], 109 * 1000 + 100);   // lane 9 <- lane 0, as it was before lane 0's result
  EXPECT_EQ(got[22], 122 * 1000 + 131);  // 22 ^ 9 = 31
  EXPECT_EQ(got[31], 131 * 1000 + 122);
  EXPECT_EQ(got[32], 132 * 1000 + 132);  // lane 0 ^ 9 = 9: thread 41, past the block
  EXPECT_EQ(got[33], 133 * 1000 + 133);  // lane 1 ^ 9 = 8: thread 40, past the block
  EXPECT_EQ(got[39], 139 * 1000 + 139);  // lane 7 ^ 9 = 14: thread 46
  EXPECT_EQ(subset[0], 0);               // warp 0 sat it out
  EXPECT_EQ(subset[31], 31);
  EXPECT_EQ(subset[32], 3200 + 32 - 33);  // thread 32 <- 33
  EXPECT_EQ(subset[33], 3300 + 33 - 32);
  EXPECT_EQ(subset[38], 3800 + 38 - 39);
  EXPECT_EQ(r.counters.warp_ops, 2);
  EXPECT_EQ(r.counters.warp_op_warps, 2 + 1);
}

// --- warp subsets (ForWarps) -----------------------------------------------------------------

// 96 threads (3 warps), ForWarps keeping warps 0 and 2: the body's phase runs their 64 threads
// only, its ShuffleXor exchanges within them (thread 65 = warp 2 lane 1 gets lane 1 ^ 1 = 0:
// thread 64), warp 1's registers keep what they held, and the counters take 2 warps for the
// shuffle (warp_op_warps), 3 for the Ballot after it; a nested ForWarps keeping warps 1 and 2
// leaves warp 2 (its phase: 32 threads); one that keeps none runs nothing.
TEST(GpuEmulatorWarpSubset, RunsTheKeptWarpsOnly) {
  std::vector<int> got(96, -1);
  int outer_phase = 0, inner_phase = 0, empty_phase = 0;
  const LaunchReport r = emu::Launch("warp_subset", 1, 96, [&](Block& block) {
    auto v = Registers<int>(block, -7);
    block.ForWarps([](int w) { return w != 1; }, [&] {
      block.ForEachThread([&](Thread t) {
        v[t] = t.x;
        ++outer_phase;
      });
      auto x = ShuffleXor(block, v, 1);
      block.ForEachThread([&](Thread t) { v[t] = x[t]; });
      block.ForWarps([](int w) { return w >= 1; }, [&] { block.ForEachThread([&](Thread) { ++inner_phase; }); });
      block.ForWarps([](int w) { return w == 1; }, [&] { block.ForEachThread([&](Thread) { ++empty_phase; }); });
    });
    auto p = Registers<bool>(block, true);
    (void)Ballot(block, p);
    block.ForEachThread([&](Thread t) { got[static_cast<std::size_t>(t.x)] = v[t]; });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(outer_phase, 64);
  EXPECT_EQ(inner_phase, 32);
  EXPECT_EQ(empty_phase, 0);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 0);
  EXPECT_EQ(got[32], -7);  // warp 1 sat it out
  EXPECT_EQ(got[63], -7);
  EXPECT_EQ(got[64], 65);
  EXPECT_EQ(got[65], 64);
  EXPECT_EQ(r.counters.warp_ops, 2);
  EXPECT_EQ(r.counters.warp_op_warps, 2 + 3);
}

// A barrier inside ForWarps is one the warps left out never reach (reported at the first of
// their threads, 32 here); ForWarps inside a phase is block-level code called by one thread;
// BlockUniform inside ForWarps reads the kept warps only (warp 1's different value is no
// divergence there) and reports a kept thread that differs (thread 70, first of warp 2 with 9).
TEST(GpuEmulatorWarpSubset, CatchesABarrierInsideAndChecksTheKeptWarpsUniform) {
  const LaunchReport barrier = emu::Launch("subset_barrier", 1, 64, [&](Block& block) {
    block.ForWarps([](int w) { return w == 0; }, [&] { block.Sync(); });
  });
  ASSERT_EQ(barrier.total, 1);
  EXPECT_EQ(barrier.violations[0].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(barrier.violations[0].thread, 32);
  EXPECT_NE(barrier.violations[0].Message().find("inside ForWarps"), std::string::npos);

  const LaunchReport in_phase = emu::Launch("subset_in_phase", 1, 32, [&](Block& block) {
    block.ForEachThread([&](Thread t) {
      if (t.x == 5) block.ForWarps([](int) { return true; }, [] {});
    });
  });
  ASSERT_EQ(in_phase.total, 1);
  EXPECT_EQ(in_phase.violations[0].thread, 5);

  int uniform = 0;
  const LaunchReport kept = emu::Launch("subset_uniform", 1, 96, [&](Block& block) {
    auto v = Registers<int>(block, 4);
    block.ForEachThread([&](Thread t) {
      if (t.warp() == 1 || t.x >= 70) v[t] = 9;
    });
    block.ForWarps([](int w) { return w == 0; }, [&] { uniform = BlockUniform(block, v); });
    block.ForWarps([](int w) { return w != 1; }, [&] { (void)BlockUniform(block, v); });
  });
  EXPECT_EQ(uniform, 4);
  ASSERT_EQ(kept.total, 1);
  EXPECT_EQ(kept.violations[0].kind, Kind::kDivergentBarrier);
  EXPECT_EQ(kept.violations[0].thread, 70);
}

// --- the canonical reduction ----------------------------------------------------------------

// Example of gpu/block/block_reduce.cuh: 1024 lanes of 1.0f sum to 1024.0f.
TEST(GpuEmulatorReduce, SumsOneBlock) {
  float got = 0.0f;
  const LaunchReport r = emu::Launch("sum", 1, kCanonicalLanes, [&](Block& block) {
    auto lane = Registers<float>(block, 1.0f);
    auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) got = s[t];
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(got, 1024.0f);
}

// reductions.h's example: lanes 2^-24, 2^-24, 1 sum to 1.0f in the canonical tree (left to
// right would give 1 + 2^-23): the block tree must give the reference's value.
TEST(GpuEmulatorReduce, FollowsTheCanonicalTree) {
  const std::vector<float> row = {0x1p-24f, 0x1p-24f, 1.0f};
  float got = 0.0f;
  const LaunchReport r = emu::Launch("sum", 1, kCanonicalLanes, [&](Block& block) {
    auto lane = Registers<float>(block, -0.0f);
    block.ForEachThread([&](Thread t) {
      if (t.x < 3) lane[t] = row[static_cast<std::size_t>(t.x)];
    });
    auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) got = s[t];
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(got, 1.0f);
  EXPECT_EQ(got, reference::CanonicalSum(row));
}

// The block reduction against the reference on rows whose sums depend on the order (values
// across 60 binades, both signs), rows shorter than 1024 lanes (empty lanes keep -0.0 / -inf),
// rows of signed zeros, and maxima with NaNs of different payloads (which NaN's bits come out
// is the tree's operand order: the reference's first NaN in its lane order). Lane l folds
// l, l + 1024, ... in index order, as reductions.md; the block reduces them. Two barriers.
TEST(GpuEmulatorReduce, MatchesTheReferenceBitwise) {
  auto bits = [](float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  auto nan_with = [](std::uint32_t payload) {
    const std::uint32_t u = 0x7fc00000u | payload;
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
  };
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-40, 20);
  for (const std::size_t length : {std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{33}, std::size_t{700},
                                   std::size_t{1024}, std::size_t{1500}, std::size_t{5000}}) {
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<float> row(length);
      for (std::size_t i = 0; i < length; ++i) {
        const float x = std::ldexp(mantissa(gen), exponent(gen));
        row[i] = kind == 1 ? ((i % 2 == 0) ? 0.0f : -0.0f) : ((gen() % 3 == 0) ? -x : x);
      }
      if (kind == 2) {
        row[length / 2] = nan_with(5);
        row[length - 1] = nan_with(9);
        row[0] = -nan_with(3);
      }
      float sum = 0.0f;
      float max = 0.0f;
      std::int64_t barriers = 0;
      int differing = -1;
      const LaunchReport r = emu::Launch("reduce", 1, kCanonicalLanes, [&](Block& block) {
        auto lane_sum = Registers<float>(block, -0.0f);
        auto lane_max = Registers<float>(block, -std::numeric_limits<float>::infinity());
        block.ForEachThread([&](Thread t) {
          for (std::size_t i = static_cast<std::size_t>(t.x); i < length; i += kCanonicalLanes) {
            lane_sum[t] = lane_sum[t] + row[i];
            lane_max[t] = MaxCombine{}(lane_max[t], row[i]);
          }
        });
        auto s = CanonicalBlockReduce<float>(block, lane_sum, SumCombine{});
        auto m = CanonicalBlockReduce<float>(block, lane_max, MaxCombine{});
        block.ForEachThread([&](Thread t) {  // every thread holds the result: the last one's
          sum = s[t];
          max = m[t];
          if (bits(s[t]) != bits(s[Thread{0}]) || bits(m[t]) != bits(m[Thread{0}])) differing = t.x;
        });
      });
      ASSERT_TRUE(r.ok()) << r.Summary();
      EXPECT_EQ(differing, -1) << length << " " << kind;
      barriers = r.counters.max_block_barriers;
      if (kind != 2) {
        EXPECT_EQ(bits(sum), bits(reference::CanonicalSum(row))) << length << " " << kind;
      }
      EXPECT_EQ(bits(max), bits(reference::CanonicalMax(row))) << length << " " << kind;
      EXPECT_EQ(barriers, 4);  // two per reduction
      // One shared access a thread between two barriers (the warps exchange the rest by
      // shuffles): lane 0 of each warp read its column's 32 entries in turn before 2026-12-01.
      EXPECT_EQ(r.counters.critical_intervals, (std::vector<std::int64_t>{1, 2, 2, 2, 1}));
    }
  }
}

// --- buffer pool ---------------------------------------------------------------------------

// The recycled buffers of a host thread stay within kPooledBytes whatever the sizes given back
// (gpu/emulator/emulator.h): 3 x 64 buffers of 1 MiB (one size, its 64 slots full after the
// first 64) and then one buffer each of 64 more sizes of 2 MiB + i would keep 64 MiB + 126 MiB
// under the count bounds alone (64 sizes in all); every take and give keeps the pool at or
// below the bound, a buffer taken back leaves it, and the sizes past the bound still work
// (they go to the heap). Under AddressSanitizer nothing is pooled (PooledBytes() = 0): the
// test then checks the buffers only.
TEST(GpuEmulatorPool, KeepsAtMostItsBytesWhateverTheSizes) {
  // On a thread of its own: its pool starts empty (pools are per host thread).
  std::thread([] {
    std::vector<std::pair<void*, std::size_t>> held;
    for (int i = 0; i < 3 * 64; ++i)
      held.emplace_back(emu::detail::TakeBuffer(std::size_t{1} << 20), std::size_t{1} << 20);
    for (int i = 0; i < 64; ++i) {
      const std::size_t bytes = (std::size_t{2} << 20) + static_cast<std::size_t>(i);
      held.emplace_back(emu::detail::TakeBuffer(bytes), bytes);
    }
    for (auto& [p, bytes] : held) {
      std::memset(p, 0xab, bytes);  // every buffer is usable, its whole length
      emu::detail::GiveBuffer(p, bytes);
      EXPECT_LE(emu::detail::PooledBytes(), emu::detail::kPooledBytes);
    }
    const std::size_t kept = emu::detail::PooledBytes();
    void* again = emu::detail::TakeBuffer(std::size_t{1} << 20);
    std::memset(again, 0, std::size_t{1} << 20);
    EXPECT_EQ(emu::detail::PooledBytes(), kept == 0 ? 0 : kept - (std::size_t{1} << 20));
    emu::detail::GiveBuffer(again, std::size_t{1} << 20);
    EXPECT_EQ(emu::detail::PooledBytes(), kept);
#if !defined(__SANITIZE_ADDRESS__)
    EXPECT_EQ(kept, emu::detail::kPooledBytes);  // the first 64 MiB given back fill it exactly
#endif
  }).join();
}

}  // namespace
}  // namespace sampcheck::gpu
