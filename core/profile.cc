// SPDX-License-Identifier: Apache-2.0
// Profile names (core/profile.h).
#include "core/profile.h"

#include "core/error.h"

namespace sampcheck {

std::string_view ProfileName(Profile p) {
  switch (p) {
    case Profile::kCanonical: return "canonical";
    case Profile::kVllm: return "vllm";
    case Profile::kSglang: return "sglang";
    case Profile::kFlashinfer: return "flashinfer";
    case Profile::kAscendV2: return "ascend_v2";
    case Profile::kTypicalAcceptance: return "typical_acceptance";
    case Profile::kBlockVerification: return "block_verification";
  }
  return "?";
}

std::optional<Profile> ProfileFromName(std::string_view name) {
  for (Profile p : kAllProfiles) {
    if (ProfileName(p) == name) return p;
  }
  return std::nullopt;
}

Profile ParseProfile(std::string_view name) {
  if (auto p = ProfileFromName(name)) return *p;
  std::string valid;
  for (Profile p : kAllProfiles) valid += (valid.empty() ? "" : ", ") + std::string(ProfileName(p));
  throw InputError("unknown profile '" + std::string(name) + "'; valid profiles: " + valid);
}

}  // namespace sampcheck
