// SPDX-License-Identifier: Apache-2.0
// Tests of the row threads (reference/row_threads.h, docs/spec/cli.md "Global options"): a stage's
// outputs are the same bits for 1, 2, 3 and 8 threads (64 rows, so the ranges are uneven for
// 3), every row is visited once, and the exception of the lowest failing row is the one
// rethrown, as in a sequential run. Labels: unit. False-failure budget: none.
#include "reference/row_threads.h"

#include <sys/resource.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "golden/case_random.h"
#include "reference/greedy.h"
#include "reference/sampling_filters.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

Case FiltersCase(const char* profile) {
  golden::SplitMix64 rng(0x7EAD);
  Case c;
  c.id = "row_threads";
  c.stage = "sampling_filters";
  c.profile = sampcheck::ParseProfile(profile);
  c.params = nlohmann::json::object();
  Tensor logits(DType::kF32, {64, 5000});
  for (float& v : logits.data<float>()) v = static_cast<float>(static_cast<std::int64_t>(rng.Below(1 << 16)) - (1 << 15)) * 0x1p-11f;
  Tensor k(DType::kI32, {64}), p(DType::kF32, {64}), m(DType::kF32, {64});
  for (std::size_t b = 0; b < 64; ++b) {
    k.data<std::int32_t>()[b] = static_cast<std::int32_t>(b * 7 % 300);  // 0: top-k off
    p.data<float>()[b] = 0.5f + 0.01f * static_cast<float>(b % 50);
    m.data<float>()[b] = 0.002f * static_cast<float>(b % 5);
  }
  c.inputs.emplace("logits", std::move(logits));
  c.inputs.emplace("top_k", std::move(k));
  c.inputs.emplace("top_p", std::move(p));
  c.inputs.emplace("min_p", std::move(m));
  return c;
}

std::vector<std::uint32_t> AllBits(const TensorMap& out) {
  std::vector<std::uint32_t> bits;
  for (const auto& [name, t] : out) {
    if (t.dtype() == DType::kF32) {
      for (float v : t.data<float>()) bits.push_back(Bits(v));
    } else if (t.dtype() == DType::kI64) {
      for (std::int64_t v : t.data<std::int64_t>()) bits.push_back(static_cast<std::uint32_t>(v));
    }
  }
  return bits;
}

TEST(RowThreads, OutputsDoNotDependOnTheThreadCount) {
  for (Profile profile : {Profile::kCanonical, Profile::kVllm, Profile::kSglang}) {
    const Case c = FiltersCase(std::string(ProfileName(profile)).c_str());
    reference::SetRowThreads(1);
    const auto one = AllBits(reference::RunSamplingFilters(c, profile));
    Case g = c;
    g.stage = "greedy";
    const auto greedy_one = AllBits(reference::RunGreedy(g, Profile::kCanonical));
    for (int threads : {2, 3, 8}) {
      reference::SetRowThreads(threads);
      EXPECT_EQ(AllBits(reference::RunSamplingFilters(c, profile)), one) << threads;
      EXPECT_EQ(AllBits(reference::RunGreedy(g, Profile::kCanonical)), greedy_one) << threads;
    }
  }
  reference::SetRowThreads(1);
}

TEST(RowThreads, VisitsEveryRowOnceAndRethrowsTheLowestFailure) {
  for (int threads : {1, 2, 3, 7}) {
    reference::SetRowThreads(threads);
    std::vector<std::atomic<int>> seen(10);
    reference::ParallelRows(10, [&](std::int64_t b) { ++seen[static_cast<std::size_t>(b)]; });
    for (auto& s : seen) EXPECT_EQ(s.load(), 1) << threads;
    try {
      reference::ParallelRows(10, [](std::int64_t b) {
        if (b == 4 || b == 8) throw std::runtime_error("row " + std::to_string(b));
      });
      ADD_FAILURE() << "no exception, threads " << threads;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "row 4") << threads;
    }
  }
  EXPECT_THROW(reference::SetRowThreads(0), std::invalid_argument);
  reference::SetRowThreads(1);
}

TEST(RowThreads, CountsOutsideOneTo1024AreRefused) {
  EXPECT_THROW(reference::SetRowThreads(0), std::invalid_argument);
  EXPECT_THROW(reference::SetRowThreads(1025), std::invalid_argument);  // the contract's 1024
  reference::SetRowThreads(1);
}

#if !defined(__SANITIZE_ADDRESS__) && !(defined(__has_feature) && __has_feature(address_sanitizer))
// Under an address-space limit most of 1000 threads cannot be created (8 MiB stacks): that
// used to leave joinable std::threads behind an exception, so std::terminate aborted the
// process. Now the rows of threads not started run on the calling thread. In a child process
// (a death test), whose limit cannot affect the others; not under ASan, which needs terabytes
// of address space for its shadow.
// The child's body: exits 0 when every row ran exactly once.
[[noreturn]] void ThousandThreadsUnderAnAddressSpaceLimit() {
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = std::uint64_t{512} << 20;
  if (::setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(3);
  reference::SetRowThreads(1000);
  std::vector<std::atomic<int>> seen(4000);
  reference::ParallelRows(4000, [&](std::int64_t b) { seen[static_cast<std::size_t>(b)]++; });
  for (const auto& s : seen) {
    if (s.load() != 1) std::_Exit(4);
  }
  std::_Exit(0);
}

TEST(RowThreadsDeathTest, ThreadCreationFailureRunsTheRestOnTheCallingThread) {
  EXPECT_EXIT(ThousandThreadsUnderAnAddressSpaceLimit(), ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace
}  // namespace sampcheck::testing
