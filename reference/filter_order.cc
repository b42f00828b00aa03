// SPDX-License-Identifier: Apache-2.0
// Canonical descending order and selection (reference/filter_order.h).
#include "reference/filter_order.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

namespace sampcheck::reference {

namespace {

// IEEE order as unsigned integers (flip every bit of a negative, the sign bit of the rest),
// complemented so that ascending keys are descending values. `value + 0.0f` folds -0.0 onto
// +0.0 (and changes no other non-NaN value) so that the two zeros tie. Branch-free: random
// signs would make a branch mispredict half the time.
std::uint32_t ValueKey(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value + 0.0f);
  const std::uint32_t negative = static_cast<std::uint32_t>(static_cast<std::int32_t>(bits) >> 31);
  return ~(bits ^ (negative | 0x80000000u));
}

// Radix select works on the top kBucketBits of the value key.
constexpr int kBucketBits = 12;
constexpr std::uint32_t Bucket(std::uint32_t value_key) { return value_key >> (32 - kBucketBits); }

}  // namespace

std::uint64_t DescendingKey(float value, std::int32_t index) {
  // The index in the low half breaks ties by increasing index.
  return (static_cast<std::uint64_t>(ValueKey(value)) << 32) | static_cast<std::uint32_t>(index);
}

namespace {

std::vector<std::uint64_t> Keys(std::span<const float> row) {  // in index order
  std::vector<std::uint64_t> keys(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) keys[i] = DescendingKey(row[i], static_cast<std::int32_t>(i));
  return keys;
}

std::vector<std::int32_t> Indices(const std::vector<std::uint64_t>& keys, std::size_t n) {
  std::vector<std::int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(keys[i] & 0xFFFFFFFFu);
  return out;
}

// Stable LSD radix sort on the value half of the keys (3 passes of 11, 11 and 10 bits). Keys
// that arrive in increasing index order — all callers' — leave equal values in that order,
// which is the canonical tie rule, so no pass over the index half is needed.
void RadixSortByValue(std::vector<std::uint64_t>& keys) {
  std::vector<std::uint64_t> tmp(keys.size());
  for (int shift : {32, 43, 54}) {
    const int bits = shift == 54 ? 10 : 11;
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::vector<std::uint32_t> count((std::size_t{1} << bits) + 1, 0);
    for (std::uint64_t k : keys) ++count[((k >> shift) & mask) + 1];
    for (std::size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    for (std::uint64_t k : keys) tmp[count[(k >> shift) & mask]++] = k;
    keys.swap(tmp);
  }
}

}  // namespace

namespace {

typedef float F16 __attribute__((vector_size(64)));
typedef std::int32_t I16 __attribute__((vector_size(64)));
typedef std::uint32_t U16 __attribute__((vector_size(64)));

// The first n keys of the order for a few n (n * 64 <= row size): a running threshold instead
// of a histogram. Candidates (full keys) are collected while the threshold t is the value key
// of the n-th best candidate so far; an entry whose value key is above t has n better entries
// already seen, so it cannot be among the first n; entries equal to t are kept (their index
// decides). When the candidates exceed `cap`, nth_element keeps the n best and t tightens.
// Both ThresholdCandidates forms keep at most CandidateCap(n) keys between tightenings.
std::size_t CandidateCap(std::size_t n) { return std::max<std::size_t>(4 * n, 1024); }

// The keys of the first min(size, cap) tokens; returns where the scan goes on.
std::size_t SeedCandidates(const float* x, std::size_t size, std::size_t n, std::vector<std::uint64_t>& keys) {
  const std::size_t cap = CandidateCap(n);
  const std::size_t first = std::min(size, cap);
  keys.clear();
  keys.reserve(cap + 64);
  for (std::size_t j = 0; j < first; ++j) {
    keys.push_back((static_cast<std::uint64_t>(ValueKey(x[j])) << 32) | static_cast<std::uint32_t>(j));
  }
  return first;
}

// Keeps the n smallest keys; returns the n-th smallest value key, the new threshold.
std::uint32_t TightenCandidates(std::vector<std::uint64_t>& keys, std::size_t n) {
  std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n - 1), keys.end());
  keys.resize(n);
  return static_cast<std::uint32_t>(keys[n - 1] >> 32);
}

// One read of the row with 16-lane key computations and compares; the scalar work is on the
// candidates only.
__attribute__((target_clones("avx2", "default"))) void ThresholdCandidatesPortable(
    const float* x, std::size_t size, std::size_t n, std::vector<std::uint64_t>& keys) {
  const std::size_t cap = CandidateCap(n);
  std::size_t i = SeedCandidates(x, size, n, keys);
  std::uint32_t t = TightenCandidates(keys, n);
  for (; i + 16 <= size; i += 16) {
    F16 v;
    std::memcpy(&v, x + i, sizeof(v));
    const I16 bits = __builtin_bit_cast(I16, v + 0.0f);
    const I16 negative = bits >> 31;
    const U16 key = ~__builtin_bit_cast(U16, bits ^ (negative | static_cast<std::int32_t>(0x80000000u)));
    const I16 hit = key <= t;
    std::int32_t any = 0;
    for (int j = 0; j < 16; ++j) any |= hit[j];
    if (any == 0) continue;
    for (int j = 0; j < 16; ++j) {
      if (hit[j]) keys.push_back((static_cast<std::uint64_t>(key[j]) << 32) | static_cast<std::uint32_t>(i + j));
    }
    if (keys.size() > cap) t = TightenCandidates(keys, n);
  }
  for (; i < size; ++i) {
    const std::uint32_t k = ValueKey(x[i]);
    if (k <= t) keys.push_back((static_cast<std::uint64_t>(k) << 32) | static_cast<std::uint32_t>(i));
  }
}

// ThresholdCandidates in AVX-512F intrinsics: the same keys in the same order. The portable
// form's 16-lane "any hit" test compiles to lane-by-lane extracts on AVX-512F (GCC 12); here it
// is one compare into a mask register, and the hits are read off the mask.
__attribute__((target("avx512f"))) void ThresholdCandidatesAvx512(const float* x, std::size_t size, std::size_t n,
                                                                 std::vector<std::uint64_t>& keys) {
  const std::size_t cap = CandidateCap(n);
  std::size_t i = SeedCandidates(x, size, n, keys);
  std::uint32_t t = TightenCandidates(keys, n);
  __m512i tv = _mm512_set1_epi32(static_cast<std::int32_t>(t));
  const __m512i low31 = _mm512_set1_epi32(0x7fffffff);
  alignas(64) std::uint32_t lanes[16];
  for (; i + 16 <= size; i += 16) {
    const __m512i bits = _mm512_castps_si512(_mm512_add_ps(_mm512_loadu_ps(x + i), _mm512_setzero_ps()));
    // ValueKey in 16 lanes: a negative's key is its bits (~(bits ^ ~0)), the rest's bits ^ 0x7fffffff.
    const __mmask16 negative = _mm512_cmplt_epi32_mask(bits, _mm512_setzero_si512());
    const __m512i key = _mm512_mask_mov_epi32(_mm512_xor_si512(bits, low31), negative, bits);
    unsigned hit = _mm512_cmple_epu32_mask(key, tv);
    if (hit == 0) continue;
    _mm512_store_si512(lanes, key);
    for (; hit != 0; hit &= hit - 1) {
      const int j = std::countr_zero(hit);
      keys.push_back((static_cast<std::uint64_t>(lanes[j]) << 32) | static_cast<std::uint32_t>(i + static_cast<std::size_t>(j)));
    }
    if (keys.size() > cap) {
      t = TightenCandidates(keys, n);
      tv = _mm512_set1_epi32(static_cast<std::int32_t>(t));
    }
  }
  for (; i < size; ++i) {
    const std::uint32_t k = ValueKey(x[i]);
    if (k <= t) keys.push_back((static_cast<std::uint64_t>(k) << 32) | static_cast<std::uint32_t>(i));
  }
}

void ThresholdCandidates(const float* x, std::size_t size, std::size_t n, std::vector<std::uint64_t>& keys) {
  static const auto run = __builtin_cpu_supports("avx512f") ? ThresholdCandidatesAvx512 : ThresholdCandidatesPortable;
  run(x, size, n, keys);
}

}  // namespace

std::vector<std::int32_t> TopIndices(std::span<const float> row, std::int64_t count) {
  const std::size_t n = std::min<std::size_t>(row.size(), static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  if (n == 0) return {};
  if (n <= 1024 && n * 64 <= row.size()) {
    std::vector<std::uint64_t> keys;
    ThresholdCandidates(row.data(), row.size(), n, keys);
    std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n - 1), keys.end());
    std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
    return Indices(keys, n);
  }
  // Radix select: a histogram of the top 12 bits of the value keys finds the bucket that holds
  // the n-th key; every key in an earlier bucket is selected, and only the keys of the
  // selected buckets (the answer plus the boundary bucket) are built and sorted.
  std::vector<std::uint32_t> histogram(std::size_t{1} << kBucketBits, 0);
  for (float v : row) ++histogram[Bucket(ValueKey(v))];
  std::uint32_t boundary = 0;
  for (std::size_t seen = 0;; ++boundary) {
    seen += histogram[boundary];
    if (seen >= n) break;
  }
  std::vector<std::uint64_t> keys;
  keys.reserve(n + histogram[boundary]);
  for (std::size_t i = 0; i < row.size(); ++i) {
    const std::uint32_t k = ValueKey(row[i]);
    if (Bucket(k) <= boundary) keys.push_back((static_cast<std::uint64_t>(k) << 32) | static_cast<std::uint32_t>(i));
  }
  if (n <= 2048) {  // few: select, then sort the selected
    if (n < keys.size()) std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
    std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
  } else {  // many (a wide nucleus): sort the candidates, which arrived in index order
    RadixSortByValue(keys);
  }
  return Indices(keys, n);
}

std::int64_t CountReachingMass(std::span<const float> row, std::span<const float> probs, double mass) {
  std::vector<double> bucket_mass(std::size_t{1} << kBucketBits, 0.0);
  std::vector<std::uint32_t> bucket_count(bucket_mass.size(), 0);
  for (std::size_t i = 0; i < row.size(); ++i) {
    const std::uint32_t b = Bucket(ValueKey(row[i]));
    bucket_mass[b] += probs[i];
    ++bucket_count[b];
  }
  double seen_mass = 0.0;
  std::int64_t seen = 0;
  for (std::size_t b = 0; b < bucket_mass.size(); ++b) {
    seen_mass += bucket_mass[b];
    seen += bucket_count[b];
    if (seen_mass >= mass) break;
  }
  return seen;
}

std::vector<std::int32_t> DescendingOrder(std::span<const float> row) {
  std::vector<std::uint64_t> keys = Keys(row);
  RadixSortByValue(keys);
  return Indices(keys, keys.size());
}

}  // namespace sampcheck::reference
