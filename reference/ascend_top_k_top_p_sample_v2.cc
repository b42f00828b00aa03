// SPDX-License-Identifier: Apache-2.0
// ascend_top_k_top_p_sample_v2 (reference/ascend_top_k_top_p_sample_v2.h,
// docs/spec/ascend_top_k_top_p_sample_v2.md).
#include "reference/ascend_top_k_top_p_sample_v2.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/top_k.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

constexpr char kStage[] = "ascend_top_k_top_p_sample_v2";
constexpr float kInf = std::numeric_limits<float>::infinity();
// TOP_K_MAX in op_host/top_k_top_p_sample_v2_tiling.cpp: the aligned ksMax is capped here;
// also the default ks_max (the op's documented default).
constexpr std::int64_t kKsMaxCap = 1024;
// TOPP_K_FIX in op_kernel/top_k_top_p_sample_v2.h: the kernel's default top_k_guess.
constexpr std::int64_t kDefaultTopKGuess = 32;
// The op's documented recommended eps ("1e-8"), also the tiling's initial eps_.
constexpr double kDefaultEps = 1e-8;

// Step 4: keep position j iff E_j < p, E_j the f32 running sum before j (the kernel's
// TopPCompute stops at the first index whose inclusive sum is >= p, keeping it).
class ExclusivePrefix final : public PrefixRule {
 public:
  ExclusivePrefix(std::span<const float> probs, float p) : probs_(probs), p_(p) {}
  void Reset() override { e_ = 0.0f; }
  bool Keep(std::int32_t index) override {
    const bool keep = e_ < p_;
    e_ = e_ + probs_[static_cast<std::size_t>(index)];
    return keep;
  }

 private:
  std::span<const float> probs_;
  float p_;
  float e_ = 0.0f;
};

// Position of the largest probs over `list` (ties: lowest position).
std::size_t ArgmaxPosition(const std::vector<float>& probs, const std::vector<std::int32_t>& list) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < list.size(); ++j) {
    if (probs[static_cast<std::size_t>(list[j])] > probs[static_cast<std::size_t>(list[best])]) best = j;
  }
  return best;
}

bool BoolParam(const StageInputs& in, const Case& c, const std::string& name, bool fallback) {
  if (!c.params.contains(name)) return fallback;
  const auto& v = c.params[name];
  if (!v.is_boolean()) in.Fail("parameter " + name + " = " + v.dump() + " must be true or false");
  return v.get<bool>();
}

}  // namespace

float AscendEpsParam(const StageInputs& in, const Case& c) {
  double eps = kDefaultEps;
  if (c.params.contains("eps")) {
    const auto& v = c.params["eps"];
    if (!v.is_number()) in.Fail("parameter eps = " + v.dump() + " must be a number");
    eps = v.get<double>();
  }
  // The tiling reads the attribute as float: one round-to-nearest narrowing.
  const auto eps_f32 = static_cast<float>(eps);
  if (!std::isfinite(eps_f32) || !(eps_f32 >= 0.0f)) {
    in.Fail("parameter eps = " + FormatFloat(eps_f32) + " must be finite and >= 0");
  }
  return eps_f32;
}

namespace {

// A per-row [B] tensor of the logits' dtype (the op requires top_p and min_p to match it),
// upcast exactly; an empty vector when optional and absent.
std::vector<float> RowScalars(const StageInputs& in, const std::string& name, DType dtype, std::int64_t rows,
                              bool required) {
  const Tensor* t = in.Optional(name, dtype, 1);
  if (!t) {
    if (required) in.Fail("missing input tensor '" + name + "' (" + std::string(DTypeName(dtype)) + " [B])");
    return {};
  }
  in.ExpectDim(name, *t, 0, rows);
  Tensor f = UpcastToF32(*t, in.stage() + ": '" + name + "'");
  std::vector<float> v(f.data<float>().begin(), f.data<float>().end());
  for (std::size_t b = 0; b < v.size(); ++b) {
    if (std::isnan(v[b])) in.Fail("'" + name + "'[" + std::to_string(b) + "] is NaN");
  }
  return v;
}

void CheckRows(const StageInputs& in, Tensor& x, bool input_is_logits) {
  ForEachRow(x, [&](std::int64_t b, std::span<float> row) {
    bool any_finite = false;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const float v = row[i];
      const std::string where = "row " + std::to_string(b) + " column " + std::to_string(i);
      if (input_is_logits) {
        if (std::isnan(v) || v == kInf) {
          in.Fail(where + " holds " + (std::isnan(v) ? "NaN" : "+inf") +
                  "; logits must be finite or -inf (apply nan_handling first)");
        }
        any_finite = any_finite || std::isfinite(v);
      } else if (!std::isfinite(v) || !(v >= 0.0f)) {
        in.Fail(where + " = " + FormatFloat(v) +
                "; with input_is_logits = false the entries are probabilities: finite and >= 0");
      }
    }
    if (input_is_logits && !any_finite) {
      in.Fail("row " + std::to_string(b) + " has no finite logit: its softmax is NaN and there is nothing to sample");
    }
  });
}

}  // namespace

AscendSampleRow AscendFilterRow(std::span<const float> row, const AscendSampleParams& f) {
  const auto vocab = static_cast<std::int64_t>(row.size());
  const float p = f.top_p;
  // Step 2: the top-k cut (p <= 0 runs top-k with k = 1).
  std::vector<std::int32_t> list;
  bool cut = false;
  if (p <= 0.0f) {
    list = TopIndices(row, 1);
    cut = true;
  } else if (AscendTopKActive(f.top_k, vocab, f.ks_max)) {
    list = TopIndices(row, f.top_k);
    cut = true;
  }
  // Step 3: probs, indexed by vocab id. The logits path is exactly sampling_filters'
  // ascend_v2 path: SoftmaxRow of the top-k-masked row (KeepOnly is what TopKRow applies).
  std::vector<float> probs(row.begin(), row.end());
  if (f.input_is_logits) {
    std::vector<float> masked(row.begin(), row.end());
    if (cut) KeepOnly(masked, list);
    SoftmaxRow(masked, probs);
  }
  // Step 4: top-p on the same probs, over the list or the whole canonical order.
  if (p > 0.0f && p < 1.0f) {
    ExclusivePrefix rule(probs, p);
    if (cut) {
      rule.Reset();
      std::size_t n = 0;
      while (n < list.size() && rule.Keep(list[n])) ++n;
      list.resize(n);
    } else {
      list = KeptPrefix(row, rule);
    }
  } else if (!cut) {
    // top-k off and p >= 1: the kernel keeps the row unsorted (vocab order).
    list.resize(row.size());
    std::iota(list.begin(), list.end(), 0);
  }
  // Step 5: min-p on the same probs.
  if (f.min_p > 0.0f) {
    if (f.min_p >= 1.0f) {
      list = {list[ArgmaxPosition(probs, list)]};
    } else {
      const float threshold = probs[static_cast<std::size_t>(list[ArgmaxPosition(probs, list)])] * f.min_p;
      std::erase_if(list, [&](std::int32_t i) { return !(probs[static_cast<std::size_t>(i)] >= threshold); });
    }
  }
  AscendSampleRow out;
  out.probs.reserve(list.size());
  for (std::int32_t i : list) out.probs.push_back(probs[static_cast<std::size_t>(i)]);
  out.list = std::move(list);
  return out;
}

std::size_t AscendSamplePosition(const AscendSampleRow& filtered, std::span<const float> q, float eps) {
  std::size_t best = 0;
  float best_r = 0.0f;
  bool found = false;
  for (std::size_t j = 0; j < filtered.probs.size(); ++j) {
    float r = filtered.probs[j];
    if (!q.empty()) {
      const float d = std::fabs(q[j]) + eps;  // the kernel's Abs then Adds(eps), f32
      r = r / d;                              // Div, f32
    }
    // The op's argmax is torch.argmax in the ST golden executor: the first NaN wins
    // (GreaterOrNan), as it does in greedy.h. eps = 0 with q = 0 and probability 0 is the
    // only way to get one (0 / 0).
    if (std::isnan(r)) return j;
    if (!found || r > best_r) {
      best = j;
      best_r = r;
      found = true;
    }
  }
  return best;
}

AscendInputs ReadAscendInputs(const StageInputs& in, const Case& c) {
  Tensor logits = in.Logits();
  const DType dtype = c.inputs.at("logits").dtype();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);

  const bool input_is_logits = BoolParam(in, c, "input_is_logits", true);
  const bool is_need_logits = BoolParam(in, c, "is_need_logits", false);
  const bool is_need_sample_result = BoolParam(in, c, "is_need_sample_result", false);
  const float eps = AscendEpsParam(in, c);
  const std::int64_t ks_max = IntParam(in, c, "ks_max", kKsMaxCap);
  ValidateKsMax(in, ks_max);  // [1, 1024], as top_k and sampling_filters
  const std::int64_t top_k_guess = IntParam(in, c, "top_k_guess", kDefaultTopKGuess);
  if (top_k_guess < std::numeric_limits<std::int32_t>::min() || top_k_guess > std::numeric_limits<std::int32_t>::max()) {
    in.Fail("parameter top_k_guess = " + std::to_string(top_k_guess) +
            " must fit in int32 (the tiling reads it as int32; it never changes results)");
  }

  const Tensor& k = in.Required("top_k", DType::kI32, 1);
  in.ExpectDim("top_k", k, 0, rows);
  const std::vector<float> top_p = RowScalars(in, "top_p", dtype, rows, true);
  const std::vector<float> min_p = RowScalars(in, "min_p", dtype, rows, false);
  const Tensor* q = in.Optional("q", DType::kF32, 2);
  if (q) {
    in.ExpectDim("q", *q, 0, rows);
    in.ExpectDim("q", *q, 1, vocab);
    auto qd = q->data<float>();
    for (std::size_t i = 0; i < qd.size(); ++i) {
      if (std::isnan(qd[i])) {
        in.Fail("'q' row " + std::to_string(static_cast<std::int64_t>(i) / vocab) + " column " +
                std::to_string(static_cast<std::int64_t>(i) % vocab) + " is NaN");
      }
    }
    if (is_need_sample_result) in.Fail("is_need_sample_result = true requires q to be absent (the op's rule)");
  }
  CheckRows(in, logits, input_is_logits);
  AscendInputs r;
  r.top_k.assign(k.data<std::int32_t>().begin(), k.data<std::int32_t>().end());
  r.logits = std::move(logits);
  r.top_p = top_p;
  r.min_p = min_p;
  r.q = q;
  r.input_is_logits = input_is_logits;
  r.is_need_logits = is_need_logits;
  r.is_need_sample_result = is_need_sample_result;
  r.eps = eps;
  r.ks_max = ks_max;
  return r;
}

TensorMap RunAscendTopKTopPSampleV2(const Case& c, Profile /*profile*/) {
  StageInputs in(c, kStage);
  AscendInputs a = ReadAscendInputs(in, c);
  Tensor& logits = a.logits;
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  const bool input_is_logits = a.input_is_logits;
  const bool is_need_logits = a.is_need_logits;
  const bool is_need_sample_result = a.is_need_sample_result;
  const float eps = a.eps;
  const std::int64_t ks_max = a.ks_max;
  const std::vector<float>& top_p = a.top_p;
  const std::vector<float>& min_p = a.min_p;
  const Tensor* q = a.q;

  const auto v = static_cast<std::size_t>(vocab);
  const float def_logit = input_is_logits ? -kInf : 0.0f;
  Tensor select_idx(DType::kI64, {rows});
  Tensor top_kp_select = is_need_logits ? Tensor::Uninitialized(DType::kF32, {rows, vocab}) : Tensor();
  Tensor sort_masked = is_need_sample_result ? Tensor(DType::kF32, {rows, vocab}) : Tensor();
  Tensor idx = is_need_sample_result ? Tensor::Uninitialized(DType::kI64, {rows, vocab}) : Tensor();

  ForEachRow(logits, [&](std::int64_t b, std::span<float> row) {
    const auto bi = static_cast<std::size_t>(b);
    AscendSampleParams f;
    f.top_k = a.top_k[bi];
    f.top_p = top_p[bi];
    f.min_p = min_p.empty() ? 0.0f : min_p[bi];
    f.ks_max = ks_max;
    f.input_is_logits = input_is_logits;
    const AscendSampleRow filtered = AscendFilterRow(row, f);
    if (!is_need_sample_result) {
      std::span<const float> q_row;
      if (q) q_row = q->data<float>().subspan(bi * v, v);
      select_idx.data<std::int64_t>()[bi] = filtered.list[AscendSamplePosition(filtered, q_row, eps)];
    }
    if (is_need_logits) {
      auto out = top_kp_select.data<float>().subspan(bi * v, v);
      std::fill(out.begin(), out.end(), def_logit);
      for (std::int32_t i : filtered.list) out[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)];
    }
    if (is_need_sample_result) {
      auto values = sort_masked.data<float>().subspan(bi * v, v);
      auto ids = idx.data<std::int64_t>().subspan(bi * v, v);
      std::fill(ids.begin(), ids.end(), std::int64_t{-1});
      for (std::size_t j = 0; j < filtered.list.size(); ++j) {
        values[j] = filtered.probs[j];
        ids[j] = filtered.list[j];
      }
    }
  });

  TensorMap out;
  if (!is_need_sample_result) out.emplace("logits_select_idx", std::move(select_idx));
  if (is_need_logits) out.emplace("logits_top_kp_select", std::move(top_kp_select));
  if (is_need_sample_result) {
    out.emplace("logits_sort_masked", std::move(sort_masked));
    out.emplace("logits_idx", std::move(idx));
  }
  return out;
}

SAMPCHECK_REFERENCE_STAGE(ascend_top_k_top_p_sample_v2, RunAscendTopKTopPSampleV2);

}  // namespace sampcheck::reference
