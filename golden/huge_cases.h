// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `huge` golden set (docs/spec/input_classes.md "Large indices"): inputs whose B x V
// exceeds 2^31 elements, so a row offset b * V computed in 32-bit arithmetic overflows.
// Generated on demand (`sampcheck golden generate --set huge`), never checked in; the slow
// test tests/huge_set_test.sh generates, verifies and checks it against HugeGreedyToken's
// formula.
//
// greedy/huge_b<B>_v<V>/canonical: bf16 logits [B, V] (V = 151936, B = 14200 by default:
// 2 157 491 200 elements, 4.3 GB, 65.9 rows' worth above 2^31) with values k / 16,
// k in [-128, 128), from a counter hash of the flat index (no std:: distribution, one pass),
// and each row's maximum, 9.0 (no other entry reaches 8), planted by a closed formula:
//   boundary row  (the row holding flat index E, E = 2^31 when B x V > 2^31): column E - r V,
//                 i.e. the first element at or past 2^31;
//   tie row       (r = B - 2): 9.0 at a = m_r mod (V / 2) and at a + V / 2; the answer is a
//                 (the lowest index among equal maxima, docs/spec/greedy.md);
//   last row      (r = B - 1): column V - 1;
//   every other row: column m_r = (r * 2654435761) mod V.
// With B = 14200 the boundary row is 14134 (2^31 = 14134 V + 20224) and the tie and last rows
// (14198, 14199) lie wholly past 2^31. For a small instance (B x V <= 2^31) E is B V / 2 + V / 3, so the same rows
// exist and a unit test at B x V ~ 1e6 runs the same code and formula.

#include <cstdint>

#include "core/tensor.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

inline constexpr std::int64_t kHugeRows = 14200;
inline constexpr std::int64_t kHugeVocab = 151936;
// Overrides kHugeRows for testing the slow test itself at a small size (a positive integer,
// at least kHugeMinRows); the case name records B, so such a set never passes for the real one.
inline constexpr char kHugeRowsVariable[] = "SAMPCHECK_HUGE_ROWS";
inline constexpr std::int64_t kHugeMinRows = 6;

// kHugeRows, or SAMPCHECK_HUGE_ROWS when set (InputError when it is not an integer in
// [kHugeMinRows, 2^20]).
std::int64_t HugeRowsFromEnvironment();

// The flat index whose row gets the boundary maximum: 2^31 when rows x vocab > 2^31, else
// rows x vocab / 2 + vocab / 3.
std::int64_t HugeBoundaryElement(std::int64_t rows, std::int64_t vocab);
// The planted argmax of row r of HugeGreedyLogits(rows, vocab, key) (any key).
std::int64_t HugeGreedyToken(std::int64_t row, std::int64_t rows, std::int64_t vocab);
// bf16 [rows, vocab] as described above; rows >= kHugeMinRows, vocab >= 2 and even.
// `key` seeds the counter hash.
Tensor HugeGreedyLogits(std::int64_t rows, std::int64_t vocab, std::uint64_t key);

// Adds the huge cases at `rows` rows (kHugeRows for the set itself).
void AddHugeCases(CaseList& list, std::int64_t rows);

}  // namespace sampcheck::golden
