// SPDX-License-Identifier: Apache-2.0
// Fitting the cost model's device constants to a device run (gpu/cost/calibration.h,
// docs/gpu.md "Calibrating").
#include "gpu/cost/calibration.h"

#include <cmath>
#include <limits>

namespace sampcheck::gpu {

DeviceConstants FitCopies(std::span<const MeasuredCopy> copies, DeviceConstants d) {
  // Ordinary least squares of seconds on bytes: slope 1 / bandwidth, intercept launch_s.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const MeasuredCopy& c : copies) {
    n += 1;
    sx += c.bytes;
    sy += c.seconds;
    sxx += c.bytes * c.bytes;
    sxy += c.bytes * c.seconds;
  }
  const double det = n * sxx - sx * sx;
  if (n < 2 || !(det > 0)) return d;
  const double slope = (n * sxy - sx * sy) / det;
  if (!(slope > 0)) return d;
  d.launch_s = (sy - slope * sx) / n;
  d.hbm_bytes_per_s = 1.0 / slope;
  d.sm_bytes_per_s = d.hbm_bytes_per_s / d.sms;
  return d;
}

double LogError(const MeasuredLaunches& run, const DeviceConstants& d) {
  return std::log(run.seconds / Estimate(run.launches, d).total_s);
}

DeviceConstants FitBlockTerms(std::span<const MeasuredLaunches> runs, DeviceConstants d) {
  if (runs.empty()) return d;
  double best = std::numeric_limits<double>::infinity();
  DeviceConstants fitted = d;
  for (int b = -121; b <= -40; ++b) {      // barrier_s = 0, then 2^(b / 4): 2^-30 .. 2^-10 s
    for (int a = -136; a <= -40; ++a) {    // access_s = 2^(a / 4): 2^-34 .. 2^-10 s
      DeviceConstants trial = d;
      trial.barrier_s = b < -120 ? 0.0 : std::exp2(b / 4.0);
      trial.access_s = std::exp2(a / 4.0);
      double sum = 0;
      for (const MeasuredLaunches& r : runs) {
        const double e = LogError(r, trial);
        sum += e * e;
      }
      if (sum < best) {
        best = sum;
        fitted = trial;
      }
    }
  }
  return fitted;
}

}  // namespace sampcheck::gpu
