// SPDX-License-Identifier: Apache-2.0
#pragma once
// The only route to fused multiply-add in reference/math: FmaF64(a, b, c) = a*b + c rounded
// once (IEEE 754 fusedMultiplyAdd, roundTiesToEven).
//
// Contract:
// - Device: __fma_rn (a single DFMA instruction, correctly rounded).
// - Host: std::fma. glibc's fma is correctly rounded on x86-64 with or without hardware FMA:
//   it dispatches (ifunc) to vfmadd when the CPU has FMA3, else to an exact software
//   emulation (much slower). sampcheck does not pass -mfma, so SAMPCHECK_HOST_HAS_FMA is 0
//   and each FmaF64 is a libm call; the result bits do not depend on which path ran.
//   Measured cost: see docs/spec/math.md "Speed". The binary32 fast paths (ExpF32Cr,
//   LogF32Cr, Log1pF32Cr) use no fma; only their rare double-double fallback and the binary64
//   functions call FmaF64.
// - Never contracted from a*b + c: host code is compiled with -ffp-contract=off and device
//   code with --fmad=false, so every fma in reference/math is spelled with this function.
// - Not constexpr: std::fma is constexpr only from C++23.
// Example: FmaF64(0x1p27 + 1, 0x1p27 - 1, -0x1p54) == -1.0 (exact; a*b then + c would give 0).

#include <cmath>

#include "core/portability.h"

namespace sampcheck::math {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double FmaF64(double a, double b, double c) {
#if SAMPCHECK_IS_CUDA_DEVICE
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace sampcheck::math
