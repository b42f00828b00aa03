// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checking emulator's launcher (docs/gpu.md "Adding a kernel"): runs any launch
// description (gpu/runners/kernel_launches.h) on the host emulator (gpu/emulator/emulator.h). Each array of the
// description becomes a bounds-checked view of the caller's host memory (a read-only one for
// In), a scratch array or a ticket array a zero-filled host vector; every launch runs with every check on, and any
// violation throws std::runtime_error with the emulator's report, prefixed by the runner's name.
//
// Example: RunEmulated(GreedyLaunch{logits, rows, vocab, pitch, token}) writes token[b] for
// every row b (tests/gpu_kernel_launch_test.cc runs a toy kernel this way).

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/emulator/emulator.h"

namespace sampcheck::gpu {

class EmulatedLaunch {
 public:
  explicit EmulatedLaunch(std::string runner) : runner_(std::move(runner)) {}

  template <class T>
  GlobalArray<const T> In(const T* p, std::int64_t n, const char* name) const {
    return GlobalArray<const T>(p, p == nullptr ? 0 : n, name);
  }
  template <class T>
  GlobalArray<T> Out(T* p, std::int64_t n, const char* name) const {
    return GlobalArray<T>(p, p == nullptr ? 0 : n, name);
  }
  // The caller's memory is the device memory here: nothing to copy either way.
  // Never written (gpu/runners/kernel_launches.h "InAsOut"), so the cast is never used to write.
  template <class T>
  GlobalArray<T> InAsOut(const T* p, std::int64_t n, const char* name) const {
    return GlobalArray<T>(const_cast<T*>(p), p == nullptr ? 0 : n, name);
  }
  template <class T>
  GlobalArray<T> InOut(T* p, std::int64_t n, const char* name) const {
    return Out(p, n, name);
  }
  // Scratch words remember which block wrote them in a launch: the emulator's cross-block
  // check (gpu/block/last_block.cuh).
  template <class T>
  GlobalArray<T> Scratch(std::int64_t n, const char* name) {
    std::shared_ptr<T[]> storage(new T[static_cast<std::size_t>(n)]());  // zero-filled
    scratch_.push_back(storage);
    return GlobalArray<T>(storage.get(), n, name, /*cross_block=*/true);
  }
  // The last-block protocol's counters (gpu/block/last_block.cuh): zero-filled; each launch's
  // last blocks leave them zero, which the emulator checks at the end of every launch.
  GlobalArray<std::uint32_t> Tickets(std::int64_t n, const char* name) {
    std::shared_ptr<std::uint32_t[]> storage(new std::uint32_t[static_cast<std::size_t>(n)]());
    scratch_.push_back(storage);
    return GlobalArray<std::uint32_t>(storage.get(), n, name);
  }

  template <class Kernel, class... Args>
  void Run(std::int64_t grid, Args... args) const {
    const LaunchReport report = emu::Launch(Kernel::kName, static_cast<int>(grid), Kernel::kThreads,
                                            [&](Block& block) { Kernel{}(block, args...); });
    if (!report.ok()) {
      throw std::runtime_error(runner_ + ": kernel '" + std::string(Kernel::kName) +
                               "' failed the emulator's checks:\n" + report.Summary());
    }
  }

 private:
  std::string runner_;
  std::vector<std::shared_ptr<void>> scratch_;  // alive until the launch is done
};

// Runs one launch description on the emulator.
template <class Description>
void RunEmulated(const Description& description, const char* runner = "gpu-emulated") {
  EmulatedLaunch launch(runner);
  description.Describe(launch);
}

}  // namespace sampcheck::gpu
