// SPDX-License-Identifier: Apache-2.0
// A new kernel is a kernel functor plus one launch description (docs/gpu.md "Adding a kernel"):
// a toy kernel written here, declared once, runs through the emulated runner's generic launcher
// (gpu/runners/emulated_launch.h) with every emulator check on. The expected numbers are worked by hand
// below; every value is a small integer or half, so each f32 sum is exact.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/runners/emulated_launch.h"

namespace sampcheck::gpu {
namespace {

// Toy kernel: sum[b] = x[b, 0] + x[b, 1] + ... in index order (thread 0 adds, the others wait),
// and y[b, i] = -y[b, i] in place, one block of one warp per row.
struct ToyRowSumNegateKernel {
  static constexpr const char* kName = "toy_row_sum_negate";
  static constexpr int kThreads = kWarpSize;

  template <class B, class In, class Out, class InOut>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In x, Out sum, InOut y, std::int64_t vocab,
                                        std::int64_t pitch) const {
    const std::int64_t row = block.index();
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kThreads) y.Store(row * vocab + i, -y.Load(row * vocab + i));
      if (t.x != 0) return;
      float s = 0.0f;
      for (std::int64_t i = 0; i < vocab; ++i) s = s + x.Load(row * pitch + i);
      sum.Store(row, s);
    });
  }
};

// Its one launch description: x [rows, pitch] in, sum [rows] out, y [rows, vocab] in and out.
struct ToyRowSumNegateLaunch {
  const float* x = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  float* sum = nullptr;
  float* y = nullptr;
  std::int64_t sum_elements = -1;  // the test's planted fault: fewer elements than rows
  template <class L>
  void Describe(L& l) const {
    l.template Run<ToyRowSumNegateKernel>(rows, l.In(x, rows * pitch, "x"),
                                          l.Out(sum, sum_elements < 0 ? rows : sum_elements, "sum"),
                                          l.InOut(y, rows * vocab, "y"), vocab, pitch);
  }
};

TEST(GpuKernelLaunch, RunsAToyKernelFromItsOneDescription) {
  // Two rows of three, padded to a pitch of 4; the padding (99) is never read.
  const std::vector<float> x = {1, 2, 3, 99, -4, 0.5f, 8, 99};
  std::vector<float> sum(2, -1.0f);
  std::vector<float> y = {1, -2, 0.25f, 7, 0, -8};
  RunEmulated(ToyRowSumNegateLaunch{x.data(), 2, 3, 4, sum.data(), y.data()});
  // By hand: 1 + 2 + 3 = 6; -4 + 0.5 + 8 = 4.5.
  EXPECT_EQ(sum, (std::vector<float>{6.0f, 4.5f}));
  EXPECT_EQ(y, (std::vector<float>{-1, 2, -0.25f, -7, -0.0f, 8}));
  EXPECT_TRUE(std::signbit(y[4]));  // -(+0) is -0
}

TEST(GpuKernelLaunch, KeepsTheEmulatorChecksOn) {
  // A description that declares one element too few for `sum`: row 1's store is out of bounds.
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> sum(2, -1.0f);
  std::vector<float> y(4, 1.0f);
  ToyRowSumNegateLaunch launch{x.data(), 2, 2, 2, sum.data(), y.data()};
  launch.sum_elements = 1;
  try {
    RunEmulated(launch);
    FAIL() << "the out-of-bounds store was not reported";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gpu-emulated: kernel 'toy_row_sum_negate' failed the emulator's checks"), std::string::npos)
        << what;
    EXPECT_NE(what.find("out-of-bounds access at sum[1]"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sampcheck::gpu
