// SPDX-License-Identifier: Apache-2.0
// The cost model (gpu/cost/cost_model.h, docs/gpu.md "Cost model").
#include "gpu/cost/cost_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sampcheck::gpu {

DeviceConstants DeviceConstants::H100Sxm() {
  DeviceConstants d;
  d.name = "H100 SXM5 80GB";
  // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: GPU memory bandwidth 3.35 TB/s.
  d.hbm_bytes_per_s = 3.35e12;
  // NVIDIA H100 Tensor Core GPU Architecture whitepaper: the H100 SXM5 has 132 SMs.
  d.sms = 132;
  // CUDA C++ Programming Guide, "Technical Specifications per Compute Capability", 9.0:
  // 2048 resident threads and 32 resident blocks per SM.
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  // Assumed: an SM's even share of the HBM bandwidth. One SM can pull more when the others
  // are idle, and passes over a row that stays in L2 are faster still; the 2026-11-30 run could
  // not separate it from the accesses (docs/gpu.md "Cost model", "Calibrating").
  d.sm_bytes_per_s = d.hbm_bytes_per_s / d.sms;
  // Measured in this project (bench/README.md "Device", H100 SXM5, 2026-11-24): the timed
  // device-to-device copy of 1 x 128256 f32 took 8.5 us, of which moving its 1.03 MB at
  // 3.35 TB/s is 0.3 us: about 8 us of fixed cost per timed launch as the benchmark times it
  // (CUDA events around the launch). The 64 and 256-row copies (29.9, 95.1 us) fit
  // 8 us + bytes / 3.35 TB/s within 10%.
  d.launch_s = 8e-6;
  // The block terms fitted to the H200 run of 2026-11-30 (DeviceConstants::H200 below): the
  // H200 has the H100's SMs, clocks and L2 (the same GH100 processor, NVIDIA H200 datasheet),
  // so a thread's serial chain, which waits on on-chip latencies, costs the same on both; only
  // the memory differs.
  const DeviceConstants h200 = H200();
  d.barrier_s = h200.barrier_s;
  d.access_s = h200.access_s;
  // The H100 is compute capability 9.0: the sm_90 build's occupancy, checked against the built
  // kernels (tests/kernel_occupancy_check.py).
  d.occupancy = KernelOccupancySm90();
  return d;
}

DeviceConstants DeviceConstants::H200() {
  DeviceConstants d;
  d.name = "H200 141GB";
  // NVIDIA H200 Tensor Core GPU datasheet: the H100's GH100 processor, 132 SMs on the SXM
  // part (nvidia-smi: 132 multiprocessors on the device of bench/README.md "Device"), with
  // 141 GB of HBM3e at 4.8 TB/s.
  d.sms = 132;
  d.max_threads_per_sm = 2048;  // compute capability 9.0, as the H100
  d.max_blocks_per_sm = 32;
  // Fitted by bench/calibrate.cc (gpu/cost/calibration.h) to the device run of 2026-11-30,
  // 23:30 UTC (bench/README.md "Device", NVIDIA H200, CUDA 13.0, sm_90, the kernels of that
  // day's launch bounds): the nine timed copies (1 to 256 rows of 32000 to 151936 f32, read
  // and written) give launch_s = 6.676 us and 4.274 TB/s by least squares, below the
  // datasheet's 4.8 TB/s as a copy is; the 52 timed gpu and gpu-fast runs then give
  // barrier_s = 0 and access_s = 2^-23 s = 0.119 us, about 240 cycles at the 1.98 GHz clock:
  // an L2 round trip, not a register access, because the sampling kernels keep per-thread
  // state in local memory (stack frames of 672 to 2,768 bytes, docs/gpu.md "Occupancy") and a
  // thread's serial chain waits on it. The barriers' own cost is not separable from the
  // chain's in that run (each barrier ends a chain), so the fit charges it all to the
  // accesses. Measured / estimate after the fit: 0.59 to 3.86, log-RMS factor 1.65;
  // docs/gpu.md "Calibrating".
  d.hbm_bytes_per_s = 4.274e12;
  d.sm_bytes_per_s = d.hbm_bytes_per_s / d.sms;
  d.launch_s = 6.676e-6;
  d.barrier_s = 0.0;
  d.access_s = 0x1p-23;  // 2^-23 s
  d.occupancy = KernelOccupancySm90();
  return d;
}

std::int64_t BlocksPerSm(const LaunchCounters& l, const DeviceConstants& d) {
  if (const KernelOccupancy* row = FindKernelOccupancy(d.occupancy, l.kernel, l.threads)) {
    return std::max<std::int64_t>(1, row->blocks_per_sm);
  }
  if (l.threads <= 0) return 1;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(d.max_blocks_per_sm, d.max_threads_per_sm / l.threads));
}

CostEstimate Estimate(const LaunchCounters& l, const DeviceConstants& d) {
  CostEstimate e;
  if (l.blocks <= 0 || l.threads <= 0) return e;
  const std::int64_t per_sm = BlocksPerSm(l, d);
  const std::int64_t resident = std::min<std::int64_t>(l.blocks, static_cast<std::int64_t>(d.sms) * per_sm);
  const std::int64_t waves = (l.blocks + resident - 1) / resident;
  // Blocks resident on one SM at once: the resident blocks spread over the SMs.
  const double blocks_per_sm = std::ceil(static_cast<double>(resident) / d.sms);
  const double bytes = static_cast<double>(l.GlobalLoadBytes() + l.GlobalStoreBytes());
  const double block_bytes = bytes / static_cast<double>(l.blocks);
  const double per_block = d.sm_bytes_per_s / blocks_per_sm;
  const double fixed_s = static_cast<double>(l.max_block_barriers) * d.barrier_s +
                         static_cast<double>(l.critical_path) * d.access_s;
  const double block_s = block_bytes / per_block + fixed_s;
  // The busiest block: the launch lasts at least as long as it does (a row's last block also
  // merges, gpu/block/last_block.cuh), whatever the waves of average blocks.
  const double busiest_s = static_cast<double>(l.max_block_global_bytes) / per_block + fixed_s;
  e.memory_s = bytes / d.hbm_bytes_per_s;
  e.blocks_s = std::max(static_cast<double>(waves) * block_s, busiest_s);
  e.launch_s = d.launch_s;
  e.total_s = d.launch_s + std::max(e.memory_s, e.blocks_s);
  return e;
}

CostEstimate Estimate(const std::vector<LaunchCounters>& launches, const DeviceConstants& d) {
  CostEstimate sum;
  for (const auto& l : launches) {
    const CostEstimate e = Estimate(l, d);
    sum.memory_s += e.memory_s;
    sum.blocks_s += e.blocks_s;
    sum.launch_s += e.launch_s;
    sum.total_s += e.total_s;
  }
  return sum;
}

LaunchCounters ScaleRows(const LaunchCounters& l, std::int64_t counted, std::int64_t rows) {
  LaunchCounters s = l;
  if (counted <= 0 || counted == rows) return s;
  const double f = static_cast<double>(rows) / static_cast<double>(counted);
  auto scale = [f](std::int64_t v) { return static_cast<std::int64_t>(std::llround(static_cast<double>(v) * f)); };
  s.blocks = scale(l.blocks);
  s.barriers = scale(l.barriers);
  s.phases = scale(l.phases);
  s.warp_ops = scale(l.warp_ops);
  s.warp_op_warps = scale(l.warp_op_warps);
  s.fences = scale(l.fences);
  s.atomics = scale(l.atomics);
  for (auto* arrays : {&s.global, &s.shared}) {
    for (auto& a : *arrays) {
      a.elements = a.elements / counted * rows;
      a.loads = scale(a.loads);
      a.stores = scale(a.stores);
      a.load_bytes = scale(a.load_bytes);
      a.store_bytes = scale(a.store_bytes);
    }
  }
  return s;
}

std::int64_t BarriersPerRow(const std::vector<LaunchCounters>& launches) {
  std::int64_t s = 0;
  for (const auto& l : launches) s += l.max_block_barriers;
  return s;
}

std::string CheckBudget(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab,
                        const CostBudget& budget) {
  std::string kernels;
  for (const auto& l : launches) kernels += (kernels.empty() ? "" : " + ") + l.kernel;
  const double passes = RowPasses(launches, rows, vocab);
  const std::int64_t barriers = BarriersPerRow(launches);
  std::ostringstream os;
  if (passes > budget.max_row_passes) {
    os << kernels << " at " << rows << " x " << vocab << ": " << passes << " passes over the row, budget "
       << budget.max_row_passes << "\n";
  }
  if (barriers > budget.max_barriers_per_row) {
    os << kernels << " at " << rows << " x " << vocab << ": " << barriers << " barriers per row, budget "
       << budget.max_barriers_per_row << "\n";
  }
  return os.str();
}

}  // namespace sampcheck::gpu
