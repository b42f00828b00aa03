// SPDX-License-Identifier: Apache-2.0
#pragma once
// Philox4x32-R (Random123) and cuRAND's Philox4_32_10 stream (curand_init / curand / curand4 /
// skipahead), bit-exact, plus sampcheck's mapping of (seed, request, step, token, draw) to
// Philox key and counter.
//
// Contract (docs/spec/rng.md, "Philox4x32-R" and "cuRAND stream semantics"):
// - Philox4x32<R>(ctr, key), R in [1, 16] (Random123 philox.h allows up to 16 rounds; its
//   published known answers cover R = 7 and R = 10; R = 10 is the default everywhere).
//   One round (Random123 include/Random123/philox.h, _philox4x32round; identical to cuRAND's
//   curand_philox4x32_x.h _philox4x32round):
//     (hi0, lo0) = 0xD2511F53 * ctr[0]   (full 64-bit product, high and low 32 bits)
//     (hi1, lo1) = 0xCD9E8D57 * ctr[2]
//     ctr' = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0}
//   Between rounds (not after the last) the key is bumped modulo 2^32:
//     key[0] += 0x9E3779B9 (golden ratio), key[1] += 0xBB67AE85 (sqrt(3) - 1).
//   Word order: ctr[0] is Random123's c.v[0] and cuRAND's uint4 .x; the known-answer file
//   (tests/rng_known_answers.txt) lists words in this order.
// - cuRAND stream (CUDA curand_kernel.h / curand_philox4x32_x.h, curandStatePhilox4_32_10):
//     curand_init(seed, subsequence, offset):
//       ctr = {0, 0, 0, 0}; key = {seed & 0xffffffff, seed >> 32}; STATE = 0;
//       skipahead_sequence(subsequence): 64-bit add of subsequence into (ctr[2], ctr[3])
//         (carry out of ctr[3] is lost), output = Philox4x32_10(ctr, key);
//       skipahead(offset): STATE += offset & 3; n = offset / 4; if STATE > 3 { n += 1;
//         STATE -= 4 }; add n into the 128-bit counter (ctr[0] lowest; see CurandPhiloxIncr
//         for cuRAND's carry quirk above 2^64 - 2^32); output = Philox4x32_10(ctr, key).
//     So after curand_init (any offset: offset / 4 < 2^62), word number
//     `offset + i` of subsequence s is  Philox4x32_10({b_lo, b_hi, s_lo, s_hi}, key)[j]
//     with b = (offset + i) / 4 and j = (offset + i) % 4, i.e. each subsequence is a stream
//     of 2^64 blocks of 4 words, read in the order .x .y .z .w, block after block.
//     curand(): returns output[STATE], STATE += 1; when STATE reaches 4 the counter is
//       incremented by one (128-bit) and output recomputed, STATE = 0.
//     curand4(): returns the next four words of the stream (output[STATE..3] followed by
//       output'[0..STATE-1] of the next block) and advances the counter by one block; STATE
//       is unchanged. It consumes exactly four words, like four curand() calls.
//   CurandPhiloxState mirrors the members that determine the output (ctr, output, key,
//   STATE); the Box-Muller members of curandStatePhilox4_32_10 are omitted.
// - sampcheck's canonical mapping (a stage that draws from Philox names its `draw` indices in
//   its own spec). Noise is keyed by position, never by thread or batch slot:
//     key     = {seed & 0xffffffff, seed >> 32}              (the request's sampling seed)
//     counter = {token, draw / 4, step, request}
//     word    = Philox4x32_10(counter, key)[draw % 4]
//   request: a stable request id (not the batch row); step: the position of the generated
//   token in its sequence (decode step); token: the vocabulary id (or the documented column)
//   the word belongs to; draw: index of the word among those the stage consumes for that
//   (request, step, token). Equivalently, as a cuRAND stream (tested):
//     curand_init(seed, subsequence = request << 32 | step,
//                 offset = 4 * ((draw / 4) << 32 | token) + draw % 4); curand().
//   Profiles that reproduce a peer use the peer's mapping instead, e.g. FlashInfer's
//   chain_speculative_sampling: curand_init(seed, subsequence = batch row, offset =
//   framework-supplied philox offset) (docs/peers.md); that mapping depends on the batch slot.
// - Exact tier: integer only. No exceptions, allocation or I/O; host and device.
// Example (tests/rng_test.cc, Philox.HeaderExample): Philox4x32<10>({0, 0, 0, 0}, {0, 0}) is
// {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8} (Random123 kat_vectors), and
// CurandPhiloxInit(0, 0, 2) then CurandPhiloxNext returns 0xbc57ac4c, word 2 of that block.

#include <cstdint>

#include "core/portability.h"

namespace sampcheck::rng {

struct Philox4x32Block {
  std::uint32_t v[4];  // v[0] = cuRAND .x ... v[3] = .w
};
struct Philox4x32Key {
  std::uint32_t v[2];  // v[0] = cuRAND key.x (seed low), v[1] = key.y (seed high)
};
static_assert(sizeof(Philox4x32Block) == 16 && alignof(Philox4x32Block) == 4,
              "a Philox4x32 block is four packed u32 words, layout-compatible with uint4");
static_assert(sizeof(Philox4x32Key) == 8, "a Philox4x32 key is two packed u32 words");

namespace detail {

inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u;  // Random123 PHILOX_M4x32_0
inline constexpr std::uint32_t kPhiloxM1 = 0xCD9E8D57u;  // Random123 PHILOX_M4x32_1
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u;  // PHILOX_W32_0: 2^32 / golden ratio
inline constexpr std::uint32_t kPhiloxW1 = 0xBB67AE85u;  // PHILOX_W32_1: 2^32 (sqrt(3) - 1)

SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block PhiloxRound(Philox4x32Block c,
                                                            Philox4x32Key k) {
  const std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxM0) * c.v[0];
  const std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxM1) * c.v[2];
  const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32);
  const std::uint32_t lo0 = static_cast<std::uint32_t>(p0);
  const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32);
  const std::uint32_t lo1 = static_cast<std::uint32_t>(p1);
  return {{hi1 ^ c.v[1] ^ k.v[0], lo1, hi0 ^ c.v[3] ^ k.v[1], lo0}};
}

}  // namespace detail

// Philox4x32 with `Rounds` rounds (Random123 philox4x32_R).
template <int Rounds = 10>
SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block Philox4x32(Philox4x32Block ctr,
                                                           Philox4x32Key key) {
  static_assert(Rounds >= 1 && Rounds <= 16, "Random123 defines Philox4x32 for 1..16 rounds");
  for (int r = 0; r < Rounds; ++r) {
    if (r > 0) {
      key.v[0] += detail::kPhiloxW0;
      key.v[1] += detail::kPhiloxW1;
    }
    ctr = detail::PhiloxRound(ctr, key);
  }
  return ctr;
}

SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block Philox4x32_10(Philox4x32Block ctr,
                                                              Philox4x32Key key) {
  return Philox4x32<10>(ctr, key);
}

// The output-determining part of cuRAND's curandStatePhilox4_32_10.
struct CurandPhiloxState {
  Philox4x32Block ctr;
  Philox4x32Block output;  // Philox4x32_10(ctr, key); output.v[state] is the next word
  Philox4x32Key key;
  std::uint32_t state;  // cuRAND's STATE, in [0, 3]
};

// cuRAND Philox_State_Incr(s, n): adds n to the 128-bit counter, reproducing cuRAND's carry
// test literally. Deviation from a true 128-bit add (inherited from cuRAND, kept on purpose):
// when n >= 2^64 - 2^32 and the low-word add carries into an n_hi of 0xffffffff, the carry is
// lost. Unreachable from curand_init (n = offset / 4 < 2^62).
SAMPCHECK_HOST_DEVICE constexpr void CurandPhiloxIncr(CurandPhiloxState* s, std::uint64_t n) {
  const std::uint32_t nlo = static_cast<std::uint32_t>(n);
  std::uint32_t nhi = static_cast<std::uint32_t>(n >> 32);
  s->ctr.v[0] += nlo;
  if (s->ctr.v[0] < nlo) ++nhi;
  s->ctr.v[1] += nhi;
  if (nhi <= s->ctr.v[1]) return;
  if (++s->ctr.v[2] != 0) return;
  ++s->ctr.v[3];
}

// cuRAND Philox_State_Incr(s): counter += 1 (128-bit).
SAMPCHECK_HOST_DEVICE constexpr void CurandPhiloxIncr1(CurandPhiloxState* s) {
  if (++s->ctr.v[0] != 0) return;
  if (++s->ctr.v[1] != 0) return;
  if (++s->ctr.v[2] != 0) return;
  ++s->ctr.v[3];
}

// cuRAND Philox_State_Incr_hi(s, n): adds n to the 64-bit (ctr[2], ctr[3]); no carry out.
SAMPCHECK_HOST_DEVICE constexpr void CurandPhiloxIncrHi(CurandPhiloxState* s, std::uint64_t n) {
  const std::uint32_t nlo = static_cast<std::uint32_t>(n);
  std::uint32_t nhi = static_cast<std::uint32_t>(n >> 32);
  s->ctr.v[2] += nlo;
  if (s->ctr.v[2] < nlo) ++nhi;
  s->ctr.v[3] += nhi;
}

// cuRAND skipahead_sequence(n, state).
SAMPCHECK_HOST_DEVICE constexpr void CurandPhiloxSkipaheadSequence(std::uint64_t n,
                                                                   CurandPhiloxState* s) {
  CurandPhiloxIncrHi(s, n);
  s->output = Philox4x32_10(s->ctr, s->key);
}

// cuRAND skipahead(n, state): skips n words (n % 4 of them inside the current block).
SAMPCHECK_HOST_DEVICE constexpr void CurandPhiloxSkipahead(std::uint64_t n, CurandPhiloxState* s) {
  s->state += static_cast<std::uint32_t>(n & 3u);
  n /= 4;
  if (s->state > 3) {
    n += 1;
    s->state -= 4;
  }
  CurandPhiloxIncr(s, n);
  s->output = Philox4x32_10(s->ctr, s->key);
}

// cuRAND curand_init(seed, subsequence, offset, &state) for curandStatePhilox4_32_10_t.
SAMPCHECK_HOST_DEVICE constexpr CurandPhiloxState CurandPhiloxInit(std::uint64_t seed,
                                                                   std::uint64_t subsequence,
                                                                   std::uint64_t offset) {
  CurandPhiloxState s{};
  s.key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};  // = SeedKey, streams.h
  s.state = 0;
  CurandPhiloxSkipaheadSequence(subsequence, &s);
  CurandPhiloxSkipahead(offset, &s);
  return s;
}

// cuRAND curand(&state) for Philox4_32_10: the next word of the stream.
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t CurandPhiloxNext(CurandPhiloxState* s) {
  const std::uint32_t ret = s->output.v[s->state & 3u];
  s->state += 1;
  if (s->state == 4) {
    CurandPhiloxIncr1(s);
    s->output = Philox4x32_10(s->ctr, s->key);
    s->state = 0;
  }
  return ret;
}

// cuRAND curand4(&state) for Philox4_32_10: the next four words of the stream.
SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block CurandPhiloxNext4(CurandPhiloxState* s) {
  const Philox4x32Block tmp = s->output;
  CurandPhiloxIncr1(s);
  s->output = Philox4x32_10(s->ctr, s->key);
  Philox4x32Block r{};
  const std::uint32_t st = s->state & 3u;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const std::uint32_t j = st + i;
    r.v[i] = j < 4 ? tmp.v[j] : s->output.v[j - 4];
  }
  return r;
}

// Word `index` of cuRAND subsequence `subsequence` under `seed`, without a state: the value
// the (index + 1)-th curand() returns after curand_init(seed, subsequence, 0).
// Precondition: index / 4 < 2^64 - 2^32 (below cuRAND's carry quirk, see CurandPhiloxIncr).
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t CurandPhiloxWord(std::uint64_t seed,
                                                               std::uint64_t subsequence,
                                                               std::uint64_t index) {
  const std::uint64_t block = index / 4;
  const Philox4x32Block ctr = {{static_cast<std::uint32_t>(block),
                                static_cast<std::uint32_t>(block >> 32),
                                static_cast<std::uint32_t>(subsequence),
                                static_cast<std::uint32_t>(subsequence >> 32)}};
  const Philox4x32Key key = {{static_cast<std::uint32_t>(seed),
                              static_cast<std::uint32_t>(seed >> 32)}};
  return Philox4x32_10(ctr, key).v[index % 4];
}

// sampcheck's canonical position-keyed word (see the contract block).
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t PhiloxCanonicalWord(std::uint64_t seed,
                                                                  std::uint32_t request,
                                                                  std::uint32_t step,
                                                                  std::uint32_t token,
                                                                  std::uint32_t draw) {
  const Philox4x32Block ctr = {{token, draw / 4, step, request}};
  const Philox4x32Key key = {{static_cast<std::uint32_t>(seed),
                              static_cast<std::uint32_t>(seed >> 32)}};
  return Philox4x32_10(ctr, key).v[draw % 4];
}

}  // namespace sampcheck::rng
