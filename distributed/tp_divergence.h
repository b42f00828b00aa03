// SPDX-License-Identifier: Apache-2.0
#pragma once
// The tensor-parallel divergence model (docs/spec/tp_consensus.md "Divergence model"): R ranks
// each sample one row of logits that differs from the others by floating-point noise, then
// agree on one id by tp_consensus. It measures, per case, (a) how often the ranks disagree
// before consensus, (b) the law of the agreed id against the target law softmax(logits), as a
// total-variation effect size with an interval (the bias MIN introduces), and (c) that every
// rank holds the same id after consensus. Used in one process (SimulateDivergence: every rank
// in turn) and by the MPI driver (distributed/mpi_tp_command.cc: one rank per process).
//
// Contract:
// - Rank r's draw d of a case with seed s: logits x_i moved by k ulps in the ordered float
//   representation, k = (w mod (2m + 1)) - m with m = max_ulps and
//     w = Philox4x32_10({i / 4, d, r, 0x7e57}, {s lo, s hi})[i % 4]   (perturbation)
//   then the gumbel_max stage (argmax of score + noise, ties to the lower index) with noise
//     g_i = GumbelNegLogNegLogF32(((w' >> 9) + 1/2) 2^-23) (u in [2^-24, 1 - 2^-24], exact),
//     w' = Philox4x32_10({i / 4, d, n, 0x6e01}, {s lo, s hi})[i % 4],
//   n = 0 for every rank when noise is shared (SGLang's seeded sampling, vLLM's shared seed),
//   n = r when each rank draws its own noise. The draw runs on a Backend (reference, plugin,
//   exec) through Backend::Run("gumbel_max", ...) with D draws as D rows.
// - Target law: p = softmax(x) in binary64 on the owned exp. Exact consensus law where one is
//   known: independent noise and MIN: P(min = k) = S(k)^R - S(k + 1)^R with S(k) = sum_{j>=k}
//   p_j (the minimum of R independent draws; the perturbation moves p by < 2^-20 relative at
//   the model's m, far below the resolution of the run); rank 0's id (vllm): p. Shared noise
//   has no closed form: its bias is measured only.
// - Verdict: fail iff some rank holds a different id after consensus, or a case with an exact
//   law rejects it (Cressie-Read goodness of fit, alpha 1e-4). The bias is reported, never a
//   failure: MIN's preference for low ids is SGLang's documented behaviour.
// Example: 4 ranks, independent noise, MIN: disagreement near 1 - sum p_k^4 and a TV to p
// equal to TV(P(min), p) within the interval.
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/profile.h"
#include "core/case_result.h"

namespace sampcheck::distributed {

inline constexpr std::uint32_t kPerturbTag = 0x7e57;
inline constexpr std::uint32_t kRankNoiseTag = 0x6e01;
inline constexpr double kDivergenceAlpha = 1e-4;

struct DivergenceCase {
  std::string name;        // "shared_noise_4ulp", ...
  Profile profile;         // kSglang (MIN) or kVllm (rank 0)
  std::vector<float> logits;
  std::int32_t max_ulps = 0;
  bool shared_noise = true;
  std::string Id(std::int64_t ranks) const;  // "tp_divergence/<name>/r<R>/<profile>"
};

// The standard cases (the same for every rank count).
std::vector<DivergenceCase> DivergenceCases();

std::uint64_t DivergenceSeed(const DivergenceCase& c, std::int64_t ranks, std::uint64_t epoch);

// The uniform of the rank noise: ((word >> 9) + 1/2) 2^-23, exact, in [2^-24, 1 - 2^-24]
// (word 0 gives 2^-24, word 0xffffffff gives 1 - 2^-24).
float RankNoiseUniform(std::uint32_t word);

// Rank `rank`'s draws [first, first + draws) as a gumbel_max case (profile canonical).
Case RankDrawCase(const DivergenceCase& c, std::uint64_t seed, std::int64_t rank, std::int64_t first, std::int64_t draws);
// ... run on `backend`; throws InputError naming the backend when the output is not i64
// "token" [draws] with ids in [0, V).
std::vector<std::int64_t> RankDraws(Backend& backend, const DivergenceCase& c, std::uint64_t seed, std::int64_t rank,
                                    std::int64_t first, std::int64_t draws);

std::vector<double> TargetLaw(const DivergenceCase& c);
// Empty when the case has no closed-form consensus law.
std::vector<double> ConsensusLaw(const DivergenceCase& c, std::int64_t ranks);

// What a run observed.
struct DivergenceTally {
  std::int64_t ranks = 0;
  std::int64_t draws = 0;
  std::int64_t disagreements = 0;     // draws in which not every rank held the same id
  std::int64_t post_mismatches = 0;   // draws in which ranks held different ids after consensus
  std::vector<std::int64_t> counts;   // [V] agreed ids
};

CaseResult DivergenceResult(const DivergenceCase& c, const DivergenceTally& t, std::uint64_t seed);

// Every rank in this process in turn; consensus by the reference tp_consensus stage.
DivergenceTally SimulateDivergence(Backend& backend, const DivergenceCase& c, std::int64_t ranks, std::int64_t draws,
                                   std::uint64_t seed);

}  // namespace sampcheck::distributed
