// SPDX-License-Identifier: Apache-2.0
// spec_random / flashinfer with ragged drafts: one chain_speculative_sampling call per draft
// count (plugins/flashinfer/flashinfer_request.h SpecCalls; docs/peers/flashinfer.md, mapping
// table; docs/spec/speculative.md "flashinfer"). Host code in the kernels' object library:
// flashinfer_launch.cu calls it, and tests/flashinfer_plugin_test.cc checks it without a device.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugins/flashinfer/flashinfer_request.h"

namespace sampcheck::flashinfer_plugin {
namespace {

// Row b's draft count n: its entries before the first -1 (ParseRequest refused any other
// padding).
std::int64_t DraftCount(const Request& r, std::int64_t b) {
  std::int64_t n = 0;
  while (n < r.drafts && r.draft_ids[static_cast<std::size_t>(b * r.drafts + n)] != -1) ++n;
  return n;
}

// Appends [from, from + count) of `source` to `out`.
template <typename T>
void AppendSpan(const std::vector<T>& source, std::size_t from, std::size_t count, std::vector<T>& out) {
  out.insert(out.end(), source.begin() + static_cast<std::ptrdiff_t>(from), source.begin() + static_cast<std::ptrdiff_t>(from + count));
}

}  // namespace

std::vector<SpecCall> SpecCalls(const Request& r) {
  std::vector<SpecCall> calls;
  for (std::int64_t b = 0; b < r.rows; ++b) {
    const std::int64_t n = DraftCount(r, b);
    auto it = std::find_if(calls.begin(), calls.end(), [n](const SpecCall& c) { return c.drafts == n; });
    if (it == calls.end()) {
      calls.push_back(SpecCall{});
      it = calls.end() - 1;
      it->drafts = n;
    }
    it->rows.push_back(b);
  }
  const auto k = static_cast<std::size_t>(r.drafts);
  const auto v = static_cast<std::size_t>(r.vocab);
  std::uint64_t offset = r.offset;
  for (SpecCall& c : calls) {
    const auto n = static_cast<std::size_t>(c.drafts);
    for (const std::int64_t row : c.rows) {
      const auto b = static_cast<std::size_t>(row);
      AppendSpan(r.draft_ids, b * k, n, c.draft_ids);
      AppendSpan(r.draft_probs, b * k * v, n * v, c.draft_probs);
      AppendSpan(r.values, b * (k + 1) * v, (n + 1) * v, c.target_probs);
    }
    c.offset = offset;
    // get_seed_and_offset(draft_probs.size(0) * (draft_probs.size(1) + 1)): `(increment + 3) // 4 * 4`.
    offset += (static_cast<std::uint64_t>(c.rows.size()) * (n + 1) + 3) / 4 * 4;
  }
  return calls;
}

void ScatterSpecCall(const Request& r, const SpecCall& call, const std::vector<std::int32_t>& emitted,
                     const std::vector<std::int32_t>& emitted_drafts, Result& result) {
  const auto width = static_cast<std::size_t>(r.drafts + 1);
  const auto call_width = static_cast<std::size_t>(call.drafts + 1);
  for (std::size_t i = 0; i < call.rows.size(); ++i) {
    const auto b = static_cast<std::size_t>(call.rows[i]);
    for (std::size_t j = 0; j < width; ++j) {
      result.token[b * width + j] = j < call_width ? emitted[i * call_width + j] : -1;
    }
    result.num_accepted[b] = emitted_drafts[i];
  }
}

}  // namespace sampcheck::flashinfer_plugin
