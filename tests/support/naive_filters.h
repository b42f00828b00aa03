// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only: the filter rules of docs/spec/filters.md written the naive way — a full stable
// sort of the row, then each rule evaluated literally at every position — as the oracle the
// selection-based reference (reference/top_k.cc, top_p.cc) must equal bit for bit.

#include <cstdint>
#include <span>
#include <vector>

#include "core/profile.h"

namespace sampcheck::testing {

// Full canonical order by std::stable_sort: value descending (-0.0 == +0.0), index ascending.
std::vector<std::int32_t> NaiveOrder(std::span<const float> row);
void NaiveTopK(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max = 1024);
void NaiveTopP(Profile profile, std::span<float> row, float p);

}  // namespace sampcheck::testing
