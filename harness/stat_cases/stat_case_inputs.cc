// SPDX-License-Identifier: Apache-2.0
// Input rows the statistical case families share (harness/stat_cases/stat_case_inputs.h).
#include "harness/stat_cases/stat_case_inputs.h"

#include <cstdint>
#include <limits>

#include "core/half.h"
#include "core/profile.h"

namespace sampcheck::statistical {

Case ProbsCase(const std::string& id, const std::string& stage, const std::string& input, std::vector<float> row) {
  Case c{id, stage, Profile::kCanonical, nlohmann::json::object(), {}};
  const auto v = static_cast<std::int64_t>(row.size());
  c.inputs.emplace(input, Tensor::FromValues(DType::kF32, {1, v}, row));
  return c;
}

void ToHalf(Case& c, const std::string& name, DType dtype) {
  const Tensor& f = c.inputs.at(name);
  Tensor h(dtype, f.shape());
  const auto src = f.data<float>();
  auto dst = h.data<std::uint16_t>();
  for (std::size_t i = 0; i < src.size(); ++i) dst[i] = dtype == DType::kF16 ? F32ToF16Bits(src[i]) : F32ToBF16Bits(src[i]);
  c.inputs.insert_or_assign(name, std::move(h));
}

std::vector<float> MaskedRow33() {
  std::vector<float> s(33, -std::numeric_limits<float>::infinity());
  s[0] = 0.0f;
  s[7] = -0.5f;
  s[20] = -1.0f;
  s[32] = -1.5f;
  return s;
}

std::vector<float> Linear(int v, float slope) {
  std::vector<float> l(static_cast<std::size_t>(v));
  for (int i = 0; i < v; ++i) l[static_cast<std::size_t>(i)] = -slope * static_cast<float>(i);
  return l;
}

}  // namespace sampcheck::statistical
