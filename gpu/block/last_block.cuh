// SPDX-License-Identifier: Apache-2.0
#pragma once
// The last block of a group (docs/gpu.md "The last block of a row"): the blocks of one launch
// that share a piece of work (the slices of one row) each write a partial result to global
// scratch; the block that finishes last then merges the partials, in the same launch. The
// standard CUDA pattern (the CUDA samples' threadFenceReduction; CUB's single-pass reductions
// use the same fence-then-ticket order): every block fences its writes and takes a ticket with
// an atomic increment of its group's counter; the block that draws ticket blocks - 1 is the
// last, fences again and may then read every block's partial.
//
// Contract:
// - tickets: one u32 counter per group, zero when the launch starts (the launchers' Tickets
//   array, gpu/runners/kernel_launches.h), left zero when it ends: the last block resets it,
//   so one array serves every launch of a description. blocks: the number of blocks of the
//   group that call LastBlockOf in this launch (each exactly once); a group of one block is
//   its own last block.
// - Block-level code, called once the block's partial is in global memory: stored by thread 0
//   (in any phase before the call), or by any threads before a barrier that precedes the call.
//   Returns the same bool in every thread: true in exactly one block of the group (the last
//   ticket), false in the others, which must not read other blocks' partials nor write their
//   own after it.
// - Steps, in thread 0: ThreadFence (release: its own stores, and through the barriers before
//   it every other thread's, are visible device-wide before what follows), FetchAdd(group, 1)
//   (atomicAdd) giving the ticket; the last block's thread 0 stores 0 to the counter and fences
//   again (acquire: the block's later reads come after the ticket); the flag goes through
//   shared memory and one barrier to every thread. 1 barrier, 1 or 2 fences, one atomic.
// - WarpTakesTicket: the same steps without the barrier, for a partial that one warp's lanes
//   stored (the slice kernels' lists, stored by the merge tree's last level in warp 0): a
//   SyncWarp, then lane 0's steps; the caller broadcasts the result with a barrier it makes
//   anyway. The emulator accepts a ticket after other threads' stores of the same interval
//   only when they are all of the ticket's warp and that warp synced after them.
// - Deterministic: which block is last depends on scheduling, but the merge it runs must not:
//   the caller merges the partials in a fixed order (by slice index, never by arrival), so the
//   result is the same bits whichever block merges.
// - The emulator (gpu/emulator/emulator.h, docs/gpu.md "The emulator's checks") runs blocks one
//   after another, so its FetchAdd is a plain read-modify-write (counted as a load, a store and
//   an atomic), and checks the protocol: a block that reads a scratch word another block wrote
//   in the launch without holding the last ticket of the writer's counter, a ticket taken with
//   unfenced stores or after another thread's store with no barrier between, a counter not
//   back at 0.
// Example: 1 row of 8 entries summed over 2 blocks of 4: block 0 writes 1 + 2 + 3 + 4 = 10,
//   block 1 writes 5 + 6 + 7 + 8 = 26; the last block writes 10 + 26 = 36 and leaves the
//   counter at 0 (tests/gpu_last_block_test.cc, "SumsARowSplitOverBlocks").

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

// The steps of one thread (in a phase): fence, ticket, and with the last ticket the counter's
// reset and the second fence. Returns whether it drew ticket blocks - 1.
template <class B, class Tickets>
SAMPCHECK_KERNEL_BODY bool TakeTicket(B& block, Tickets tickets, std::int64_t group, std::int64_t blocks) {
  ThreadFence(block);  // release: the block's partial before the ticket
  const std::uint32_t taken = tickets.FetchAdd(group, 1u);
  const bool last = static_cast<std::int64_t>(taken) + 1 == blocks;
  if (last) {
    tickets.Store(group, 0u);  // every other block of the group has taken its ticket
    ThreadFence(block);        // acquire: the other blocks' partials are read after the ticket
  }
  return last;
}

// The ticket taken by a warp whose lanes stored the block's whole partial since the last
// barrier (warp-level code: inside ForWarps of that warp alone), with no barrier of its own:
// SyncWarp orders the lanes' stores before lane 0's fence (__syncwarp orders memory among a
// warp's lanes as __syncthreads among a block's threads), and lane 0 takes the ticket. Returns
// whether it drew the last, in every lane (a ballot); the caller passes it to the block through
// shared memory and a barrier it has anyway (LaneKeyTree's decision,
// gpu/block/lane_key_tree.cuh).
template <class B, class Tickets>
SAMPCHECK_KERNEL_BODY bool WarpTakesTicket(B& block, Tickets tickets, std::int64_t group, std::int64_t blocks) {
  SyncWarp(block);
  auto drew = Registers<bool>(block);
  block.ForEachThread([&](Thread t) { drew[t] = t.lane() == 0 && TakeTicket(block, tickets, group, blocks); });
  return (BlockUniform(block, Ballot(block, drew)) & 1u) != 0;
}

// A slice's ticket as its gather's merge tree left it (the slice kernels,
// gpu/fast/fast_sampling_slices.cuh and gpu/kernels/sampling_filters_slices.cuh): not taken yet
// (0, a tree's value without a decision), or taken by warp 0 in the tree's decision, drawing the
// last or not.
inline constexpr std::uint32_t kTicketNotYet = 0, kTicketDrewOther = 1, kTicketDrewLast = 2;

// A slice's decision in its gather tree (LaneKeyTree's `decide`, gpu/block/lane_key_tree.cuh:
// warp-level code of warp 0): the row's ticket when `stands` (the tree's keys are the slice's
// whole list, stored by warp 0's lanes), else none yet.
template <class B, class Tickets>
SAMPCHECK_KERNEL_BODY std::uint32_t TicketInTree(B& warp, bool stands, Tickets tickets, std::int64_t group,
                                                 std::int64_t blocks) {
  if (!stands) return kTicketNotYet;
  return WarpTakesTicket(warp, tickets, group, blocks) ? kTicketDrewLast : kTicketDrewOther;
}

template <class B, class Tickets>
SAMPCHECK_KERNEL_BODY bool LastBlockOf(B& block, Tickets tickets, std::int64_t group, std::int64_t blocks) {
  SAMPCHECK_SHARED(block, std::uint32_t, last_ticket, 1);
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) last_ticket.Store(0, TakeTicket(block, tickets, group, blocks) ? 1u : 0u);
  });
  block.Sync();
  bool last = false;
  block.ForEachThread([&](Thread) { last = last_ticket.Load(0) != 0; });
  return last;
}

// Block-level, once the slice's partial is stored: whether the block is its group's last, by the
// ticket its tree took (TicketInTree) or, where it took none, by LastBlockOf.
template <class B, class Tickets>
SAMPCHECK_KERNEL_BODY bool LastBlockAfterTree(B& block, std::uint32_t ticket, Tickets tickets, std::int64_t group,
                                              std::int64_t blocks) {
  return ticket == kTicketNotYet ? LastBlockOf(block, tickets, group, blocks) : ticket == kTicketDrewLast;
}

}  // namespace sampcheck::gpu
