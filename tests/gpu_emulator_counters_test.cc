// SPDX-License-Identifier: Apache-2.0
// The emulator's work counters (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost model"): known
// counts of small planted kernels, worked out by hand from each kernel's code in the test's
// comment (bytes = accesses x sizeof(T)); the recorder; determinism.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/emulator/emulator_counters.h"

namespace sampcheck::gpu {
namespace {

const ArrayTraffic* Find(const std::vector<ArrayTraffic>& arrays, const std::string& name) {
  for (const auto& a : arrays) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// The contract's example: 32 threads each load in[t] (f32), a barrier, each stores out[t].
// Global: 32 loads = 128 bytes, 32 stores = 128 bytes; 1 barrier, 2 phases; each interval's
// busiest thread makes 1 access: longest chain 1, critical path 1 + 1 = 2.
TEST(GpuEmulatorCounters, CountsOneCopyKernel) {
  std::vector<float> in(32, 1.0f), out(32);
  const LaunchReport r = emu::Launch("copy", 1, 32, [&](Block& block) {
    GlobalArray<float> src(in.data(), 32, "in");
    GlobalArray<float> dst(out.data(), 32, "out");
    auto v = Registers<float>(block);
    block.ForEachThread([&](Thread t) { v[t] = src.Load(t.x); });
    block.Sync();
    block.ForEachThread([&](Thread t) { dst.Store(t.x, v[t]); });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  const LaunchCounters& c = r.counters;
  EXPECT_EQ(c.kernel, "copy");
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads, 32);
  EXPECT_EQ(c.barriers, 1);
  EXPECT_EQ(c.max_block_barriers, 1);
  EXPECT_EQ(c.phases, 2);
  EXPECT_EQ(c.GlobalLoadBytes(), 128);
  EXPECT_EQ(c.GlobalStoreBytes(), 128);
  EXPECT_EQ(c.max_block_global_bytes, 256);  // the one block moved all of it
  EXPECT_EQ(c.GlobalLoadBytes("in"), 128);
  EXPECT_EQ(c.GlobalLoadBytes("out"), 0);
  ASSERT_EQ(c.global.size(), 2u);
  EXPECT_EQ(c.global[0].name, "in");  // first-access order
  EXPECT_EQ(c.global[0].loads, 32);
  EXPECT_EQ(c.global[0].elements, 32);
  EXPECT_EQ(c.global[0].element_bytes, 4);
  EXPECT_EQ(c.global[1].stores, 32);
  EXPECT_EQ(c.longest_chain, 1);
  EXPECT_EQ(c.critical_path, 2);
  EXPECT_EQ(c.critical_intervals, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(c.SharedAccesses(), 0);
  EXPECT_EQ(c.warp_ops, 0);
}

// Thread t stores s[t] (i32); barrier; thread 0 alone loads all 32 words and stores their sum
// to out[0] (i64). Shared: 32 stores, 32 loads, 128 bytes each. Intervals: the first's
// busiest thread makes 1 access, the second's (thread 0) 32 + 1 = 33: longest chain 33,
// critical path 1 + 33 = 34. Global: one 8-byte store.
TEST(GpuEmulatorCounters, CountsSharedTrafficAndTheSerialChain) {
  std::vector<std::int64_t> out(1);
  const LaunchReport r = emu::Launch("serial_sum", 1, 32, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::int32_t, s, 32);
    GlobalArray<std::int64_t> o(out.data(), 1, "out");
    block.ForEachThread([&](Thread t) { s.Store(t.x, t.x); });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      std::int64_t sum = 0;
      for (int i = 0; i < 32; ++i) sum += s.Load(i);
      o.Store(0, sum);
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(out[0], 31 * 32 / 2);
  const LaunchCounters& c = r.counters;
  const ArrayTraffic* s = Find(c.shared, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->loads, 32);
  EXPECT_EQ(s->stores, 32);
  EXPECT_EQ(s->load_bytes, 128);
  EXPECT_EQ(s->store_bytes, 128);
  EXPECT_EQ(c.SharedAccesses(), 64);
  EXPECT_EQ(c.SharedBytes(), 256);
  EXPECT_EQ(c.GlobalStoreBytes(), 8);
  EXPECT_EQ(c.longest_chain, 33);
  EXPECT_EQ(c.critical_path, 34);
  EXPECT_EQ(c.critical_intervals, (std::vector<std::int64_t>{1, 33}));
}

// Three blocks of 64 threads; block-level code loads k = param[0] (once per block: 3 loads,
// 12 bytes), then every thread loads row[b * 64 + t] and, after one barrier, thread t < k
// stores it. Per block, interval 1: 1 block-level access + 1 per thread = chain 2; interval 2:
// 1 store = 1 (+ 0 block-level). Longest chain 2, critical path 3; barriers 3 in all, 1 per
// block. Stores: 3 blocks x k = 5 threads x 4 bytes = 60 bytes.
TEST(GpuEmulatorCounters, CountsBlockLevelAccessesOncePerBlockAndInEveryThreadsChain) {
  std::vector<float> row(192, 2.0f), out(192);
  const std::vector<std::int32_t> param = {5};
  const LaunchReport r = emu::Launch("blocks", 3, 64, [&](Block& block) {
    GlobalArray<const std::int32_t> p(param.data(), 1, "param");
    GlobalArray<float> in(row.data(), 192, "row");
    GlobalArray<float> o(out.data(), 192, "out");
    const std::int64_t base = std::int64_t{block.index()} * 64;
    const std::int32_t k = p.Load(0);
    auto v = Registers<float>(block);
    block.ForEachThread([&](Thread t) { v[t] = in.Load(base + t.x); });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x < k) o.Store(base + t.x, v[t]);
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  const LaunchCounters& c = r.counters;
  EXPECT_EQ(c.blocks, 3);
  EXPECT_EQ(c.barriers, 3);
  EXPECT_EQ(c.max_block_barriers, 1);
  EXPECT_EQ(c.phases, 6);
  EXPECT_EQ(c.GlobalLoadBytes("param"), 12);
  EXPECT_EQ(c.GlobalLoadBytes("row"), 192 * 4);
  EXPECT_EQ(c.GlobalStoreBytes(), 60);
  EXPECT_EQ(c.longest_chain, 2);
  EXPECT_EQ(c.critical_path, 3);
  EXPECT_EQ(c.critical_intervals, (std::vector<std::int64_t>{2, 1}));  // block 0's (all three alike)
}

// A butterfly over one warp is 5 ShuffleXor calls (m = 16, 8, 4, 2, 1) and a Ballot one more:
// 6 warp operations; BlockUniform reads a register on the device and is not counted.
TEST(GpuEmulatorCounters, CountsWarpCollectivesButNotUniformReads) {
  const LaunchReport r = emu::Launch("warp", 1, 32, [&](Block& block) {
    auto v = Registers<int>(block, 1);
    for (int m = 16; m >= 1; m /= 2) {
      auto other = ShuffleXor(block, v, m);
      block.ForEachThread([&](Thread t) { v[t] += other[t]; });
    }
    auto p = Registers<bool>(block, true);
    (void)Ballot(block, p);
    EXPECT_EQ(BlockUniform(block, v), 32);
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.counters.warp_ops, 6);
}

// An out-of-bounds access is a violation, dropped, and not counted as traffic.
TEST(GpuEmulatorCounters, DoesNotCountDroppedAccesses) {
  std::vector<float> out(16);
  const LaunchReport r = emu::Launch("oob", 1, 17, [&](Block& block) {
    GlobalArray<float> o(out.data(), 16, "out");
    block.ForEachThread([&](Thread t) { o.Store(t.x, 1.0f); });
  });
  EXPECT_EQ(r.total, 1);
  EXPECT_EQ(r.counters.GlobalStoreBytes(), 16 * 4);
}

// A shared array counts its own accesses and adds them when it goes out of scope, also when a
// helper returns it by value (as gpu/fast/fast_sampling.cuh's SurvivorKeySlots does) and when
// two blocks each declare it. Per block: 16 stores (u64, 8 bytes), a barrier, 16 loads, then a
// second array "t" (u16) with 4 stores: over two blocks 32 loads and 32 stores of "s" (256
// bytes each), 8 stores of "t" (16 bytes).
TEST(GpuEmulatorCounters, CountsSharedArraysReturnedByAHelper) {
  auto declare = [](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, s, 16);
    return s;
  };
  const LaunchReport r = emu::Launch("moved", 2, 16, [&](Block& block) {
    auto s = declare(block);
    block.ForEachThread([&](Thread t) { s.Store(t.x, std::uint64_t{1} << t.x); });
    block.Sync();
    block.ForEachThread([&](Thread t) { (void)s.Load(15 - t.x); });
    SAMPCHECK_SHARED(block, std::uint16_t, t, 4);
    block.ForEachThread([&](Thread th) {
      if (th.x < 4) t.Store(th.x, 1);
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  const ArrayTraffic* s = Find(r.counters.shared, "s");
  const ArrayTraffic* t = Find(r.counters.shared, "t");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(s->loads, 32);
  EXPECT_EQ(s->stores, 32);
  EXPECT_EQ(s->load_bytes, 256);
  EXPECT_EQ(s->store_bytes, 256);
  EXPECT_EQ(t->loads, 0);
  EXPECT_EQ(t->stores, 8);
  EXPECT_EQ(t->store_bytes, 16);
  EXPECT_EQ(r.counters.SharedAccesses(), 72);
}

// The recorder sees every launch on its thread while alive, in order; a nested one takes
// them while it lives; none is recorded outside.
TEST(GpuEmulatorCounters, RecorderKeepsLaunchesInOrder) {
  auto empty = [](const char* name) {
    (void)emu::Launch(name, 2, 32, [](Block& block) { block.Sync(); });
  };
  empty("before");
  LaunchRecorder outer;
  empty("a");
  {
    LaunchRecorder inner;
    empty("b");
    ASSERT_EQ(inner.launches().size(), 1u);
    EXPECT_EQ(inner.launches()[0].kernel, "b");
  }
  empty("c");
  ASSERT_EQ(outer.launches().size(), 2u);
  EXPECT_EQ(outer.launches()[0].kernel, "a");
  EXPECT_EQ(outer.launches()[1].kernel, "c");
  EXPECT_EQ(outer.launches()[1].blocks, 2);
  EXPECT_EQ(outer.launches()[1].barriers, 2);
}

// Global(name) sums the arrays of one name (two buffers, both "keys": 8 loads of 8 bytes from
// the first, 4 stores to the second), with the first array's shape; an absent name is zero.
TEST(GpuEmulatorCounters, GlobalSumsTheArraysOfOneName) {
  std::vector<std::uint64_t> a(8, 1), b(16, 0);
  const LaunchReport r = emu::Launch("two_buffers", 1, 8, [&](Block& block) {
    GlobalArray<std::uint64_t> first(a.data(), 8, "keys");
    GlobalArray<std::uint64_t> second(b.data(), 16, "keys");
    block.ForEachThread([&](Thread t) {
      const std::uint64_t v = first.Load(t.x);
      if (t.x < 4) second.Store(t.x, v);
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  ASSERT_EQ(r.counters.global.size(), 2u);  // keyed by address and name: two arrays
  const ArrayTraffic keys = r.counters.Global("keys");
  EXPECT_EQ(keys.name, "keys");
  EXPECT_EQ(keys.base, a.data());
  EXPECT_EQ(keys.elements, 8);
  EXPECT_EQ(keys.element_bytes, 8);
  EXPECT_EQ(keys.loads, 8);
  EXPECT_EQ(keys.load_bytes, 64);
  EXPECT_EQ(keys.stores, 4);
  EXPECT_EQ(keys.store_bytes, 32);
  EXPECT_EQ(r.counters.GlobalLoadBytes("keys"), 64);
  const ArrayTraffic none = r.counters.Global("values");
  EXPECT_EQ(none.base, nullptr);
  EXPECT_EQ(none.loads + none.stores + none.load_bytes + none.store_bytes + none.elements, 0);
}

// Row passes: loads of every array of at least rows x vocab elements, in units of the f32
// logits' bytes. A kernel reading a [2, 100] f32 "logits" row once and a row-sized f32
// "scratch" twice, plus a [2] parameter: 1 logits pass, 3 row passes.
TEST(GpuEmulatorCounters, RowPassesCountRowSizedArraysOnly) {
  std::vector<float> logits(200, 1.0f), scratch(200, 0.0f), param(2, 0.0f);
  LaunchRecorder rec;
  (void)emu::Launch("passes", 2, 32, [&](Block& block) {
    GlobalArray<float> x(logits.data(), 200, "logits");
    GlobalArray<float> s(scratch.data(), 200, "scratch");
    GlobalArray<float> q(param.data(), 2, "param");
    const std::int64_t base = std::int64_t{block.index()} * 100;
    (void)q.Load(block.index());
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < 100; i += 32) (void)x.Load(base + i);
      for (int pass = 0; pass < 2; ++pass) {
        for (std::int64_t i = t.x; i < 100; i += 32) (void)s.Load(base + i);
      }
    });
  });
  EXPECT_DOUBLE_EQ(LogitsPasses(rec.launches(), 2, 100), 1.0);
  EXPECT_DOUBLE_EQ(RowPasses(rec.launches(), 2, 100), 3.0);
}

}  // namespace
}  // namespace sampcheck::gpu
