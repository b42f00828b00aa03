// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deliberately wrong samplers: backends that wrap the reference and plant one bug each, to
// prove that the harnesses catch each bug class at the sample size they compute
// (docs/spec/harness.md "Proving the harness works").
//
// Contract:
// - Each sampler is a Backend named "wrong:<name>" supporting the reference's stages. Stages
//   it does not break behave exactly as the reference (Run and CountDraws delegate).
// - The bugs (what they change; which case and layer must catch them):
//   top_p_off_by_one        the nucleus keeps one more token (the most probable excluded one)
//                           -> stats/pipeline/top_p_inside_v100/<profile> L1
//   top_k_drops_ties        vllm's top-k keeps exactly k tokens instead of every tie at the
//                           k-th value -> stats/pipeline/top_k_ties_v1023/vllm L2
//   temperature_after_softmax  the temperature divides the probabilities, and renormalising
//                           cancels it (the row is drawn at temperature 1)
//                           -> stats/pipeline/temperature_v50/<profile> L3
//   min_p_wrong_max         min-p's threshold uses the second largest probability as the
//                           maximum -> stats/pipeline/min_p_v100/<profile> L1
//   uniform_16bit           its own exponential race takes uniforms of 16 bits, (w >> 16) 2^-16,
//                           so q = 0 with probability 2^-16 -> stats/exponential_race/amplifier_v2 L2
//   recovered_from_target   a speculative-decoding style draw (draft: uniform over the support;
//                           accept x with probability min(1, p_x / d_x)) that, on rejection,
//                           redraws from p instead of the residual (p - d)+ (planted in
//                           exponential_race's own draws, written before the spec_random stage
//                           reached main; tests/spec_random_statistical_test.cc rejects the same
//                           bug in spec_random itself); and in spec_random (vllm) through Run:
//                           a rejected draft's recovered token raced over p, not the residual
//                           -> stats/exponential_race/peaked_v100 L3 and
//                              stats/spec_random/recovered_v8/vllm L3
//   tie_break_highest_index greedy rows and canonical/sglang top-k ties prefer the highest index
//                           -> stats/pipeline/top_k_ties_v1023/canonical L1 and mixed_v8193 row0 L1
//   spec_residual_from_target  spec_random's recovered token (first rejection) is drawn from
//                           the target row p instead of the residual max(p - q, 0), with the
//                           stage's own noise -> stats/spec_random/small_v4/<profile> L3
//   batch_dependent_seed    the pipeline's seeded rows use seed + (slot in the batch): each
//                           draw still follows the target, but a row's token changes with the
//                           batch -> the reproducibility harness (alpha 0)
//   exponential_noise_scaled the noise stage's Exp(1) samples times 1.05 (both generators)
//                           -> the noise harness (layer "noise"): noise/philox/exponential/ PIT and KS
//   noise_exponential_unclamped, noise_exponential_24bit_zero
//                           the noise stage's philox Exp(1) with an atom at q = +0 outside its range:
//                           -log u of curand_uniform without PyTorch's clamp (u = 1, P = 2^-25), or
//                           -log1p(-u) of a 24-bit u in [0, 1) (u = 0, P = 2^-24); the Gumbel built on
//                           it is +inf there -> noise/philox/exponential/endpoints (layer "noise")
//   logprob_rank_off_by_one, logprobs_before_temperature, finish_min_tokens_ignored,
//   decode_offset_not_advanced, decode_history_not_updated, flashinfer_nan_row_valid,
//   spec_step_unfiltered_draft, spec_step_stop_ignored, bitmask_fill_stale_tail,
//   bitmask_fill_unguided_zero, bitmask_fill_row_stride, bitmask_id_narrowed_i32,
//   bitmask_stop_never_cleared, race_noise_f16, gumbel_noise_f16:
//                           exact-tier faults of the logprobs, finish_rules and decode_steps
//                           stages (and flashinfer_sampling_from_probs, spec_step, and the
//                           token_bitmask_fill, _allowed and _stop_tokens stages, and the
//                           race and Gumbel noise narrowed to f16)
//                           (statistical/wrong_exact_stages.h), layer "golden": a golden
//                           case whose id starts with caught_by must fail bitwise
//   spec_degenerate_row_aborts_batch, spec_nan_target_as_zero, spec_empty_row_pad_lane,
//   spec_inf_residual_token_zero:
//                           spec_random's degenerate rows (statistical/wrong_degenerate_rows.h),
//                           layer "golden" as above
//   vllm_generator_seed_row0, vllm_generator_global_noise, vllm_generator_offset_stuck,
//   tp_rank_keyed_noise, tp_unseeded_rank_uniforms:
//                           seeded draws made with the backend's own noise: vLLM's per-request
//                           generators (seed[0] for every row, the global q for seeded rows beside
//                           an unseeded one, a generator that does not advance across steps) and
//                           tensor-parallel ranks drawing with rank-keyed or unseeded noise
//                           (statistical/wrong_exact_stages.h), layer "harness": a result of
//                           conform's decode_steps_check or tp_consensus_check whose id starts with
//                           caught_by must fail
//   flashinfer_ignores_top_k  flashinfer_sampling_from_probs' joint kernel runs without its
//                           top-k limit (statistical/wrong_exact_stages.h)
//                           -> stats/flashinfer_sampling_from_probs/joint_v16/flashinfer L1
//   flashinfer_top_k_first_as_joint, flashinfer_joint_as_top_k_first,
//   spec_step_vllm_min_p_verified, spec_step_vllm_filtered_draft,
//   spec_step_sglang_reused_coin, spec_step_sglang_unfiltered_acceptance
//                           statistical faults of flashinfer_sampling_from_probs' filter
//                           orders and spec_step's vllm and sglang profiles
//                           (statistical/wrong_exact_stages.h, which names each case and layer)
//   mass_shift_tv0002       a concentrated fault: TV 0.002 moved from the third to the fourth
//                           most probable token of a probs row -> stats/exponential_race/dyadic_v8
//                           L3 (2^-3 -> 2^-4 on that row: w^2 = 9.6e-5, noncentrality 245 at
//                           the CI n of 2.55e6)
//   temperature_x1010, temperature_x1005, temperature_x1002
//                           diffuse faults: every logit and score scaled by t, every
//                           probability raised to t (1.01, 1.005, 1.002), so rows follow
//                           p^t / sum p^t -> the exponent score test (layer L3, test
//                           exponent-score): 1.01 by stats/pipeline/temperature_v50, 1.005 by
//                           stats/exponential_race/peaked_v100 at the CI size, 1.002 by the same
//                           case under --thorough (thorough = true)
//   probs_f16, uniform_open_closed_24bit, uniform_23bit
//                           tail amplifiers (docs/spec/harness.md "Tail amplifiers"): the
//                           probabilities rounded to f16 before the draw (3 2^-27 -> 0)
//                           -> stats/exponential_race/tail_f16_v32 L2 (CI); its own race's
//                           uniform ((w >> 8) + 1) 2^-24 in (0, 1] (u = 1 reaches -log1p(-u) =
//                           +inf, no q = +0) -> stats/exponential_race/tail_floor_v1024 L2 (CI);
//                           (w >> 9) 2^-23, one bit short (q = +0 twice as often) -> the same
//                           case under --thorough, measured by hand (proof_in_ci = false:
//                           1.3e6 draws at V = 1024, about 7 s with the reference's)
//   sglang_hash_uniform_f32 SGLang's seeded Gumbel-max (through Run) with the hash converted to
//                           f32 before the division (u = 1, g = 32 ln2, for h >= 2^32 - 128)
//                           -> stats/multinomial_with_seed/tail_floor_v1024/sglang L2 under
//                           --thorough (measured by hand: 1.8e6 draws of 1024 hashed columns)
//   diffuse_tv0010, diffuse_tv0002
//                           the least favourable diffuse fault for the omnibus test at TV 0.01
//                           and 0.002: probabilities scaled by 1 + 2 tau on the most probable
//                           tokens holding half the mass, 1 - 2 tau on the rest (exactly TV tau
//                           on a dyadic row) -> stats/exponential_race/dyadic_v8 L3 at the CI
//                           size (0.01) and under --thorough (0.002)
//   Sized forms, for measuring the smallest effect a case rejects
//   (statistical/power_search.py): the name, then a decimal size with a '.' or an exponent
//   (so a registered name such as temperature_x1005 never parses as one):
//   temperature_x<t>        every logit and score scaled by t, probabilities raised to t, t in (0, 4]
//   diffuse_tv<tau>         the diffuse_tv fault at TV tau, tau in (0, 0.25]
//   mass_shift_tv<tau>      the mass_shift fault moving tau (all of the third token's mass when
//                           it holds less), tau in (0, 0.5]
//   leak<m>                 the zero entries of a probs row share m times the row's sum (a draw
//                           lands on an excluded token with probability m / (1 + m)), m in (0, 0.5]
//   e.g. temperature_x1.003, diffuse_tv0.005, mass_shift_tv5e-4, leak1e-6. They carry no
//   caught_by: which case rejects them, and from which size on, is what is measured.
// - Deterministic: the same seed gives the same draws.
// Example: MakeWrongSampler("top_p_off_by_one")->Name() == "wrong:top_p_off_by_one".
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case.h"

namespace sampcheck::statistical {

struct WrongSamplerInfo {
  std::string name;
  std::string bug;         // one line
  std::string caught_by;   // the case id prefix (or "reproducibility") that must reject it
  std::string layer;       // L1, L2, L3, "reproducibility", "noise", "golden" or "harness"
  bool thorough = false;   // caught at the --thorough size (CI-sized runs need not see it)
  // false: its proof run (the wrong sampler and the reference at the case's n) takes longer
  // than a CI test may; the rejection is measured by hand and recorded in
  // docs/measurements.md "Tail amplifiers" instead.
  bool proof_in_ci = true;
};

const std::vector<WrongSamplerInfo>& WrongSamplers();

// The size a sized fault (temperature_x<t>, diffuse_tv<tau>, mass_shift_tv<tau>, leak<m>)
// really has on a case (docs/spec/harness.md "Smallest detected effects"): the total
// variation between the exact law of the case's inputs as the fault rewrites them and the
// reference's exact law (statistical/exact_target.h), per row (a greedy row's is 0 unless the
// fault moves its argmax), and the mean over the random rows. On a filtered row the fault
// acts before the filters, so a filter boundary it moves adds to the name's size.
// nullopt: not a sized form, or a stage without an exact target.
// Example: SizedFaultTv("diffuse_tv0.002", dyadic_v8)->mean_tv == 0.002 (to f32 rounding).
struct FaultSize {
  std::vector<double> row_tv;
  std::vector<bool> row_support_moved;  // the fault changes which tokens the row can draw
  double mean_tv = 0.0;
};
std::optional<FaultSize> SizedFaultTv(const std::string& name, const Case& c);
// Throws std::invalid_argument naming the valid samplers for an unknown name.
std::unique_ptr<Backend> MakeWrongSampler(const std::string& name);

}  // namespace sampcheck::statistical
