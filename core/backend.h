// SPDX-License-Identifier: Apache-2.0
#pragma once
// The in-process backend interface (DESIGN.md "Backends"): named tensors in, named tensors
// out. A backend declares the stages it supports; `Run` receives a case (inputs, JSON
// parameters, profile) and returns the stage's outputs by name. It reports bad input by
// throwing (InputError or std::invalid_argument); the runner records the message as the
// case's failure reason.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  virtual std::vector<std::string> SupportedStages() const = 0;
  virtual TensorMap Run(const std::string& stage, const Case& c) = 0;

  // Distributional tier (docs/spec/statistics.md): draw `draws` tokens per row of a stochastic
  // case with the backend's OWN randomness, seeded by `seed`, and return the counts as an i64
  // tensor [rows, V] whose rows each sum to `draws`. The case's noise inputs, if any, are
  // absent: supplying them is the other way to test a draw (noise as input, through Run).
  // Backends that cannot draw on their own keep the defaults.
  virtual bool SupportsCountDraws(const std::string& /*stage*/) const { return false; }
  virtual Tensor CountDraws(const std::string& stage, const Case& /*c*/, std::int64_t /*draws*/,
                            std::uint64_t /*seed*/) {
    throw std::invalid_argument("backend '" + Name() + "' cannot draw stage '" + stage + "' with its own randomness");
  }
};

}  // namespace sampcheck
