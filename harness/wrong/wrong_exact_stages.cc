// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong backends for exact-tier stages (harness/wrong/wrong_exact_stages.h).
#include "harness/wrong/wrong_exact_stages.h"

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
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

// The reference with one hook on the case (before Run) and one on the outputs (after).
class ExactFaultBackend : public Backend {
 public:
  explicit ExactFaultBackend(std::string name) : name_("wrong:" + std::move(name)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return CorruptFor(c, ref_.Run(stage, Transform(c))); }
  // The reference's, but no ranges: CountDraws is the only count this wrapper forwards.
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = ref_.Capabilities(stage);
    caps.count_draws_range = false;
    return caps;
  }
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    return ref_.CountDraws(stage, c, draws, seed);
  }

 protected:
  virtual Case Transform(const Case& c) { return c; }
  virtual TensorMap Corrupt(TensorMap out) { return out; }
  // As Corrupt, for a bug whose corruption depends on the case's inputs.
  virtual TensorMap CorruptFor(const Case& /*c*/, TensorMap out) { return Corrupt(std::move(out)); }

 private:
  reference::ReferenceBackend ref_;
  std::string name_;
};

class LogprobRankOffByOne final : public ExactFaultBackend {
 public:
  LogprobRankOffByOne() : ExactFaultBackend("logprob_rank_off_by_one") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("token_rank");
    if (it == out.end()) return out;
    for (auto& r : it->second.data<std::int64_t>()) r -= 1;  // #greater, the +1 forgotten
    return out;
  }
};

class LogprobTopRanksDedup final : public ExactFaultBackend {
 public:
  LogprobTopRanksDedup() : ExactFaultBackend("logprob_top_ranks_dedup") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    auto ranks = out.find("top_ranks");
    auto token = c.inputs.find("token");
    if (ranks == out.end() || token == c.inputs.end() || ranks->second.rank() != 2) return out;
    const std::int64_t rows = ranks->second.dim(0), n = ranks->second.dim(1);
    const auto ids = out.at("top_ids").data<std::int64_t>();
    auto r = ranks->second.data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t tok = token->second.data<std::int64_t>()[static_cast<std::size_t>(b)];
      bool after = false;  // the sampled token taken out of the list: the ids after it move up one
      for (std::int64_t j = 0; j < n; ++j) {
        const auto k = static_cast<std::size_t>(b * n + j);
        if (after) r[k] -= 1;
        if (ids[k] == tok) after = true;
      }
    }
    return out;
  }
};

class LogprobsBeforeTemperature final : public ExactFaultBackend {
 public:
  LogprobsBeforeTemperature() : ExactFaultBackend("logprobs_before_temperature") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("mode") || !c.params["mode"].is_string()) return c;
    if (c.params["mode"].get<std::string>().rfind("processed_", 0) != 0) return c;
    Case wrong = c;
    wrong.inputs.erase("temperature");  // every row at temperature 1
    return wrong;
  }
};

class FinishMinTokensIgnored final : public ExactFaultBackend {
 public:
  FinishMinTokensIgnored() : ExactFaultBackend("finish_min_tokens_ignored") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.inputs.count("min_tokens") || !c.inputs.count("max_tokens")) return c;
    Case wrong = c;
    for (auto& m : wrong.inputs.at("min_tokens").data<std::int32_t>()) m = 0;
    return wrong;
  }
};

// Runs the decode steps under wrong rules: the only stage whose logits are rank 3.
class DecodeStepsFault final : public ExactFaultBackend {
 public:
  DecodeStepsFault(std::string name, reference::DecodeStepsRules rules)
      : ExactFaultBackend(std::move(name)), rules_(rules) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3) return ExactFaultBackend::Run(stage, c);
    return reference::RunDecodeStepsWith(c, c.profile, rules_);
  }

 private:
  reference::DecodeStepsRules rules_;
};

// A decode-steps row's seed depends on its batch slot (seed + slot), as when a per-request
// generator is looked up by slot instead of by request: the only stage whose logits are rank 3.
class DecodeSeedFromSlot final : public ExactFaultBackend {
 public:
  DecodeSeedFromSlot() : ExactFaultBackend("decode_seed_from_slot") {}

 protected:
  Case Transform(const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3 || !c.inputs.count("seed")) return c;
    Case wrong = c;
    auto seeds = wrong.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 0; b < seeds.size(); ++b) {
      seeds[b] = static_cast<std::int64_t>(static_cast<std::uint64_t>(seeds[b]) + b);
    }
    return wrong;
  }
};

class FlashinferNanRowValid final : public ExactFaultBackend {
 public:
  FlashinferNanRowValid() : ExactFaultBackend("flashinfer_nan_row_valid") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("valid");
    if (it == out.end() || !out.count("rounds")) return out;
    for (auto& v : it->second.data<std::uint8_t>()) v = 1;  // the NaN row's flag forgotten
    return out;
  }
};

class FlashinferIgnoresTopK final : public ExactFaultBackend {
 public:
  FlashinferIgnoresTopK() : ExactFaultBackend("flashinfer_ignores_top_k") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.inputs.count("top_k")) return c;
    Case wrong = c;
    for (auto& k : wrong.inputs.at("top_k").data<std::int32_t>()) k = -1;  // uint32 2^32 - 1: no limit
    return wrong;
  }
};

// The top_k_first order asked, the joint kernel run (the filter_apply_order parameter
// dropped: joint is the stage's default).
class FlashinferTopKFirstAsJoint final : public ExactFaultBackend {
 public:
  FlashinferTopKFirstAsJoint() : ExactFaultBackend("flashinfer_top_k_first_as_joint") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.params.contains("filter_apply_order")) return c;
    Case wrong = c;
    wrong.params.erase("filter_apply_order");
    return wrong;
  }
};

// The joint order asked (the top_k_top_p kernel without filter_apply_order, or "joint"),
// top_k_first run.
class FlashinferJointAsTopKFirst final : public ExactFaultBackend {
 public:
  FlashinferJointAsTopKFirst() : ExactFaultBackend("flashinfer_joint_as_top_k_first") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || c.params["kernel"] != "top_k_top_p") return c;
    Case wrong = c;
    wrong.params["filter_apply_order"] = "top_k_first";
    return wrong;
  }
};

// Runs the speculative step under wrong rules: the only stage with a draft_ids input and
// target logits (not probabilities).
class SpecStepFault final : public ExactFaultBackend {
 public:
  SpecStepFault(std::string name, reference::SpecStepRules rules) : ExactFaultBackend(std::move(name)), rules_(rules) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (!c.inputs.count("draft_ids") || !c.inputs.count("target_logits") || !c.inputs.count("temperature")) {
      return ExactFaultBackend::Run(stage, c);
    }
    return reference::RunSpecStepWith(c, c.profile, rules_);
  }

 private:
  reference::SpecStepRules rules_;
};

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

// The draws given their noise whose row is degenerate (docs/spec/draws.md "Degenerate rows"):
// the distribution (`logprobs` scores or `probs`) and its rank-2 noise (`gumbel` or `q`), or
// null pointers when the case is not such a draw.
struct DrawRows {
  const Tensor* dist = nullptr;
  const Tensor* noise = nullptr;
  bool scores = false;  // logprobs (-inf = nothing) rather than probs (0 = nothing)
};
DrawRows FindDrawRows(const Case& c) {
  DrawRows d;
  for (const char* name : {"gumbel", "q"}) {
    auto it = c.inputs.find(name);
    if (it != c.inputs.end() && it->second.rank() == 2) d.noise = &it->second;
  }
  for (const char* name : {"logprobs", "probs"}) {
    auto it = c.inputs.find(name);
    if (it != c.inputs.end() && it->second.rank() == 2) d.dist = &it->second, d.scores = std::string(name) == "logprobs";
  }
  // f32 rows only (the degenerate-row goldens are f32).
  if (!d.noise || !d.dist || d.dist->dtype() != DType::kF32 || d.dist->shape() != d.noise->shape()) return {};
  return d;
}

// A row with nothing drawable returns the identity lane of a 32-wide tiled reduction.
class DrawEmptyRowPadLane final : public ExactFaultBackend {
 public:
  DrawEmptyRowPadLane() : ExactFaultBackend("draw_empty_row_pad_lane") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const DrawRows d = FindDrawRows(c);
    auto token = out.find("token");
    if (!d.dist || token == out.end()) return out;
    const std::int64_t rows = d.dist->dim(0), vocab = d.dist->dim(1);
    for (std::int64_t b = 0; b < rows; ++b) {
      bool empty = true;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float x = d.dist->data<float>()[static_cast<std::size_t>(b * vocab + i)];
        empty = empty && (d.scores ? x == -std::numeric_limits<float>::infinity() : x == 0.0f);
      }
      if (empty) token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = (vocab + 31) / 32 * 32;
    }
    return out;
  }
};

// A row holding a NaN: the NaN replaced by a constant and the row drawn uniformly, which for
// a race is the token of the best noise alone.
class DrawNanAsConstant final : public ExactFaultBackend {
 public:
  DrawNanAsConstant() : ExactFaultBackend("draw_nan_as_constant") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const DrawRows d = FindDrawRows(c);
    auto token = out.find("token");
    if (!d.dist || token == out.end()) return out;
    const std::int64_t rows = d.dist->dim(0), vocab = d.dist->dim(1);
    const auto noise = d.noise->data<float>();
    for (std::int64_t b = 0; b < rows; ++b) {
      bool nan = false;
      for (std::int64_t i = 0; i < vocab; ++i) nan = nan || std::isnan(d.dist->data<float>()[static_cast<std::size_t>(b * vocab + i)]);
      if (!nan) continue;
      std::int64_t best = 0;
      for (std::int64_t i = 1; i < vocab; ++i) {
        const float x = noise[static_cast<std::size_t>(b * vocab + i)], y = noise[static_cast<std::size_t>(b * vocab + best)];
        if (d.scores ? x > y : x < y) best = i;  // Gumbel: the largest; Exp(1): the smallest
      }
      token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    return out;
  }
};

// The rows of a pipeline case (f32 `logits` [B, V] beside `temperature` [B]), or null.
const Tensor* PipelineLogits(const Case& c) {
  auto logits = c.inputs.find("logits");
  auto temp = c.inputs.find("temperature");
  if (logits == c.inputs.end() || temp == c.inputs.end() || logits->second.rank() != 2 ||
      logits->second.dtype() != DType::kF32 || temp->second.rank() != 1) {
    return nullptr;
  }
  return &logits->second;
}

class PipelineInfSoftmaxTokenZero final : public ExactFaultBackend {
 public:
  PipelineInfSoftmaxTokenZero() : ExactFaultBackend("pipeline_inf_softmax_token_zero") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* logits = PipelineLogits(c);
    auto token = out.find("token");
    if (!logits || token == out.end()) return out;
    const std::int64_t rows = logits->dim(0), vocab = logits->dim(1);
    const auto x = logits->data<float>();
    const auto temp = c.inputs.at("temperature").data<float>();
    for (std::int64_t b = 0; b < rows; ++b) {
      if (!(temp[static_cast<std::size_t>(b)] >= 1e-5f)) continue;  // greedy rows take the argmax
      bool inf = false, nan = false;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float v = x[static_cast<std::size_t>(b * vocab + i)];
        inf = inf || v == std::numeric_limits<float>::infinity();
        nan = nan || std::isnan(v);
      }
      if (inf && !nan) token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = 0;  // the NaN softmax's argmax
    }
    return out;
  }
};

class PipelineDegenerateRowAbortsBatch final : public ExactFaultBackend {
 public:
  PipelineDegenerateRowAbortsBatch() : ExactFaultBackend("pipeline_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* logits = PipelineLogits(c);
    if (!logits) return c;
    const std::int64_t rows = logits->dim(0), vocab = logits->dim(1);
    for (std::int64_t b = 0; b < rows; ++b) {
      bool finite = false, bad = false;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float v = logits->data<float>()[static_cast<std::size_t>(b * vocab + i)];
        finite = finite || std::isfinite(v);
        bad = bad || std::isnan(v) || v == std::numeric_limits<float>::infinity();
      }
      if (bad || !finite) throw InputError("row " + std::to_string(b) + " is degenerate: device-side assert, the batch is lost");
    }
    return c;
  }
};

// A penalties kernel that clamps a prompt id into the row (min(id, V - 1)) instead of
// ignoring an id past the vocabulary: the last token is penalised as if it were in the prompt.
class PenaltiesPromptIdClamped final : public ExactFaultBackend {
 public:
  PenaltiesPromptIdClamped() : ExactFaultBackend("penalties_prompt_id_clamped") {}

 protected:
  Case Transform(const Case& c) override {
    auto logits = c.inputs.find("logits");
    auto prompt = c.inputs.find("prompt_ids");
    // Every case with a penalties step (the stage, the pipeline): logits [B, V] and prompt ids.
    if (logits == c.inputs.end() || prompt == c.inputs.end() || logits->second.rank() != 2 ||
        prompt->second.dtype() != DType::kI32) {
      return c;
    }
    Case clamped = c;
    const auto last = static_cast<std::int32_t>(logits->second.dim(1) - 1);
    for (std::int32_t& id : clamped.inputs.at("prompt_ids").data<std::int32_t>()) id = id > last ? last : id;  // the bug
    return clamped;
  }
};

// Race and Gumbel noise narrowed to f16 before the draw (docs/spec/draws.md "Half-precision
// rows and narrowed noise"), as a kernel that keeps its noise in the probabilities' dtype does
// (`torch.empty_like(probs).exponential_()` on an f16 row). Keyed on the catalogue: a stage
// whose inputs are a [B, V] row (role probs or scores) and [B, V] noise of the harness's
// exponential or Gumbel law, with no parameters (exponential_race, gumbel_max).
// - Gumbel: each g rounded to f16 (finite at |g| < 65504), then the reference's draw.
// - Race: each q rounded to f16, so q below 2^-25 becomes 0; the ratio p / q in f32 is then
//   +inf (p > 0) or NaN (p = 0), and the argmax is torch's: NaN ranks above every number, the
//   first maximum wins; canonical candidates stay the positive probabilities, vllm's are all.
class NoiseNarrowedF16 final : public ExactFaultBackend {
 public:
  NoiseNarrowedF16(std::string name, HarnessNoise law) : ExactFaultBackend(std::move(name)), law_(law) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    const StageInfo* info = FindStage(stage);
    if (info == nullptr || info->draw.noise != law_ || !info->params.empty() || info->inputs.size() != 2) {
      return ExactFaultBackend::Run(stage, c);
    }
    const TensorSpec* noise = info->InputWithRole(Role::kNoise);
    const TensorSpec& row = info->inputs[0].role == Role::kNoise ? info->inputs[1] : info->inputs[0];
    if (noise == nullptr || !c.inputs.count(noise->name) || !c.inputs.count(row.name) ||
        c.inputs.at(noise->name).rank() != 2 || c.inputs.at(noise->name).dtype() != DType::kF32) {
      return ExactFaultBackend::Run(stage, c);
    }
    Case narrowed = c;
    for (float& x : narrowed.inputs.at(noise->name).data<float>()) x = F16BitsToF32(F32ToF16Bits(x));  // the bug
    if (law_ == HarnessNoise::kGumbel) return ExactFaultBackend::Run(stage, narrowed);
    const Tensor probs = reference::UpcastToF32(c.inputs.at(row.name), row.name);
    const auto p32 = probs.data<float>();
    const auto q = narrowed.inputs.at(noise->name).data<float>();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    Tensor token(DType::kI64, {rows});
    for (std::int64_t b = 0; b < rows; ++b) {
      std::int64_t best = -1;
      float best_ratio = 0.0f;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float p = p32[static_cast<std::size_t>(b * vocab + i)];
        if (c.profile != Profile::kVllm && !(p > 0.0f)) continue;
        const float r = p / q[static_cast<std::size_t>(b * vocab + i)];
        if (best < 0 || (std::isnan(r) && !std::isnan(best_ratio)) || r > best_ratio) {
          best = i;
          best_ratio = r;
        }
      }
      token.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    TensorMap out;
    out.emplace("token", std::move(token));
    return out;
  }

 private:
  HarnessNoise law_;
};

// vLLM's per-request generators (reference/pipeline.h): faults of a case whose rows carry
// `seeded` under vllm.
bool HasVllmGenerators(const Case& c) { return c.profile == Profile::kVllm && c.inputs.count("seeded") && c.inputs.count("seed"); }

class VllmGeneratorSeedRow0 final : public ExactFaultBackend {
 public:
  VllmGeneratorSeedRow0() : ExactFaultBackend("vllm_generator_seed_row0") {}

 protected:
  Case Transform(const Case& c) override {
    if (!HasVllmGenerators(c)) return c;
    Case wrong = c;
    auto seeds = wrong.inputs.at("seed").data<std::int64_t>();
    std::fill(seeds.begin(), seeds.end(), seeds.empty() ? 0 : seeds[0]);  // the bug: element 0 for every row
    return wrong;
  }
};

class VllmGeneratorGlobalNoise final : public ExactFaultBackend {
 public:
  VllmGeneratorGlobalNoise() : ExactFaultBackend("vllm_generator_global_noise") {}

 protected:
  Case Transform(const Case& c) override {
    if (!HasVllmGenerators(c)) return c;
    const auto seeded = c.inputs.at("seeded").data<std::uint8_t>();
    if (std::all_of(seeded.begin(), seeded.end(), [](std::uint8_t s) { return s != 0; })) return c;
    Case wrong = c;
    wrong.inputs.erase("seeded");  // the bug: one row without a seed sends every row to the global q
    return wrong;
  }
};

class VllmGeneratorOffsetStuck final : public ExactFaultBackend {
 public:
  VllmGeneratorOffsetStuck() : ExactFaultBackend("vllm_generator_offset_stuck") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3 || !HasVllmGenerators(c) || !c.inputs.count("positions")) {
      return ExactFaultBackend::Run(stage, c);
    }
    const Tensor start = c.inputs.at("positions");
    return reference::RunDecodeStepsOn(c, c.profile, {}, [&](const Case& step) {
      Case stuck = step;
      stuck.inputs.insert_or_assign("positions", start);  // the bug: the generator never advances
      return reference::RunPipeline(stuck, c.profile);
    });
  }
};

// Tensor-parallel ranks (docs/spec/tp_consensus.md "Per-rank draws"): faults of a pipeline case
// that names its rank (param tp_rank), on its seed input.
class TpRankFault final : public ExactFaultBackend {
 public:
  enum class Kind { kRankKeyed, kUnseeded };
  TpRankFault(std::string name, Kind kind) : ExactFaultBackend(std::move(name)), kind_(kind) {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("tp_rank") || !c.params["tp_rank"].is_number_integer() || !c.inputs.count("seed")) return c;
    const auto rank = c.params["tp_rank"].get<std::uint64_t>();
    Case wrong = c;
    for (auto& s : wrong.inputs.at("seed").data<std::int64_t>()) {
      // kRankKeyed: the seed plus the rank (rank 0 draws right); kUnseeded: a per-rank stream
      // advanced at every call, which no seed keys (torch.rand without a generator on each rank).
      const std::uint64_t u = kind_ == Kind::kRankKeyed ? static_cast<std::uint64_t>(s) + rank : unseeded_.Next() ^ rank;
      s = static_cast<std::int64_t>(u);
    }
    return wrong;
  }

 private:
  Kind kind_;
  SplitMix64 unseeded_{0x7a2u};
};

}  // namespace

std::unique_ptr<Backend> MakeLogprobRankOffByOne() { return std::make_unique<LogprobRankOffByOne>(); }
std::unique_ptr<Backend> MakeLogprobTopRanksDedup() { return std::make_unique<LogprobTopRanksDedup>(); }
std::unique_ptr<Backend> MakeLogprobsBeforeTemperature() { return std::make_unique<LogprobsBeforeTemperature>(); }
std::unique_ptr<Backend> MakeFinishMinTokensIgnored() { return std::make_unique<FinishMinTokensIgnored>(); }
std::unique_ptr<Backend> MakeDecodeOffsetNotAdvanced() {
  return std::make_unique<DecodeStepsFault>("decode_offset_not_advanced", reference::DecodeStepsRules{0, true});
}
std::unique_ptr<Backend> MakeFlashinferNanRowValid() { return std::make_unique<FlashinferNanRowValid>(); }
std::unique_ptr<Backend> MakeFlashinferIgnoresTopK() { return std::make_unique<FlashinferIgnoresTopK>(); }
std::unique_ptr<Backend> MakeSpecStepUnfilteredDraft() {
  return std::make_unique<SpecStepFault>("spec_step_unfiltered_draft", reference::SpecStepRules{false, true});
}
std::unique_ptr<Backend> MakeSpecStepStopIgnored() {
  return std::make_unique<SpecStepFault>("spec_step_stop_ignored", reference::SpecStepRules{true, false});
}
std::unique_ptr<Backend> MakeFlashinferTopKFirstAsJoint() { return std::make_unique<FlashinferTopKFirstAsJoint>(); }
std::unique_ptr<Backend> MakeFlashinferJointAsTopKFirst() { return std::make_unique<FlashinferJointAsTopKFirst>(); }
std::unique_ptr<Backend> MakeSpecStepVllmMinPVerified() {
  reference::SpecStepRules rules;
  rules.vllm_min_p_verified = true;
  return std::make_unique<SpecStepFault>("spec_step_vllm_min_p_verified", rules);
}
std::unique_ptr<Backend> MakeSpecStepVllmFilteredDraft() {
  reference::SpecStepRules rules;
  rules.vllm_filter_draft = true;
  return std::make_unique<SpecStepFault>("spec_step_vllm_filtered_draft", rules);
}
std::unique_ptr<Backend> MakeSpecStepSglangReusedCoin() {
  reference::SpecStepRules rules;
  rules.sglang_reuse_coin = true;
  return std::make_unique<SpecStepFault>("spec_step_sglang_reused_coin", rules);
}
std::unique_ptr<Backend> MakeSpecStepSglangUnfilteredAcceptance() {
  reference::SpecStepRules rules;
  rules.sglang_unfiltered_acceptance = true;
  return std::make_unique<SpecStepFault>("spec_step_sglang_unfiltered_acceptance", rules);
}
std::unique_ptr<Backend> MakeDecodeSeedFromSlot() { return std::make_unique<DecodeSeedFromSlot>(); }
std::unique_ptr<Backend> MakeDecodeHistoryNotUpdated() {
  return std::make_unique<DecodeStepsFault>("decode_history_not_updated", reference::DecodeStepsRules{1, false});
}

std::unique_ptr<Backend> MakeBitmaskFillStaleTail() { return std::make_unique<BitmaskFillStaleTail>(); }
std::unique_ptr<Backend> MakeBitmaskFillUnguidedZero() { return std::make_unique<BitmaskFillUnguidedZero>(); }
std::unique_ptr<Backend> MakeBitmaskFillRowStride() { return std::make_unique<BitmaskFillRowStride>(); }
std::unique_ptr<Backend> MakeBitmaskIdNarrowedI32() { return std::make_unique<BitmaskIdNarrowedI32>(); }
std::unique_ptr<Backend> MakeBitmaskStopNeverCleared() { return std::make_unique<BitmaskStopNeverCleared>(); }
std::unique_ptr<Backend> MakeDrawEmptyRowPadLane() { return std::make_unique<DrawEmptyRowPadLane>(); }
std::unique_ptr<Backend> MakeDrawNanAsConstant() { return std::make_unique<DrawNanAsConstant>(); }
std::unique_ptr<Backend> MakePipelineInfSoftmaxTokenZero() { return std::make_unique<PipelineInfSoftmaxTokenZero>(); }
std::unique_ptr<Backend> MakePipelineDegenerateRowAbortsBatch() {
  return std::make_unique<PipelineDegenerateRowAbortsBatch>();
}
std::unique_ptr<Backend> MakePenaltiesPromptIdClamped() { return std::make_unique<PenaltiesPromptIdClamped>(); }
std::unique_ptr<Backend> MakeRaceNoiseF16() { return std::make_unique<NoiseNarrowedF16>("race_noise_f16", HarnessNoise::kExponential); }
std::unique_ptr<Backend> MakeGumbelNoiseF16() { return std::make_unique<NoiseNarrowedF16>("gumbel_noise_f16", HarnessNoise::kGumbel); }
std::unique_ptr<Backend> MakeVllmGeneratorSeedRow0() { return std::make_unique<VllmGeneratorSeedRow0>(); }
std::unique_ptr<Backend> MakeVllmGeneratorGlobalNoise() { return std::make_unique<VllmGeneratorGlobalNoise>(); }
std::unique_ptr<Backend> MakeVllmGeneratorOffsetStuck() { return std::make_unique<VllmGeneratorOffsetStuck>(); }
std::unique_ptr<Backend> MakeTpRankKeyedNoise() {
  return std::make_unique<TpRankFault>("tp_rank_keyed_noise", TpRankFault::Kind::kRankKeyed);
}
std::unique_ptr<Backend> MakeTpUnseededRankUniforms() {
  return std::make_unique<TpRankFault>("tp_unseeded_rank_uniforms", TpRankFault::Kind::kUnseeded);
}

}  // namespace sampcheck::statistical
