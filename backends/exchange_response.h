// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading one response of an exec backend (docs/spec/exchange.md "run"): the parser of
// untrusted input behind backends/exchange_backend.h, separate so that it can be fuzzed
// (fuzz/exchange_response_fuzz.cc).
//
// Contract:
// - NNNN.error wins: its first kMaxReasonBytes become the case's reason ("backend error: ..."),
//   cut with a note when longer; it must be a regular file (never blocks on a FIFO).
// - NNNN.safetensors: a regular file of at most MaxResponseBytes (core/input_limits.h). Its
//   header is checked before any data is read: every tensor is out.NAME for an output the
//   stage lists, of the shape the case calls for (backends/output_shapes.h); for a draw
//   request (draws > 0), exactly out.counts [rows, V] like the logits.
// - Neither file: "no response for this case". Every fault becomes the outcome's error
//   naming the file; nothing throws.
// - CheckDrawCounts: out.counts must be the only output, i64 [rows, V] like the logits,
//   every count >= 0 and every row summing to draws; InputError naming the case otherwise.
// Example: ReadExchangeResponse(dir, "0000", greedy_case, 0).outputs == {"token": i64 [B]}

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "core/backend.h"
#include "core/case.h"

namespace sampcheck::backends {

Backend::CaseOutcome ReadExchangeResponse(const std::filesystem::path& dir, const std::string& stem, const Case& c,
                                          std::int64_t draws);
// The same checks on the bytes of a .safetensors response already in memory (`what` names it).
Backend::CaseOutcome ParseExchangeResponse(std::span<const std::byte> bytes, const std::string& what, const Case& c,
                                           std::int64_t draws);
Tensor CheckDrawCounts(TensorMap outputs, const Case& c, std::int64_t draws);

}  // namespace sampcheck::backends
