// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checking emulator's work counters (docs/gpu.md "Cost model"): what one launch did,
// counted by the emulator's own arrays and blocks (gpu/emulator/emulator.h), so that every launch of
// every runner is counted without code in the runners.
//
// Contract:
// - Counted per launch: blocks launched; barriers (block-level Sync calls) and phases
//   (ForEachThread calls), summed over blocks, and the most barriers of one block; warp
//   collectives (ShuffleDown, ShuffleXor, Ballot calls at block level, one per call), and the
//   warps taking part in them (every warp of the block, or those ForWarps keeps);
//   the last-block protocol's steps (LastBlockOf, gpu/block/last_block.cuh): fences
//   (ThreadFence calls, one per call in a phase or at block level) and atomics (FetchAdd
//   calls, one per calling thread; each also counts as one load and one store of its array);
//   per global array (keyed by its base pointer and name, named by its name): loads and
//   stores and their bytes (sizeof(T) per access), and the most global bytes one block moved;
//   per shared array (keyed by its name, summed over blocks): loads and stores and their bytes.
// - An access is one Load or Store. An access outside the array is a violation, dropped and
//   not counted. Block-level code (outside ForEachThread) runs in every thread on the device;
//   its global accesses are counted once per block (a broadcast: one transaction), and each
//   counts as one access of every thread in the chain below.
// - The chain of an interval: the barrier intervals of a block are the stretches between
//   kernel start, each barrier and kernel end. A thread's work in an interval is the number of
//   global and shared accesses it makes there (its phases plus the interval's block-level
//   accesses). longest_chain = the maximum over blocks, intervals and threads of that work;
//   critical_path = the maximum over blocks of the sum over the block's intervals of the
//   interval's largest thread work (the block cannot finish sooner than its slowest thread in
//   every interval, as each barrier waits for the slowest thread). critical_intervals = those
//   interval chains, in order, of the first block whose sum is critical_path: where a
//   launch's serial work is (sampcheck_cost_table --intervals prints them).
// - Deterministic: the emulator runs threads and blocks in a fixed order, so the same launch
//   on the same inputs gives the same counts, on every machine.
// - "Row passes" (RowPasses): bytes loaded from every global array of at least rows x vocab
//   elements — the logits and every row-sized copy a kernel makes of them (scratch,
//   intermediate outputs) — divided by rows x vocab x 4, the bytes of one f32 read of the
//   logits. LogitsPasses counts the arrays named "logits" alone.
// Example: one block of 32 threads, each loading in[t] (f32) and storing out[t] after a
//   barrier: global loads 128 bytes, stores 128 bytes, 1 barrier, 2 phases, longest chain 1,
//   critical path 2 (tests/gpu_emulator_counters_test.cc, "CountsOneCopyKernel").

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sampcheck::gpu {

struct ArrayTraffic {
  std::string name;
  const void* base = nullptr;     // global arrays: the array's address (two arrays may share a name)
  std::int64_t elements = 0;      // the array's size (global arrays; shared: 0)
  std::int64_t element_bytes = 0;
  std::int64_t loads = 0;
  std::int64_t stores = 0;
  std::int64_t load_bytes = 0;
  std::int64_t store_bytes = 0;
};

struct LaunchCounters {
  std::string kernel;
  std::int64_t blocks = 0;
  int threads = 0;
  std::int64_t barriers = 0;            // summed over blocks
  std::int64_t max_block_barriers = 0;  // the most barriers one block ran
  std::int64_t phases = 0;              // summed over blocks
  std::int64_t warp_ops = 0;            // summed over blocks
  std::int64_t warp_op_warps = 0;       // the warps taking part in each, summed (ForWarps: fewer)
  std::int64_t fences = 0;              // ThreadFence calls, summed over blocks
  std::int64_t atomics = 0;             // FetchAdd calls (tickets), summed over blocks
  std::int64_t longest_chain = 0;
  std::int64_t critical_path = 0;
  std::vector<std::int64_t> critical_intervals;  // sums to critical_path
  std::int64_t max_block_global_bytes = 0;  // the most global bytes (loads + stores) one block moved
  std::vector<ArrayTraffic> global;  // in order of first access
  std::vector<ArrayTraffic> shared;

  std::int64_t GlobalLoadBytes() const;
  std::int64_t GlobalStoreBytes() const;
  std::int64_t SharedAccesses() const;
  std::int64_t SharedBytes() const;
  // The traffic of the global arrays named `name`, summed over the arrays of that name (two
  // arrays may share one): its name, its counts and bytes (elements, element_bytes and base
  // those of the first such array); all zero, and base null, if none.
  ArrayTraffic Global(std::string_view name) const;
  // Global(name).load_bytes.
  std::int64_t GlobalLoadBytes(std::string_view name) const;
};

// Every launch the emulator runs on this thread while a recorder is alive, in launch order.
// Recorders nest: the innermost one records (an outer one sees nothing while it is alive).
class LaunchRecorder {
 public:
  LaunchRecorder();
  ~LaunchRecorder();
  LaunchRecorder(const LaunchRecorder&) = delete;
  LaunchRecorder& operator=(const LaunchRecorder&) = delete;
  const std::vector<LaunchCounters>& launches() const { return launches_; }
  void Clear() { launches_.clear(); }

 private:
  friend void RecordLaunch(const LaunchCounters& counters);
  std::vector<LaunchCounters> launches_;
  LaunchRecorder* outer_;
};

// Called by the emulator at the end of each launch.
void RecordLaunch(const LaunchCounters& counters);

// Row passes and logits passes (contract above) over a sequence of launches on one
// [rows, vocab] batch.
double RowPasses(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab);
double LogitsPasses(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab);

}  // namespace sampcheck::gpu
