// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device timeline (docs/gpu.md "Cost model", "Device timeline"): thread 0 of every block
// records its SM's clock when the block starts, after each of its barriers and when it ends,
// so that a device run gives the cycles of every barrier interval: the unit in which the
// emulator counts a launch's serial work (LaunchCounters::critical_intervals), measured instead
// of modelled. The words' layout, shared with the device side (gpu/block/device_timeline.cuh),
// and their decoding are here; EnableDeviceTimeline and DisableDeviceTimeline are defined in
// gpu/runners/cuda_runner.cu, the translation unit of the kernels. Host-only header: no CUDA
// type appears here.
//
// Contract:
// - Block b of a launch writes kTimelineSlots words from slots + b x kTimelineSlots when b <
//   `blocks` (EnableDeviceTimeline): word kTimelineCount the stamps it took (counted past the
//   room), words kTimelineStartNs and kTimelineEndNs the global timer (ns) at its start and end,
//   words kTimelineFirstStamp .. the SM clock (clock64, cycles) at its start, after each
//   barrier (DeviceBlock::Sync) and at its end, as many as fit (kTimelineStamps). Every launch
//   while enabled writes over the words of the blocks it runs: record one launch at a time.
// - Only a timeline build records (DeviceTimelineBuilt: the kernels compiled with
//   SAMPCHECK_DEVICE_TIMELINE=1, CMake option SAMPCHECK_DEVICE_TIMELINE); in any other the
//   stamps are not compiled in. In a timeline build, off (DisableDeviceTimeline, the default) a
//   barrier costs one constant-bank load and a branch more; on, thread 0 also increments a
//   shared counter and stores one word a barrier.
// - DecodeTimeline(slots, blocks): per block, the cycles of each interval (stamp i + 1 minus
//   stamp i: interval 0 from the start to the first barrier, the last from the last barrier to
//   the end, as the emulator's intervals), the ns from start to end, and whether stamps were
//   dropped (then the intervals that fit). A block that recorded nothing (word 0 zero: the
//   caller zeroes the words first) gives no interval.
// Example: a block's words {3, 1000, 1900, 50, 80, 200}: two intervals of 30 and 120 cycles,
//   900 ns (tests/device_timeline_test.cc).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sampcheck::gpu {

inline constexpr int kTimelineSlots = 512;
inline constexpr int kTimelineCount = 0;
inline constexpr int kTimelineStartNs = 1;
inline constexpr int kTimelineEndNs = 2;
inline constexpr int kTimelineFirstStamp = 3;
inline constexpr int kTimelineStamps = kTimelineSlots - kTimelineFirstStamp;

struct BlockTimeline {
  std::vector<std::uint64_t> cycles;  // one per barrier interval, in order
  std::uint64_t ns = 0;               // start to end, by the global timer
  bool truncated = false;             // more stamps than kTimelineStamps: the first ones only
};

inline std::vector<BlockTimeline> DecodeTimeline(const std::vector<std::uint64_t>& slots, std::int64_t blocks) {
  std::vector<BlockTimeline> out(static_cast<std::size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t base = static_cast<std::size_t>(b) * kTimelineSlots;
    if (base + kTimelineSlots > slots.size()) break;
    const std::uint64_t count = slots[base + kTimelineCount];
    BlockTimeline& t = out[static_cast<std::size_t>(b)];
    const std::uint64_t kept = count < kTimelineStamps ? count : kTimelineStamps;
    t.truncated = count > kept;
    for (std::uint64_t i = 1; i < kept; ++i) {
      t.cycles.push_back(slots[base + kTimelineFirstStamp + i] - slots[base + kTimelineFirstStamp + i - 1]);
    }
    if (count > 0) t.ns = slots[base + kTimelineEndNs] - slots[base + kTimelineStartNs];
  }
  return out;
}

// Whether the kernels were built with the stamps (SAMPCHECK_DEVICE_TIMELINE=1).
bool DeviceTimelineBuilt();
// Records every block below `blocks` of the launches that follow into `device_slots` (device
// memory of blocks x kTimelineSlots words); returns 0 or the CUDA error.
int EnableDeviceTimeline(std::uint64_t* device_slots, std::int64_t blocks);
// Stops recording (0 or the CUDA error).
int DisableDeviceTimeline();

}  // namespace sampcheck::gpu
