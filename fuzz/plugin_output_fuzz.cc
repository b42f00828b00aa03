// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the checks on a plugin's output tensor (backends/plugin_output.h,
// docs/spec/plugin_abi.md "run"). The input bytes give a flags byte (bit 0: NULL shape,
// bit 1: NULL data), dtype (i32), ndim (i32), 8 extents (i64 each) and nbytes (u64); the rest
// is the data buffer. Inputs whose nbytes exceed
// the bytes actually supplied are skipped: the C ABI trusts the data pointer for nbytes bytes,
// so such a call would be the harness lying, not the checks failing. Oracle: accepted (a
// tensor of exactly nbytes with the given dtype and shape), or refused with InputError;
// anything else is a finding (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "backends/plugin_output.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck;
  constexpr std::size_t kFixed = 1 + 4 + 4 + 8 * 8 + 8;
  if (size < kFixed) return 0;
  sampcheck_tensor t{};
  std::int64_t shape[8];
  const std::uint8_t flags = data[0];
  std::memcpy(&t.dtype, data + 1, 4);
  std::memcpy(&t.ndim, data + 5, 4);
  std::memcpy(shape, data + 9, sizeof shape);
  std::memcpy(&t.nbytes, data + 9 + sizeof shape, 8);
  const std::size_t available = size - kFixed;
  if (t.nbytes > available) return 0;
  t.name = "token";
  t.shape = (flags & 1) ? nullptr : shape;
  t.data = (flags & 2) ? nullptr : const_cast<std::uint8_t*>(data + kFixed);
  try {
    const Tensor out = backends::CopyPluginOutput(t, "fuzz.so: plugin output 'token'");
    if (out.nbytes() != t.nbytes || out.rank() != t.ndim) std::abort();
    if (t.nbytes > 0 && std::memcmp(out.bytes().data(), t.data, t.nbytes) != 0) std::abort();
  } catch (const InputError&) {
  }
  return 0;
}
