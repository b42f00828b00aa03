// SPDX-License-Identifier: Apache-2.0
// Known-answer tests for reference/rng/: MurmurHash3_x86_32 (+ SGLang's key), Philox4x32-R,
// cuRAND's Philox stream semantics, the uniform conversions and the noise laws.
//
// Every expected value says where it came from: a row of tests/rng_known_answers.txt (Random123,
// Ian Boyd's MurmurHash3 vectors, SMHasher), a derivation by hand from such a row (comments), or
// the conversion's definition evaluated exactly (Python fractions/decimal at 80 digits, rounded
// to binary32/binary64 once per IEEE operation; the script is in the comments next to the
// numbers). All tests are exact: the false-failure budget is zero.

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reference/math/bits.h"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/philox_lanes.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"

#ifndef SAMPCHECK_SOURCE_DIR
#error "SAMPCHECK_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

namespace sampcheck::rng {
namespace {

using math::F32Bits;
using math::F32FromBits;
using math::F64Bits;
using math::F64FromBits;

std::string Hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08" PRIx32, v);
  return buf;
}

// Bitwise float comparison with hex bits and %a in the message (docs/contributing.md "Tests").
::testing::AssertionResult SameF32(float actual, float expected) {
  if (F32Bits(actual) == F32Bits(expected)) return ::testing::AssertionSuccess();
  char buf[160];
  std::snprintf(buf, sizeof buf, "got %a (0x%08" PRIx32 ", %.9g), want %a (0x%08" PRIx32 ", %.9g)",
                static_cast<double>(actual), F32Bits(actual), static_cast<double>(actual),
                static_cast<double>(expected), F32Bits(expected), static_cast<double>(expected));
  return ::testing::AssertionFailure() << buf;
}
::testing::AssertionResult SameF64(double actual, double expected) {
  if (F64Bits(actual) == F64Bits(expected)) return ::testing::AssertionSuccess();
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "got %a (0x%016" PRIx64 ", %.17g), want %a (0x%016" PRIx64 ", %.17g)", actual,
                F64Bits(actual), actual, expected, F64Bits(expected), expected);
  return ::testing::AssertionFailure() << buf;
}

// ---------------------------------------------------------------------------------------------
// The known-answer file.

struct KatRow {
  int line;
  std::string name;
  std::vector<std::string> fields;  // after the name
};

std::vector<KatRow> ReadKat() {
  const std::string path = std::string(SAMPCHECK_SOURCE_DIR) + "/tests/rng_known_answers.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<KatRow> rows;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    KatRow row{line, {}, {}};
    fields >> row.name;
    for (std::string f; fields >> f;) row.fields.push_back(f);
    if (!row.name.empty()) rows.push_back(row);
  }
  return rows;
}

std::uint32_t ParseHex32(const std::string& s) {
  return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16));
}

std::vector<unsigned char> ParseHexBytes(const std::string& s) {
  std::vector<unsigned char> bytes;
  if (s == "-") return bytes;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2)
    bytes.push_back(static_cast<unsigned char>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return bytes;
}

Philox4x32Block RunPhilox(int rounds, Philox4x32Block ctr, Philox4x32Key key) {
  switch (rounds) {
    case 7:
      return Philox4x32<7>(ctr, key);
    case 10:
      return Philox4x32<10>(ctr, key);
    default:
      ADD_FAILURE() << "no instantiation for " << rounds << " rounds";
      return {};
  }
}

std::uint32_t SmhasherVerificationMurmur3X86_32();

TEST(RngKnownAnswers, EveryRowOfTheFileMatches) {
  const std::vector<KatRow> rows = ReadKat();
  int philox = 0, murmur = 0, verification = 0;
  for (const KatRow& row : rows) {
    SCOPED_TRACE("tests/rng_known_answers.txt:" + std::to_string(row.line) + " " + row.name);
    if (row.name == "philox4x32") {
      ASSERT_EQ(row.fields.size(), 11u);
      const int rounds = std::stoi(row.fields[0]);
      Philox4x32Block ctr{}, want{};
      Philox4x32Key key{};
      for (int i = 0; i < 4; ++i) ctr.v[i] = ParseHex32(row.fields[1 + i]);
      for (int i = 0; i < 2; ++i) key.v[i] = ParseHex32(row.fields[5 + i]);
      for (int i = 0; i < 4; ++i) want.v[i] = ParseHex32(row.fields[7 + i]);
      const Philox4x32Block got = RunPhilox(rounds, ctr, key);
      for (int i = 0; i < 4; ++i)
        EXPECT_EQ(Hex32(got.v[i]), Hex32(want.v[i])) << "word " << i;
      ++philox;
    } else if (row.name == "murmur3_x86_32") {
      ASSERT_EQ(row.fields.size(), 4u);
      const std::size_t len = std::stoul(row.fields[0]);
      const std::vector<unsigned char> bytes = ParseHexBytes(row.fields[1]);
      ASSERT_EQ(bytes.size(), len);
      const std::uint32_t got =
          MurmurHash3X86_32(bytes.empty() ? nullptr : bytes.data(), len, ParseHex32(row.fields[2]));
      EXPECT_EQ(Hex32(got), Hex32(ParseHex32(row.fields[3])));
      ++murmur;
    } else if (row.name == "murmur3_x86_32_verification") {
      ASSERT_EQ(row.fields.size(), 1u);
      EXPECT_EQ(Hex32(SmhasherVerificationMurmur3X86_32()), Hex32(ParseHex32(row.fields[0])));
      ++verification;
    } else {
      ADD_FAILURE() << "unknown row name";
    }
  }
  // The file's published content: 6 Random123 rows + 8 manual rows, 22 MurmurHash3 rows, 1
  // verification value. A silently truncated file must not pass.
  EXPECT_EQ(philox, 14);
  EXPECT_EQ(murmur, 22);
  EXPECT_EQ(verification, 1);
}

// The lane paths of reference/rng/philox_lanes.h (AVX-512F 16 blocks, AVX2 8, and the scalar
// tail) against the file's Random123 rows: each row's counter is put at every position of a
// batch of 16 + 8 + 3 counters (every lane of both widths and the tail), the other counters
// random, all under the row's key; the others must equal the scalar Philox4x32_10, which the
// test above checks against the same file. Then 40 consecutive 128-bit counters across the
// carries out of ctr[0], ctr[1] and ctr[2], against the scalar function.
TEST(PhiloxLanes, EveryLaneMatchesKnownAnswersAndCarries) {
  const rng::PhiloxIsa isas[] = {rng::PhiloxIsa::kScalar, rng::PhiloxIsa::kAvx2, rng::PhiloxIsa::kAvx512};
  int paths = 0, rows10 = 0;
  for (rng::PhiloxIsa isa : isas) {
    if (!rng::HostRuns(isa)) continue;  // this host's vector units: the others cannot run here
    ++paths;
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&state] {  // SplitMix64 for the filler counters
      std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return static_cast<std::uint32_t>(z ^ (z >> 31));
    };
    rows10 = 0;
    for (const KatRow& row : ReadKat()) {
      if (row.name != "philox4x32" || row.fields.size() != 11u || row.fields[0] != "10") continue;
      ++rows10;
      Philox4x32Block ctr{}, want{};
      Philox4x32Key key{};
      for (int i = 0; i < 4; ++i) ctr.v[i] = ParseHex32(row.fields[1 + i]);
      for (int i = 0; i < 2; ++i) key.v[i] = ParseHex32(row.fields[5 + i]);
      for (int i = 0; i < 4; ++i) want.v[i] = ParseHex32(row.fields[7 + i]);
      constexpr std::size_t kBatch = 16 + 8 + 3;
      for (std::size_t at = 0; at < kBatch; ++at) {
        std::vector<Philox4x32Block> in(kBatch), out(kBatch);
        for (auto& c : in) c = {{next(), next(), next(), next()}};
        in[at] = ctr;
        rng::PhiloxLanes(in, key, out, isa);
        for (std::size_t i = 0; i < kBatch; ++i) {
          const Philox4x32Block expect = i == at ? want : Philox4x32_10(in[i], key);
          for (int w = 0; w < 4; ++w) {
            ASSERT_EQ(Hex32(out[i].v[w]), Hex32(expect.v[w]))
                << "line " << row.line << " isa " << static_cast<int>(isa) << " position " << i << " word " << w;
          }
        }
      }
    }
    // Consecutive counters: ctr[0] + 2^32 ctr[1] + ... incremented with carries.
    const Philox4x32Block starts[] = {{{0xfffffff0u, 0u, 0u, 0u}},
                                      {{0xfffffff5u, 0xffffffffu, 7u, 0x5eedu}},
                                      {{0xfffffffau, 0xffffffffu, 0xffffffffu, 3u}}};
    for (const Philox4x32Block& start : starts) {
      std::vector<Philox4x32Block> in(40), out(40);
      Philox4x32Block c = start;
      for (auto& x : in) {
        x = c;
        for (int w = 0; w < 4 && ++c.v[w] == 0; ++w) {
        }
      }
      const Philox4x32Key key{{0xa4093822u, 0x299f31d0u}};
      rng::PhiloxLanes(in, key, out, isa);
      for (std::size_t i = 0; i < in.size(); ++i) {
        const Philox4x32Block expect = Philox4x32_10(in[i], key);
        for (int w = 0; w < 4; ++w) ASSERT_EQ(Hex32(out[i].v[w]), Hex32(expect.v[w])) << "counter " << i << " word " << w;
      }
    }
  }
  EXPECT_GE(paths, 1);
  EXPECT_EQ(rows10, 10);  // the file's R = 10 rows: 3 Random123 + 7 manual
}

// ---------------------------------------------------------------------------------------------
// MurmurHash3_x86_32.

// SMHasher src/KeysetTest.cpp VerificationTest, literally: keys {0}, {0,1}, ... of length
// i = 0..255 (key[i] = i is written before hashing the first i bytes) hashed with seed 256 - i
// into hashes[4i..4i+3] (the hash's native bytes: little-endian u32), then the 1024-byte array
// hashed with seed 0; the verification value is the first 4 bytes of that hash, little-endian.
std::uint32_t SmhasherVerificationMurmur3X86_32() {
  unsigned char key[256] = {};
  unsigned char hashes[4 * 256] = {};
  for (int i = 0; i < 256; ++i) {
    key[i] = static_cast<unsigned char>(i);
    const std::uint32_t h = MurmurHash3X86_32(key, static_cast<std::size_t>(i),
                                              static_cast<std::uint32_t>(256 - i));
    for (int j = 0; j < 4; ++j) hashes[4 * i + j] = static_cast<unsigned char>(h >> (8 * j));
  }
  const std::uint32_t final_hash = MurmurHash3X86_32(hashes, sizeof hashes, 0);
  unsigned char final_bytes[4];
  for (int j = 0; j < 4; ++j) final_bytes[j] = static_cast<unsigned char>(final_hash >> (8 * j));
  return static_cast<std::uint32_t>(final_bytes[0]) | (static_cast<std::uint32_t>(final_bytes[1]) << 8) |
         (static_cast<std::uint32_t>(final_bytes[2]) << 16) |
         (static_cast<std::uint32_t>(final_bytes[3]) << 24);
}

TEST(Murmur3, MatchesSmhasherVerificationValue) {
  // 0xB0F57EE3: aappleby/smhasher src/main.cpp, the MurmurHash3_x86_32 entry of g_hashes.
  EXPECT_EQ(Hex32(SmhasherVerificationMurmur3X86_32()), Hex32(0xB0F57EE3u));
}

TEST(Murmur3, HeaderExample) {
  const unsigned char bytes[4] = {0x21, 0x43, 0x65, 0x87};
  EXPECT_EQ(Hex32(MurmurHash3X86_32(bytes, 4, 0)), Hex32(0xf55b516bu));  // Ian Boyd's vectors
  const unsigned char zeros[16] = {};
  EXPECT_EQ(SglangMurmurKey(0, 0, 0), MurmurHash3X86_32(zeros, 16, 0));
}

TEST(Murmur3, IsConstexpr) {
  static_assert(MurmurHash3X86_32(nullptr, 0, 0) == 0u, "fmix32(0 ^ 0) == 0");
  static_assert(MurmurHash3X86_32(nullptr, 0, 1) == 0x514e28b7u, "Ian Boyd: empty, seed 1");
  SUCCEED();
}

TEST(Murmur3, SglangKeyIsFourLittleEndianWordsSeedLowSeedHighPositionColumn) {
  const std::uint64_t seed = 0x0123456789abcdefull;
  const SglangKeyBytes key = SglangMurmurKeyBytes(seed, 0x11223344u, 0xa1b2c3d4u);
  const unsigned char want[16] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
                                  0x44, 0x33, 0x22, 0x11, 0xd4, 0xc3, 0xb2, 0xa1};
  EXPECT_EQ(std::memcmp(key.b, want, 16), 0);
  // The word-wise hash equals the byte hash of that layout, over a grid of boundary values.
  const std::uint64_t seeds[] = {0, 1, 42, 0xffffffffull, 0x100000000ull, ~0ull, seed};
  const std::uint32_t small[] = {0, 1, 2, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  for (std::uint64_t s : seeds)
    for (std::uint32_t p : small)
      for (std::uint32_t c : small) {
        const SglangKeyBytes b = SglangMurmurKeyBytes(s, p, c);
        ASSERT_EQ(Hex32(SglangMurmurKey(s, p, c)), Hex32(MurmurHash3X86_32(b.b, 16, 0)))
            << "seed " << s << " position " << p << " column " << c;
      }
}

TEST(Murmur3, SglangKeySeparatesSeedHalvesPositionAndColumn) {
  // Swapping any two key words changes the hash (not a collision proof: a layout check).
  const std::uint32_t base = SglangMurmurKey(0x0000000200000001ull, 3, 4);
  EXPECT_NE(base, SglangMurmurKey(0x0000000100000002ull, 3, 4));
  EXPECT_NE(base, SglangMurmurKey(0x0000000200000001ull, 4, 3));
  EXPECT_NE(base, SglangMurmurKey(0x0000000300000001ull, 2, 4));
}

// ---------------------------------------------------------------------------------------------
// Philox4x32 and the cuRAND stream. Expected values below are rows of rng_known_answers.txt.

constexpr Philox4x32Block kZeroKeyZeroCtr10 = {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}};

std::vector<std::uint32_t> NextWords(CurandPhiloxState* s, int n) {
  std::vector<std::uint32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(CurandPhiloxNext(s));
  return out;
}

TEST(Philox, HeaderExample) {
  constexpr Philox4x32Block got = Philox4x32<10>({{0, 0, 0, 0}}, {{0, 0}});  // constexpr
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got.v[i], kZeroKeyZeroCtr10.v[i]);
  CurandPhiloxState s = CurandPhiloxInit(0, 0, 2);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s)), "bc57ac4c");
}

TEST(CurandPhilox, InitAtZeroReturnsTheBlockInXYZWOrder) {
  // Row "philox4x32 10 0 0 0 0  0 0": key = seed {lo, hi} = {0, 0}, counter {0, 0, 0, 0}.
  CurandPhiloxState s = CurandPhiloxInit(0, 0, 0);
  const std::vector<std::uint32_t> w = NextWords(&s, 4);
  EXPECT_EQ(Hex32(w[0]), "6627e8d5");
  EXPECT_EQ(Hex32(w[1]), "e169c58d");
  EXPECT_EQ(Hex32(w[2]), "bc57ac4c");
  EXPECT_EQ(Hex32(w[3]), "9b00dbd8");
}

TEST(CurandPhilox, OffsetSkipsWordsWithinAndAcrossBlocks) {
  // seed 1 -> key {1, 0}. Row "philox4x32 10 00000001 0 0 0  00000001 0" is block 1 of
  // subsequence 0: ac08141b dfc5ccbe 79c07a47 a7f66093. offset 4 starts there; offset 6 skips
  // two words into it (skipahead: STATE = 6 & 3 = 2, counter += 6 / 4 = 1).
  CurandPhiloxState s4 = CurandPhiloxInit(1, 0, 4);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s4)), "ac08141b");
  CurandPhiloxState s6 = CurandPhiloxInit(1, 0, 6);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s6)), "79c07a47");
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s6)), "a7f66093");
  // The third word comes from block 2, i.e. the stateless word 8 of the stream.
  EXPECT_EQ(CurandPhiloxNext(&s6), CurandPhiloxWord(1, 0, 8));
  // offset 2^34 = 4 * 2^32: counter {0, 1, 0, 0} (carry into ctr[1]); row
  // "philox4x32 10 0 00000001 0 0  00000001 0": 833ff8dc 225c963c 232b88b3 0b334b07.
  CurandPhiloxState s_hi = CurandPhiloxInit(1, 0, std::uint64_t{1} << 34);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s_hi)), "833ff8dc");
  CurandPhiloxState s_hi3 = CurandPhiloxInit(1, 0, (std::uint64_t{1} << 34) + 3);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s_hi3)), "0b334b07");
  // Stepping across the ctr[0] -> ctr[1] carry one word at a time: offset 2^34 - 2 is word 2
  // of block {ffffffff, 0}; two curand() calls later the stream is at block {0, 1}.
  CurandPhiloxState s_carry = CurandPhiloxInit(1, 0, (std::uint64_t{1} << 34) - 2);
  const std::vector<std::uint32_t> w = NextWords(&s_carry, 4);
  EXPECT_EQ(w[0], CurandPhiloxWord(1, 0, (std::uint64_t{1} << 34) - 2));
  EXPECT_EQ(Hex32(w[2]), "833ff8dc");
  EXPECT_EQ(Hex32(w[3]), "225c963c");
}

TEST(CurandPhilox, SubsequenceIsTheCounterHighWords) {
  // subsequence 1 -> counter {0, 0, 1, 0}; row "philox4x32 10 0 0 00000001 0  00000001 0".
  CurandPhiloxState s1 = CurandPhiloxInit(1, 1, 0);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s1)), "07071c12");
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s1)), "428264b6");
  // subsequence 2^32 -> counter {0, 0, 0, 1}; row "philox4x32 10 0 0 0 00000001  00000001 0".
  CurandPhiloxState s2 = CurandPhiloxInit(1, std::uint64_t{1} << 32, 0);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s2)), "127bee41");
  // seed 2^32 -> key {0, 1}, offset 4 -> block {1, 0, 0, 0}; row
  // "philox4x32 10 00000001 0 0 0  0 00000001": ccf3076a ...
  CurandPhiloxState s3 = CurandPhiloxInit(std::uint64_t{1} << 32, 0, 4);
  EXPECT_EQ(Hex32(CurandPhiloxNext(&s3)), "ccf3076a");
  // seed 2^63 -> key {0, 80000000}; subsequence 2^63 -> counter {0, 0, 0, 80000000}; row
  // "philox4x32 10 0 0 0 80000000  0 80000000": f7a0b371 e51dc93d 56ce135d 1d4b5580.
  CurandPhiloxState s4 = CurandPhiloxInit(std::uint64_t{1} << 63, std::uint64_t{1} << 63, 0);
  const std::vector<std::uint32_t> w = NextWords(&s4, 4);
  EXPECT_EQ(Hex32(w[0]), "f7a0b371");
  EXPECT_EQ(Hex32(w[3]), "1d4b5580");
}

TEST(CurandPhilox, PiAndAllOnesRowsReachedThroughSkipahead) {
  // Pi row: key {a4093822, 299f31d0} = seed 0x299f31d0a4093822; counter high words
  // {13198a2e, 03707344} = subsequence 0x0370734413198a2e; block 0x85a308d3243f6a88 needs
  // 4 * block words (> 2^64), so four skipahead(0x85a308d3243f6a88) calls of block / 4 each.
  CurandPhiloxState s = CurandPhiloxInit(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0);
  for (int i = 0; i < 4; ++i) CurandPhiloxSkipahead(0x85a308d3243f6a88ull, &s);
  const Philox4x32Block pi = CurandPhiloxNext4(&s);
  EXPECT_EQ(Hex32(pi.v[0]), "d16cfe09");
  EXPECT_EQ(Hex32(pi.v[1]), "94fdcceb");
  EXPECT_EQ(Hex32(pi.v[2]), "5001e420");
  EXPECT_EQ(Hex32(pi.v[3]), "24126ea1");
  // All-ones row: seed ~0, subsequence ~0, block 2^64 - 1 = 4 * (2^62 - 1) + 3 blocks.
  CurandPhiloxState ones = CurandPhiloxInit(~0ull, ~0ull, 0);
  for (int i = 0; i < 4; ++i) CurandPhiloxSkipahead(0xfffffffffffffffcull, &ones);
  CurandPhiloxSkipahead(12, &ones);
  const std::vector<std::uint32_t> w = NextWords(&ones, 4);
  EXPECT_EQ(Hex32(w[0]), "408f276d");
  EXPECT_EQ(Hex32(w[1]), "41c83b0e");
  EXPECT_EQ(Hex32(w[2]), "a20bc7c6");
  EXPECT_EQ(Hex32(w[3]), "6d5451fd");
}

TEST(CurandPhilox, Curand4ReturnsTheNextFourWordsFromAnyLane) {
  for (std::uint64_t offset = 0; offset < 12; ++offset) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    CurandPhiloxState a = CurandPhiloxInit(0x1234, 7, offset);
    CurandPhiloxState b = a;
    const Philox4x32Block four = CurandPhiloxNext4(&a);
    const std::vector<std::uint32_t> singles = NextWords(&b, 4);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(four.v[i], singles[i]) << "word " << i;
    // Both consumed exactly four words: the next word agrees too.
    EXPECT_EQ(CurandPhiloxNext(&a), CurandPhiloxNext(&b));
    EXPECT_EQ(a.state, b.state);
  }
  // From lane 1 of block 1 (offset 5, seed 1): .y .z .w of ac08141b.. then word 0 of block 2.
  CurandPhiloxState s = CurandPhiloxInit(1, 0, 5);
  const Philox4x32Block r = CurandPhiloxNext4(&s);
  EXPECT_EQ(Hex32(r.v[0]), "dfc5ccbe");
  EXPECT_EQ(Hex32(r.v[1]), "79c07a47");
  EXPECT_EQ(Hex32(r.v[2]), "a7f66093");
  EXPECT_EQ(r.v[3], CurandPhiloxWord(1, 0, 8));
}

TEST(CurandPhilox, StreamEqualsStatelessWordsAndSkipaheadComposes) {
  const std::uint64_t seeds[] = {0, 1, 0xdeadbeefcafef00dull};
  const std::uint64_t offsets[] = {0, 1, 2, 3, 4, 5, 1023, (std::uint64_t{1} << 34) - 1};
  for (std::uint64_t seed : seeds)
    for (std::uint64_t offset : offsets) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " offset " + std::to_string(offset));
      CurandPhiloxState s = CurandPhiloxInit(seed, 3, offset);
      for (std::uint64_t i = 0; i < 9; ++i)
        ASSERT_EQ(CurandPhiloxNext(&s), CurandPhiloxWord(seed, 3, offset + i)) << "word " << i;
      // skipahead(a) then skipahead(b) == init at offset + a + b.
      CurandPhiloxState t = CurandPhiloxInit(seed, 3, offset);
      CurandPhiloxSkipahead(3, &t);
      CurandPhiloxSkipahead(6, &t);
      EXPECT_EQ(CurandPhiloxNext(&t), CurandPhiloxWord(seed, 3, offset + 9));
    }
}

TEST(CurandPhilox, CanonicalMappingEqualsItsCurandForm) {
  // philox.h: counter {token, draw / 4, step, request}, key = seed; as a cuRAND stream:
  // subsequence = request << 32 | step, offset = 4 * ((draw / 4) << 32 | token) + draw % 4.
  const std::uint32_t tokens[] = {0, 1, 151935, 0xffffffffu};
  for (std::uint32_t token : tokens)
    for (std::uint32_t draw = 0; draw < 9; ++draw) {
      const std::uint64_t seed = 0x9e3779b97f4a7c15ull, request = 17, step = 1000;
      const std::uint64_t block = (static_cast<std::uint64_t>(draw / 4) << 32) | token;
      CurandPhiloxState s = CurandPhiloxInit(seed, (request << 32) | step, 4 * block + draw % 4);
      EXPECT_EQ(PhiloxCanonicalWord(seed, 17, 1000, token, draw), CurandPhiloxNext(&s))
          << "token " << token << " draw " << draw;
    }
  // Row "philox4x32 10 00000001 0 0 0  00000001 0": seed 1, request 0, step 0, token 1,
  // draws 0..3.
  EXPECT_EQ(Hex32(PhiloxCanonicalWord(1, 0, 0, 1, 3)), "a7f66093");
}

// ---------------------------------------------------------------------------------------------
// Uniform conversions at boundary words. Expected values from each definition (uniform.h),
// evaluated exactly and rounded once per IEEE operation.

struct U32Case {
  int line;
  std::uint32_t w;
  float closed_open24;   // (w >> 8) * 2^-24
  float curand_f32;      // RN(RN(w) * 2^-32 + 2^-33)
  double sglang_f64;     // RN(w / (2^32 - 1))
};

TEST(Uniform, BoundaryWords) {
  const U32Case cases[] = {
      {__LINE__, 0x00000000u, 0.0f, 0x1p-33f, 0.0},
      // w = 1: 24-bit drops it; cuRAND 1 * 2^-32 + 2^-33 = 3 * 2^-33 exact;
      // SGLang 1 / (2^32 - 1) = 2^-32 (1 + 2^-32 + ...) -> 0x1.00000001p-32.
      {__LINE__, 0x00000001u, 0.0f, 0x1.8p-32f, 0x1.00000001p-32},
      // 0x7fffffff: 24-bit 0x7fffff * 2^-24; cuRAND: RN_f32(2^31 - 1) = 2^31 -> 0.5 + 2^-33 -> 0.5;
      // SGLang (2^31 - 1) / (2^32 - 1) = 0.5 - 2^-33 (1 + ...) -> 0x1.fffffffep-2.
      {__LINE__, 0x7fffffffu, 0x1.fffffcp-2f, 0.5f, 0x1.fffffffep-2},
      // 0x80000000: 0.5 exactly in the first two; SGLang 2^31 / (2^32 - 1) -> 0x1.00000001p-1.
      {__LINE__, 0x80000000u, 0.5f, 0.5f, 0x1.00000001p-1},
      // 0xffffff00: 0xffffff * 2^-24 = 1 - 2^-24 (largest below 1); cuRAND 1 - 2^-24 + 2^-33 ->
      // 1 - 2^-24; SGLang -> 0x1.fffffe02p-1.
      {__LINE__, 0xffffff00u, 0x1.fffffep-1f, 0x1.fffffep-1f, 0x1.fffffe02p-1},
      // 0xffffffff: all-ones; cuRAND RN_f32(2^32 - 1) = 2^32 -> 1.0; SGLang exactly 1.0.
      {__LINE__, 0xffffffffu, 0x1.fffffep-1f, 1.0f, 1.0},
      // cuRAND's 1.0 begins at 0xffffff80 (RN_f32 rounds it up to 2^32; 0xffffff7f rounds down).
      {__LINE__, 0xffffff7fu, 0x1.fffffep-1f, 0x1.fffffep-1f, F64FromBits(0)},
      {__LINE__, 0xffffff80u, 0x1.fffffep-1f, 1.0f, F64FromBits(0)},
  };
  for (const U32Case& c : cases) {
    SCOPED_TRACE("case at line " + std::to_string(c.line) + ", word 0x" + Hex32(c.w));
    EXPECT_TRUE(SameF32(UniformClosedOpen24F32(c.w), c.closed_open24));
    EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(c.w), c.curand_f32));
    if (c.w != 0xffffff7fu && c.w != 0xffffff80u) {
      EXPECT_TRUE(SameF64(UniformSglangF64(c.w), c.sglang_f64));
    }
  }
}

TEST(Uniform, HeaderExample) {
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0xffffffffu), 0x1.fffffep-1f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0), 0x1p-33f));
  EXPECT_TRUE(SameF64(UniformSglangF64(0xffffffffu), 1.0));
}

TEST(Uniform, SmallestPositiveValues) {
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0x100u), 0x1p-24f));   // first nonzero: w >= 256
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0xffu), 0.0f));        // 256 words map to 0
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0x800u, 0), 0x1p-53));  // w0 bits 11.. are used
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0x7ffu, 0), 0.0));
}

TEST(Uniform, ClosedOpen53FromTwoWords) {
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0, 0), 0.0));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0xffffffffu, 0xffffffffu), 0x1.fffffffffffffp-1));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0, 0x80000000u), 0.5));  // w1 is the high half
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0x80000000u, 0), 0x1p-33));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0xffffffffu, 0x7fffffffu), 0x1.ffffffffffffep-2));  // (2^52 - 1) 2^-53
}

TEST(Uniform, OpenClosedCurandF64) {
  // z = x ^ (y << 21); RN(z * 2^-53 + 2^-54).
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0, 0), 0x1p-54));           // z = 0
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(1, 0), 0x1.8p-53));         // z = 1: 3 * 2^-54
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0xffffffffu, 0), 0x1.ffffffffp-22));
  // z = 0x1fffff001fffff (bits 21..31 of x and y cancel).
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0xffffffffu, 0xffffffffu), 0x1.fffff002p-1));
  // z = 2^53 - 1: 1 - 2^-54 is a tie between 1 - 2^-53 (odd) and 1.0 (even) -> 1.0.
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0x001fffffu, 0xffffffffu), 1.0));
}

// ---------------------------------------------------------------------------------------------
// Noise laws. Constants: ln at 80 digits (Python decimal), rounded to the format.

constexpr float kPlusInfF32 = std::numeric_limits<float>::infinity();
constexpr double kPlusInfF64 = std::numeric_limits<double>::infinity();

TEST(Noise, HeaderExample) {
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(0x1p-24f), 0x1.0a2b24p+4f));  // RN_f32(24 ln2)
  EXPECT_TRUE(SameF64(GumbelSglangF64(1.0), 0x1.62e42fefa39efp+4));      // RN_f64(32 ln2)
}

TEST(Noise, ExponentialNegLogAtTheEnds) {
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(0.0f), kPlusInfF32));               // u = 0
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(1.0f), F32FromBits(0x80000000u)));  // -log 1 = -0.0
  EXPECT_TRUE(SameF64(ExponentialNegLogF64(1.0), F64FromBits(0x8000000000000000ull)));
  // Floors of the f32 uniforms: 24-bit [0,1) smallest positive 2^-24 -> 24 ln2 (16.6355);
  // cuRAND's smallest 2^-33 -> 33 ln2 = 0x1.6dfb52p+4 (22.8739).
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(UniformClosedOpen24F32(0x100u)), 0x1.0a2b24p+4f));
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(UniformOpenClosedCurandF32(0)), 0x1.6dfb52p+4f));
  // Largest u below 1 in the 24-bit law: -log(1 - 2^-24) = 2^-24 + 2^-49 + ... -> 2^-24.
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(UniformClosedOpen24F32(0xffffffffu)), 0x1p-24f));
}

TEST(Noise, ExponentialNegLog1pNegAtTheEnds) {
  EXPECT_TRUE(SameF32(ExponentialNegLog1pNegF32(0.0f), 0.0f));  // -log1p(-0) = -(-0) = +0
  EXPECT_TRUE(SameF32(ExponentialNegLog1pNegF32(1.0f), kPlusInfF32));
  // 24-bit law's largest u, 1 - 2^-24: -log(2^-24) = 24 ln2, the same floor as -log(u).
  EXPECT_TRUE(SameF32(ExponentialNegLog1pNegF32(0x1.fffffep-1f), 0x1.0a2b24p+4f));
  EXPECT_TRUE(SameF64(ExponentialNegLog1pNegF64(0.0), 0.0));
}

TEST(Noise, ExponentialTorchCudaClampsNearOne) {
  // PyTorch CUDA: u >= 1 - eps/2 -> log = -eps/2; eps(float) = 2^-23.
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(1.0f), 0x1p-24f));
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(0x1.fffffep-1f), 0x1p-24f));  // 1 - 2^-24
  // 1 - 2^-23 is below the threshold: -log(1 - 2^-23) = 2^-23 + 2^-47 + 2^-69/3 + ... rounds up
  // from the midpoint to 2^-23 + 2^-46 = 0x1.000002p-23.
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(0x1.fffffcp-1f), 0x1.000002p-23f));
  // Largest value from cuRAND's smallest uniform 2^-33.
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(UniformOpenClosedCurandF32(0)), 0x1.6dfb52p+4f));
  // f64: eps(double) = 2^-52, clamp 2^-53; 1 - 2^-53 is clamped, 1 - 2^-52 is not:
  // -log(1 - 2^-52) = 2^-52 + 2^-105 + ... -> 0x1.0000000000001p-52 (rounds up past the tie).
  EXPECT_TRUE(SameF64(ExponentialTorchCudaF64(1.0), 0x1p-53));
  EXPECT_TRUE(SameF64(ExponentialTorchCudaF64(0x1.fffffffffffffp-1), 0x1p-53));
  EXPECT_TRUE(SameF64(ExponentialTorchCudaF64(0x1.ffffffffffffep-1), 0x1.0000000000001p-52));
  // cuRAND f64's smallest uniform 2^-54 -> 54 ln2 = 0x1.2b708872320e2p+5.
  EXPECT_TRUE(SameF64(ExponentialTorchCudaF64(UniformOpenClosedCurandF64(0, 0)), 0x1.2b708872320e2p+5));
}

TEST(Noise, GumbelNegLogNegLogAtTheEnds) {
  EXPECT_TRUE(SameF32(GumbelNegLogNegLogF32(0.0f), -kPlusInfF32));  // -log(+inf)
  EXPECT_TRUE(SameF32(GumbelNegLogNegLogF32(1.0f), kPlusInfF32));   // -log(-0.0) = +inf
  EXPECT_TRUE(SameF64(GumbelNegLogNegLogF64(0.0), -kPlusInfF64));
  EXPECT_TRUE(SameF64(GumbelNegLogNegLogF64(1.0), kPlusInfF64));
  // 24-bit law: largest u -> -log(2^-24) = 24 ln2; smallest positive u = 2^-24 ->
  // -log(RN_f32(24 ln2)) = -0x1.67e092p+1; u = 0.5 -> -log(RN_f32(ln2)) = 0x1.774f2ap-2.
  EXPECT_TRUE(SameF32(GumbelNegLogNegLogF32(UniformClosedOpen24F32(0xffffffffu)), 0x1.0a2b24p+4f));
  EXPECT_TRUE(SameF32(GumbelNegLogNegLogF32(0x1p-24f), -0x1.67e092p+1f));
  EXPECT_TRUE(SameF32(GumbelNegLogNegLogF32(UniformClosedOpen24F32(0x80000000u)), 0x1.774f2ap-2f));
}

TEST(Noise, GumbelSglangClampsBothEnds) {
  // h = 0xffffffff: u = 1, log u = 0 clamped to -2^-32 -> 32 ln2 (not +inf).
  EXPECT_TRUE(SameF64(GumbelSglangFromHashF64(0xffffffffu), 0x1.62e42fefa39efp+4));
  // h = 0: u = 0, log u = -inf clamped to -DBL_MAX -> -log(DBL_MAX) = -RN(ln DBL_MAX)
  //   = -0x1.62e42fefa39efp+9 (-709.78).
  EXPECT_TRUE(SameF64(GumbelSglangFromHashF64(0), -0x1.62e42fefa39efp+9));
  // h = 0xfffffffe: u = 0x1.fffffffep-1, log u = -0x1.00000000800000p-32 < -2^-32: the clamp is
  // inactive; -log(2^-32 (1 + 2^-33)) = 0x1.62e42fef9b9efp+4.
  EXPECT_TRUE(SameF64(GumbelSglangFromHashF64(0xfffffffeu), 0x1.62e42fef9b9efp+4));
  // h = 1: u = 0x1.00000001p-32, -log u = 0x1.62e42fef939efp+4, Gumbel -0x1.8cb356b3cbea2p+1.
  EXPECT_TRUE(SameF64(GumbelSglangFromHashF64(1), -0x1.8cb356b3cbea2p+1));
}

// The seeded draw's candidates drop an entry whose hash word is at most a better-valued earlier
// entry's without scoring it (gpu/kernels/seeded_gumbel_candidates.cuh), which holds only if the
// noise never decreases as the word grows: every word next to both ends (where the clamps and
// the logs' largest relative steps are), the neighbours of 2^18 words spread over the range, and
// a walk through the whole range in steps of 65521.
TEST(Noise, GumbelSglangIsNonDecreasingInTheHash) {
  auto check_pair = [](std::uint32_t h) {
    const double lo = GumbelSglangFromHashF64(h);
    const double hi = GumbelSglangFromHashF64(h + 1);
    EXPECT_LE(lo, hi) << "h = " << h;
    return lo <= hi;
  };
  constexpr std::uint32_t kEnd = 1u << 18;
  for (std::uint32_t h = 0; h < kEnd; ++h) {
    if (!check_pair(h) || !check_pair(0xfffffffeu - h)) return;
  }
  std::uint32_t state = 12345;
  for (std::uint32_t i = 0; i < kEnd; ++i) {
    state = state * 1664525u + 1013904223u;  // Numerical Recipes' LCG: words spread over the range
    if (!check_pair(state == 0xffffffffu ? 0xfffffffeu : state)) return;
  }
  double last = GumbelSglangFromHashF64(0);
  for (std::uint64_t h = 65521; h <= 0xffffffffu; h += 65521) {
    const double g = GumbelSglangFromHashF64(static_cast<std::uint32_t>(h));
    ASSERT_LE(last, g) << "h = " << h;
    last = g;
  }
}

TEST(Noise, GumbelSglangMinClampOnlyIsInfiniteAtOne) {
  EXPECT_TRUE(SameF64(GumbelSglangMinClampF64(1.0), kPlusInfF64));
  EXPECT_TRUE(SameF64(GumbelSglangMinClampF64(0.0), -0x1.62e42fefa39efp+9));
  // Identical to the two-sided clamp everywhere else (spot checks).
  const std::uint32_t hs[] = {1, 2, 0x80000000u, 0xfffffffeu};
  for (std::uint32_t h : hs)
    EXPECT_TRUE(SameF64(GumbelSglangMinClampF64(UniformSglangF64(h)), GumbelSglangFromHashF64(h)))
        << "h 0x" << Hex32(h);
}

}  // namespace
}  // namespace sampcheck::rng

namespace sampcheck::rng {
namespace {

// The stream registry (reference/rng/streams.h): no two of sampcheck's own streams share a
// counter tag, so under one key they never share a Philox block.
TEST(RngStreams, TagsAreDistinct) {
  for (std::size_t i = 0; i < std::size(kAllStreams); ++i) {
    for (std::size_t j = i + 1; j < std::size(kAllStreams); ++j) {
      EXPECT_NE(static_cast<std::uint32_t>(kAllStreams[i]), static_cast<std::uint32_t>(kAllStreams[j]));
    }
  }
}

// SeedKey is cuRAND's key split: curand_init stores seed low word first (philox.h contract).
TEST(RngStreams, SeedKeyIsCurandsKeySplit) {
  for (std::uint64_t seed : {0ull, 1ull, 0x0123456789abcdefull, ~0ull}) {
    const CurandPhiloxState s = CurandPhiloxInit(seed, 0, 0);
    EXPECT_EQ(SeedKey(seed).v[0], s.key.v[0]);
    EXPECT_EQ(SeedKey(seed).v[1], s.key.v[1]);
  }
}

// Known answer: tests/rng_known_answers.txt row "philox4x32 10 00000001 00000000 00000000
// 00000000 00000001 00000000" (Random123 manual kat_vectors) is the stream block whose tag
// word is 0, i.e. StreamBlock's counter layout is {c0, c1, c2, tag} with the key from SeedKey.
TEST(RngStreams, BlockLayoutIsC0C1C2ThenTag) {
  const Philox4x32Block b = Philox4x32_10({{1, 0, 0, 0}}, SeedKey(1));
  EXPECT_EQ(b.v[3], 0xa7f66093u);
  const Philox4x32Block s = StreamBlock(Stream::kCountDraws, 1, 1, 0, 0);
  const Philox4x32Block direct = Philox4x32_10({{1, 0, 0, 0x5eed}}, {{1, 0}});
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.v[w], direct.v[w]);
}

}  // namespace
}  // namespace sampcheck::rng
