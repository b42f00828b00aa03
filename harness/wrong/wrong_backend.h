// SPDX-License-Identifier: Apache-2.0
#pragma once
// The wrappers the planted faults are built from (harness/wrong/wrong_samplers.h): the
// reference with a case transformation in front of Run and CountDraws (WrappingBackend), its
// own-randomness race (OwnRaceBackend), the reference with hooks on the case and the outputs
// (ExactFaultBackend), the speculative step under wrong rules (SpecStepFault), and the row
// helpers the families share. For the family files in
// harness/wrong/ only.
//
// Contract:
// - Every wrapper is named "wrong:<name>", supports the reference's stages and declares the
//   reference's capabilities except count_draws_range (a range would bypass the bug planted in
//   front of CountDraws). What it does not override behaves exactly as the reference.
// - Deterministic: a wrapper's own draws are functions of (seed, row, draw).
// Example: a WrappingBackend whose Transform returns the case unchanged runs exactly as the
//   reference (tests/backend_wrapper_test.cc checks the capabilities).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/case.h"
#include "core/stage_catalogue.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"
#include "statistical/detail/numeric.h"

namespace sampcheck::statistical {

// The stages a planted bug targets, found by their catalogue roles (the exact law their token
// follows) rather than by name: kPipeline is the pipeline.
bool DrawsTo(const std::string& stage, ExactTargetKind target);
// Speculative rejection sampling on given probabilities (spec_random): the first-token law over
// a kProbs target (the whole speculative step also draws its first token, from logits).
bool IsSpecOnProbs(const std::string& stage);
// An exponential race over the stage's probabilities: the normalised-probs law drawn with
// Exp(1) noise (exponential_race, and Ascend's qsample, whose |q| + eps is the same race).
bool IsExponentialRace(const std::string& stage);
// Token ids in the filter order: larger value first, ties by lower (or higher) index.
std::vector<std::int64_t> Order(std::span<const float> row, bool higher_index_first);
// The first k tokens of Order(row, higher_index_first).
std::vector<bool> FirstK(std::span<const float> row, std::int64_t k, bool higher_index_first);
// A sized form (temperature_x<t>, diffuse_tv<tau>, mass_shift_tv<tau>, leak<m>;
// harness/wrong/wrong_sized_faults.cc), nullptr for any other name; throws
// std::invalid_argument for a size out of its range.
std::unique_ptr<Backend> MakeSizedFault(const std::string& name);

// The reference with a case transformation in front of Run and CountDraws.
class WrappingBackend : public Backend {
 public:
  explicit WrappingBackend(std::string name) : name_("wrong:" + std::move(name)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return ref_.Run(stage, Transform(stage, c, false)); }
  // The case as the fault hands it to the reference's Run (SizedFaultTv).
  Case AsRun(const std::string& stage, const Case& c) { return Transform(stage, c, false); }
  // The reference's, but no ranges: the planted bugs are in front of CountDraws only.
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = ref_.Capabilities(stage);
    caps.count_draws_range = false;
    return caps;
  }
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    return ref_.CountDraws(stage, Transform(stage, c, true), draws, seed);
  }

 protected:
  virtual Case Transform(const std::string& /*stage*/, const Case& c, bool /*own_randomness*/) { return c; }
  reference::ReferenceBackend ref_;

 private:
  std::string name_;
};

// Mutable f32 / i32 views of a pipeline case's per-row tensors.
struct PipelineRows {
  Case c;
  std::int64_t rows = 0, vocab = 0;
  std::span<float> logits;

  explicit PipelineRows(const Case& in) : c(in) {
    Tensor l = reference::UpcastToF32(c.inputs.at("logits"), "logits");
    rows = l.dim(0);
    vocab = l.dim(1);
    c.inputs.erase("logits");
    c.inputs.emplace("logits", std::move(l));
    logits = c.inputs.at("logits").data<float>();
  }
  std::span<float> Row(std::int64_t b) { return logits.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)); }
  float Get(const char* name, std::int64_t b, float absent) const {
    auto it = c.inputs.find(name);
    if (it == c.inputs.end()) return absent;
    if (it->second.dtype() == DType::kI32) return static_cast<float>(it->second.data<std::int32_t>()[static_cast<std::size_t>(b)]);
    return reference::UpcastToF32(it->second, name).data<float>()[static_cast<std::size_t>(b)];
  }
  void Set(const char* name, std::int64_t b, float value) {
    auto it = c.inputs.find(name);
    if (it == c.inputs.end()) return;
    if (it->second.dtype() == DType::kI32) {
      it->second.data<std::int32_t>()[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(value);
    } else if (it->second.dtype() == DType::kF32) {
      it->second.data<float>()[static_cast<std::size_t>(b)] = value;
    }
  }
  // Keeps only the tokens with keep[i], as -inf logits elsewhere.
  void Mask(std::int64_t b, const std::vector<bool>& keep) {
    auto row = Row(b);
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (!keep[i]) row[i] = detail::kNegInf;
    }
  }
};

// The case with each input of `stage` whose catalogue role is in `roles` upcast to f32 and
// rewritten row by row (a row: the last dimension) by fn(row, role); inputs of rank < 2 and
// absent optional inputs are left alone.
template <class Fn>
Case RewriteRows(const std::string& stage, const Case& in, std::initializer_list<Role> roles, Fn fn) {
  Case c = in;
  for (const auto& spec : RequireStage(stage).inputs) {
    if (std::find(roles.begin(), roles.end(), spec.role) == roles.end()) continue;
    auto it = c.inputs.find(spec.name);
    if (it == c.inputs.end() || it->second.rank() < 2) continue;
    Tensor x = reference::UpcastToF32(it->second, spec.name);
    const auto vocab = static_cast<std::size_t>(x.dim(x.rank() - 1));
    auto data = x.data<float>();
    for (std::size_t off = 0; vocab > 0 && off + vocab <= data.size(); off += vocab) fn(data.subspan(off, vocab), spec.role);
    c.inputs.erase(it);
    c.inputs.emplace(spec.name, std::move(x));
  }
  return c;
}

// Own-randomness samplers for exponential_race: per-row draws from a function of (probs, rng).
class OwnRaceBackend : public WrappingBackend {
 public:
  using WrappingBackend::WrappingBackend;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    if (!IsExponentialRace(stage)) return WrappingBackend::CountDraws(stage, c, draws, seed);
    reference::StageInputs in(c, stage);
    const Tensor probs = in.Probabilities();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    Tensor counts(DType::kI64, {rows, vocab});
    auto out = counts.data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto row = probs.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      for (std::int64_t d = 0; d < draws; ++d) {
        ++out[static_cast<std::size_t>(b * vocab + DrawOne(row, seed, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(d)))];
      }
    }
    return counts;
  }

 protected:
  virtual std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) = 0;
};

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

}  // namespace sampcheck::statistical
