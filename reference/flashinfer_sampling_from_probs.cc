// SPDX-License-Identifier: Apache-2.0
// flashinfer_sampling_from_probs (reference/flashinfer_sampling_from_probs.h,
// docs/spec/flashinfer_sampling_from_probs.md). The loop follows FlashInfer's
// include/flashinfer/sampling.cuh (TopKTopPSamplingFromProbKernel, TopKSamplingFromProbKernel,
// TopPSamplingFromProbKernel, MinPSamplingFromProbKernel, DeviceSamplingFromProb) statement
// by statement, with the block reductions and scans replaced by f32 sums in index order.
#include "reference/flashinfer_sampling_from_probs.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {
namespace {

struct Above {
  std::int64_t count = 0;
  float mass = 0.0f;
};

// Count and f32 mass (index order) of the tokens with p > pivot; NaN compares false.
Above MassAbove(std::span<const float> p, float pivot) {
  Above a;
  for (float x : p) {
    if (x > pivot) {
      a.mass = a.mass + x;
      ++a.count;
    }
  }
  return a;
}

bool Accept(const FlashinferRowParams& f, const Above& a) {
  const bool k_ok = static_cast<std::uint64_t>(a.count) < f.top_k;
  const bool p_ok = a.mass < f.top_p;
  switch (f.kernel) {
    case FlashinferKernel::kTopKTopP:
      return k_ok && p_ok;
    case FlashinferKernel::kTopK:
      return k_ok;
    case FlashinferKernel::kTopP:
      return p_ok;
    case FlashinferKernel::kMinP:
      break;
  }
  return true;
}

// DeviceSamplingFromProb: the first valid token whose running sum exceeds t, else the last
// valid one; -1 when no token is valid.
template <typename Pred>
std::int64_t Scan(std::span<const float> p, float t, Pred valid) {
  float running = 0.0f;
  std::int64_t last_valid = -1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!valid(p[i])) continue;
    running = running + p[i];
    if (running > t) return static_cast<std::int64_t>(i);
    last_valid = static_cast<std::int64_t>(i);
  }
  return last_valid;
}

float MinPPivot(std::span<const float> p, float min_p) {
  float m = 0.0f;  // GetMaxValue: fmaxf fold from 0, NaN ignored
  for (float x : p) m = std::fmax(m, x);
  return m * min_p;
}

// top_k_renorm_probs (RadixTopKRenormProbKernel_MultiCTA, include/flashinfer/topk.cuh):
// keep p >= the k-th largest value, multiply by the reciprocal of the kept sum. The kernel's
// sum is a block reduction (an atomicAdd across CTAs for long rows) and its reciprocal
// ptx_rcp; the model sums in index order and divides in IEEE f32 (canonical tier).
std::vector<float> TopKRenorm(std::span<const float> probs, std::uint32_t k) {
  std::vector<float> values;
  for (float x : probs) {
    if (!std::isnan(x)) values.push_back(x);
  }
  std::vector<float> out(probs.size(), 0.0f);
  if (k == 0 || values.empty()) return out;
  float pivot = -1.0f;  // k >= the number of values: keep them all
  if (k < values.size()) {
    std::nth_element(values.begin(), values.begin() + (k - 1), values.end(), std::greater<float>());
    pivot = values[k - 1];
  }
  float sum = 0.0f;
  for (float x : probs) {
    if (x >= pivot) sum += x;
  }
  const float normalizer = 1.0f / std::max(sum, 1e-8f);
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] >= pivot) out[i] = probs[i] * normalizer;
  }
  return out;
}

// The top_p kernel's parameters for the second half of "top_k_first".
FlashinferRowParams TopPOf(const FlashinferRowParams& f) {
  FlashinferRowParams p;
  p.kernel = FlashinferKernel::kTopP;
  p.top_p = f.top_p;
  return p;
}

}  // namespace

FlashinferDraw FlashinferSampleRow(std::span<const float> probs, const FlashinferRowParams& f,
                                   std::span<const float> uniforms) {
  if (f.kernel == FlashinferKernel::kTopKTopP && f.top_k_first) {
    const std::vector<float> renormed = TopKRenorm(probs, f.top_k);
    return FlashinferSampleRow(renormed, TopPOf(f), uniforms);
  }
  FlashinferDraw d;
  if (f.kernel == FlashinferKernel::kMinP) {
    const float pivot = MinPPivot(probs, f.min_p);
    const auto valid = [pivot](float x) { return x >= pivot; };
    float q = 0.0f;
    for (float x : probs) {
      if (valid(x)) q = q + x;
    }
    if (uniforms.empty()) return {0, false, -1};
    d.rounds = 1;
    const std::int64_t s = Scan(probs, uniforms[0] * q, valid);
    d.token = s < 0 ? 0 : s;
    d.valid = s >= 0;
    return d;
  }
  float low = 0.0f, high = 1.0f, q = 1.0f;
  while (true) {
    if (static_cast<std::size_t>(d.rounds) == uniforms.size()) return {0, false, -1};
    const float t = uniforms[static_cast<std::size_t>(d.rounds)] * q;
    ++d.rounds;
    const std::int64_t sampled = Scan(probs, t, [low](float x) { return x > low; });
    if (sampled < 0) {
      d.token = 0;
      d.valid = false;
      return d;
    }
    d.token = sampled;
    d.valid = true;
    const float pivot0 = probs[static_cast<std::size_t>(sampled)];
    const float pivot1 = (pivot0 + high) * 0.5f;
    const Above a0 = MassAbove(probs, pivot0);
    const Above a1 = MassAbove(probs, pivot1);
    if (Accept(f, a0)) return d;
    if (Accept(f, a1)) {
      low = pivot0;
      high = pivot1;
      q = a0.mass;
    } else {
      low = pivot1;
      q = a1.mass;
    }
    if (!(low < high)) return d;  // the kernel's `while (low < high)` exit keeps the last sample
  }
}

std::vector<bool> FlashinferSurvivors(std::span<const float> probs, const FlashinferRowParams& f) {
  if (f.kernel == FlashinferKernel::kTopKTopP && f.top_k_first) {
    return FlashinferSurvivors(TopKRenorm(probs, f.top_k), TopPOf(f));
  }
  std::vector<bool> keep(probs.size(), false);
  const float pivot = f.kernel == FlashinferKernel::kMinP ? MinPPivot(probs, f.min_p) : 0.0f;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const float x = probs[i];
    if (!(x > 0.0f)) continue;
    keep[i] = f.kernel == FlashinferKernel::kMinP ? x >= pivot : Accept(f, MassAbove(probs, x));
  }
  return keep;
}

namespace {

FlashinferKernel KernelParam(const StageInputs& in, const Case& c) {
  if (!c.params.contains("kernel")) return FlashinferKernel::kTopKTopP;
  const auto& v = c.params["kernel"];
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "top_k_top_p") return FlashinferKernel::kTopKTopP;
    if (s == "top_k") return FlashinferKernel::kTopK;
    if (s == "top_p") return FlashinferKernel::kTopP;
    if (s == "min_p") return FlashinferKernel::kMinP;
  }
  in.Fail("parameter kernel = " + v.dump() + " must be one of top_k_top_p, top_k, top_p, min_p");
}

}  // namespace

FlashinferRowParams FlashinferParamsOfRow(const Case& c, std::int64_t b) {
  StageInputs in(c, "flashinfer_sampling_from_probs");
  FlashinferRowParams f;
  f.kernel = KernelParam(in, c);
  if (c.params.contains("deterministic") && !c.params["deterministic"].is_boolean()) {
    in.Fail("parameter deterministic = " + c.params["deterministic"].dump() + " must be true or false");
  }
  if (c.params.contains("filter_apply_order")) {
    const auto& order = c.params["filter_apply_order"];
    const bool known = order.is_string() && (order == "joint" || order == "top_k_first");
    if (!known || f.kernel != FlashinferKernel::kTopKTopP) {
      in.Fail("parameter filter_apply_order = " + order.dump() +
              " must be \"joint\" or \"top_k_first\", with kernel top_k_top_p");
    }
    f.top_k_first = order == "top_k_first";
  }
  const bool needs_k = f.kernel == FlashinferKernel::kTopKTopP || f.kernel == FlashinferKernel::kTopK;
  const bool needs_p = f.kernel == FlashinferKernel::kTopKTopP || f.kernel == FlashinferKernel::kTopP;
  const auto at = static_cast<std::size_t>(b);
  if (needs_k) {
    const Tensor& k = in.Required("top_k");
    // The kernels read k as uint32_t: k <= 0 is 0 (nothing passes) or >= 2^31 (no limit).
    f.top_k = static_cast<std::uint32_t>(k.data<std::int32_t>()[at]);
  }
  auto finite = [&](const char* name) {
    const Tensor& t = in.Required(name, DType::kF32, 1);
    const float v = t.data<float>()[at];
    if (!std::isfinite(v))
      in.Fail(std::string(name) + "[" + std::to_string(b) + "] = " + FormatFloat(v) + " must be finite");
    return v;
  };
  if (needs_p) f.top_p = finite("top_p");
  if (f.kernel == FlashinferKernel::kMinP) f.min_p = finite("min_p");
  return f;
}

FlashinferSamplingArgs ParseFlashinferSamplingFromProbs(const Case& c) {
  StageInputs in(c, "flashinfer_sampling_from_probs");
  FlashinferSamplingArgs a;
  a.probs = in.FloatRows("probs");
  a.rows = a.probs.dim(0);
  a.vocab = a.probs.dim(1);
  a.u = &in.Required("u");
  in.ExpectDim("u", *a.u, 0, a.rows);
  a.width = a.u->dim(1);
  if (a.width < 1) in.Fail("u must hold at least one uniform per row ([B, R], R >= 1)");
  for (const char* name : {"top_k", "top_p", "min_p"}) {
    if (const Tensor* t = in.Optional(name, std::string(name) == "top_k" ? DType::kI32 : DType::kF32, 1)) {
      in.ExpectDim(name, *t, 0, a.rows);
    }
  }
  const auto p = a.probs.data<float>();
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0.0f || std::isinf(p[i])) {
      in.Fail("probs[" + std::to_string(static_cast<std::int64_t>(i) / a.vocab) + ", " +
              std::to_string(static_cast<std::int64_t>(i) % a.vocab) + "] = " + FormatFloat(p[i]) +
              " must be >= 0 and finite, or NaN");
    }
  }
  const auto uv = a.u->data<float>();
  for (std::size_t i = 0; i < uv.size(); ++i) {
    if (!(uv[i] > 0.0f && uv[i] <= 1.0f)) {
      in.Fail("u[" + std::to_string(static_cast<std::int64_t>(i) / a.width) + ", " +
              std::to_string(static_cast<std::int64_t>(i) % a.width) + "] = " + FormatFloat(uv[i]) +
              " must be in (0, 1]");
    }
  }
  return a;
}

void FailOutOfUniforms(const Case& c, std::int64_t row, std::int64_t width) {
  StageInputs(c, "flashinfer_sampling_from_probs")
      .Fail("row " + std::to_string(row) + " needs more than " + std::to_string(width) +
            " uniforms (u is [B, R]; at most distinct positive probabilities + 1 rounds run)");
}

TensorMap FlashinferSamplingOutputs(Tensor token, Tensor valid, Tensor rounds) {
  TensorMap out = Outputs("token", std::move(token));
  out.emplace("valid", std::move(valid));
  out.emplace("rounds", std::move(rounds));
  return out;
}

TensorMap RunFlashinferSamplingFromProbs(const Case& c, Profile /*profile*/) {
  const FlashinferSamplingArgs a = ParseFlashinferSamplingFromProbs(c);
  const auto p = a.probs.data<float>();
  const auto uv = a.u->data<float>();
  Tensor token(DType::kI64, {a.rows});
  Tensor valid(DType::kBool, {a.rows});
  Tensor rounds(DType::kI32, {a.rows});
  for (std::int64_t b = 0; b < a.rows; ++b) {
    const FlashinferRowParams f = FlashinferParamsOfRow(c, b);
    const FlashinferDraw d =
        FlashinferSampleRow(p.subspan(static_cast<std::size_t>(b * a.vocab), static_cast<std::size_t>(a.vocab)), f,
                            uv.subspan(static_cast<std::size_t>(b * a.width), static_cast<std::size_t>(a.width)));
    if (d.rounds < 0) FailOutOfUniforms(c, b, a.width);
    StoreToken(token, b, d.token);
    valid.data<std::uint8_t>()[static_cast<std::size_t>(b)] = d.valid ? 1 : 0;
    rounds.data<std::int32_t>()[static_cast<std::size_t>(b)] = d.rounds;
  }
  return FlashinferSamplingOutputs(std::move(token), std::move(valid), std::move(rounds));
}

SAMPCHECK_REFERENCE_STAGE(flashinfer_sampling_from_probs, RunFlashinferSamplingFromProbs);

}  // namespace sampcheck::reference
