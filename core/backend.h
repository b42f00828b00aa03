// SPDX-License-Identifier: Apache-2.0
#pragma once
// The in-process backend interface (DESIGN.md "Backends"): named tensors in, named tensors
// out. A backend declares the stages it supports; `Run` receives a case (inputs, JSON
// parameters, profile) and returns the stage's outputs by name. It reports bad input by
// throwing (InputError or std::invalid_argument); the runner records the message as the
// case's failure reason.

#include <memory>
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
};

}  // namespace sampcheck
