// SPDX-License-Identifier: Apache-2.0
// The grammar side of the token bitmask planted wrong (docs/spec/token_bitmask_fill.md "Planted
// faults"): each rejected by a golden case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - bitmask_fill_stale_tail      token_bitmask_fill's guided rows keep the reused buffer's
//                                bits at and past vocab_size -> token_bitmask_fill/mixed_batch_v100/
// - bitmask_fill_unguided_zero   token_bitmask_fill's unguided rows are all 0 (ban every
//                                token) instead of -1 -> token_bitmask_fill/mixed_batch_v100/
// - bitmask_fill_row_stride      token_bitmask_fill writes rows ceil(vocab_size / 32) words
//                                apart into a buffer read `words` apart
//                                -> token_bitmask_fill/padded_stride_v100_w8/
// - bitmask_id_narrowed_i32      token_bitmask_allowed narrows each id to int32 before the
//                                test (2^32 + t aliases t) -> token_bitmask_allowed/wide_ids/
// - bitmask_stop_never_cleared   token_bitmask_stop_tokens sets stop bits where the grammar can
//                                end and never clears them where it cannot
//                                -> token_bitmask_stop_tokens/stale_stop_bits/
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

// The grammar side of the bitmask (docs/spec/token_bitmask_fill.md "Planted faults"). The
// fill is the only stage with a spec_tokens input; its outputs are bitmask and indices.
bool IsBitmaskFill(const Case& c, const TensorMap& out) {
  return c.inputs.count("spec_tokens") && c.params.contains("vocab_size") && out.count("bitmask") && out.count("indices");
}

std::vector<bool> GuidedRows(const TensorMap& out) {
  std::vector<bool> guided(static_cast<std::size_t>(out.at("bitmask").dim(0)), false);
  for (std::int32_t r : out.at("indices").data<std::int32_t>()) guided[static_cast<std::size_t>(r)] = true;
  return guided;
}

// A guided row is filled bit by bit below vocab_size into the reused buffer, and the bits at
// and past vocab_size keep whatever the buffer held.
class BitmaskFillStaleTail final : public ExactFaultBackend {
 public:
  BitmaskFillStaleTail() : ExactFaultBackend("bitmask_fill_stale_tail") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    if (!IsBitmaskFill(c, out) || !c.inputs.count("buffer")) return out;
    const auto vocab = c.params["vocab_size"].get<std::int64_t>();
    Tensor& mask = out.at("bitmask");
    const std::int64_t words = mask.dim(1);
    auto* bits = reinterpret_cast<std::uint32_t*>(mask.data<std::int32_t>().data());
    const auto* old = reinterpret_cast<const std::uint32_t*>(c.inputs.at("buffer").data<std::int32_t>().data());
    const std::vector<bool> guided = GuidedRows(out);
    for (std::size_t r = 0; r < guided.size(); ++r) {
      if (!guided[r]) continue;
      for (std::int64_t t = vocab; t < 32 * words; ++t) {
        const std::int64_t w = static_cast<std::int64_t>(r) * words + t / 32;
        const std::uint32_t bit = std::uint32_t{1} << (t % 32);
        bits[w] = (bits[w] & ~bit) | (old[w] & bit);
      }
    }
    return out;
  }
};

// The batch bitmask starts from zeros instead of -1: unguided rows ban every token.
class BitmaskFillUnguidedZero final : public ExactFaultBackend {
 public:
  BitmaskFillUnguidedZero() : ExactFaultBackend("bitmask_fill_unguided_zero") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    if (!IsBitmaskFill(c, out)) return out;
    Tensor& mask = out.at("bitmask");
    const std::int64_t words = mask.dim(1);
    const std::vector<bool> guided = GuidedRows(out);
    for (std::size_t r = 0; r < guided.size(); ++r) {
      if (guided[r]) continue;
      for (std::int64_t w = 0; w < words; ++w) mask.data<std::int32_t>()[r * static_cast<std::size_t>(words) + static_cast<std::size_t>(w)] = 0;
    }
    return out;
  }
};

// Fill and apply disagree on the row stride: the rows are written ceil(vocab_size / 32)
// words apart into a buffer (all -1 to start with) that is read `words` apart.
class BitmaskFillRowStride final : public ExactFaultBackend {
 public:
  BitmaskFillRowStride() : ExactFaultBackend("bitmask_fill_row_stride") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    if (!IsBitmaskFill(c, out)) return out;
    const auto vocab = c.params["vocab_size"].get<std::int64_t>();
    const std::int64_t needed = (vocab + 31) / 32;
    Tensor& mask = out.at("bitmask");
    const std::int64_t rows = mask.dim(0), words = mask.dim(1);
    const std::vector<std::int32_t> right(mask.data<std::int32_t>().begin(), mask.data<std::int32_t>().end());
    auto flat = mask.data<std::int32_t>();
    for (auto& w : flat) w = -1;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t w = 0; w < needed; ++w) {
        flat[static_cast<std::size_t>(r * needed + w)] = right[static_cast<std::size_t>(r * words + w)];
      }
    }
    return out;
  }
};

// A token id is narrowed to int32 before its bit is tested: 2^32 + t aliases t. The only
// stage with an i64 token_ids input.
class BitmaskIdNarrowedI32 final : public ExactFaultBackend {
 public:
  BitmaskIdNarrowedI32() : ExactFaultBackend("bitmask_id_narrowed_i32") {}

 protected:
  Case Transform(const Case& c) override {
    auto it = c.inputs.find("token_ids");
    if (it == c.inputs.end() || it->second.dtype() != DType::kI64) return c;
    Case wrong = c;
    for (auto& id : wrong.inputs.at("token_ids").data<std::int64_t>()) id = static_cast<std::int32_t>(static_cast<std::uint32_t>(id));
    return wrong;
  }
};

// Stop bits are set where the grammar can end but never cleared where it cannot: a row that
// cannot end keeps the stop bits its buffer held. The only stage with a can_end input.
class BitmaskStopNeverCleared final : public ExactFaultBackend {
 public:
  BitmaskStopNeverCleared() : ExactFaultBackend("bitmask_stop_never_cleared") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    if (!c.inputs.count("can_end") || !c.inputs.count("bitmask") || !out.count("bitmask")) return out;
    const Tensor& before = c.inputs.at("bitmask");
    Tensor& after = out.at("bitmask");
    const std::int64_t words = after.dim(1);
    const auto ends = c.inputs.at("can_end").data<std::uint8_t>();
    for (std::size_t r = 0; r < ends.size(); ++r) {
      if (ends[r]) continue;
      for (std::int64_t w = 0; w < words; ++w) {
        const std::size_t at = r * static_cast<std::size_t>(words) + static_cast<std::size_t>(w);
        after.data<std::int32_t>()[at] = before.data<std::int32_t>()[at];  // only stop bits differ
      }
    }
    return out;
  }
};

std::unique_ptr<Backend> MakeBitmaskFillStaleTail() { return std::make_unique<BitmaskFillStaleTail>(); }

std::unique_ptr<Backend> MakeBitmaskFillUnguidedZero() { return std::make_unique<BitmaskFillUnguidedZero>(); }

std::unique_ptr<Backend> MakeBitmaskFillRowStride() { return std::make_unique<BitmaskFillRowStride>(); }

std::unique_ptr<Backend> MakeBitmaskIdNarrowedI32() { return std::make_unique<BitmaskIdNarrowedI32>(); }

std::unique_ptr<Backend> MakeBitmaskStopNeverCleared() { return std::make_unique<BitmaskStopNeverCleared>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(BitmaskFillStaleTail, {{"bitmask_fill_stale_tail", "the bitmask fill leaves the reused buffer's bits at and past vocab_size",
        "token_bitmask_fill/mixed_batch_v100/", "golden"},
       MakeBitmaskFillStaleTail});
SAMPCHECK_WRONG_SAMPLER(BitmaskFillUnguidedZero, {{"bitmask_fill_unguided_zero", "the batch bitmask's unguided rows are all 0 instead of all ones",
        "token_bitmask_fill/mixed_batch_v100/", "golden"},
       MakeBitmaskFillUnguidedZero});
SAMPCHECK_WRONG_SAMPLER(BitmaskFillRowStride, {{"bitmask_fill_row_stride", "fill writes rows ceil(V / 32) words apart, apply reads them `words` apart",
        "token_bitmask_fill/padded_stride_v100_w8/", "golden"},
       MakeBitmaskFillRowStride});
SAMPCHECK_WRONG_SAMPLER(BitmaskIdNarrowedI32, {{"bitmask_id_narrowed_i32", "a token id is narrowed to int32 before its bit is tested", "token_bitmask_allowed/wide_ids/",
        "golden"},
       MakeBitmaskIdNarrowedI32});
SAMPCHECK_WRONG_SAMPLER(BitmaskStopNeverCleared, {{"bitmask_stop_never_cleared", "stop bits are never cleared while the grammar cannot end",
        "token_bitmask_stop_tokens/stale_stop_bits/", "golden"},
       MakeBitmaskStopNeverCleared});

}  // namespace sampcheck::statistical
