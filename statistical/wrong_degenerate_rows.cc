// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong backends for degenerate rows (statistical/wrong_degenerate_rows.h).
#include "statistical/wrong_degenerate_rows.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "reference/reference_backend.h"

namespace sampcheck::statistical {
namespace {

// The reference with one hook on the case (before Run) and one on the outputs (after).
class DegenerateFaultBackend : public Backend {
 public:
  explicit DegenerateFaultBackend(std::string name) : name_("wrong:" + std::move(name)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return Corrupt(c, ref_.Run(stage, Transform(c))); }

 protected:
  virtual Case Transform(const Case& c) { return c; }
  virtual TensorMap Corrupt(const Case& /*c*/, TensorMap out) { return out; }

 private:
  reference::ReferenceBackend ref_;
  std::string name_;
};

// A spec_random case's f32 target rows [B, K + 1, V] beside its `emitted` output, or null (the
// degenerate-row goldens are f32).
const Tensor* SpecTarget(const Case& c) {
  auto it = c.inputs.find("target_probs");
  if (it == c.inputs.end() || it->second.rank() != 3 || it->second.dtype() != DType::kF32) return nullptr;
  return &it->second;
}

// For each row b: the position k whose row decided the final token (num_accepted) and that
// token's slot in `emitted`.
template <class F>
void ForEachFinalToken(const Tensor& target, TensorMap& out, F f) {
  auto emitted = out.find("emitted");
  auto accepted = out.find("num_accepted");
  if (emitted == out.end() || accepted == out.end()) return;
  const std::int64_t rows = target.dim(0), positions = target.dim(1), vocab = target.dim(2);
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t k = accepted->second.data<std::int64_t>()[static_cast<std::size_t>(b)];
    const auto row = target.data<float>().subspan(static_cast<std::size_t>((b * positions + k) * vocab),
                                                 static_cast<std::size_t>(vocab));
    f(row, emitted->second.data<std::int64_t>()[static_cast<std::size_t>(b * positions + k)], vocab);
  }
}

class SpecDegenerateRowAbortsBatch final : public DegenerateFaultBackend {
 public:
  SpecDegenerateRowAbortsBatch() : DegenerateFaultBackend("spec_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return c;
    for (float p : target->data<float>()) {
      if (std::isnan(p) || std::isinf(p)) throw InputError("target_probs holds a non-finite value: device-side assert, the batch is lost");
    }
    return c;
  }
};

class SpecNanTargetAsZero final : public DegenerateFaultBackend {
 public:
  SpecNanTargetAsZero() : DegenerateFaultBackend("spec_nan_target_as_zero") {}

 protected:
  Case Transform(const Case& c) override {
    if (!SpecTarget(c)) return c;
    Case out = c;
    for (float& p : out.inputs.at("target_probs").data<float>()) {
      if (std::isnan(p)) p = 0.0f;
    }
    return out;
  }
};

class SpecEmptyRowPadLane final : public DegenerateFaultBackend {
 public:
  SpecEmptyRowPadLane() : DegenerateFaultBackend("spec_empty_row_pad_lane") {}

 protected:
  TensorMap Corrupt(const Case& c, TensorMap out) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return out;
    ForEachFinalToken(*target, out, [](std::span<const float> row, std::int64_t& token, std::int64_t vocab) {
      bool all_nan = true, all_zero = true;
      for (float p : row) all_nan = all_nan && std::isnan(p), all_zero = all_zero && p == 0.0f;
      if (all_nan || all_zero) token = (vocab + 31) / 32 * 32;
    });
    return out;
  }
};

class SpecInfResidualTokenZero final : public DegenerateFaultBackend {
 public:
  SpecInfResidualTokenZero() : DegenerateFaultBackend("spec_inf_residual_token_zero") {}

 protected:
  TensorMap Corrupt(const Case& c, TensorMap out) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return out;
    ForEachFinalToken(*target, out, [](std::span<const float> row, std::int64_t& token, std::int64_t /*vocab*/) {
      for (float p : row) {
        if (p == std::numeric_limits<float>::infinity()) token = 0;
      }
    });
    return out;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeSpecDegenerateRowAbortsBatch() { return std::make_unique<SpecDegenerateRowAbortsBatch>(); }
std::unique_ptr<Backend> MakeSpecNanTargetAsZero() { return std::make_unique<SpecNanTargetAsZero>(); }
std::unique_ptr<Backend> MakeSpecEmptyRowPadLane() { return std::make_unique<SpecEmptyRowPadLane>(); }
std::unique_ptr<Backend> MakeSpecInfResidualTokenZero() { return std::make_unique<SpecInfResidualTokenZero>(); }

}  // namespace sampcheck::statistical
