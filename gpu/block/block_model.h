// SPDX-License-Identifier: Apache-2.0
#pragma once
// The block model every kernel in gpu/ is written against (docs/gpu.md "The model").
//
// Contract:
// - A kernel is a functor whose `operator()(Block& block, ...)` is the body of ONE block. The
//   body is block-level code executed by every thread of the block; per-thread work is a
//   *phase*, `block.ForEachThread([&](Thread t) { ... })`; phases are separated by
//   `block.Sync()` (a `__syncthreads`). Values a thread keeps across phases live in
//   `Registers<T>(block)` (one T per thread, indexed by the Thread). Shared memory is declared
//   with SAMPCHECK_SHARED(block, T, name, N) and read and written with Load(i) / Store(i, v);
//   global memory is a GlobalArray<T> (Load / Store). Nothing else is shared between threads.
// - Warp operations are block-level collectives over every warp of the block (32 lanes, full
//   mask), with CUDA's lane semantics (docs/gpu.md "Warp operations"):
//     ShuffleDown(block, r, d): lane l gets lane l + d's value when l + d < 32, else its own
//                               (__shfl_down_sync(0xffffffff, v, d));
//     ShuffleXor(block, r, m):  lane l gets lane l ^ m's value (__shfl_xor_sync);
//     ExchangeXor(block, m, at, combine): lane l's value at(t) (a reference into its
//                               registers) becomes combine(t, mine, lane l ^ m's), both taken
//                               before the exchange (__shfl_xor_sync, then the lane's own
//                               select): ShuffleXor and a phase that writes the result back,
//                               which the emulator runs a pass over each warp's pairs of lanes
//                               in place of three passes over the threads and a buffer (a
//                               compare-exchange stage, a butterfly's step);
//     ShuffleFrom(block, r, from): lane l gets lane from[l] mod 32's value, each lane naming its
//                               own source (__shfl_sync(0xffffffff, v, from));
//     Ballot(block, p):         every lane gets the mask whose bit l is lane l's predicate
//                               (__ballot_sync(0xffffffff, p));
//     SyncWarp(block):          no data: the warp's memory operations before it are ordered
//                               before those after it (__syncwarp()), which the last-block
//                               protocol takes for a warp's stores (gpu/block/last_block.cuh).
// - block.ForWarps(pred, body): block-level code `body` run only by the warps w with pred(w) (a
//   warp-uniform branch: `if (pred(threadIdx.x / 32)) body();` on the device), so that work only
//   some warps need (a merge of fewer runs than warps) does not take every warp's issue slots.
//   Its phases run the kept warps' threads, its warp operations are over the kept warps (the
//   others' registers are neither read nor written), and it holds no barrier (the warps left out
//   would never reach it: the emulator reports a divergent barrier). What body leaves for the
//   other warps goes through shared memory and a barrier after it.
// - Under nvcc's device pass these map to threadIdx.x, __syncthreads, __shared__ arrays and
//   __shfl_*_sync (gpu/block/device_block.cuh). Everywhere else the host emulator runs each phase
//   for thread 0, 1, ..., n-1 in turn and checks races, bounds, divergent barriers and
//   uninitialised shared reads (gpu/emulator/emulator.h).
// - Kernel bodies contain no #if: the macros below are the only place that differs.
// Example: a block sum of one value per thread (tests/gpu_emulator_test.cc, "SumsOneBlock").

#include "core/portability.h"

#if SAMPCHECK_IS_CUDA_COMPILER
#include "gpu/block/device_block.cuh"
// Device pass: a __shared__ array of N T's, wrapped so that kernels use Load/Store as on the
// host. The array is static per kernel instantiation, as every __shared__ declaration is.
#define SAMPCHECK_SHARED(block, T, name, N)  \
  __shared__ T name##_storage_[N];            \
  ::sampcheck::gpu::DeviceShared<T> name(name##_storage_)
#define SAMPCHECK_KERNEL_BODY __device__
#else
#include "gpu/emulator/emulator.h"
#define SAMPCHECK_SHARED(block, T, name, N) \
  ::sampcheck::gpu::HostShared<T> name((block), #name, (N))
#define SAMPCHECK_KERNEL_BODY
#endif

namespace sampcheck::gpu {

// ForWarps' predicate for work of warp 0 alone (a walk's running sum, a draw on the survivors):
// block.ForWarps(WarpZero{}, body).
struct WarpZero {
  SAMPCHECK_HOST_DEVICE constexpr bool operator()(int w) const { return w == 0; }
};

}  // namespace sampcheck::gpu
