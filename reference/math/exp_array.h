// SPDX-License-Identifier: Apache-2.0
#pragma once
// ExpF32CrArray: the owned correctly rounded binary32 exp (reference/math/exp.h, ExpF32Cr) over
// an array, with a SIMD fast path (docs/spec/math.md "Vectorised exp").
//
// Contract:
// - ExpF32CrArray(x, n, shift, out): out[i] = ExpF32Cr(x[i] - shift) for i < n, the subtraction
//   one binary32 IEEE subtraction as in the scalar loops it replaces (softmax's `x - m`). The
//   result bits are those of ExpF32Cr for every input (tested over all 2^32 binary32 inputs,
//   tests/owned_math_accuracy_test.cc ExhaustiveF32ArrayMatchesScalar, and on sampled shifted
//   rows in tests/owned_math_test.cc). `out` may alias `x` (element i is read before it is
//   written); other overlaps are not allowed.
// - Why the bits match (CORE-MATH style two-level evaluation): each SIMD lane runs exactly the
//   IEEE operations of detail::ExpF32Fast — same constants, same parenthesisation of the
//   Estrin scheme, binary64 + - * only, each an explicit mul/add/sub intrinsic, no fma — and the same
//   rounding test RoundF64ToF32IfSafe, written with integer lane operations. A lane whose test
//   passes therefore holds the binary32 value ExpF32Fast would return. Lanes outside the fast
//   path's domain get what ExpF32Dd returns there: x < -0x1.ap6 (including -inf) -> +0,
//   x > 0x1.63p6 (including +inf) -> +inf. NaN lanes and lanes whose rounding test fails
//   (about 2^-23 of the inputs) are recomputed by the scalar ExpF32Cr, which then takes its
//   double-double path.
// - Dispatch, once per call: AVX-512F (8 lanes) when __builtin_cpu_supports says the host has
//   it, else AVX2 (4 lanes), else (other hosts, older x86-64) the scalar loop itself.
//   ExpF32CrArrayIsa() names the path chosen (benchmarks, test logs); ExpF32CrArrayWith forces
//   one, for tests.
// Example: float x[3] = {0.0f, 1.0f, -INFINITY}; ExpF32CrArray(x, 3, 0.0f, x) leaves
//   {1.0f, 0x1.5bf0a8p1f, 0.0f}.

#include <cstddef>

namespace sampcheck::math {

enum class ExpIsa { kPortable, kAvx2, kAvx512 };

// The path ExpF32CrArray takes on this host.
ExpIsa ExpF32CrArrayIsa();
const char* ExpIsaName(ExpIsa isa);

void ExpF32CrArray(const float* x, std::size_t n, float shift, float* out);

// Forces a path (tests and benchmarks). An ISA the host lacks falls back to the next lower one.
void ExpF32CrArrayWith(ExpIsa isa, const float* x, std::size_t n, float shift, float* out);

}  // namespace sampcheck::math
