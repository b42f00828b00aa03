// SPDX-License-Identifier: Apache-2.0
#pragma once
// A profile's temperature rule as two numbers, shared by the temperature kernel
// (gpu/temperature.cuh) and its host glue (docs/spec/temperature.md).

namespace sampcheck::gpu {

struct TemperatureRule {
  double eps;       // greedy iff double(t) < eps
  double min_temp;  // 0 < t < min_temp is raised to float(min_temp); 0: no raise
};

}  // namespace sampcheck::gpu
