// SPDX-License-Identifier: Apache-2.0
#pragma once
// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014; constants from Vigna's reference, prng.di.unimi.it/splitmix64.c): the one
// generator of test and benchmark inputs — golden case families, benchmarks, test sweeps.
// Integer-only, so every platform draws the same bits; not a noise source of any stage (those
// are specified in docs/spec/rng.md). No std:: distributions: their output is
// implementation-defined (docs/contributing.md "Numerics").
// Example: SplitMix64(0).Next() == 0xE220A8397B1DCDAF.

#include <cstdint>

namespace sampcheck {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Integer in [0, n), n >= 1, by remainder: its bias (below n / 2^64) does not matter for
  // test inputs; only determinism does.
  std::uint64_t Below(std::uint64_t n) { return Next() % n; }
  // Integer in [lo, hi], inclusive.
  std::int64_t Between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(Below(static_cast<std::uint64_t>(hi - lo) + 1));
  }

 private:
  std::uint64_t state_;
};

}  // namespace sampcheck
