// SPDX-License-Identifier: Apache-2.0
// CaseList and shared family helpers (golden/case_list.h).
#include "golden/case_list.h"

#include <limits>
#include <stdexcept>
#include <utility>

#include "core/stage_catalogue.h"

namespace sampcheck::golden {

void CaseList::Add(const std::string& stage, const std::string& name, TensorMap inputs,
                   nlohmann::json params, std::vector<Profile> profiles) {
  const StageInfo& info = RequireStage(stage);
  if (profiles.empty()) profiles = info.profiles;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const Profile p = profiles[i];
    RequireStageProfile(info, ProfileName(p));
    Case c;
    c.id = stage + "/" + name + "/" + std::string(ProfileName(p));
    c.stage = stage;
    c.profile = p;
    c.params = params.is_null() ? nlohmann::json::object() : params;
    // The last profile takes the tensors themselves: the huge set's 4 GiB logits are never
    // copied (golden/huge_cases.h).
    if (i + 1 == profiles.size()) {
      c.inputs = std::move(inputs);
    } else {
      c.inputs = inputs;
    }
    cases_.push_back(std::move(c));
  }
}

Tensor I32(Shape shape, const std::vector<std::int32_t>& values) {
  return Tensor::FromValues(DType::kI32, std::move(shape), values);
}

Tensor F32(Shape shape, const std::vector<float>& values) {
  return Tensor::FromValues(DType::kF32, std::move(shape), values);
}

Tensor DyadicRows(std::int64_t n) {
  constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2): exp(-kLn2F) rounds to exactly 0.5
  std::vector<float> values;
  for (std::int64_t i = 0; i < n; ++i) values.insert(values.end(), {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F});
  return Logits(n, 4, values);
}

Tensor Logits(std::int64_t rows, std::int64_t vocab, const std::vector<float>& values) {
  return F32({rows, vocab}, values);
}

Tensor MaskedRows(std::int64_t vocab, DType dtype, bool fully_masked_row) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::int64_t rows = fully_masked_row ? 3 : 2;
  Tensor t(dtype, {rows, vocab});
  for (std::int64_t i = 0; i < rows * vocab; ++i) SetLogit(t, i, -kInf);
  SetLogit(t, 0, 0.5f);
  SetLogit(t, 2 * vocab - 1, -3.0f);
  return t;
}

Tensor NearEqualLogits(std::int64_t rows, std::int64_t vocab, DType dtype) {
  if (vocab > 512) throw std::logic_error("NearEqualLogits: vocab above 512 is not exact in f32");
  Tensor t(dtype, {rows, vocab});
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      // Exact in f32 for vocab <= 2^9: 20 needs 5 integer bits, i 2^-18 at most 18 fraction bits
      // (23 significant bits of 24); every |i 2^-18| < 2^-9 keeps the halves apart.
      const float half = 2 * i < vocab ? 0x1p-9f : -0x1p-9f;
      SetLogit(t, b * vocab + i, 20.0625f + half - static_cast<float>(i) * 0x1p-18f);
    }
  }
  return t;
}

Tensor RandomIds(SplitMix64& rng, std::int64_t rows, std::int64_t width, std::int64_t vocab,
                 const std::vector<std::int64_t>& lengths) {
  Tensor t(DType::kI32, {rows, width});
  auto d = t.data<std::int32_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t j = 0; j < width; ++j) {
      d[static_cast<std::size_t>(b * width + j)] =
          j < lengths[static_cast<std::size_t>(b)]
              ? static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)))
              : -1;
    }
  }
  return t;
}

Tensor I64(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::FromValues<std::int64_t>(DType::kI64, std::move(shape), values);
}

Tensor RandomSeeds(SplitMix64& rng, std::int64_t rows) {
  Tensor t(DType::kI64, {rows});
  for (auto& s : t.data<std::int64_t>()) s = static_cast<std::int64_t>(rng.Next());
  return t;
}

Tensor RandomPositions(SplitMix64& rng, std::int64_t rows) {
  Tensor t(DType::kI64, {rows});
  for (auto& s : t.data<std::int64_t>()) s = static_cast<std::int64_t>(rng.Below(1u << 20));
  return t;
}

}  // namespace sampcheck::golden
