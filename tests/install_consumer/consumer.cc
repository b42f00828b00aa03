// SPDX-License-Identifier: Apache-2.0
// A consumer of the installed package (tests/install_consumer_test.sh): calls the reference
// from its own code, as a kernel project's C++ test would, and verifies the installed
// golden/v1 greedy cases. Known answer: the worked example of reference/top_k.h (from
// docs/spec/filters.md#top_k): logits {1, 3, 3, 2}, k = 1 keeps {-inf, 3, -inf, -inf} under
// canonical (ties to the lower index) and {-inf, 3, 3, -inf} under vllm (all ties at the k-th
// value stay).
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <sampcheck/backend_abi.h>

#include "core/case.h"
#include "golden/verifier.h"
#include "reference/reference_backend.h"

namespace {

int CheckTopK(const char* profile, const std::vector<float>& expected) {
  sampcheck::Case c;
  c.id = "top_k/consumer/" + std::string(profile);
  c.stage = "top_k";
  c.profile = sampcheck::ParseProfile(profile);
  c.inputs.emplace("logits", sampcheck::Tensor::FromValues<float>(sampcheck::DType::kF32, {1, 4}, {1, 3, 3, 2}));
  c.inputs.emplace("top_k", sampcheck::Tensor::FromValues<std::int32_t>(sampcheck::DType::kI32, {1}, {1}));
  sampcheck::reference::ReferenceBackend backend;
  const auto out = backend.Run("top_k", c);
  const auto got = out.at("logits").data<float>();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (got[i] != expected[i]) {
      std::printf("FAIL top_k %s: element %zu is %a, expected %a\n", profile, i, got[i], expected[i]);
      return 1;
    }
  }
  std::printf("top_k %s: ok\n", profile);
  return 0;
}

}  // namespace

int main() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  int failures = CheckTopK("canonical", {-kInf, 3, -kInf, -kInf}) + CheckTopK("vllm", {-kInf, 3, 3, -kInf});
  sampcheck::reference::ReferenceBackend backend;
  sampcheck::golden::VerifyOptions options;
  options.stages = {"greedy"};
  const auto results = sampcheck::golden::VerifyGoldenSet(CONSUMER_GOLDEN_DIR, backend, options);
  int passed = 0;
  for (const auto& r : results) {
    passed += r.verdict == sampcheck::Verdict::kPass;
    if (r.verdict == sampcheck::Verdict::kFail) {
      std::printf("FAIL %s: %s\n", r.id.c_str(), r.reason.c_str());
      ++failures;
    }
  }
  std::printf("installed golden set %s: %d greedy cases passed\n", CONSUMER_GOLDEN_DIR, passed);
  if (passed == 0) ++failures;
  static_assert(SAMPCHECK_BACKEND_ABI_VERSION >= 1u, "the installed C ABI header is usable");
  return failures == 0 ? 0 : 1;
}
