// SPDX-License-Identifier: Apache-2.0
// Test-only stage runner (tests/support/stage_runner.h).
#include "tests/support/stage_runner.h"

#include <bit>

#include "reference/reference_backend.h"

namespace sampcheck::testing {

TensorMap RunReference(const std::string& stage, const std::string& profile, TensorMap inputs,
                       nlohmann::json params) {
  Case c;
  c.id = "test/" + stage + "/" + profile;
  c.stage = stage;
  c.profile = ParseProfile(profile);
  c.params = std::move(params);
  c.inputs = std::move(inputs);
  reference::ReferenceBackend backend;
  return backend.Run(stage, c);
}

Tensor F32Tensor(Shape shape, const std::vector<float>& values) {
  return Tensor::FromValues(DType::kF32, std::move(shape), values);
}

Tensor I32Tensor(Shape shape, const std::vector<std::int32_t>& values) {
  return Tensor::FromValues(DType::kI32, std::move(shape), values);
}

std::vector<float> Floats(const Tensor& t) {
  auto d = t.data<float>();
  return {d.begin(), d.end()};
}

std::vector<std::uint32_t> FloatBits(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float v : t.data<float>()) out.push_back(std::bit_cast<std::uint32_t>(v));
  return out;
}

}  // namespace sampcheck::testing
