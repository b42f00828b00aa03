// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only: run one reference stage on hand-written inputs, and read its outputs back as
// plain vectors.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case.h"

namespace sampcheck::testing {

TensorMap RunReference(const std::string& stage, const std::string& profile, TensorMap inputs,
                       nlohmann::json params = nlohmann::json::object());
Tensor F32Tensor(Shape shape, const std::vector<float>& values);
Tensor I32Tensor(Shape shape, const std::vector<std::int32_t>& values);
std::vector<float> Floats(const Tensor& t);
std::vector<std::uint32_t> FloatBits(const Tensor& t);

}  // namespace sampcheck::testing
