// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checks on one output tensor a C ABI plugin returns (docs/spec/plugin_abi.md "run"),
// separate from backends/plugin_backend.h so that they can be fuzzed
// (fuzz/plugin_output_fuzz.cc).
//
// Contract: the output is copied into an owned tensor only when it is self-consistent: a known
// dtype value, 0..8 dimensions, a non-NULL shape when ndim > 0, non-negative extents whose
// element count and byte size fit in int64, nbytes equal to that byte size, at most
// MaxResponseBytes (core/input_limits.h; checked before allocating), and non-NULL data when
// nbytes > 0. Otherwise InputError starting with `what` (which names the plugin file and the
// output) and naming the field. The data pointer is trusted to hold nbytes bytes: the C ABI
// gives no way to check it.
// Example: CopyPluginOutput({"token", SAMPCHECK_DTYPE_I64, 1, shape_of_3, data, 24}, "p.so: plugin output 'token'")
//   returns an i64 [3] tensor.

#include <string>

#include "core/tensor.h"
#include "sampcheck/backend_abi.h"

namespace sampcheck::backends {

Tensor CopyPluginOutput(const sampcheck_tensor& t, const std::string& what);

}  // namespace sampcheck::backends
