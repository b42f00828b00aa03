// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deliberately wrong samplers: backends that wrap the reference and plant one bug each, to
// prove that the harnesses catch each bug class at the sample size they compute
// (docs/spec/harness.md "Proving the harness works"). Each family of faults lives in its own
// file, harness/wrong/wrong_<family>.cc, which registers its names with
// SAMPCHECK_WRONG_SAMPLER; this header is the registry and the index below.
//
// Contract:
// - Each sampler is a Backend named "wrong:<name>" supporting the reference's stages. Stages
//   it does not break behave exactly as the reference (Run and CountDraws delegate).
// - The faults live one family per file, harness/wrong/wrong_<family>.cc (wrong_pipeline_filters,
//   wrong_tail_amplifiers, wrong_token_bitmask, ...); each file's header says what each of its
//   bugs changes and which case (layer L1, L2 or L3 of the draw harness), golden case (layer
//   "golden"), check ("harness", "reproducibility") or noise case ("noise") must reject it, and
//   WrongSamplers() lists every registered name. `grep -r SAMPCHECK_WRONG_SAMPLER harness/wrong`
//   finds them all.
//   Sized forms, for measuring the smallest effect a case rejects
//   (harness/power_search.py): the name, then a decimal size with a '.' or an exponent
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
#include <functional>
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

// Every registered sampler, by name.
const std::vector<WrongSamplerInfo>& WrongSamplers();

// A planted fault as its family file registers it (one SAMPCHECK_WRONG_SAMPLER per name, at
// the end of harness/wrong/wrong_<family>.cc; the library is linked whole, so a registrar is
// never dropped by the linker). A name registered twice throws std::logic_error at start-up.
// Example (harness/wrong/wrong_pipeline_filters.cc):
//   SAMPCHECK_WRONG_SAMPLER(TopPOffByOne, {{"top_p_off_by_one", "the nucleus keeps one token past
//       the top-p boundary", "stats/pipeline/top_p_inside_v100/", "L1"},
//       [] { return std::make_unique<TopPOffByOne>(); }});
struct WrongSampler {
  WrongSamplerInfo info;
  std::function<std::unique_ptr<Backend>()> make;
};
struct WrongSamplerRegistrar {
  explicit WrongSamplerRegistrar(WrongSampler sampler);
};

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

#define SAMPCHECK_WRONG_SAMPLER(id, ...) \
  static const ::sampcheck::statistical::WrongSamplerRegistrar kSampcheckWrongSampler##id(::sampcheck::statistical::WrongSampler __VA_ARGS__)
