// SPDX-License-Identifier: Apache-2.0
// Stage glue of flashinfer_sampling_from_probs (gpu/backend/flashinfer_sampling_from_probs_glue.h):
// the reference's parse (ParseFlashinferSamplingFromProbs: each check and message once), the
// row parameters row by row as the reference meets them (FlashinferRowsOf), then one kernel launch.
#include "gpu/backend/flashinfer_sampling_from_probs_glue.h"

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "reference/flashinfer_sampling_from_probs.h"

namespace sampcheck::gpu {

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

FlashinferRows FlashinferRowsOf(const Case& c, std::int64_t rows) {
  FlashinferRows r;
  for (std::int64_t b = 0; b < rows; ++b) {
    try {
      const reference::FlashinferRowParams f = reference::FlashinferParamsOfRow(c, b);
      if (b == 0) {
        r.kind = KindOf(f.kernel);
        r.top_k_first = f.top_k_first;
      }
      r.top_k.push_back(f.top_k);
      r.top_p.push_back(f.top_p);
      r.min_p.push_back(f.min_p);
    } catch (...) {
      r.param_error = std::current_exception();
      break;
    }
  }
  return r;
}

TensorMap FinishFlashinferSampling(const Case& c, const FlashinferRows& r, std::int64_t width, Tensor token,
                                   Tensor valid, Tensor rounds) {
  for (std::int64_t b = 0; b < r.drawn(); ++b) {
    if (rounds.data<std::int32_t>()[static_cast<std::size_t>(b)] < 0) reference::FailOutOfUniforms(c, b, width);
  }
  if (r.param_error) std::rethrow_exception(r.param_error);
  return reference::FlashinferSamplingOutputs(std::move(token), std::move(valid), std::move(rounds));
}

TensorMap GpuFlashinferSamplingFromProbs(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  const reference::FlashinferSamplingArgs a = reference::ParseFlashinferSamplingFromProbs(c);
  const std::int64_t rows = a.rows, vocab = a.vocab, width = a.width;
  const auto p = a.probs.data<float>();
  const auto uv = a.u->data<float>();
  const FlashinferRows r = FlashinferRowsOf(c, rows);
  const std::int64_t drawn = r.drawn();
  Tensor token(DType::kI64, {rows});
  Tensor valid(DType::kBool, {rows});
  Tensor rounds(DType::kI32, {rows});
  if (drawn > 0) {
    runner.Run(FlashinferSamplingFromProbsLaunch(
        p.data(), r.top_k.data(), r.top_p.data(), r.min_p.data(), uv.data(), r.kind, r.top_k_first, drawn, width,
        vocab, token.data<std::int64_t>().data(), valid.data<std::uint8_t>().data(),
        rounds.data<std::int32_t>().data()));
  }
  return FinishFlashinferSampling(c, r, width, std::move(token), std::move(valid), std::move(rounds));
}

}  // namespace sampcheck::gpu
