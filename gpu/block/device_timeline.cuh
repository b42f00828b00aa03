// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device side of the timeline (gpu/block/device_timeline.h, docs/gpu.md "Device
// timeline"): thread 0 of a block stamps its SM's clock at the block's start
// (TimelineStart, gpu/runners/kernel_entry.cuh), after each barrier (TimelineBarrier,
// DeviceBlock::Sync) and at its end (TimelineEnd), into the words the host named. Only in a
// timeline build (SAMPCHECK_DEVICE_TIMELINE=1, the CMake option of that name): elsewhere the
// three calls compile to nothing, so the production kernels carry no trace of it (with the
// stamps, ptxas gave most kernels 2 to 10 registers more and moved their spills: a measuring
// build, timed beside the production one). The target is a __constant__ of internal linkage:
// each translation unit that includes this header has its own, and the host sets the one of
// the kernels' (gpu/runners/cuda_runner.cu). The stamp counter is a shared word, touched only
// while recording. Compiled only by nvcc.

#include <cstdint>

#include "gpu/block/device_timeline.h"

#ifndef SAMPCHECK_DEVICE_TIMELINE
#define SAMPCHECK_DEVICE_TIMELINE 0
#endif

namespace sampcheck::gpu::device {

inline constexpr bool kDeviceTimeline = SAMPCHECK_DEVICE_TIMELINE != 0;

struct TimelineTarget {
  unsigned long long* slots;
  long long blocks;
};

static __constant__ TimelineTarget c_timeline = {nullptr, 0};

// This block's words when recording and the caller is thread 0, else null.
__device__ __forceinline__ unsigned long long* TimelineSlots() {
  const TimelineTarget t = c_timeline;
  if (t.slots == nullptr || threadIdx.x != 0 || static_cast<long long>(blockIdx.x) >= t.blocks) return nullptr;
  return t.slots + static_cast<long long>(blockIdx.x) * kTimelineSlots;
}

__device__ __forceinline__ unsigned& TimelineCounter() {
  __shared__ unsigned stamps;
  return stamps;
}

__device__ __forceinline__ unsigned long long TimelineNs() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__device__ __forceinline__ void TimelineStamp(unsigned long long* slots) {
  unsigned& n = TimelineCounter();
  if (n < static_cast<unsigned>(kTimelineStamps)) slots[kTimelineFirstStamp + n] = clock64();
  ++n;
}

__device__ __forceinline__ void TimelineStart() {
  if constexpr (kDeviceTimeline) {
    if (unsigned long long* slots = TimelineSlots()) {
      TimelineCounter() = 0;
      slots[kTimelineStartNs] = TimelineNs();
      TimelineStamp(slots);
    }
  }
}

__device__ __forceinline__ void TimelineBarrier() {
  if constexpr (kDeviceTimeline) {
    if (unsigned long long* slots = TimelineSlots()) TimelineStamp(slots);
  }
}

__device__ __forceinline__ void TimelineEnd() {
  if constexpr (kDeviceTimeline) {
    if (unsigned long long* slots = TimelineSlots()) {
      TimelineStamp(slots);
      slots[kTimelineEndNs] = TimelineNs();
      slots[kTimelineCount] = TimelineCounter();
    }
  }
}

}  // namespace sampcheck::gpu::device
