// SPDX-License-Identifier: Apache-2.0
// Deterministic case randomness (golden/case_random.h).
#include "golden/case_random.h"

#include <stdexcept>

#include "core/half.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

std::uint64_t CaseSeed(std::uint64_t set_seed, std::string_view case_id) {
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a 64-bit offset basis
  for (char ch : case_id) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001B3ull;  // FNV prime
  }
  SplitMix64 mix(h ^ set_seed);
  return mix.Next();
}

void SetLogit(Tensor& t, std::int64_t i, float value) {
  const auto k = static_cast<std::size_t>(i);
  switch (t.dtype()) {
    case DType::kF32: t.data<float>()[k] = value; return;
    case DType::kF16: t.data<std::uint16_t>()[k] = F32ToF16Bits(value); return;
    case DType::kBF16: t.data<std::uint16_t>()[k] = F32ToBF16Bits(value); return;
    default: throw std::logic_error("SetLogit: not a floating tensor");
  }
}

float GetLogit(const Tensor& t, std::int64_t i) {
  const auto k = static_cast<std::size_t>(i);
  switch (t.dtype()) {
    case DType::kF32: return t.data<float>()[k];
    case DType::kF16: return F16BitsToF32(t.data<std::uint16_t>()[k]);
    case DType::kBF16: return BF16BitsToF32(t.data<std::uint16_t>()[k]);
    default: throw std::logic_error("GetLogit: not a floating tensor");
  }
}

Tensor RandomLogits(SplitMix64& rng, std::int64_t rows, std::int64_t vocab, DType dtype) {
  Tensor t(dtype, {rows, vocab});
  for (std::int64_t i = 0; i < rows * vocab; ++i) {
    // k / 256 with |k| <= 4096 is exact in f32 (13 significant bits); the division by a power
    // of two is exact.
    const auto k = static_cast<float>(rng.Between(-4096, 4096));
    SetLogit(t, i, k / 256.0f);
  }
  return t;
}

float OpenUniform(SplitMix64& rng) { return (static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f; }

Tensor ExpNoise(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor t(DType::kF32, {rows, vocab});
  for (float& v : t.data<float>()) v = sampcheck::rng::ExponentialNegLogF32(OpenUniform(rng));
  return t;
}

Tensor Uniforms64(SplitMix64& rng, std::int64_t rows, std::int64_t k) {
  Tensor t(DType::kF64, {rows, k});
  for (double& v : t.data<double>()) v = static_cast<double>(rng.Next() >> 11) * 0x1p-53;
  return t;
}

Tensor RandomWords(SplitMix64& rng, std::int64_t rows, std::int64_t words) {
  Tensor t(DType::kI32, {rows, words});
  for (auto& w : t.data<std::int32_t>()) w = static_cast<std::int32_t>(rng.Next() >> 32);
  return t;
}

}  // namespace sampcheck::golden
