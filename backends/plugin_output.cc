// SPDX-License-Identifier: Apache-2.0
// Plugin output checks (backends/plugin_output.h).
#include "backends/plugin_output.h"

#include <cstring>
#include <optional>

#include "core/error.h"
#include "core/input_limits.h"

namespace sampcheck::backends {

namespace {

constexpr int kMaxDims = 8;

std::optional<DType> DTypeFromAbi(std::int32_t value) {
  for (DType d : kAllDTypes) {
    if (static_cast<std::int32_t>(d) == value) return d;
  }
  return std::nullopt;
}

// Copies one plugin output into an owned tensor, checking that the view is self-consistent.
}  // namespace

Tensor CopyPluginOutput(const sampcheck_tensor& t, const std::string& what) {
  const auto dtype = DTypeFromAbi(t.dtype);
  if (!dtype) throw InputError(what + " has unknown dtype value " + std::to_string(t.dtype));
  if (t.ndim < 0 || t.ndim > kMaxDims) {
    throw InputError(what + " has ndim " + std::to_string(t.ndim) + "; expected 0.." + std::to_string(kMaxDims));
  }
  if (t.ndim > 0 && t.shape == nullptr) throw InputError(what + " has a NULL shape");
  Shape shape(t.shape, t.shape + t.ndim);
  const auto numel = CheckedNumElements(shape, DTypeSize(*dtype));
  if (!numel) throw InputError(what + " has an invalid shape " + ShapeString(shape));
  const std::uint64_t want = static_cast<std::uint64_t>(*numel) * DTypeSize(*dtype);
  if (t.nbytes != want) {
    throw InputError(what + " has nbytes " + std::to_string(t.nbytes) + " but shape " + ShapeString(shape) + " " +
                     std::string(DTypeName(*dtype)) + " needs " + std::to_string(want));
  }
  if (want > 0 && t.data == nullptr) throw InputError(what + " has NULL data");
  // Checked before allocating: a plugin whose shape and nbytes agree on an absurd size would
  // otherwise end in std::bad_alloc, naming nothing.
  if (want > MaxResponseBytes()) {
    throw InputError(what + " has shape " + ShapeString(shape) + " " + std::string(DTypeName(*dtype)) + " of " +
                     std::to_string(want) + " bytes, above the limit of " + std::to_string(MaxResponseBytes()) +
                     " bytes (raise it with " + kMaxResponseBytesVariable + ")");
  }
  Tensor out = Tensor::Uninitialized(*dtype, shape);
  if (want > 0) std::memcpy(out.bytes().data(), t.data, want);
  return out;
}

}  // namespace sampcheck::backends
