// SPDX-License-Identifier: Apache-2.0
// Philox4x32-10 in SIMD lanes, span form and dispatch (reference/rng/philox_lanes.h).
#include "reference/rng/philox_lanes.h"

#include <cstddef>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's avx512fintrin.h starts some results from _mm512_undefined_*(), which
// -Wmaybe-uninitialized reports once inlined at -O3 (GCC bug 105593); the code is correct.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace sampcheck::rng {

bool HostRuns(PhiloxIsa isa) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  switch (isa) {
    case PhiloxIsa::kAvx512: return __builtin_cpu_supports("avx512f");
    case PhiloxIsa::kAvx2: return __builtin_cpu_supports("avx2");
    case PhiloxIsa::kScalar: return true;
  }
  return false;
#else
  return isa == PhiloxIsa::kScalar;
#endif
}

PhiloxIsa BestPhiloxIsa() {
  if (HostRuns(PhiloxIsa::kAvx512)) return PhiloxIsa::kAvx512;
  if (HostRuns(PhiloxIsa::kAvx2)) return PhiloxIsa::kAvx2;
  return PhiloxIsa::kScalar;
}

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// Lanes [i, i + 16) of ctr into out; returns the next i.
__attribute__((target("avx512f"))) std::size_t Lanes16(std::span<const Philox4x32Block> ctr, Philox4x32Key key,
                                                      std::span<Philox4x32Block> out) {
  std::size_t i = 0;
  alignas(64) std::uint32_t w[4][16];
  for (; i + 16 <= ctr.size(); i += 16) {
    for (int l = 0; l < 16; ++l) {
      for (int j = 0; j < 4; ++j) w[j][l] = ctr[i + static_cast<std::size_t>(l)].v[j];
    }
    __m512i c0 = _mm512_load_si512(w[0]), c1 = _mm512_load_si512(w[1]), c2 = _mm512_load_si512(w[2]),
            c3 = _mm512_load_si512(w[3]);
    Philox10x16(c0, c1, c2, c3, key);
    _mm512_store_si512(w[0], c0);
    _mm512_store_si512(w[1], c1);
    _mm512_store_si512(w[2], c2);
    _mm512_store_si512(w[3], c3);
    for (int l = 0; l < 16; ++l) {
      for (int j = 0; j < 4; ++j) out[i + static_cast<std::size_t>(l)].v[j] = w[j][l];
    }
  }
  return i;
}

__attribute__((target("avx2"))) std::size_t Lanes8(std::span<const Philox4x32Block> ctr, Philox4x32Key key,
                                                  std::span<Philox4x32Block> out) {
  std::size_t i = 0;
  alignas(32) std::uint32_t w[4][8];
  for (; i + 8 <= ctr.size(); i += 8) {
    for (int l = 0; l < 8; ++l) {
      for (int j = 0; j < 4; ++j) w[j][l] = ctr[i + static_cast<std::size_t>(l)].v[j];
    }
    __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[0]));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[1]));
    __m256i c2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[2]));
    __m256i c3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[3]));
    Philox10x8(c0, c1, c2, c3, key);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[0]), c0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[1]), c1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[2]), c2);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[3]), c3);
    for (int l = 0; l < 8; ++l) {
      for (int j = 0; j < 4; ++j) out[i + static_cast<std::size_t>(l)].v[j] = w[j][l];
    }
  }
  return i;
}

#endif

}  // namespace

void PhiloxLanes(std::span<const Philox4x32Block> ctr, Philox4x32Key key, std::span<Philox4x32Block> out,
                 PhiloxIsa isa) {
  std::size_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (isa == PhiloxIsa::kAvx512) i = Lanes16(ctr, key, out);
  if (isa == PhiloxIsa::kAvx2) i = Lanes8(ctr, key, out);
#endif
  for (; i < ctr.size(); ++i) out[i] = Philox4x32_10(ctr[i], key);
}

}  // namespace sampcheck::rng
