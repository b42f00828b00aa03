// SPDX-License-Identifier: Apache-2.0
// The `huge` golden set's cases (golden/huge_cases.h, docs/spec/input_classes.md "Large
// indices").
#include "golden/huge_cases.h"

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/half.h"
#include "reference/row_threads.h"

namespace sampcheck::golden {

namespace {

constexpr std::int64_t kTwoTo31 = std::int64_t{1} << 31;
constexpr float kPlanted = 9.0f;  // above every k / 16 < 8

// SplitMix64's finalizer: the i-th output of the stream seeded with `key`, computed directly
// from i, so any element (and any row, on any thread) is generated without the others.
std::uint64_t CounterHash(std::uint64_t key, std::uint64_t i) {
  std::uint64_t z = key + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct SpecialRows {
  std::int64_t boundary_row, boundary_column, tie_row, last_row;
};

SpecialRows Special(std::int64_t rows, std::int64_t vocab) {
  const std::int64_t e = HugeBoundaryElement(rows, vocab);
  return {e / vocab, e % vocab, rows - 2, rows - 1};
}

std::int64_t FormulaColumn(std::int64_t row, std::int64_t vocab) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(row) * 2654435761ull) %
                                   static_cast<std::uint64_t>(vocab));
}

void CheckShape(std::int64_t rows, std::int64_t vocab) {
  if (vocab < 2 || vocab % 2 != 0 || rows < kHugeMinRows) {
    throw std::logic_error("huge cases: need rows >= " + std::to_string(kHugeMinRows) +
                           " and an even vocab >= 2, got [" + std::to_string(rows) + ", " +
                           std::to_string(vocab) + "]");
  }
  if (Special(rows, vocab).boundary_row >= rows - 2) {
    throw std::logic_error("huge cases: " + std::to_string(rows) + " rows leave no row past the one holding element " +
                           std::to_string(HugeBoundaryElement(rows, vocab)) + " for the tie and last-column rows");
  }
}

}  // namespace

std::int64_t HugeRowsFromEnvironment() {
  const char* text = std::getenv(kHugeRowsVariable);
  if (text == nullptr) return kHugeRows;
  const std::string value(text);
  std::int64_t rows = 0;
  bool ok = !value.empty() && value.size() <= 7;
  for (char ch : value) ok = ok && ch >= '0' && ch <= '9';
  if (ok) rows = std::stoll(value);
  ok = ok && rows >= kHugeMinRows && rows <= (std::int64_t{1} << 20) &&
       HugeBoundaryElement(rows, kHugeVocab) / kHugeVocab < rows - 2;
  if (!ok) {
    throw InputError(std::string(kHugeRowsVariable) + "='" + value + "': expected an integer in [" +
                     std::to_string(kHugeMinRows) + ", 2^20] leaving two rows past the row holding element 2^31 " +
                     "(e.g. 8 for a small test, or unset for " + std::to_string(kHugeRows) + ")");
  }
  return rows;
}

std::int64_t HugeBoundaryElement(std::int64_t rows, std::int64_t vocab) {
  return rows * vocab > kTwoTo31 ? kTwoTo31 : rows * vocab / 2 + vocab / 3;
}

std::int64_t HugeGreedyToken(std::int64_t row, std::int64_t rows, std::int64_t vocab) {
  const SpecialRows s = Special(rows, vocab);
  if (row == s.boundary_row) return s.boundary_column;
  if (row == s.tie_row) return FormulaColumn(row, vocab) % (vocab / 2);
  if (row == s.last_row) return vocab - 1;
  return FormulaColumn(row, vocab);
}

Tensor HugeGreedyLogits(std::int64_t rows, std::int64_t vocab, std::uint64_t key) {
  CheckShape(rows, vocab);
  // The 256 values k / 16, k in [-128, 128), as bf16 bits (exact: at most 8 significant bits).
  std::array<std::uint16_t, 256> table{};
  for (int k = 0; k < 256; ++k) table[static_cast<std::size_t>(k)] = F32ToBF16Bits(static_cast<float>(k - 128) / 16.0f);
  const std::uint16_t planted = F32ToBF16Bits(kPlanted);
  const SpecialRows s = Special(rows, vocab);
  // Every element is written below, so the 4.3 GB buffer is not zero-filled first.
  Tensor t = Tensor::Uninitialized(DType::kBF16, {rows, vocab});
  auto bits = t.data<std::uint16_t>();
  const auto v = static_cast<std::size_t>(vocab);
  reference::ParallelRows(rows, [&](std::int64_t r) {
    const std::size_t base = static_cast<std::size_t>(r) * v;  // 64-bit: the point of the set
    for (std::size_t i = 0; i < v; ++i) bits[base + i] = table[CounterHash(key, base + i) >> 56];
    const std::int64_t token = HugeGreedyToken(r, rows, vocab);
    bits[base + static_cast<std::size_t>(token)] = planted;
    if (r == s.tie_row) bits[base + static_cast<std::size_t>(token + vocab / 2)] = planted;
  });
  return t;
}

void AddHugeCases(CaseList& list, std::int64_t rows) {
  const std::string name = "huge_b" + std::to_string(rows) + "_v" + std::to_string(kHugeVocab);
  TensorMap inputs;  // built by emplace: a braced initializer list would copy the 4.3 GB tensor
  inputs.emplace("logits", HugeGreedyLogits(rows, kHugeVocab, list.Rng("greedy", name).Next()));
  list.Add("greedy", name, std::move(inputs));
}

}  // namespace sampcheck::golden
