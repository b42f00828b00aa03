// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a backend declares about one stage beyond running its cases (docs/architecture.md
// "Backends"): the profiles it implements, whether it claims the outputs bit for bit, how it
// draws on its own, and whether its statistical cases are skipped. `Backend::Capabilities`
// returns it; every harness gates on it, never on a backend's name.
//
// One struct, so that a backend that wraps another (fault isolation, sharding) forwards it
// whole with one override: when these were six separate virtuals, a wrapper that forwarded
// five of them gave a sharded run a different report from the single-process one.
// tests/backend_wrapper_test.cc checks that every wrapper forwards every field.
//
// Defaults are those of a backend that declares nothing: every profile, bitwise, no draws of
// its own, statistical cases run.
// Example: StageCapabilities{.profiles = ProfileSet{}.Add(Profile::kCanonical), .claims_bitwise = false}
//   is gpu-fast's `pipeline`: canonical cases only, judged statistically.

#include <cstdint>
#include <iterator>
#include <string>

#include "core/profile.h"

namespace sampcheck {

// A set of profiles, one bit each.
class ProfileSet {
 public:
  constexpr ProfileSet() = default;  // empty
  static constexpr ProfileSet All() {
    ProfileSet s;
    for (Profile p : kAllProfiles) s.Add(p);
    return s;
  }
  constexpr ProfileSet& Add(Profile p) {
    bits_ |= Bit(p);
    return *this;
  }
  constexpr bool Contains(Profile p) const { return (bits_ & Bit(p)) != 0; }
  constexpr bool operator==(const ProfileSet&) const = default;

 private:
  static_assert(std::size(kAllProfiles) <= 32, "ProfileSet holds one bit per profile in 32 bits");
  static constexpr std::uint32_t Bit(Profile p) { return std::uint32_t{1} << static_cast<unsigned>(p); }
  std::uint32_t bits_ = 0;
};

struct StageCapabilities {
  // The profiles whose cases the backend runs; cases of other profiles are skipped with that
  // reason (plugin and exchange backends declare theirs by name; gpu-fast runs canonical only).
  ProfileSet profiles = ProfileSet::All();

  // Whether the backend claims the stage's outputs bit for bit (its catalogue tier: exact or
  // canonical). A backend that claims only to draw from the right law (gpu-fast, docs/gpu.md
  // "gpu-fast": free reduction order, its own Philox draws) says no: golden verify skips the
  // stage's golden cases with that reason, and the statistical harness judges its draws.
  bool claims_bitwise = true;

  // Backend::CountDraws draws the stage with the backend's own randomness
  // (docs/spec/statistics.md).
  bool count_draws = false;

  // CountDraws draws with the reference's own noise (reference/count_draws.h: 24-bit Philox
  // uniforms and its race), so that a target stated for that noise's floor applies (the tail
  // families, docs/spec/harness.md "Tail amplifiers"). Only the reference and the wrong
  // samplers built on it say yes; a backend's own noise has its own floor.
  bool counts_with_reference_noise = false;

  // Backend::CountDrawsRange counts any range of CountDraws' stream, so that the counts of
  // disjoint ranges add up to CountDraws over their union bit for bit (sharded statistics,
  // docs/spec/sharded_statistics.md).
  bool count_draws_range = false;

  // Empty: the stage's statistical cases run. Otherwise the reason they are skipped (e.g. when
  // the stage's replicated batches, up to 10^5 rows of V = 8193, would take hours on it).
  // (`= {}`: a designated initialiser may then leave it out under -Wmissing-field-initializers.)
  std::string statistical_skip_reason = {};

  // Run may be called for this stage from several threads at once (no state shared between
  // calls), so the draw harness may run the batches it draws through Run concurrently
  // (docs/spec/harness.md "Concurrent batches"). Only the reference and the emulated backends
  // say yes; a wrapper whose Run goes through a shared resource (a child process, a device)
  // says no whatever it wraps.
  bool concurrent_runs = false;

  bool operator==(const StageCapabilities&) const = default;
};

}  // namespace sampcheck
