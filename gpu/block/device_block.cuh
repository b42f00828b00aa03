// SPDX-License-Identifier: Apache-2.0
#pragma once
// The block model on a CUDA device (gpu/block/block_model.h, docs/gpu.md "What maps to what"):
// Block = the CUDA block (blockIdx.x, blockDim.x), a phase = the calling thread's own call,
// Sync = __syncthreads, Registers = one register value, shared arrays = __shared__, warp
// operations = __shfl_*_sync / __ballot_sync with the full mask; in a timeline build each
// barrier also stamps the device timeline while the host records one
// (gpu/block/device_timeline.cuh; elsewhere that call is empty). Compiled only by nvcc.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu/block/device_timeline.cuh"
#include "gpu/block/quad.h"

namespace sampcheck::gpu {

inline constexpr int kWarpSize = 32;

// Own namespace: the emulator's types of the same names (gpu/emulator/emulator.h) differ in layout, and
// a program links both.
namespace device {

struct Thread {
  int x;                                    // threadIdx.x
  __device__ int lane() const { return x & (kWarpSize - 1); }
  __device__ int warp() const { return x / kWarpSize; }
};

template <class T>
struct DeviceRegisters {
  T v;
  __device__ T& operator[](Thread) { return v; }
  __device__ const T& operator[](Thread) const { return v; }
};

template <class T>
class DeviceShared {
 public:
  __device__ explicit DeviceShared(T* p) : p_(p) {}
  __device__ T Load(std::int64_t i) const { return p_[i]; }
  __device__ void Store(std::int64_t i, T v) const { p_[i] = v; }
  // A copy, passed by value to an out-of-line function (HostShared::View's twin).
  __device__ DeviceShared View() const { return *this; }

 private:
  T* p_;
};

// A global array: pointer and length. The length is unused on the device (the emulator checks
// the bounds on every CI run instead).
template <class T>
class GlobalArray {
 public:
  GlobalArray() = default;
  __host__ __device__ GlobalArray(T* p, std::int64_t n, const char* /*name*/) : p_(p), n_(n) {}
  __device__ T Load(std::int64_t i) const { return p_[i]; }
  template <class U>
  __device__ void Store(std::int64_t i, U v) const { p_[i] = v; }
  __host__ __device__ std::int64_t size() const { return n_; }
  // Elements i .. i + 3 in one 16-byte load (LDG.128): element i's address on a 16-byte
  // boundary (the emulator checks it on every CI run).
  __device__ Quad<std::remove_const_t<T>> Load4(std::int64_t i) const {
    static_assert(sizeof(T) == 4, "four 4-byte elements");
    const uint4 u = *reinterpret_cast<const uint4*>(p_ + i);
    Quad<std::remove_const_t<T>> q;
    std::memcpy(&q.v[0], &u.x, 4);
    std::memcpy(&q.v[1], &u.y, 4);
    std::memcpy(&q.v[2], &u.z, 4);
    std::memcpy(&q.v[3], &u.w, 4);
    return q;
  }
  // The elements from i up to the next 16-byte boundary of the addresses (0 to 3).
  __device__ std::int64_t BoundaryGap(std::int64_t i) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p_) + static_cast<std::uintptr_t>(i) * sizeof(T);
    return static_cast<std::int64_t>((16 - a % 16) % 16 / sizeof(T));
  }
  // atomicAdd, returning the old value: only the last-block protocol's ticket
  // (gpu/block/last_block.cuh). T: unsigned int (std::uint32_t).
  __device__ T FetchAdd(std::int64_t i, T v) const { return atomicAdd(p_ + i, v); }

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
};

class DeviceBlock {
 public:
  __device__ int index() const { return static_cast<int>(blockIdx.x); }
  __device__ int threads() const { return static_cast<int>(blockDim.x); }
  template <class F>
  __device__ void ForEachThread(F&& f) const { f(Thread{static_cast<int>(threadIdx.x)}); }
  __device__ void Sync() const {
    __syncthreads();
    TimelineBarrier();
  }
  // A warp-uniform branch: the calling thread runs body when its warp w has pred(w).
  template <class P, class F>
  __device__ void ForWarps(P&& pred, F&& body) const {
    if (pred(static_cast<int>(threadIdx.x) / kWarpSize)) body();
  }
};

template <class T>
__device__ DeviceRegisters<T> Registers(const DeviceBlock&, T init = T{}) { return DeviceRegisters<T>{init}; }

template <class T>
__device__ DeviceRegisters<T> ShuffleDown(const DeviceBlock&, const DeviceRegisters<T>& r, int delta) {
  return DeviceRegisters<T>{__shfl_down_sync(0xffffffffu, r.v, delta)};
}
template <class T>
__device__ DeviceRegisters<T> ShuffleXor(const DeviceBlock&, const DeviceRegisters<T>& r, int mask) {
  return DeviceRegisters<T>{__shfl_xor_sync(0xffffffffu, r.v, mask)};
}
// The calling lane's at(t) against lane ^ mask's (block_model.h): the shuffle and the select.
template <class At, class Combine>
__device__ void ExchangeXor(const DeviceBlock&, int mask, At&& at, Combine&& combine) {
  const Thread t{static_cast<int>(threadIdx.x)};
  auto& mine = at(t);
  const auto other = __shfl_xor_sync(0xffffffffu, mine, mask);
  mine = combine(t, mine, other);
}
template <class T>
__device__ DeviceRegisters<T> ShuffleFrom(const DeviceBlock&, const DeviceRegisters<T>& r,
                                          const DeviceRegisters<int>& from) {
  return DeviceRegisters<T>{__shfl_sync(0xffffffffu, r.v, from.v)};
}
__device__ inline DeviceRegisters<std::uint32_t> Ballot(const DeviceBlock&, const DeviceRegisters<bool>& p) {
  return DeviceRegisters<std::uint32_t>{__ballot_sync(0xffffffffu, p.v)};
}

// __threadfence in the calling thread (every thread when called at block level): its global
// writes, and those a barrier ordered before it, are seen device-wide before its later ones
// (the last-block protocol, gpu/block/last_block.cuh).
__device__ inline void ThreadFence(const DeviceBlock&) { __threadfence(); }

// __syncwarp in the calling warp: its lanes' memory operations before it are ordered before
// their operations after it (CUDA C++ Programming Guide, "Synchronization Functions"), as
// __syncthreads orders the block's.
__device__ inline void SyncWarp(const DeviceBlock&) { __syncwarp(); }

// A value every thread holds (computed from the same shared words), read by
// block-level code; the emulator checks that it is the same in every thread.
template <class T>
__device__ T BlockUniform(const DeviceBlock&, const DeviceRegisters<T>& r) { return r.v; }

}  // namespace device

using device::Ballot;
using device::BlockUniform;
using device::DeviceShared;
using device::ExchangeXor;
using device::GlobalArray;
using device::Registers;
using device::ShuffleDown;
using device::ShuffleXor;
using device::SyncWarp;
using device::Thread;
using device::ThreadFence;
using Block = device::DeviceBlock;

}  // namespace sampcheck::gpu
