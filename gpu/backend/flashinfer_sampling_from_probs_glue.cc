// SPDX-License-Identifier: Apache-2.0
// Stage glue of flashinfer_sampling_from_probs (gpu/backend/flashinfer_sampling_from_probs_glue.h):
// reference/flashinfer_sampling_from_probs.cc's checks in its order, then one kernel launch.
#include "gpu/backend/flashinfer_sampling_from_probs_glue.h"

#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "reference/flashinfer_sampling_from_probs.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

using reference::FormatFloat;
using reference::StageInputs;

namespace {

FlashinferKind KindOf(reference::FlashinferKernel k) {
  switch (k) {
    case reference::FlashinferKernel::kTopKTopP:
      return FlashinferKind::kTopKTopP;
    case reference::FlashinferKernel::kTopK:
      return FlashinferKind::kTopK;
    case reference::FlashinferKernel::kTopP:
      return FlashinferKind::kTopP;
    case reference::FlashinferKernel::kMinP:
      break;
  }
  return FlashinferKind::kMinP;
}

}  // namespace

TensorMap GpuFlashinferSamplingFromProbs(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "flashinfer_sampling_from_probs");
  const Tensor probs = in.FloatRows("probs");
  const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
  const Tensor& u = in.Required("u", DType::kF32, 2);
  in.ExpectDim("u", u, 0, rows);
  const std::int64_t width = u.dim(1);
  if (width < 1) in.Fail("u must hold at least one uniform per row ([B, R], R >= 1)");
  for (const char* name : {"top_k", "top_p", "min_p"}) {
    if (const Tensor* t = in.Optional(name, std::string(name) == "top_k" ? DType::kI32 : DType::kF32, 1)) {
      in.ExpectDim(name, *t, 0, rows);
    }
  }
  const auto p = probs.data<float>();
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0.0f || std::isinf(p[i])) {
      in.Fail("probs[" + std::to_string(static_cast<std::int64_t>(i) / vocab) + ", " +
              std::to_string(static_cast<std::int64_t>(i) % vocab) + "] = " + FormatFloat(p[i]) +
              " must be >= 0 and finite, or NaN");
    }
  }
  const auto uv = u.data<float>();
  for (std::size_t i = 0; i < uv.size(); ++i) {
    if (!(uv[i] > 0.0f && uv[i] <= 1.0f)) {
      in.Fail("u[" + std::to_string(static_cast<std::int64_t>(i) / width) + ", " +
              std::to_string(static_cast<std::int64_t>(i) % width) + "] = " + FormatFloat(uv[i]) +
              " must be in (0, 1]");
    }
  }
  // The reference checks row b's parameters just before drawing row b: the rows before the first
  // bad one are drawn (and may fail first for want of uniforms), then the parameter error is raised.
  std::vector<std::uint32_t> top_k;
  std::vector<float> top_p, min_p;
  reference::FlashinferRowParams first;
  std::exception_ptr param_error;
  for (std::int64_t b = 0; b < rows; ++b) {
    try {
      const reference::FlashinferRowParams f = reference::FlashinferParamsOfRow(c, b);
      if (b == 0) first = f;
      top_k.push_back(f.top_k);
      top_p.push_back(f.top_p);
      min_p.push_back(f.min_p);
    } catch (...) {
      param_error = std::current_exception();
      break;
    }
  }
  const auto drawn = static_cast<std::int64_t>(top_k.size());
  Tensor token(DType::kI64, {rows});
  Tensor valid(DType::kBool, {rows});
  Tensor rounds(DType::kI32, {rows});
  if (drawn > 0) {
    runner.Run(FlashinferSamplingFromProbsLaunch(
        p.data(), top_k.data(), top_p.data(), min_p.data(), uv.data(), KindOf(first.kernel),
        first.top_k_first, drawn, width, vocab, token.data<std::int64_t>().data(),
        valid.data<std::uint8_t>().data(), rounds.data<std::int32_t>().data()));
  }
  for (std::int64_t b = 0; b < drawn; ++b) {
    if (rounds.data<std::int32_t>()[static_cast<std::size_t>(b)] < 0) {
      in.Fail("row " + std::to_string(b) + " needs more than " + std::to_string(width) +
              " uniforms (u is [B, R]; at most distinct positive probabilities + 1 rounds run)");
    }
  }
  if (param_error) std::rethrow_exception(param_error);
  TensorMap out = reference::Outputs("token", std::move(token));
  out.emplace("valid", std::move(valid));
  out.emplace("rounds", std::move(rounds));
  return out;
}

}  // namespace sampcheck::gpu
