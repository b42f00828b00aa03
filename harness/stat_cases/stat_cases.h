// SPDX-License-Identifier: Apache-2.0
#pragma once
// The statistical case families of the draw harness: stochastic cases chosen to expose
// boundary bugs, each with its declared minimum detectable effects (docs/spec/harness.md
// "Families").
//
// Contract:
// - Every case holds a stage's inputs WITHOUT noise (the harness supplies the randomness), an
//   id "stats/<stage>/<family>/<profile>" unique in the list, and its MDEs:
//     mde_tv_ci / mde_tv_thorough: total variation of the omnibus (L3) alternative — and the
//       leak of mass onto excluded tokens the structural check (L1) must catch — for the CI
//       run and for --thorough;
//     targeted_ratio: the L2 alternative moves the boundary mass p0 of each random row to
//       targeted_ratio * p0 (0: the boundary tokens are dropped; 16: a 2^-16 floor lifts a
//       2^-20 token); targeted_ratio_thorough, when set, replaces it under --thorough (the
//       amplifier row: 16x for CI, 4x, an 18-bit floor, for --thorough), so that a case whose
//       n comes from L2 alone still grows with its declared --thorough effect. The boundary
//       tokens are fixed by the exact target before sampling: the non-ambiguous support
//       tokens of smallest probability (ties included). A row whose boundary mass is above
//       1/2 has no L2 test, nor a case with targeted_ratio < 0
//       (kNoTargetedTest: families without a boundary, where dropping the least likely token
//       is no bug class and would only inflate n).
// - Families: dyadic and peaked rows, flat rows, an amplifier row (one token of weight 2^-20
//   beside a token of weight 1), top-p boundaries inside a token's mass and on a dyadic
//   cumulative sum, ties at the k-th value, min-p, temperature, mixed greedy and random rows;
//   tail amplifiers (a group of weak tokens whose share a half-precision probability or the
//   uniform's floor moves);
//   vocab sizes 2, 8, 32, 50, 100, 1023, 1024 and 8193 (mostly not multiples of common tile widths, some
//   smaller than a tile). Pipeline families run under canonical, vllm and sglang.
// - Deterministic: the inputs are fixed numbers (no randomness).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck::statistical {

inline constexpr double kNoTargetedTest = -1.0;

enum class FloorTarget { kNone, kCanonicalRace, kSglangSeeded };

struct StatCase {
  std::string id;
  std::string family;  // one line: what the family exposes
  Case input;
  double mde_tv_ci = 0.05;
  double mde_tv_thorough = 0.01;
  double targeted_ratio = 0.0;
  std::optional<double> targeted_ratio_thorough;
  // The smooth alternative of the exponent test (docs/spec/harness.md "Layers per row"): the
  // law p_i(t) proportional to p_i^t (every logit scaled by t, a temperature off by a factor
  // 1/t), declared as |t - 1| for CI and --thorough; 0: no exponent test.
  double mde_exponent_ci = 0.0;
  double mde_exponent_thorough = 0.0;
  // The monotone tilt of the rank-cumulative test: a KS distance, the largest change of the
  // cumulative share of the most probable tokens, for CI and --thorough; 0: no rank test.
  double mde_rank_ci = 0.0;
  double mde_rank_thorough = 0.0;
  // Tail amplifiers (docs/spec/harness.md "Tail amplifiers"): the L2 null share is the exact
  // law of a stated noise with its floor (statistical/race_floor_law.h), not the boundary
  // tokens' share of p. Only for one-row cases of one strong token (id 0) and a group of equal
  // weak tokens, whose share the floor dominates; no L3, exponent or rank test (their target is
  // p). kCanonicalRace: the reference's own race noise; the case runs only where the backend
  // draws with its own randomness (CountDraws): driven through Run, the harness's noise would
  // set the floor. kSglangSeeded: SGLang's seeded Gumbel-max, whose noise the backend computes
  // from the (seed, position, column) key; the case is always drawn through Run with the
  // harness's seeds, even where the backend has CountDraws (the reference's own draws are the
  // canonical race).
  FloorTarget floor_target = FloorTarget::kNone;
};

std::vector<StatCase> DrawStatCases();

// A case with its family line and declared TV (CI / --thorough) and targeted ratio; no
// exponent or rank test. Shared by every family list (stat_cases.cc, spec_stat_cases.cc).
StatCase NewStatCase(std::string family, Case input, double mde_tv_ci, double mde_tv_thorough, double targeted_ratio);

}  // namespace sampcheck::statistical
