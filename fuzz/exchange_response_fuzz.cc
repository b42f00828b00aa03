// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: an exec backend's response (backends/exchange_response.h,
// docs/spec/exchange.md "run") to a fixed greedy case (in.logits f32 [2, 3]), both as a
// run response and as a count-draws response (draws 10). The first input byte picks which.
// Oracle: ParseExchangeResponse never throws; an accepted run response has out.token i64 [2]
// only, an accepted draw response counts i64 [2, 3] with rows summing to 10; anything else
// (a crash, a sanitizer report, a broken promise) is a finding (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "backends/exchange_response.h"
#include "core/tensor.h"

namespace {

const sampcheck::Case& GreedyCase() {
  static const sampcheck::Case c = [] {
    sampcheck::Case k;
    k.id = "greedy/fuzz/canonical";
    k.stage = "greedy";
    k.profile = sampcheck::Profile::kCanonical;
    k.inputs.emplace("logits", sampcheck::Tensor(sampcheck::DType::kF32, {2, 3}));
    return k;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck;
  if (size < 1) return 0;
  const std::int64_t draws = (data[0] & 1) ? 10 : 0;
  const auto bytes = std::as_bytes(std::span(data + 1, size - 1));
  const Backend::CaseOutcome o = backends::ParseExchangeResponse(bytes, "0000.safetensors", GreedyCase(), draws);
  if (!o.error.empty()) return 0;
  if (draws > 0) {
    const auto it = o.outputs.find("counts");
    if (o.outputs.size() != 1 || it == o.outputs.end() || it->second.dtype() != DType::kI64 ||
        it->second.shape() != Shape{2, 3}) {
      std::abort();
    }
    const auto v = it->second.data<std::int64_t>();
    if (v[0] + v[1] + v[2] != 10 || v[3] + v[4] + v[5] != 10) std::abort();
  } else {
    for (const auto& [name, t] : o.outputs) {
      if (name != "token" || t.shape() != Shape{2}) std::abort();
    }
  }
  return 0;
}
