// SPDX-License-Identifier: Apache-2.0
#pragma once
// The stage catalogue: every stage sampcheck specifies, with its inputs, outputs, scalar
// parameters, determinism tier, comparison rule, profiles and the spec section that defines
// it (docs/architecture.md "One place per stage"). It is the single source of what a stage
// IS: which input holds its distribution or scores, which inputs are its noise, which output
// is its token, whether it draws, its exact-target kind and the noise law the draw harness
// feeds it. Golden generation, verify, conform, the harnesses and the large-vocabulary family
// ask it instead of comparing stage names. `sampcheck stages` prints it.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/profile.h"

namespace sampcheck {

// kExact: bitwise on every backend. kCanonical: bitwise when the backend follows the
// canonical reduction order and owned math, `ulp(n)` otherwise (`--canonical-rule`).
// (A backend's own randomness is judged statistically through CountDraws, a property of the
// backend rather than of the stage, so there is no "distributional" stage tier.)
enum class Tier { kExact, kCanonical };
std::string_view TierName(Tier t);

// What a tensor is to the layers around the stage.
enum class Role {
  kParameter,     // everything else: top_k, temperature, ids, masks, ...
  kLogits,        // [B, V] logits the stage turns into a distribution
  kProbs,         // [B, V] (or [B, K + 1, V]) non-negative weights: a distribution up to scale
  kScores,        // [B, V] log-domain scores drawn by Gumbel-max
  kNoise,         // noise given as a tensor (q, gumbel, u, bonus_q)
  kSeed,          // counter-based noise: the per-row seed
  kPosition,      // counter-based noise: the per-row position
  kDrafts,        // speculative decoding: draft token ids
  kToken,         // output: the drawn or chosen token id, one per row
};
std::string_view RoleName(Role r);

// The exact law a drawing stage's token follows given its inputs (statistical/exact_target.h).
enum class ExactTargetKind {
  kNone,               // the stage does not draw
  kNormalisedProbs,    // p_i = w_i / sum w (the kProbs input)
  kSoftmaxScores,      // p = softmax(kScores input), -inf never drawn
  kPipeline,           // the pipeline under its profile (greedy rows pinned)
  kSpecFirstToken,     // speculative decoding: the first emitted token (or draft 0's acceptance)
  kAscendSurvivors,    // the Ascend op's survivor list, probabilities from the op itself
  kFlashinferSurvivors,  // FlashInfer's rejection samplers: probs on the kernel's accepted set
};
std::string_view ExactTargetKindName(ExactTargetKind k);

// How the draw harness supplies noise when it draws through Run (docs/spec/harness.md).
enum class HarnessNoise {
  kNone,
  kExponential,   // Exp(1) per token from the harness stream ("q")
  kGumbel,        // Gumbel per token ("gumbel")
  kUniform,       // one U[0, 1) per row ("u")
  kSeedPosition,  // a per-row seed and position 0 ("seed", "positions")
  kSpecDrafts,    // drafts drawn from q plus the verifier's noise (harness/spec_draws.h)
  kUniformRounds,  // V + 1 curand-style U(0, 1] per row ("u" [B, V + 1]): one per rejection round
};

// A drawing stage's roles. `target == kNone` means the stage never draws.
struct DrawInfo {
  ExactTargetKind target = ExactTargetKind::kNone;
  HarnessNoise noise = HarnessNoise::kNone;  // under every profile but those below
  std::vector<std::pair<Profile, HarnessNoise>> noise_by_profile = {};
  bool reference_count_draws = false;  // the reference backend draws it with its own stream

  bool draws() const { return target != ExactTargetKind::kNone; }
  HarnessNoise NoiseFor(Profile p) const;
};

struct TensorSpec {
  std::string name;
  std::string dtypes;  // e.g. "f32|f16|bf16"
  std::string shape;   // e.g. "[B, V]"
  bool optional = false;
  std::string meaning;
  Role role = Role::kParameter;

  // The dtypes `dtypes` lists: "f32|f16|bf16" -> {kF32, kF16, kBF16}.
  // The ranks of `shape`'s alternatives: "[B, V]" -> {2}, "[B, K] | [B, K + 1]" -> {2, 2}, "[]" -> {0}.
  // Both throw std::logic_error on a catalogue string they cannot read (a name that is no
  // dtype, an alternative that is not bracketed): a defect of the catalogue, not of an input.
  std::vector<DType> ListedDTypes() const;
  std::vector<int> ListedRanks() const;
};

struct ParamSpec {
  std::string name;
  std::string type;  // "int", "float", "string"
  std::string default_value;
  std::string meaning;
};

struct StageInfo {
  std::string name;
  std::string summary;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ParamSpec> params;
  Tier tier;
  std::string comparison;  // ComparisonRule text
  std::vector<Profile> profiles;
  std::string spec_section;  // "docs/spec/penalties.md"
  DrawInfo draw = {};

  bool HasProfile(Profile p) const;
  // The input named `name`, or nullptr.
  const TensorSpec* Input(std::string_view name) const;
  // The first input (output) with the role, or nullptr.
  const TensorSpec* InputWithRole(Role r) const;
  const TensorSpec* OutputWithRole(Role r) const;
  // The input holding the [B, V] (speculative: [B, K + 1, V]) distribution, logits or scores,
  // or nullptr when the stage has none.
  const TensorSpec* DistributionInput() const;
};

const std::vector<StageInfo>& StageCatalogue();
// nullptr when unknown.
const StageInfo* FindStage(std::string_view name);
// Throws InputError "unknown stage 'x'; valid stages: ..." when unknown.
const StageInfo& RequireStage(std::string_view name);
// Throws InputError when `profile` is not one of the stage's profiles, listing them; returns
// the parsed profile.
Profile RequireStageProfile(const StageInfo& stage, std::string_view profile);
// Throws InputError when `profile` is not one of the stage's profiles, listing them.
Profile RequireStageProfile(const StageInfo& stage, Profile profile);

// Adds a stage to the catalogue for the lifetime of the object (tests and embedding programs
// that define a stage of their own; the project's stages are listed in stage_catalogue.cc).
// Not thread-safe: register before any other thread reads the catalogue.
class ScopedStageRegistration {
 public:
  explicit ScopedStageRegistration(StageInfo stage);
  ~ScopedStageRegistration();
  ScopedStageRegistration(const ScopedStageRegistration&) = delete;
  ScopedStageRegistration& operator=(const ScopedStageRegistration&) = delete;

 private:
  std::string name_;
};

}  // namespace sampcheck
