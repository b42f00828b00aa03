// SPDX-License-Identifier: Apache-2.0
// One exec-backend response (backends/exchange_response.h).
#include "backends/exchange_response.h"

#include <limits>

#include "backends/output_shapes.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "core/input_limits.h"
#include "core/safetensors.h"

namespace sampcheck::backends {

namespace {

// Refuses a response from its header alone (before its data is read): every tensor must be
// out.NAME for an output of the stage, of the shape the case calls for (backends/output_shapes.h).
HeaderCheck ResponseCheck(const Case& c, std::int64_t draws) {
  return [&c, draws](const SafetensorsHeader& header) {
    auto expected = ExpectedOutputShapes(c);
    if (draws > 0) {  // a draw response holds counts [rows, V] like the logits
      expected.clear();
      auto logits = c.inputs.find("logits");
      ExpectedShape counts = {std::nullopt, std::nullopt};
      if (logits != c.inputs.end() && logits->second.rank() == 2) counts = {logits->second.dim(0), logits->second.dim(1)};
      expected.emplace("counts", counts);
    }
    std::string outputs;
    for (const auto& [name, shape] : expected) outputs += (outputs.empty() ? "" : ", ") + name;
    for (const SafetensorsEntry& e : header.entries) {
      if (e.name.rfind("out.", 0) != 0) {
        throw InputError("response tensor '" + e.name + "' lacks the out. prefix");
      }
      const std::string name = e.name.substr(4);
      auto it = expected.find(name);
      if (it == expected.end()) {
        throw InputError("unexpected output '" + name + "' (" + (draws > 0 ? "a draw request" : "stage '" + c.stage + "'") +
                         " gives " + (outputs.empty() ? "none" : outputs) + "); its data was not read");
      }
      if (it->second && !ShapeMatches(*it->second, e.shape)) {
        throw InputError("output '" + name + "' has the wrong shape: " + ShapeString(e.shape) + ", the case needs " +
                         ExpectedShapeString(*it->second) + "; its data was not read");
      }
    }
  };
}

}  // namespace

Backend::CaseOutcome ReadExchangeResponse(const std::filesystem::path& dir, const std::string& stem, const Case& c,
                                          std::int64_t draws) {
  Backend::CaseOutcome o;
  const auto error_file = dir / (stem + ".error");
  const auto tensor_file = dir / (stem + ".safetensors");
  try {
    if (std::filesystem::exists(error_file)) {
      // Only the first kMaxReasonBytes (and a little more, to say how much was cut) are read:
      // a reason is for a person to read, and a backend may write gigabytes.
      std::uint64_t size = 0;
      std::string text = ReadBoundedPrefix(error_file, std::numeric_limits<std::uint64_t>::max(), "", 0,
                                           kMaxReasonBytes, &size);
      text = CapReason(std::move(text), size);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      o.error = "backend error: " + text;
      return o;
    }
    if (!std::filesystem::exists(tensor_file)) {
      o.error = "no response for this case (neither " + stem + ".safetensors nor " + stem + ".error)";
      return o;
    }
    for (auto& [name, t] : ReadSafetensors(tensor_file, MaxResponseBytes(), kMaxResponseBytesVariable,
                                           [&](const SafetensorsHeader& h) {
                                             try {
                                               ResponseCheck(c, draws)(h);
                                             } catch (const InputError& e) {
                                               throw InputError(tensor_file.string() + ": " + e.what());
                                             }
                                           })
                                .tensors) {
      o.outputs.emplace(name.substr(4), std::move(t));
    }
  } catch (const std::exception& e) {
    o.outputs.clear();
    o.error = ExceptionText(e);
  }
  return o;
}

Backend::CaseOutcome ParseExchangeResponse(std::span<const std::byte> bytes, const std::string& what, const Case& c,
                                           std::int64_t draws) {
  Backend::CaseOutcome o;
  try {
    const SafetensorsHeader header = ParseSafetensorsHeader(bytes, bytes.size(), what);
    try {
      ResponseCheck(c, draws)(header);
    } catch (const InputError& e) {
      throw InputError(what + ": " + e.what());
    }
    for (auto& [name, t] : ParseSafetensors(bytes, what).tensors) o.outputs.emplace(name.substr(4), std::move(t));
    if (draws > 0) {
      Tensor counts = CheckDrawCounts(std::move(o.outputs), c, draws);
      o.outputs.clear();
      o.outputs.emplace("counts", std::move(counts));
    }
  } catch (const std::exception& e) {
    o.outputs.clear();
    o.error = ExceptionText(e);
  }
  return o;
}

Tensor CheckDrawCounts(TensorMap outputs, const Case& c, std::int64_t draws) {
  auto it = outputs.find("counts");
  if (it == outputs.end() || outputs.size() != 1) {
    throw InputError("case '" + c.id + "': a draw response must hold exactly one tensor, out.counts");
  }
  const Tensor& counts = it->second;
  const auto logits = c.inputs.find("logits");
  if (counts.dtype() != DType::kI64 || counts.rank() != 2 ||
      (logits != c.inputs.end() && logits->second.rank() == 2 && counts.shape() != logits->second.shape())) {
    throw InputError("case '" + c.id + "': out.counts must be i64 [rows, V] like the logits; got " +
                     std::string(DTypeName(counts.dtype())) + " " + ShapeString(counts.shape()));
  }
  const auto values = counts.data<std::int64_t>();
  const std::int64_t vocab = counts.dim(1);
  for (std::int64_t r = 0; r < counts.dim(0); ++r) {
    std::int64_t sum = 0;
    for (std::int64_t t = 0; t < vocab; ++t) {
      const std::int64_t v = values[static_cast<std::size_t>(r * vocab + t)];
      if (v < 0) throw InputError("case '" + c.id + "': out.counts holds a negative count in row " + std::to_string(r));
      if (__builtin_add_overflow(sum, v, &sum)) {  // a hostile count must not overflow the sum (UB)
        throw InputError("case '" + c.id + "': out.counts row " + std::to_string(r) +
                         " sums beyond int64, not the " + std::to_string(draws) + " draws asked for");
      }
    }
    if (sum != draws) {
      throw InputError("case '" + c.id + "': out.counts row " + std::to_string(r) + " sums to " + std::to_string(sum) +
                       ", not the " + std::to_string(draws) + " draws asked for");
    }
  }
  return std::move(it->second);
}

}  // namespace sampcheck::backends
