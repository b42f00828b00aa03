// SPDX-License-Identifier: Apache-2.0
// top_p / flashinfer's mask on logits, read off top_p_renorm_probs' output on the host
// (plugins/flashinfer/flashinfer_request.h TopPMaskedLogits; docs/peers/flashinfer.md, mapping
// table). Host code in the kernels' object library: flashinfer_launch.cu calls it, and
// tests/flashinfer_plugin_test.cc checks it without a device.
#include <cstddef>
#include <limits>
#include <vector>

#include "plugins/flashinfer/flashinfer_request.h"

namespace sampcheck::flashinfer_plugin {

// TopPRenormProbKernel (include/flashinfer/sampling.cuh) has two paths. At p >= 1 (`if (p >=
// 1.0f)`) it sums the row and multiplies by the reciprocal with no mask: every token is kept,
// whatever its output (a NaN probability stays NaN, an underflowed one 0). Below 1 it writes
// `probs > low ? probs * normalizer : 0` with low >= 0 and a positive normalizer: a kept token's
// output is > 0, a dropped one's (a NaN probability included) is 0.
std::vector<float> TopPMaskedLogits(const Request& r, const std::vector<float>& renormed) {
  std::vector<float> out = r.values;
  const auto vocab = static_cast<std::size_t>(r.vocab);
  for (std::size_t b = 0; b < static_cast<std::size_t>(r.rows); ++b) {
    if (r.top_p[b] >= 1.0f) continue;  // the fast path: no mask
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) {
      if (!(renormed[i] > 0.0f)) out[i] = -std::numeric_limits<float>::infinity();
    }
  }
  return out;
}

}  // namespace sampcheck::flashinfer_plugin
