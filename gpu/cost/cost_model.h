// SPDX-License-Identifier: Apache-2.0
#pragma once
// An estimate of a launch's device time from the emulator's counters
// (gpu/emulator/emulator_counters.h) and a few constants of one device (docs/gpu.md "Cost model"), and
// the budget check the cost tests assert: no timing, only counted work.
//
// Contract:
// - Per launch (one block per row in every sampling kernel here):
//     per_sm    = BlocksPerSm: the kernel's row of the device's occupancy table
//                 (gpu/cost/kernel_occupancy.h: registers and shared memory of the built kernel
//                 included), else min(max_blocks_per_sm, max_threads_per_sm / threads)
//     resident  = min(blocks, sms x per_sm)
//     waves     = ceil(blocks / resident)
//     per_block = sm_bytes_per_s / (resident blocks per SM)   (an SM's share of the memory
//                 system, split between the blocks it holds)
//     block_s   = block_bytes / per_block + block_barriers x barrier_s
//                 + critical_path x access_s
//     memory_s  = global bytes (loads + stores) / hbm_bytes_per_s
//     launch    = launch_s + max(memory_s, waves x block_s)
//   with block_bytes = the launch's global bytes / blocks, block_barriers = max_block_barriers,
//   and waves x block_s replaced by the busiest block's time (block_s with block_bytes =
//   max_block_global_bytes) when that is longer: blocks of one row's slices are alike but the
//   row's last block also merges (gpu/block/last_block.cuh), and the launch waits for it. The estimate of a
//   sequence of launches is the sum of its launches.
// - The constants (DeviceConstants::H100Sxm, H200) each say where they come from. The block
//   terms (barrier_s, access_s) are fitted to one device run (gpu/cost/calibration.h, H200,
//   2026-11-30: measured / estimate 0.47 to 2.98 over 52 runs, docs/gpu.md "Calibrating"). The
//   model has no cache model (repeated passes over a row that fits in L2 are charged at the
//   SM's share of HBM), no instruction costs besides memory accesses, no count of local-memory
//   traffic (the fitted access cost stands for it on today's kernels) and no overlap between
//   blocks' barriers.
// - Budgets (CheckBudget): a sequence of launches on a [rows, vocab] batch passes a budget when
//   its row passes (RowPasses) and its largest per-block barrier count are within the budget;
//   otherwise the message names the kernel sequence, the counted value and the budget.
// Example: a copy kernel that reads and writes one [1, 4096] row once: 1 row pass, 0
//   barriers; a budget of 1 pass passes it, and the same kernel reading the row twice fails it
//   (tests/gpu_cost_test.cc, "BudgetCatchesASecondReadOfTheRow").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu/cost/kernel_occupancy.h"
#include "gpu/emulator/emulator_counters.h"

namespace sampcheck::gpu {

struct DeviceConstants {
  const char* name = "";
  double hbm_bytes_per_s = 0;  // device memory bandwidth
  double sm_bytes_per_s = 0;   // what one SM's blocks can pull from the memory system
  int sms = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  double launch_s = 0;         // fixed cost of one launch, as the benchmark times it
  double barrier_s = 0;        // one __syncthreads after a pass over memory
  double access_s = 0;         // one access on a thread's serial chain
  // Blocks per SM of each kernel on this device's architecture (gpu/cost/kernel_occupancy.h).
  std::span<const KernelOccupancy> occupancy;
  // NVIDIA H100 SXM5 80GB (the device of bench/README.md "Device"); sources in cost_model.cc.
  static DeviceConstants H100Sxm();
  // NVIDIA H200 (141 GB): fitted to this project's device run (gpu/cost/calibration.h); sources
  // in cost_model.cc.
  static DeviceConstants H200();
};

struct CostEstimate {
  double memory_s = 0;   // global bytes / HBM bandwidth, summed over launches
  double blocks_s = 0;   // waves x block time, summed over launches
  double launch_s = 0;   // fixed launch costs
  double total_s = 0;    // sum over launches of launch + max(memory, waves x block)
};

// Blocks of the launch's kernel resident on one SM (at least 1): the occupancy table's row for
// (launch.kernel, launch.threads), else what the thread and block limits allow.
std::int64_t BlocksPerSm(const LaunchCounters& launch, const DeviceConstants& device);

CostEstimate Estimate(const LaunchCounters& launch, const DeviceConstants& device);
CostEstimate Estimate(const std::vector<LaunchCounters>& launches, const DeviceConstants& device);

// The counters of a launch over `rows` rows from a run over its first `counted` rows (one
// block per row, rows drawn alike; the device benchmark emulates a few rows of large batches):
// blocks and summed counts scaled by rows / counted (rounded to nearest), per-block maxima kept.
LaunchCounters ScaleRows(const LaunchCounters& launch, std::int64_t counted, std::int64_t rows);

// Barriers of one block summed over the launches (each launch's maximum).
std::int64_t BarriersPerRow(const std::vector<LaunchCounters>& launches);

struct CostBudget {
  double max_row_passes = 0;
  std::int64_t max_barriers_per_row = 0;  // BarriersPerRow
};

// Empty when within the budget, else what exceeded it (contract above).
std::string CheckBudget(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab,
                        const CostBudget& budget);

}  // namespace sampcheck::gpu
