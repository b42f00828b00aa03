// SPDX-License-Identifier: Apache-2.0
// Reproducibility of stochastic stages (harness/reproducibility.h).
#include "harness/reproducibility.h"

#include <algorithm>
#include <cstring>

#include "core/exception_text.h"
#include "harness/batch_invariance.h"
#include "harness/check_result.h"
#include "harness/draw_harness.h"

namespace sampcheck::harness {

std::vector<CaseResult> RunReproducibilityHarness(Backend& backend,
                                                          const std::vector<statistical::StatCase>& cases,
                                                          std::uint64_t seed_epoch) {
  const auto supported = backend.SupportedStages();
  std::vector<Case> noisy;
  std::vector<const statistical::StatCase*> sources;
  for (const auto& s : cases) {
    if (std::find(supported.begin(), supported.end(), s.input.stage) == supported.end()) continue;
    if (!backend.Capabilities(s.input.stage).profiles.Contains(s.input.profile)) continue;
    noisy.push_back(statistical::DrawNoiseCase(s.input, kReproducibilityReplicas, statistical::CaseSeed(s.id, seed_epoch)));
    sources.push_back(&s);
  }
  std::vector<const Case*> all;
  for (const auto& c : noisy) all.push_back(&c);

  std::vector<InvarianceOptions> options(noisy.size());
  for (std::size_t k = 0; k < noisy.size(); ++k) options[k].seed = statistical::CaseSeed(sources[k]->id + "/reproducibility", seed_epoch);
  const std::vector<InvarianceResult> checks = CheckBatchInvarianceTogether(backend, all, all, options);

  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < noisy.size(); ++k) {
    const statistical::StatCase& s = *sources[k];
    const std::string id = s.id + "/reproducibility";
    std::string failure;
    try {
      const InvarianceResult& inv = checks[k];
      const bool failed = !inv.checked || !inv.passed;
      if (failed) failure = inv.reason;
      if (!failed && backend.Capabilities(s.input.stage).count_draws) {
        const std::uint64_t seed = statistical::CaseSeed(s.id, seed_epoch);
        const Tensor a = backend.CountDraws(s.input.stage, s.input, kReproducibilityDraws, seed);
        const Tensor b = backend.CountDraws(s.input.stage, s.input, kReproducibilityDraws, seed);
        if (a.shape() != b.shape() || a.nbytes() != b.nbytes() ||
            std::memcmp(a.bytes().data(), b.bytes().data(), a.nbytes()) != 0) {
          failure = "CountDraws with the same seed returned different counts on two runs";
        }
      }
    } catch (const std::exception& e) {
      failure = ExceptionText(e);
    }
    results.push_back(ExactCheckResult(id, s.input.stage, std::string(ProfileName(s.input.profile)), std::move(failure)));
  }
  return results;
}

}  // namespace sampcheck::harness
