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

// Every registered family's cases, the families in the order of their `position`.
std::vector<StatCase> DrawStatCases();

// A case with its family line and declared TV (CI / --thorough) and targeted ratio; no
// exponent or rank test. Shared by every family list.
StatCase NewStatCase(std::string family, Case input, double mde_tv_ci, double mde_tv_thorough, double targeted_ratio);

// The exponent test's declared effects (docs/spec/harness.md "Families"): every logit scaled
// by 1.005 (a temperature off by 0.5%) must be rejected with power 0.99 by a CI-sized run, by
// 1.002 under --thorough. Declared on the rows where it is affordable: n grows as
// 1 / ((t - 1)^2 v0), v0 the variance of ln p under p, so rows with v0 >= ~0.7 fit the 2e7
// draw limit at 1.002 (flat rows have v0 = 0 and no test).
inline constexpr double kExponentCi = 0.005;
inline constexpr double kExponentThorough = 0.002;
// The diffuse TV of the omnibus L3 on the same cases (docs/spec/harness.md "Diffuse TV"): a
// least-favourable fault spread as |p' - p| / p constant, TV 0.01 for CI and 0.002 for
// --thorough (0.0025 on zeros_v1023, whose support of 818 would need 2.1e7 draws at 0.002).
// The exponent tests already draw 4e5-3e6 (CI) and 2.5e6-1.9e7 (--thorough) there,
// so the smaller TV costs few or no extra draws (n = max over the layers).
inline constexpr double kDiffuseTvCi = 0.01;
inline constexpr double kDiffuseTvThorough = 0.002;
// The rank-cumulative test on the same cases (harness.md "Layers per row"): a monotone tilt of
// any form that moves the cumulative share of the head by 0.005 (CI) / 0.002 (--thorough).
// Distribution-free sizing: 6.3e5 / 3.9e6 draws, within what the other layers draw there
// except at peaked_v100's CI size (4.0e5 from its exponent test).
inline constexpr double kRankCi = 0.005;
inline constexpr double kRankThorough = 0.002;
// The rank-cumulative test of the filter families (min_p_v100, top_p_inside_v100,
// penalties_mask_v100; mixed_v8193 under --thorough only): KS 0.002 for CI and 0.0005 under
// --thorough, the true TV of the least favourable diffuse fault after the filters
// (docs/spec/harness.md "Filter families"). Any test needs at least 3.3e6 / 5.3e7 draws per row
// for power 0.99 against that fault at the sizing level (the Neyman–Pearson test of its one
// split); the rank test, which needs no split, 3.9e6 / 6.3e7.
inline constexpr double kRankFilterCi = 0.002;
inline constexpr double kRankFilterThorough = 0.0005;

// A family's list under construction: each case with its declared effects (the families'
// shared builder).
struct StatCaseList {
  std::vector<StatCase> cases;
  void Add(std::string family, Case c, double ci, double thorough, double ratio);
  // The last case also gets the exponent score test at the declared |t - 1|, the rank-cumulative
  // test at its declared distance, and the diffuse TV (its omnibus L3 and leak check sized at
  // 0.01 / 0.002 instead of the default 0.05 / 0.01).
  void WithExponent(double diffuse_tv_thorough = kDiffuseTvThorough) {
    cases.back().mde_exponent_ci = kExponentCi;
    cases.back().mde_exponent_thorough = kExponentThorough;
    cases.back().mde_rank_ci = kRankCi;
    cases.back().mde_rank_thorough = kRankThorough;
    cases.back().mde_tv_ci = kDiffuseTvCi;
    cases.back().mde_tv_thorough = diffuse_tv_thorough;
  }
  // The last case also gets the rank-cumulative test of the filter families at both sizes
  // (docs/spec/harness.md "Filter families"): a filtered row's least favourable diffuse fault
  // is a two-group tilt whose KS distance equals its TV, so KS 0.002 (CI) / 0.0005 (--thorough)
  // sees any such fault of true TV 0.002 / 0.0005 on every random row. Cost: 3.9e6 / 6.3e7
  // draws per row (each row of the case is drawn n times), the second above the 2e7-draw limit
  // of a case: --thorough raises it (DrawHarnessOptions::max_draws_thorough).
  // mixed_v8193 takes it under --thorough only (at_ci false): its rows of V = 8193 keep 50 to
  // 1302 tokens, and a backend drawing through Run or an emulator pays per kept token (gpu-emulated:
  // about 2 CPU hours for its nine random rows at the CI n); the same filters on V = 100 carry
  // the CI test.
  void WithFilterRank(bool at_ci = true) {
    cases.back().mde_rank_ci = at_ci ? kRankFilterCi : 0.0;
    cases.back().mde_rank_thorough = kRankFilterThorough;
  }
};

// A statistical case family: what one harness/stat_cases/<stem>_stat_cases.cc contributes to
// the draw harness's list. A family registers itself from its own file with
// SAMPCHECK_STAT_FAMILY, as golden families do (golden/case_family.h), so adding one needs no
// edit to a central list.
//
// `position` fixes the family's place in DrawStatCases: the reports list the cases in that
// order and the reproducibility harness takes batch neighbours from it, so the order must not
// depend on the link order. Positions are unique (a duplicate throws std::logic_error from
// DrawStatCases); a new family takes one above the last (900: flashinfer's).
//
// Example (harness/stat_cases/pipeline_stat_cases.cc):
//   SAMPCHECK_STAT_FAMILY(Pipeline, {.position = 600, .cases = PipelineCases});
struct StatFamily {
  int position = 0;
  std::vector<StatCase> (*cases)() = nullptr;
};

// Registers a family at static initialisation (harness/CMakeLists.txt links the library
// whole, so a family's registrar is never dropped by the linker).
struct StatFamilyRegistrar {
  explicit StatFamilyRegistrar(StatFamily family);
};

}  // namespace sampcheck::statistical

#define SAMPCHECK_STAT_FAMILY(id, ...) \
  static const ::sampcheck::statistical::StatFamilyRegistrar kSampcheckStatFamily##id(::sampcheck::statistical::StatFamily __VA_ARGS__)
