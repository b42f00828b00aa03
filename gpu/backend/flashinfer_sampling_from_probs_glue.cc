// SPDX-License-Identifier: Apache-2.0
// Stage glue of flashinfer_sampling_from_probs (gpu/backend/flashinfer_sampling_from_probs_glue.h):
// the reference's parse (ParseFlashinferSamplingFromProbs: each check and message once), the
// row parameters row by row as the reference meets them, then one kernel launch.
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

TensorMap GpuFlashinferSamplingFromProbs(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  const reference::FlashinferSamplingArgs a = reference::ParseFlashinferSamplingFromProbs(c);
  const std::int64_t rows = a.rows, vocab = a.vocab, width = a.width;
  const auto p = a.probs.data<float>();
  const auto uv = a.u->data<float>();
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
    if (rounds.data<std::int32_t>()[static_cast<std::size_t>(b)] < 0) reference::FailOutOfUniforms(c, b, width);
  }
  if (param_error) std::rethrow_exception(param_error);
  return reference::FlashinferSamplingOutputs(std::move(token), std::move(valid), std::move(rounds));
}

}  // namespace sampcheck::gpu
