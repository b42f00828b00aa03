// SPDX-License-Identifier: Apache-2.0
// Host-side checks of one case of the FlashInfer plugin (plugins/flashinfer/flashinfer_request.h,
// docs/peers/flashinfer.md "The adapter"). Structural faults only (a missing, misshapen or
// mistyped tensor, an unknown parameter or value, padding that is not trailing): values are the
// peer's to judge, so NaN or out-of-range probabilities go to FlashInfer as they are. What a
// FlashInfer caller computes before the call is computed here: inverse_cdf's row divided by its
// sum, top_p's torch.softmax.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugins/flashinfer/flashinfer_request.h"
#include "sampcheck/plugin_helpers.h"

namespace sampcheck::flashinfer_plugin {
namespace {

// FlashInfer passes the vocabulary and batch sizes as uint32_t and indexes rows with int32 ids
// (the Python API's default output dtype).
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max();

std::string Shape(const sampcheck_tensor& t) {
  std::string s = "[";
  for (std::int32_t d = 0; d < t.ndim; ++d) s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
}

const char* DTypeName(std::int32_t d) {
  switch (d) {
    case SAMPCHECK_DTYPE_F32: return "f32";
    case SAMPCHECK_DTYPE_F16: return "f16";
    case SAMPCHECK_DTYPE_BF16: return "bf16";
    case SAMPCHECK_DTYPE_I32: return "i32";
    case SAMPCHECK_DTYPE_I64: return "i64";
    case SAMPCHECK_DTYPE_U8: return "u8";
    case SAMPCHECK_DTYPE_BOOL: return "bool";
    case SAMPCHECK_DTYPE_F64: return "f64";
    default: return "unknown";
  }
}

// Parses one case; every check returns false after writing `error`.
class Parser {
 public:
  Parser(std::string stage, const sampcheck_tensor* inputs, std::int32_t n_in)
      : stage_(std::move(stage)), inputs_(inputs), n_in_(n_in) {}

  const std::string& error() const { return error_; }

  bool Fail(const std::string& message) {
    error_ = stage_ + ": " + message;
    return false;
  }

  // Every input must be one the stage's FlashInfer call reads.
  bool OnlyInputs(const std::vector<std::string>& known) {
    for (std::int32_t i = 0; i < n_in_; ++i) {
      bool ok = false;
      for (const auto& k : known) ok = ok || k == inputs_[i].name;
      if (!ok) return Fail(std::string("input '") + inputs_[i].name + "' has no counterpart in the FlashInfer call");
    }
    return true;
  }

  const sampcheck_tensor* Find(const char* name) const { return sampcheck_plugin_find_input(inputs_, n_in_, name); }

  // A float tensor (f32, f16 or bf16) of the given rank, widened exactly to f32.
  bool Floats(const char* name, std::int32_t rank, std::vector<float>& out, const sampcheck_tensor** seen = nullptr) {
    const sampcheck_tensor* t = Find(name);
    if (t == nullptr) return Fail(std::string("input '") + name + "' is required");
    if (seen) *seen = t;
    if (t->ndim != rank) return Fail(std::string("input '") + name + "' must have rank " + std::to_string(rank) + ", got " + Shape(*t));
    const std::int64_t n = Count(*t);
    if (n < 0) return Fail(std::string("input '") + name + "' has a negative extent " + Shape(*t));
    out.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      switch (t->dtype) {
        case SAMPCHECK_DTYPE_F32: out[k] = static_cast<const float*>(t->data)[k]; break;
        case SAMPCHECK_DTYPE_F16: out[k] = sampcheck_plugin_f16_to_f32(static_cast<const std::uint16_t*>(t->data)[k]); break;
        case SAMPCHECK_DTYPE_BF16: out[k] = sampcheck_plugin_bf16_to_f32(static_cast<const std::uint16_t*>(t->data)[k]); break;
        default: return Fail(std::string("input '") + name + "' must be f32, f16 or bf16, got " + DTypeName(t->dtype));
      }
    }
    return true;
  }

  // An i32 tensor of the given rank.
  bool Ints(const char* name, std::int32_t rank, std::vector<std::int32_t>& out, const sampcheck_tensor** seen = nullptr) {
    const sampcheck_tensor* t = Find(name);
    if (t == nullptr) return Fail(std::string("input '") + name + "' is required");
    if (seen) *seen = t;
    if (t->dtype != SAMPCHECK_DTYPE_I32) return Fail(std::string("input '") + name + "' must be i32, got " + DTypeName(t->dtype));
    if (t->ndim != rank) return Fail(std::string("input '") + name + "' must have rank " + std::to_string(rank) + ", got " + Shape(*t));
    const std::int64_t n = Count(*t);
    if (n < 0) return Fail(std::string("input '") + name + "' has a negative extent " + Shape(*t));
    out.assign(static_cast<const std::int32_t*>(t->data), static_cast<const std::int32_t*>(t->data) + n);
    return true;
  }

  // A per-row vector [B].
  bool PerRowFloats(const char* name, std::int64_t rows, std::vector<float>& out) {
    const sampcheck_tensor* t = nullptr;
    if (!Floats(name, 1, out, &t)) return false;
    if (t->shape[0] != rows) return Fail(std::string("input '") + name + "' must be [" + std::to_string(rows) + "], got " + Shape(*t));
    return true;
  }
  bool PerRowInts(const char* name, std::int64_t rows, std::vector<std::int32_t>& out) {
    const sampcheck_tensor* t = nullptr;
    if (!Ints(name, 1, out, &t)) return false;
    if (t->shape[0] != rows) return Fail(std::string("input '") + name + "' must be [" + std::to_string(rows) + "], got " + Shape(*t));
    return true;
  }

  // A [B, V] distribution (probs or logits): rows and vocabulary within FlashInfer's types.
  bool Matrix(const char* name, Request& r) {
    const sampcheck_tensor* t = nullptr;
    if (!Floats(name, 2, r.values, &t)) return false;
    r.rows = t->shape[0];
    r.vocab = t->shape[1];
    return Extents(name, r.rows, r.vocab);
  }

  bool Extents(const char* name, std::int64_t rows, std::int64_t vocab) {
    if (vocab < 1) return Fail(std::string("input '") + name + "' must have V >= 1 columns, got " + std::to_string(vocab));
    if (rows > kMaxExtent || vocab > kMaxExtent) {
      return Fail(std::string("input '") + name + "' has B = " + std::to_string(rows) + ", V = " + std::to_string(vocab) +
                  "; FlashInfer takes each below 2^31 (uint32 sizes, int32 ids)");
    }
    return true;
  }

  // The noise tensor the harness or golden case supplies: present (its bytes key the seed), but
  // not read as uniforms.
  bool NoiseShape(const char* name, std::int64_t rows, bool required) {
    const sampcheck_tensor* t = Find(name);
    if (t == nullptr) return required ? Fail(std::string("input '") + name + "' is required (its bytes key FlashInfer's Philox seed)") : true;
    if (t->ndim < 1 || t->shape[0] != rows) {
      return Fail(std::string("input '") + name + "' must have " + std::to_string(rows) + " rows, got " + Shape(*t));
    }
    return true;
  }

 private:
  static std::int64_t Count(const sampcheck_tensor& t) {
    std::int64_t n = 1;
    for (std::int32_t d = 0; d < t.ndim; ++d) {
      if (t.shape[d] < 0) return -1;
      n *= t.shape[d];
    }
    return n;
  }

  std::string stage_;
  const sampcheck_tensor* inputs_;
  std::int32_t n_in_;
  std::string error_;
};

// FNV-1a 64 over every input's name, dtype, shape and bytes (flashinfer_request.h "Philox key").
std::uint64_t InputHash(const sampcheck_tensor* inputs, std::int32_t n_in) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  auto mix = [&h](const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;  // FNV-1a 64 prime
  };
  for (std::int32_t i = 0; i < n_in; ++i) {
    mix(inputs[i].name, std::strlen(inputs[i].name) + 1);
    mix(&inputs[i].dtype, sizeof inputs[i].dtype);
    mix(inputs[i].shape, sizeof(std::int64_t) * static_cast<std::size_t>(inputs[i].ndim));
    if (inputs[i].data != nullptr) mix(inputs[i].data, static_cast<std::size_t>(inputs[i].nbytes));
  }
  return h;
}

// The case's parameters; only `allowed` names are accepted.
bool Params(Parser& p, const char* params_json, const std::vector<std::string>& allowed, nlohmann::json& out) {
  out = nlohmann::json::parse(params_json ? params_json : "{}", nullptr, false);
  if (out.is_discarded() || !out.is_object()) return p.Fail("parameters are not a JSON object: " + std::string(params_json ? params_json : "(null)"));
  for (const auto& [key, value] : out.items()) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (!ok) return p.Fail("parameter '" + key + "' has no counterpart in the FlashInfer call");
  }
  return true;
}

bool Deterministic(Parser& p, const nlohmann::json& params, bool& out) {
  out = true;  // FlashInfer's Python default
  if (params.contains("deterministic")) {
    if (!params["deterministic"].is_boolean()) return p.Fail("parameter 'deterministic' must be a bool, got " + params["deterministic"].dump());
    out = params["deterministic"].get<bool>();
  }
  if (const char* env = std::getenv("SAMPCHECK_FLASHINFER_DETERMINISTIC"); env != nullptr && *env != '\0') {
    if (std::strcmp(env, "true") == 0) {
      out = true;
    } else if (std::strcmp(env, "false") == 0) {
      out = false;
    } else {
      return p.Fail(std::string("SAMPCHECK_FLASHINFER_DETERMINISTIC must be 'true' or 'false', got '") + env + "'");
    }
  }
  return true;
}

bool ParseSamplingFromProbs(Parser& p, const nlohmann::json& params, Request& r) {
  if (!p.OnlyInputs({"probs", "top_k", "top_p", "min_p", "u"}) || !p.Matrix("probs", r) || !p.NoiseShape("u", r.rows, true)) return false;
  std::string kernel = "top_k_top_p";
  if (params.contains("kernel")) {
    if (!params["kernel"].is_string()) return p.Fail("parameter 'kernel' must be a string, got " + params["kernel"].dump());
    kernel = params["kernel"].get<std::string>();
  }
  std::string order = "joint";
  if (params.contains("filter_apply_order")) {
    if (kernel != "top_k_top_p") return p.Fail("parameter 'filter_apply_order' applies to kernel 'top_k_top_p' only, not '" + kernel + "'");
    if (!params["filter_apply_order"].is_string()) return p.Fail("parameter 'filter_apply_order' must be a string, got " + params["filter_apply_order"].dump());
    order = params["filter_apply_order"].get<std::string>();
    if (order != "joint" && order != "top_k_first") {
      return p.Fail("parameter 'filter_apply_order' = '" + order + "' is not 'joint' or 'top_k_first' (FlashInfer raises ValueError)");
    }
  }
  const bool need_k = kernel == "top_k_top_p" || kernel == "top_k";
  const bool need_p = kernel == "top_k_top_p" || kernel == "top_p";
  const bool need_min_p = kernel == "min_p";
  if (!need_k && !need_p && !need_min_p) return p.Fail("parameter 'kernel' = '" + kernel + "' is not top_k_top_p, top_k, top_p or min_p");
  if (need_k && !p.PerRowInts("top_k", r.rows, r.top_k)) return false;
  if (need_p && !p.PerRowFloats("top_p", r.rows, r.top_p)) return false;
  if (need_min_p && !p.PerRowFloats("min_p", r.rows, r.min_p)) return false;
  if (kernel == "top_k_top_p") r.call = order == "joint" ? Call::kTopKTopPSamplingJoint : Call::kTopKTopPSamplingTopKFirst;
  if (kernel == "top_k") r.call = Call::kTopKSampling;
  if (kernel == "top_p") r.call = Call::kTopPSampling;
  if (kernel == "min_p") r.call = Call::kMinPSampling;
  return true;
}

bool ParseChainSpeculative(Parser& p, Request& r) {
  if (!p.OnlyInputs({"draft_ids", "target_probs", "draft_probs", "u"})) return false;
  const sampcheck_tensor* ids = nullptr;
  const sampcheck_tensor* target = nullptr;
  const sampcheck_tensor* draft = nullptr;
  if (!p.Ints("draft_ids", 2, r.draft_ids, &ids) || !p.Floats("target_probs", 3, r.values, &target)) return false;
  if (p.Find("draft_probs") == nullptr) return p.Fail("input 'draft_probs' is required: FlashInfer's chain_speculative_sampling has no n-gram mode");
  if (!p.Floats("draft_probs", 3, r.draft_probs, &draft)) return false;
  r.rows = ids->shape[0];
  r.drafts = ids->shape[1];
  r.vocab = target->shape[2];
  if (target->shape[0] != r.rows || target->shape[1] != r.drafts + 1) {
    return p.Fail("input 'target_probs' must be [" + std::to_string(r.rows) + ", " + std::to_string(r.drafts + 1) + ", V], got " + Shape(*target));
  }
  if (draft->shape[0] != r.rows || draft->shape[1] != r.drafts || draft->shape[2] != r.vocab) {
    return p.Fail("input 'draft_probs' must be [" + std::to_string(r.rows) + ", " + std::to_string(r.drafts) + ", " +
                  std::to_string(r.vocab) + "], got " + Shape(*draft));
  }
  if (!p.Extents("target_probs", r.rows * (r.drafts + 1), r.vocab) || !p.NoiseShape("u", r.rows, false)) return false;
  // A row's n drafts, then K - n entries -1 (docs/spec/speculative.md): such a row runs in a
  // call with K = n (SpecCalls, flashinfer_spec_calls.cc).
  for (std::int64_t b = 0; b < r.rows; ++b) {
    bool padding = false;
    for (std::int64_t i = 0; i < r.drafts; ++i) {
      const std::int32_t id = r.draft_ids[static_cast<std::size_t>(b * r.drafts + i)];
      if (id == -1) {
        padding = true;
        continue;
      }
      if (padding) {
        return p.Fail("draft_ids[" + std::to_string(b) + ", " + std::to_string(i) + "] = " + std::to_string(id) +
                      " follows a -1: padding must be trailing");
      }
      if (id < 0 || id >= r.vocab) {
        return p.Fail("draft_ids[" + std::to_string(b) + ", " + std::to_string(i) + "] = " + std::to_string(id) + " is outside [0, " +
                      std::to_string(r.vocab) + ")");
      }
    }
  }
  r.call = Call::kChainSpeculativeSampling;
  return true;
}

// The catalogue's top_k stage disables a row with k <= 0 or k >= V (docs/spec/filters.md
// "Disabled values"). top_k_mask_logits documents `top_k` "in (0, num_classes)" and its kernel
// (RadixTopKMaskLogitsKernel_MultiCTA, include/flashinfer/topk.cuh) copies a row only for
// `k >= vocab_size`; k = 0 there selects a NaN pivot and masks the whole row. Its callers encode
// "no top-k" as k >= V (vLLM stores V, SGLang 1 << 30), so k <= 0 is passed as V.
void EncodeDisabledTopK(Request& r) {
  for (std::int32_t& k : r.top_k) {
    if (k <= 0) k = static_cast<std::int32_t>(r.vocab);
  }
}

// inverse_cdf / canonical takes weights that need not sum to 1 (docs/spec/draws.md
// "inverse_cdf": t = u * C_{V-1}). SamplingFromProbKernel (include/flashinfer/sampling.cuh)
// reads a distribution: it compares `curand_uniform`, in (0, 1], with the raw running sum, and
// its fallback is commented "the sum of probabilities is smaller than u". A FlashInfer caller
// with weights divides by the row sum first, as sampling_from_probs' docstring example does
// (`pre_norm_prob / pre_norm_prob.sum(dim=-1, keepdim=True)`, f32): so does the adapter. A row
// whose sum is not finite and positive (NaN, infinite or all-zero weights, which the catalogue
// refuses) goes as it is.
void NormaliseRows(Request& r) {
  const auto vocab = static_cast<std::size_t>(r.vocab);
  for (std::size_t b = 0; b < static_cast<std::size_t>(r.rows); ++b) {
    double sum = 0.0;
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) sum += r.values[i];
    const auto s = static_cast<float>(sum);
    if (!std::isfinite(s) || !(s > 0.0f)) continue;
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) r.values[i] = r.values[i] / s;
  }
}

// top_p / flashinfer: FlashInfer has no top-p mask on logits, and its own logits entry points
// compute the probabilities its filters receive with torch.softmax
// (top_k_top_p_sampling_from_logits: `probs = torch.softmax(logits, dim=-1)`,
// python/sampling.py), as vLLM's flashinfer_sample does (`logits.softmax()`); none of them calls
// FlashInfer's own `softmax` kernel (judged on its own by the softmax stage). torch.softmax's
// formula per row, in f32: the maximum (a NaN anywhere makes it NaN), exp(x - max), their sum,
// each exp divided by the sum; so a row holding a NaN or a +inf is NaN throughout
// (+inf - +inf), as docs/spec/filters.md "Degenerate rows" takes it.
void TorchSoftmax(Request& r) {
  const auto vocab = static_cast<std::size_t>(r.vocab);
  r.probs.resize(r.values.size());
  for (std::size_t b = 0; b < static_cast<std::size_t>(r.rows); ++b) {
    float m = -std::numeric_limits<float>::infinity();
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) {
      if (std::isnan(r.values[i]) || std::isnan(m)) {
        m = std::numeric_limits<float>::quiet_NaN();
      } else if (r.values[i] > m) {
        m = r.values[i];
      }
    }
    float sum = 0.0f;
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) {
      r.probs[i] = std::exp(r.values[i] - m);
      sum += r.probs[i];
    }
    for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) r.probs[i] = r.probs[i] / sum;
  }
}

}  // namespace

std::string ParseRequest(const char* stage, const char* profile, const char* params_json,
                         const sampcheck_tensor* inputs, std::int32_t n_in, Request& r) {
  const std::string s = stage ? stage : "";
  const std::string prof = profile ? profile : "";
  Parser p(s, inputs, n_in);
  nlohmann::json params;
  r = Request{};
  r.seed = InputHash(inputs, n_in);
  bool ok = false;
  if (s == "flashinfer_sampling_from_probs" && prof == "flashinfer") {
    ok = Params(p, params_json, {"kernel", "deterministic", "filter_apply_order"}, params) &&
         Deterministic(p, params, r.deterministic) && ParseSamplingFromProbs(p, params, r);
  } else if (s == "inverse_cdf" && prof == "canonical") {
    r.call = Call::kSamplingFromProbs;
    ok = Params(p, params_json, {}, params) && Deterministic(p, params, r.deterministic) &&
         p.OnlyInputs({"probs", "u"}) && p.Matrix("probs", r) && p.NoiseShape("u", r.rows, true);
    if (ok) NormaliseRows(r);
  } else if (s == "gumbel_max" && prof == "canonical") {
    r.call = Call::kSamplingFromLogits;
    ok = Params(p, params_json, {}, params) && Deterministic(p, params, r.deterministic) &&
         p.OnlyInputs({"logprobs", "gumbel"}) && p.Matrix("logprobs", r) && p.NoiseShape("gumbel", r.rows, true);
  } else if (s == "top_k" && prof == "flashinfer") {
    r.call = Call::kTopKMaskLogits;
    ok = Params(p, params_json, {}, params) && p.OnlyInputs({"logits", "top_k"}) && p.Matrix("logits", r) &&
         p.PerRowInts("top_k", r.rows, r.top_k);
    if (ok) EncodeDisabledTopK(r);
  } else if (s == "top_p" && prof == "flashinfer") {
    r.call = Call::kTopPRenormMask;
    ok = Params(p, params_json, {}, params) && p.OnlyInputs({"logits", "top_p"}) && p.Matrix("logits", r) &&
         p.PerRowFloats("top_p", r.rows, r.top_p);
    if (ok) TorchSoftmax(r);
  } else if (s == "softmax" && prof == "canonical") {
    r.call = Call::kSoftmax;
    ok = Params(p, params_json, {}, params) && p.OnlyInputs({"logits", "temperature"}) && p.Matrix("logits", r) &&
         (p.Find("temperature") == nullptr || p.PerRowFloats("temperature", r.rows, r.temperature));
  } else if (s == "spec_random" && prof == "flashinfer") {
    ok = Params(p, params_json, {}, params) && Deterministic(p, params, r.deterministic) && ParseChainSpeculative(p, r);
  } else {
    return "stage '" + s + "' with profile '" + prof + "' is not declared by the FlashInfer plugin";
  }
  return ok ? std::string() : p.error();
}

}  // namespace sampcheck::flashinfer_plugin
