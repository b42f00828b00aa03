// SPDX-License-Identifier: Apache-2.0
#pragma once
// Profiles: which framework's semantics a stage reproduces where the frameworks differ
// (docs/spec/profiles.md). `canonical` is sampcheck's own, fully specified behaviour.
// Each profile names the peer code it follows, file and commit, in docs/spec/profiles.md and
// docs/research/: the versions of docs/peers.md (vLLM 9aaf83ef, SGLang d55f1c28, xgrammar
// 53da3ff8, CANN ops-nn e5c3fa93) are the target; where the code was read at another commit,
// the research notes say which.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sampcheck {

// kTypicalAcceptance: Medusa's typical acceptance for speculative decoding (spec_random only),
// explicitly not distribution preserving (docs/spec/speculative.md).
// kBlockVerification: block verification for speculative decoding (Sun et al. 2024; spec_step
// only, docs/spec/spec_step.md), distribution preserving like token-wise verification.
enum class Profile { kCanonical, kVllm, kSglang, kFlashinfer, kAscendV2, kTypicalAcceptance, kBlockVerification };

inline constexpr Profile kAllProfiles[] = {Profile::kCanonical, Profile::kVllm, Profile::kSglang,
                                           Profile::kFlashinfer, Profile::kAscendV2,
                                           Profile::kTypicalAcceptance, Profile::kBlockVerification};

std::string_view ProfileName(Profile p);
std::optional<Profile> ProfileFromName(std::string_view name);
// Throws InputError "unknown profile 'x'; valid profiles: canonical, vllm, ...".
Profile ParseProfile(std::string_view name);

}  // namespace sampcheck
