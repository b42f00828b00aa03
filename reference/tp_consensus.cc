// SPDX-License-Identifier: Apache-2.0
// tp_consensus (reference/tp_consensus.h, docs/spec/tp_consensus.md).
#include "reference/tp_consensus.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// The ids of rank_ids as int64, whichever of i32/i64 they arrive in.
std::vector<std::int64_t> ReadIds(const Tensor& t) {
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(t.numel()));
  if (t.dtype() == DType::kI32) {
    for (std::int32_t x : t.data<std::int32_t>()) ids.push_back(x);
  } else {
    for (std::int64_t x : t.data<std::int64_t>()) ids.push_back(x);
  }
  return ids;
}

}  // namespace

TpConsensusArgs ParseTpConsensus(const Case& c) {
  StageInputs in(c, "tp_consensus");
  const auto found = c.inputs.find("rank_ids");
  if (found != c.inputs.end() && found->second.dtype() != DType::kI32 && found->second.dtype() != DType::kI64) {
    in.Fail("'rank_ids' must be i32 or i64, got " + std::string(DTypeName(found->second.dtype())));
  }
  const bool is_i32 = found != c.inputs.end() && found->second.dtype() == DType::kI32;
  const Tensor& t = in.Required("rank_ids", is_i32 ? DType::kI32 : DType::kI64, 2);
  TpConsensusArgs a{ReadIds(t), t.dim(0), t.dim(1)};
  if (a.ranks < 1) in.Fail("rank_ids must have R >= 1 ranks (dim 0), got " + std::to_string(a.ranks));
  for (std::size_t i = 0; i < a.ids.size(); ++i) {
    if (a.ids[i] < 0) {
      const auto r = static_cast<std::int64_t>(i) / a.batch, b = static_cast<std::int64_t>(i) % a.batch;
      in.Fail("rank_ids[" + std::to_string(r) + ", " + std::to_string(b) + "] = " + std::to_string(a.ids[i]) +
              ": a sampled id must be >= 0");
    }
  }
  return a;
}

TensorMap RunTpConsensus(const Case& c, Profile profile) {
  const TpConsensusArgs a = ParseTpConsensus(c);
  const std::vector<std::int64_t>& ids = a.ids;
  const std::int64_t ranks = a.ranks, batch = a.batch;
  Tensor token(DType::kI64, {batch});
  Tensor unanimous(DType::kBool, {batch});
  auto out = token.data<std::int64_t>();
  auto same = unanimous.data<std::uint8_t>();
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto at = [&](std::int64_t r) { return ids[static_cast<std::size_t>(r * batch + b)]; };
    std::int64_t lo = at(0), hi = at(0);
    for (std::int64_t r = 1; r < ranks; ++r) {
      lo = std::min(lo, at(r));
      hi = std::max(hi, at(r));
    }
    out[static_cast<std::size_t>(b)] = profile == Profile::kVllm ? at(0) : lo;
    same[static_cast<std::size_t>(b)] = lo == hi ? 1 : 0;
  }
  TensorMap result = Outputs("token", std::move(token));
  result.emplace("unanimous", std::move(unanimous));
  return result;
}

SAMPCHECK_REFERENCE_STAGE(tp_consensus, RunTpConsensus);

}  // namespace sampcheck::reference
