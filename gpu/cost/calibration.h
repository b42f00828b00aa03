// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fitting the cost model's device constants (gpu/cost/cost_model.h) to a device run: the
// measured times of the device benchmark (bench/device_sampling_bench.cu) beside the counters of
// the same launches (gpu/cost/sampling_cost.h: CountDeviceBench). docs/gpu.md "Calibrating";
// the tool is bench/calibrate.cc.
//
// Contract:
// - FitCopies: launch_s and hbm_bytes_per_s by least squares of t = launch_s + bytes /
//   hbm_bytes_per_s over the timed copies (bytes read plus written), sm_bytes_per_s = hbm / sms
//   (the model's even share); needs two copies of different sizes, else returns `d` unchanged.
// - FitBlockTerms: barrier_s and access_s, the block terms the counters cannot price, chosen on
//   a grid (0 and the powers of 2^(1/4) from 2^-30 s to 2^-10 s for barrier_s, powers of 2^(1/4)
//   from 2^-34 s to 2^-10 s for access_s) to minimise the mean over the runs of log(measured / Estimate)^2: each run
//   weighs alike whether it lasts 50 us or 5 ms. Ties keep the first grid point (smaller
//   barrier_s, then smaller access_s). No runs: `d` unchanged.
// - LogError: log(measured / Estimate) of one run under `d` (0: the model is exact).
// Example: copies of 1 MB in 6.25 us and 10 MB in 8.5 us give launch_s = 6 us and
//   hbm_bytes_per_s = 4e12 (tests/gpu_cost_test.cc, "CalibrationRecoversPlantedConstants").

#include <span>
#include <string>
#include <vector>

#include "gpu/cost/cost_model.h"

namespace sampcheck::gpu {

struct MeasuredCopy {
  double bytes = 0;    // read plus written
  double seconds = 0;
};

struct MeasuredLaunches {
  std::string label;
  double seconds = 0;
  std::vector<LaunchCounters> launches;
};

DeviceConstants FitCopies(std::span<const MeasuredCopy> copies, DeviceConstants d);
DeviceConstants FitBlockTerms(std::span<const MeasuredLaunches> runs, DeviceConstants d);
double LogError(const MeasuredLaunches& run, const DeviceConstants& d);

}  // namespace sampcheck::gpu
