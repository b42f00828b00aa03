// SPDX-License-Identifier: Apache-2.0
// The last block of a group (gpu/block/last_block.cuh, docs/gpu.md "The last block of a row"):
// a toy kernel sums each row split over several blocks, the last block of the row adding the
// slices' partial sums in slice order; then planted breaks of the protocol, each reported by
// the emulator's cross-block check (gpu/emulator/emulator.h). Every value is a small integer or
// a sum of halves and quarters, so each f32 sum below is exact and worked by hand.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/last_block.cuh"
#include "gpu/runners/emulated_launch.h"

namespace sampcheck::gpu {
namespace {

enum class Fault {
  kNone,
  kNoTicket,             // the block of the last slice merges without a ticket
  kReadBeforeTicket,     // every block peeks at slice 0's partial before its ticket
  kGroupTooLarge,        // LastBlockOf told slices + 1 blocks: no block is last
  kNoFence,              // a hand-written ticket with no fence before it
  kOtherThreadStores,    // thread 1 stores the partial, no barrier before LastBlockOf
  kNonLastMerges,        // a hand-written protocol in which every block past ticket 0 merges
  kOtherThreadThenSync,  // not a fault: thread 1 stores the partial, a barrier, LastBlockOf
  kWarpTicket,           // not a fault: thread 1 stores the partial, warp 0 takes the ticket (WarpTakesTicket)
  kWarpTicketNoSync,     // thread 1 stores the partial, lane 0 takes the ticket with no SyncWarp
  kOtherWarpTicket,      // thread 33 (warp 1) stores the partial, warp 0 takes the ticket
};

// sum[r] = the sum of x[r, 0 .. V) as slices partial sums (block r n + g sums slice g =
// [g V / n, (g + 1) V / n) in index order), added in slice order by the row's last block.
struct ToySplitSumKernel {
  static constexpr const char* kName = "toy_split_sum";
  static constexpr int kThreads = 2 * kWarpSize;  // two warps: a warp's ticket after another warp's store

  template <class B, class In, class Partials, class Tickets, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In x, Partials partials, Tickets tickets, Out sum,
                                        std::int64_t vocab, std::int64_t slices, Fault fault) const {
    const std::int64_t row = block.index() / slices;
    const std::int64_t g = block.index() % slices;
    const bool by_thread_1 = fault == Fault::kOtherThreadStores || fault == Fault::kOtherThreadThenSync ||
                             fault == Fault::kWarpTicket || fault == Fault::kWarpTicketNoSync;
    const int storing = fault == Fault::kOtherWarpTicket ? kWarpSize + 1 : by_thread_1 ? 1 : 0;
    block.ForEachThread([&](Thread t) {
      if (t.x != storing) return;
      float s = 0.0f;
      for (std::int64_t i = g * vocab / slices; i < (g + 1) * vocab / slices; ++i) s = s + x.Load(row * vocab + i);
      partials.Store(row * slices + g, s);
    });
    if (fault == Fault::kOtherThreadThenSync) block.Sync();
    if (fault == Fault::kReadBeforeTicket) {
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) (void)partials.Load(row * slices);
      });
    }
    bool last = false;
    if (fault == Fault::kNoTicket) {
      last = g == slices - 1;
    } else if (fault == Fault::kGroupTooLarge) {
      last = LastBlockOf(block, tickets, row, slices + 1);
    } else if (fault == Fault::kWarpTicket || fault == Fault::kWarpTicketNoSync || fault == Fault::kOtherWarpTicket) {
      // Warp 0's ticket, broadcast by a barrier of the caller's.
      SAMPCHECK_SHARED(block, std::uint32_t, drew_last, 1);
      block.ForWarps(WarpZero{}, [&] {
        bool mine = false;
        if (fault == Fault::kWarpTicketNoSync) {
          block.ForEachThread([&](Thread t) {
            if (t.lane() == 0) mine = TakeTicket(block, tickets, row, slices);
          });
        } else {
          mine = WarpTakesTicket(block, tickets, row, slices);
        }
        block.ForEachThread([&](Thread t) {
          if (t.lane() == 0) drew_last.Store(0, mine ? 1u : 0u);
        });
      });
      block.Sync();
      block.ForEachThread([&](Thread) { last = drew_last.Load(0) != 0; });
    } else if (fault == Fault::kNoFence || fault == Fault::kNonLastMerges) {
      SAMPCHECK_SHARED(block, std::uint32_t, taken, 1);
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        if (fault != Fault::kNoFence) ThreadFence(block);
        const std::uint32_t n = tickets.FetchAdd(row, 1u);
        if (n + 1 == slices) tickets.Store(row, 0u);
        taken.Store(0, n);
      });
      block.Sync();
      std::uint32_t n = 0;
      block.ForEachThread([&](Thread) { n = taken.Load(0); });
      if (fault == Fault::kNonLastMerges) ThreadFence(block);
      last = fault == Fault::kNonLastMerges ? n >= 1 : n + 1 == slices;
    } else {
      last = LastBlockOf(block, tickets, row, slices);
    }
    if (!last) return;
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      float s = 0.0f;
      for (std::int64_t h = 0; h < slices; ++h) s = s + partials.Load(row * slices + h);
      sum.Store(row, s);
    });
  }
};

// Its launch description: the partials are scratch, the counters the launcher's Tickets (zero
// on entry); `launches` runs the kernel that many times on the same arrays.
struct ToySplitSumLaunch {
  const float* x = nullptr;
  std::int64_t rows = 0, vocab = 0, slices = 0;
  float* sum = nullptr;
  int launches = 1;
  template <class L>
  void Describe(L& l) const {
    const auto partials = l.template Scratch<float>(rows * slices, "partials");
    const auto tickets = l.Tickets(rows, "tickets");
    for (int i = 0; i < launches; ++i) {
      l.template Run<ToySplitSumKernel>(rows * slices, l.In(x, rows * vocab, "x"), partials, tickets,
                                        l.Out(sum, rows, "sum"), vocab, slices, Fault::kNone);
    }
  }
};

// Two rows of 8: row 0 is 1 .. 8 (slices 1 + 2 + 3 + 4 = 10 and 5 + 6 + 7 + 8 = 26: 36, the
// header's example), row 1 (0.5 - 1 + 2 + 4 = 5.5 and 8 - 3 + 0.25 + 1 = 6.25: 11.75).
const std::vector<float> kRows = {1, 2, 3, 4, 5, 6, 7, 8, 0.5f, -1, 2, 4, 8, -3, 0.25f, 1};

struct ToyRun {
  LaunchReport report;
  std::vector<float> sum;
  std::vector<float> partials;
  std::vector<std::uint32_t> tickets;
};

// The kernel on the emulator with arrays the test can inspect afterwards.
ToyRun RunToy(std::int64_t slices, Fault fault, const std::vector<float>& x = kRows, std::int64_t vocab = 8) {
  const std::int64_t rows = static_cast<std::int64_t>(x.size()) / vocab;
  ToyRun r;
  r.sum.assign(static_cast<std::size_t>(rows), -1.0f);
  r.partials.assign(static_cast<std::size_t>(rows * slices), 0.0f);
  r.tickets.assign(static_cast<std::size_t>(rows), 0u);
  const GlobalArray<const float> in(x.data(), rows * vocab, "x");
  const GlobalArray<float> partials(r.partials.data(), rows * slices, "partials", /*cross_block=*/true);
  const GlobalArray<std::uint32_t> tickets(r.tickets.data(), rows, "tickets");
  const GlobalArray<float> sum(r.sum.data(), rows, "sum");
  r.report = emu::Launch(ToySplitSumKernel::kName, static_cast<int>(rows * slices), ToySplitSumKernel::kThreads,
                         [&](Block& block) { ToySplitSumKernel{}(block, in, partials, tickets, sum, vocab, slices, fault); });
  return r;
}

TEST(GpuLastBlock, SumsARowSplitOverBlocks) {
  const ToyRun r = RunToy(2, Fault::kNone);
  ASSERT_TRUE(r.report.ok()) << r.report.Summary();
  EXPECT_EQ(r.sum, (std::vector<float>{36.0f, 11.75f}));
  EXPECT_EQ(r.partials, (std::vector<float>{10.0f, 26.0f, 5.5f, 6.25f}));
  EXPECT_EQ(r.tickets, (std::vector<std::uint32_t>{0u, 0u}));  // reset by each row's last block
  // Counted: one ticket per block (4), one fence per block plus the acquire fence of each
  // row's last block (4 + 2), the protocol's 1 barrier per block; the counter array's traffic
  // is each ticket's load and store plus each last block's reset (4 loads, 6 stores).
  const LaunchCounters& c = r.report.counters;
  EXPECT_EQ(c.atomics, 4);
  EXPECT_EQ(c.fences, 6);
  EXPECT_EQ(c.max_block_barriers, 1);
  EXPECT_EQ(c.barriers, 4);
  // The busiest block is a last one: its slice (4 loads of 4 bytes), its partial (4), its
  // ticket (4 + 4), the reset (4), the two partials (8) and the sum (4): 44 bytes; the others 28.
  EXPECT_EQ(c.max_block_global_bytes, 44);
  EXPECT_EQ(c.Global("tickets").loads, 4);
  EXPECT_EQ(c.Global("tickets").stores, 6);
}

TEST(GpuLastBlock, MergesInSliceOrderWhateverTheSlices) {
  // One row of 9 in 3 slices of 3 (0.5 + 0.25 + 1, 2 + 4 + 8, -3 - 1 + 0.75) and 1 slice (its
  // own last block): 1.75 + 14 + (-3.25) = 12.5 either way.
  const std::vector<float> x = {0.5f, 0.25f, 1, 2, 4, 8, -3, -1, 0.75f};
  for (const std::int64_t slices : {1, 3}) {
    SCOPED_TRACE(testing::Message() << slices << " slices");
    const ToyRun r = RunToy(slices, Fault::kNone, x, 9);
    ASSERT_TRUE(r.report.ok()) << r.report.Summary();
    EXPECT_EQ(r.sum, (std::vector<float>{12.5f}));
    EXPECT_EQ(r.tickets, (std::vector<std::uint32_t>{0u}));
  }
}

TEST(GpuLastBlock, OneTicketArrayServesEveryLaunchOfADescription) {
  // Through the launcher: the description owns the counters (zero on entry), and since each
  // launch's last blocks reset them, a second launch on the same array merges again.
  std::vector<float> sum(2, -1.0f);
  RunEmulated(ToySplitSumLaunch{kRows.data(), 2, 8, 2, sum.data(), 2});
  EXPECT_EQ(sum, (std::vector<float>{36.0f, 11.75f}));
}

// The first recorded violation's message, or "" when the launch passed.
std::string FirstViolation(const ToyRun& r) {
  return r.report.violations.empty() ? std::string() : r.report.violations[0].Message();
}

// The launch failed and its first violation says `text`.
void ExpectFirstViolation(const ToyRun& r, const std::string& text) {
  EXPECT_FALSE(r.report.ok());
  const std::string m = FirstViolation(r);
  EXPECT_NE(m.find(text), std::string::npos) << m;
}

TEST(GpuLastBlock, ReportsAMergeWithoutATicket) {
  const ToyRun r = RunToy(2, Fault::kNoTicket);
  ExpectFirstViolation(r,
                       "block 1 thread 0: cross-block ordering at partials[0]: reads a word block 0 wrote in this "
                       "launch before taking a ticket");
}

TEST(GpuLastBlock, ReportsAPartialReadBeforeTheTicket) {
  const ToyRun r = RunToy(2, Fault::kReadBeforeTicket);
  ExpectFirstViolation(r, "block 1 thread 0: cross-block ordering at partials[0]");
}

TEST(GpuLastBlock, ReportsACounterLeftNonZero) {
  // No block draws ticket 2 of a group told 3 blocks: no merge, and each counter stays at 2.
  const ToyRun r = RunToy(2, Fault::kGroupTooLarge);
  EXPECT_EQ(r.sum, (std::vector<float>{-1.0f, -1.0f}));
  EXPECT_EQ(r.report.total, 2);
  ExpectFirstViolation(r, "after its last block: cross-block ordering at tickets[0]: ticket counter left at 2 "
                          "after 2 ticket(s)");
}

TEST(GpuLastBlock, ReportsATicketBeforeAFence) {
  const ToyRun r = RunToy(2, Fault::kNoFence);
  ExpectFirstViolation(r,
                       "block 0 thread 0: cross-block ordering at tickets[0]: a ticket taken after 1 global "
                       "store(s) of this block with no ThreadFence since");
}

TEST(GpuLastBlock, ReportsATicketAfterAnotherThreadsStoreWithNoBarrier) {
  const ToyRun r = RunToy(2, Fault::kOtherThreadStores);
  ExpectFirstViolation(r,
                       "block 0 thread 0: cross-block ordering at tickets[0]: a ticket taken after thread 1's "
                       "global store(s) with no barrier");
  // With a barrier between, thread 0's fence orders thread 1's store (the fence is cumulative).
  const ToyRun fixed = RunToy(2, Fault::kOtherThreadThenSync);
  ASSERT_TRUE(fixed.report.ok()) << fixed.report.Summary();
  EXPECT_EQ(fixed.sum, (std::vector<float>{36.0f, 11.75f}));
}

TEST(GpuLastBlock, AWarpTakesTheTicketAfterItsLanesStores) {
  // Thread 1 stores the partial, warp 0 syncs and its lane 0 takes the ticket: no barrier of
  // the protocol's own (the flag's barrier is the caller's), the same sums.
  const ToyRun r = RunToy(2, Fault::kWarpTicket);
  ASSERT_TRUE(r.report.ok()) << r.report.Summary();
  EXPECT_EQ(r.sum, (std::vector<float>{36.0f, 11.75f}));
  EXPECT_EQ(r.tickets, (std::vector<std::uint32_t>{0u, 0u}));
  EXPECT_EQ(r.report.counters.atomics, 4);
  EXPECT_EQ(r.report.counters.fences, 6);
  // Without the SyncWarp, lane 0's fence does not order lane 1's store.
  ExpectFirstViolation(RunToy(2, Fault::kWarpTicketNoSync),
                       "block 0 thread 0: cross-block ordering at tickets[0]: a ticket taken after thread 1's "
                       "global store(s) with no barrier (or SyncWarp of their warp) between");
  // Warp 0's SyncWarp does not order warp 1's store.
  ExpectFirstViolation(RunToy(2, Fault::kOtherWarpTicket),
                       "block 0 thread 0: cross-block ordering at tickets[0]: a ticket taken after thread 33's "
                       "global store(s) with no barrier");
}

TEST(GpuLastBlock, ReportsAMergeByABlockThatIsNotLast) {
  // 3 slices of one row: block 1 draws ticket 1 of 3 and merges; on a device it could run
  // before block 0. Block 2 (the last) merges too and its sum is the one left.
  const std::vector<float> x = {0.5f, 0.25f, 1, 2, 4, 8, -3, -1, 0.75f};
  const ToyRun r = RunToy(3, Fault::kNonLastMerges, x, 9);
  EXPECT_EQ(r.report.total, 1);
  ExpectFirstViolation(r, "block 1 block-level code: cross-block ordering at tickets[0]: read other blocks' words "
                          "holding ticket 1 of 3");
}

// One row of 8 in 2 slices whose last slice merges without a ticket.
struct NoTicketLaunch {
  const float* x;
  float* sum;
  template <class L>
  void Describe(L& l) const {
    l.template Run<ToySplitSumKernel>(2, l.In(x, 8, "x"), l.template Scratch<float>(2, "partials"),
                                      l.Tickets(1, "tickets"), l.Out(sum, 1, "sum"), std::int64_t{8}, std::int64_t{2},
                                      Fault::kNoTicket);
  }
};

TEST(GpuLastBlock, TheLauncherReportsABrokenProtocol) {
  // The same fault through RunEmulated throws with the emulator's report.
  std::vector<float> sum(1, -1.0f);
  try {
    RunEmulated(NoTicketLaunch{kRows.data(), sum.data()});
    FAIL() << "the merge without a ticket was not reported";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cross-block ordering at partials[0]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck::gpu
