// SPDX-License-Identifier: Apache-2.0
#pragma once
// MurmurHash3_x86_32 over bytes, and SGLang's deterministic-sampling key (seed, position,
// column) -> u32 built on it.
//
// Contract (docs/spec/rng.md, "MurmurHash3_x86_32" and "SGLang key layout"):
// - MurmurHash3X86_32(data, len, seed) is Austin Appleby's public-domain reference
//   (aappleby/smhasher src/MurmurHash3.cpp, MurmurHash3_x86_32) with the block read made
//   explicitly little-endian and alignment-free: block i is the u32 whose byte j is
//   data[4i + j] (the reference reads a native u32, which is the same on every little-endian
//   machine it was verified on). Order of operations, all arithmetic modulo 2^32:
//     h = seed
//     per 4-byte block k: k *= 0xcc9e2d51; k = rotl(k, 15); k *= 0x1b873593;
//                         h ^= k; h = rotl(h, 13); h = h * 5 + 0xe6546b64
//     tail (len & 3 bytes t0 t1 t2): k = t0 | t1 << 8 | t2 << 16 (bytes present only);
//                         if len & 3: k *= c1; k = rotl(k, 15); k *= c2; h ^= k
//     h ^= (u32)len; fmix32: h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13;
//                            h *= 0xc2b2ae35; h ^= h >> 16
//   len is a byte count; the reference takes `int len` and XORs its low 32 bits, as here.
// - SglangMurmurKey(seed, position, column) is MurmurHash3X86_32 over the 16-byte key
//     bytes 0..3   seed & 0xffffffff        (little-endian)
//     bytes 4..7   seed >> 32               (little-endian)
//     bytes 8..11  position (u32, truncated as SGLang's `.to(tl.uint32)` does)
//     bytes 12..15 column   (u32, idem)
//   with hash seed 0: four full blocks, no tail, h ^= 16 before fmix32. This is SGLang's
//   `murmur_hash32_kernel` (four murmur3_mix calls, `h ^= 16`, fmix32). In SGLang's top-k/top-p
//   path the column is the rank in the descending-sorted row; in
//   `multinomial_with_seed_and_token_ids` it is the vocabulary id (docs/peers.md).
// - Exact tier: integer only, no floating point; bit-identical on every host and device.
//   Empty input (len 0) is valid: MurmurHash3X86_32(nullptr, 0, 0) == 0 (fmix32(0) == 0).
// - RNG counters used per token: one hash per (seed, position, column); no state.
// Example (tests/rng_test.cc, Murmur3.HeaderExample): MurmurHash3X86_32 of the bytes
// 21 43 65 87 with seed 0 is 0xf55b516b (Ian Boyd's published vectors, StackOverflow q. 14747343),
// and SglangMurmurKey(0, 0, 0) equals MurmurHash3X86_32 of 16 zero bytes with seed 0.

#include <cstddef>
#include <cstdint>

#include "core/portability.h"

namespace sampcheck::rng {
namespace detail {

inline constexpr std::uint32_t kMurmurC1 = 0xcc9e2d51u;  // MurmurHash3.cpp, x86_32 c1
inline constexpr std::uint32_t kMurmurC2 = 0x1b873593u;  // MurmurHash3.cpp, x86_32 c2
inline constexpr std::uint32_t kMurmurN = 0xe6546b64u;   // h = h * 5 + 0xe6546b64
inline constexpr std::uint32_t kFmixM1 = 0x85ebca6bu;    // fmix32 multipliers
inline constexpr std::uint32_t kFmixM2 = 0xc2b2ae35u;

static_assert(sizeof(std::uint32_t) == 4 && sizeof(unsigned char) == 1,
              "MurmurHash3_x86_32 mixes 32-bit words built from 8-bit bytes");

SAMPCHECK_HOST_DEVICE constexpr std::uint32_t Rotl32(std::uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));  // r in [1, 31] at every call site
}

// One body block: k scrambled, then folded into h.
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t MurmurMix(std::uint32_t h, std::uint32_t k) {
  k *= kMurmurC1;
  k = Rotl32(k, 15);
  k *= kMurmurC2;
  h ^= k;
  h = Rotl32(h, 13);
  return h * 5u + kMurmurN;
}

SAMPCHECK_HOST_DEVICE constexpr std::uint32_t Fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= kFmixM1;
  h ^= h >> 13;
  h *= kFmixM2;
  h ^= h >> 16;
  return h;
}

SAMPCHECK_HOST_DEVICE constexpr std::uint32_t LoadLe32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

}  // namespace detail

// MurmurHash3_x86_32 of `len` bytes at `data` (may be null when len == 0).
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t MurmurHash3X86_32(const unsigned char* data,
                                                                std::size_t len,
                                                                std::uint32_t seed) {
  std::uint32_t h = seed;
  const std::size_t nblocks = len / 4;
  for (std::size_t i = 0; i < nblocks; ++i) h = detail::MurmurMix(h, detail::LoadLe32(data + 4 * i));
  const unsigned char* tail = data + 4 * nblocks;
  std::uint32_t k = 0;
  switch (len & 3u) {
    case 3:
      k ^= static_cast<std::uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<std::uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= static_cast<std::uint32_t>(tail[0]);
      k *= detail::kMurmurC1;
      k = detail::Rotl32(k, 15);
      k *= detail::kMurmurC2;
      h ^= k;
      break;
    default:
      break;
  }
  h ^= static_cast<std::uint32_t>(len);
  return detail::Fmix32(h);
}

// Bytes of SGLang's key, little-endian, in hash order (for tests and the Python oracle).
struct SglangKeyBytes {
  unsigned char b[16];
};
static_assert(sizeof(SglangKeyBytes) == 16, "SGLang's key is exactly 16 bytes");

SAMPCHECK_HOST_DEVICE constexpr SglangKeyBytes SglangMurmurKeyBytes(std::uint64_t seed,
                                                                    std::uint32_t position,
                                                                    std::uint32_t column) {
  const std::uint32_t words[4] = {static_cast<std::uint32_t>(seed),
                                  static_cast<std::uint32_t>(seed >> 32), position, column};
  SglangKeyBytes key{};
  for (int w = 0; w < 4; ++w)
    for (int j = 0; j < 4; ++j) key.b[4 * w + j] = static_cast<unsigned char>(words[w] >> (8 * j));
  return key;
}

// SGLang's deterministic-sampling hash: MurmurHash3_x86_32(key16(seed, position, column), 0).
// Computed word-wise (no byte buffer); equal to hashing SglangMurmurKeyBytes by construction.
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t SglangMurmurKey(std::uint64_t seed,
                                                              std::uint32_t position,
                                                              std::uint32_t column) {
  std::uint32_t h = 0;  // hash seed 0
  h = detail::MurmurMix(h, static_cast<std::uint32_t>(seed));
  h = detail::MurmurMix(h, static_cast<std::uint32_t>(seed >> 32));
  h = detail::MurmurMix(h, position);
  h = detail::MurmurMix(h, column);
  h ^= 16u;  // key length in bytes
  return detail::Fmix32(h);
}

}  // namespace sampcheck::rng
