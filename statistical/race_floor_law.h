// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exact law of the reference's own exponential race, its noise floor included, for one
// strong token against a group of equal weak tokens: the share the tail families' targeted
// test (L2) compares the weak group's draws with (docs/spec/harness.md "Tail amplifiers").
//
// Contract:
// - Noise: the reference's CountDraws noise (docs/spec/harness.md "Reference draws",
//   reference/count_draws.h): per token an independent 32-bit word w, u =
//   UniformClosedOpen24F32(w) = (w >> 8) 2^-24, q = ExponentialNegLog1pNegF32(u) (owned,
//   correctly rounded log1p, so q is non-decreasing in u), ratio RN_f32(prob / q) (q = +0 gives
//   +inf); the winner is the largest ratio, ties to the lower index. The words are modelled as
//   i.i.d. uniform on [0, 2^32) (the assumption of every statistical test here); u then takes
//   each of its 2^24 values k 2^-24 with probability 2^-24 exactly.
// - Row: token 0 of weight `strong`, tokens 1..group of weight `weak` (f32, finite, > 0; the
//   race reads them unnormalised). The weak group wins iff some weak ratio is strictly above the
//   strong one (a tie goes to token 0).
// - Result: P(the weak group wins), exactly up to long double rounding (relative ~1e-17 per
//   term, a few thousand terms at most for the families here). With N(k_s) = #{k : RN(weak /
//   q(k)) > RN(strong / q(k_s))} (the weak cells that beat strong cell k_s; N(0) = 0: strong's
//   +inf is never beaten),
//     P = 2^-24 sum_{k_s} [1 - (1 - N(k_s) 2^-24)^group].
//   RN(weak / q(k)) is non-increasing in k and RN(strong / q(k_s)) in k_s, so N(k_s) >= j iff
//   k_s >= T_j = min{k_s >= 1 : RN(strong / q(k_s)) < RN(weak / q(j - 1))} (binary search over
//   the 2^24 cells); the sum runs over j with T_j < 2^24: j - 1 up to the weak cells with q
//   below about 24 ln2 weak / strong (one for weak / strong = 2^-30, about 1e5 for 4e-4).
// - The floor: the weak tokens' cell k = 0 (q = +0, probability 2^-24 each) wins against every
//   finite strong ratio, so a weak token of weight far below 2^-24 strong still wins with
//   probability close to 2^-24, not weak / (strong + weak).
// - Errors: std::invalid_argument for a weight that is not finite and > 0 or a group < 1.
// Example: strong 1, weak 2^-30, group 1: RN(2^-30 / q(1)) = 2^-6 (q(1) rounds to 2^-24) is
//   below every finite strong ratio (>= 1 / (24 ln2) = 0.060), so only k = 0 wins:
//   P = (1 - 2^-24) 2^-24 (tests/exact_target_test.cc), against 2^-30 for an ideal Exp(1) race.
#include <cstdint>
#include <vector>

namespace sampcheck::statistical {

long double CanonicalRaceGroupShare(float strong, float weak, std::int64_t group);

// The thresholds T_1 = 1 <= T_2 <= ... of the contract, up to the first equal to 2^24: strong
// cell k_s >= 1 is beaten by exactly j weak cells (N(k_s) = j) for T_j <= k_s < T_{j+1}.
std::vector<std::uint32_t> CanonicalRaceThresholds(float strong, float weak);

// SGLang's seeded Gumbel-max (multinomial_with_seed, docs/spec/draws.md) on the same row, its
// hash uniform's floor included: per column an independent 32-bit hash h (modelled i.i.d.
// uniform), g(h) = GumbelSglangFromHashF64(h) (u = h / (2^32 - 1) in binary64, log u clamped to
// [-DBL_MAX, -2^-32]: g in [-709.78, 32 ln2]), score LogF64Dd(f64(p)) + g (one binary64
// addition), the first maximum wins (a tie goes to column 0). The same construction over the
// 2^32 hash cells: g is non-decreasing in h (the owned logarithms are within an ulp of the
// exact ones, far below the 2^-32-relative step of u; the test checks every threshold's
// bracket), weak cells taken from the top h = 2^32 - 1 down, U_j = min{h_s : score_s(h_s) >=
// score_w(2^32 - j)} by binary search, and the strong cell h = 0 (g = -709.78, beaten by every
// weak cell but h = 0) apart.
// Example: weak / strong = 2^-40 (27.7 in log): the top weak cell's 32 ln2 = 22.18 does not
// reach the strong cell h = 1's g = -ln(32 ln2) = -3.10, so only the strong cell h = 0 loses:
// P = 2^-32 (1 - 2^-32 group).
long double SglangSeededGroupShare(float strong, float weak, std::int64_t group);

// The same share for an ideal Exp(1) race: group weak / (strong + group weak).
long double IdealRaceGroupShare(float strong, float weak, std::int64_t group);

}  // namespace sampcheck::statistical
