// SPDX-License-Identifier: Apache-2.0
// multinomial_with_seed and its token-id variant (reference/seeded_gumbel.h,
// docs/spec/draws.md#multinomial_with_seed).
#include "reference/seeded_gumbel.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>

#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/positive_rows.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// Why skipping is exact. For a column with hash h in bucket k = h >> 20 and probability p with
// binary32 exponent field e, let T[k] >= g(h) for every h of the bucket and U[e] >= log(p) for
// every p of that exponent. Then s = RN(log p + g) <= RN(U[e] + T[k]) because IEEE rounding is
// monotone. When that bound is <= the running maximum, the column cannot become the first
// maximum (equal values at a later column do not win), so its logarithms need not be computed.
// - g is non-decreasing in h in exact arithmetic; the computed GumbelSglangF64 is within a few
//   ulps of it, so T[k] is its value at the bucket's largest h widened by 2^-40 (relative and
//   absolute), far more than those ulps.
// - For p = m 2^E, m in [1, 2): log p < (E + 1) ln 2 by at least ln(2 / m) >= 2^-24 for a
//   binary32 m, which dwarfs the rounding of the product below. Subnormals (field 0) use
//   E = -126, still an upper bound.
constexpr int kBucketBits = 12;

struct Bounds {
  std::array<double, 1u << kBucketBits> gumbel{};
  std::array<double, 256> log_prob{};
};

const Bounds& SkipBounds() {
  static const Bounds bounds = [] {
    Bounds b;
    for (std::uint32_t k = 0; k < b.gumbel.size(); ++k) {
      const std::uint32_t top = ((k + 1u) << (32 - kBucketBits)) - 1u;
      const double g = rng::GumbelSglangFromHashF64(top);
      b.gumbel[k] = g + std::fabs(g) * 0x1p-40 + 0x1p-40;
    }
    for (int e = 0; e < 256; ++e) b.log_prob[e] = static_cast<double>(std::max(e, 1) - 126) * 0x1.62e42fefa39efp-1;
    return b;
  }();
  return bounds;
}

}  // namespace

std::int64_t SeededGumbelColumn(std::span<const float> probs, std::uint64_t seed, std::uint32_t position,
                                std::span<const std::int32_t> columns) {
  const Bounds& bounds = SkipBounds();
  std::int64_t best = -1;
  double best_value = 0.0;
  for (std::size_t j = 0; j < probs.size(); ++j) {
    const float pj = probs[j];
    if (!(pj > 0.0f)) continue;
    const auto column = columns.empty() ? static_cast<std::uint32_t>(j) : static_cast<std::uint32_t>(columns[j]);
    const std::uint32_t h = rng::SglangMurmurKey(seed, position, column);
    if (best >= 0) {
      const double bound = bounds.log_prob[std::bit_cast<std::uint32_t>(pj) >> 23] + bounds.gumbel[h >> (32 - kBucketBits)];
      if (bound <= best_value) continue;
    }
    const double value = math::LogF64Dd(static_cast<double>(pj)) + rng::GumbelSglangFromHashF64(h);
    if (best < 0 || value > best_value) best = static_cast<std::int64_t>(j), best_value = value;
  }
  return best;
}

SeededGumbelArgs ParseSeededGumbel(const Case& c, bool token_id_columns) {
  StageInputs in(c, token_id_columns ? "multinomial_with_seed_token_ids" : "multinomial_with_seed");
  SeededGumbelArgs a;
  a.probs = in.Probabilities();
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  a.seed = &in.Required("seed", DType::kI64, 1);
  a.positions = &in.Required("positions", DType::kI64, 1);
  in.ExpectDim("seed", *a.seed, 0, rows);
  in.ExpectDim("positions", *a.positions, 0, rows);
  a.token_ids = token_id_columns ? &in.Required("token_ids", DType::kI32, 2) : nullptr;
  if (a.token_ids != nullptr) {
    in.ExpectDim("token_ids", *a.token_ids, 0, rows);
    in.ExpectDim("token_ids", *a.token_ids, 1, vocab);
    for (std::int32_t id : a.token_ids->data<std::int32_t>()) {
      if (id < 0) in.Fail("token_ids holds " + std::to_string(id) + "; ids must be >= 0");
    }
  }
  const auto p = a.probs.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t position = a.positions->data<std::int64_t>()[static_cast<std::size_t>(b)];
    if (position < 0 || position > 0xffffffffLL) {
      in.Fail("positions[" + std::to_string(b) + "] = " + std::to_string(position) +
              " must be in [0, 2^32) (SGLang hashes it as u32)");
    }
    ExpectPositiveRow(in, p, vocab, b);
  }
  return a;
}

namespace {

TensorMap Run(const Case& c, bool token_id_columns) {
  const SeededGumbelArgs a = ParseSeededGumbel(c, token_id_columns);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  const auto p = a.probs.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = p.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    const auto position = static_cast<std::uint32_t>(a.positions->data<std::int64_t>()[b]);
    const auto s = std::bit_cast<std::uint64_t>(a.seed->data<std::int64_t>()[b]);
    // >= 0: the parse found a positive probability in the row.
    const std::int64_t j =
        SeededGumbelColumn(row, s, position, a.token_ids != nullptr ? Row(*a.token_ids, b) : std::span<const std::int32_t>{});
    StoreToken(token, b, j);
  }
  return Outputs("token", std::move(token));
}

}  // namespace

TensorMap RunMultinomialWithSeed(const Case& c, Profile /*profile*/) { return Run(c, false); }

TensorMap RunMultinomialWithSeedTokenIds(const Case& c, Profile /*profile*/) { return Run(c, true); }

SAMPCHECK_REFERENCE_STAGE(multinomial_with_seed, RunMultinomialWithSeed);
SAMPCHECK_REFERENCE_STAGE(multinomial_with_seed_token_ids, RunMultinomialWithSeedTokenIds);

}  // namespace sampcheck::reference
