/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers every C plugin of the backend ABI (docs/spec/plugin_abi.md) writes otherwise:
 * an error message into the caller's buffer, an input by name, and the exact widening of
 * f16 and bf16 to f32. Plain C99, header only (static inline), no dependency but
 * <sampcheck/backend_abi.h>: the example plugin (examples/plugin/example_plugin.c) and the
 * test plugins (tests/support/spec_plugin.c, tests/support/noise_plugin.c) include it. */
#ifndef SAMPCHECK_PLUGIN_HELPERS_H_
#define SAMPCHECK_PLUGIN_HELPERS_H_

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sampcheck/backend_abi.h"

/* Writes the formatted message into error[0, error_size) (truncated, NUL-terminated) and
 * returns `code`, so that `return sampcheck_plugin_fail(...)` ends a run with its error. */
static inline int sampcheck_plugin_fail(char* error, uint64_t error_size, int code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  if (error_size > 0) vsnprintf(error, (size_t)error_size, format, args);
  va_end(args);
  return code;
}

/* The input tensor named `name`, or NULL. */
static inline const sampcheck_tensor* sampcheck_plugin_find_input(const sampcheck_tensor* inputs, int32_t n_in,
                                                                  const char* name) {
  int32_t i;
  for (i = 0; i < n_in; ++i) {
    if (strcmp(inputs[i].name, name) == 0) return &inputs[i];
  }
  return NULL;
}

/* IEEE binary16 -> binary32, exact (every f16 value is an f32 value). */
static inline float sampcheck_plugin_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  float f;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13); /* inf or NaN (payload kept) */
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13); /* rebias 15 -> 127 */
  } else if (mantissa == 0) {
    bits = sign; /* signed zero */
  } else {
    /* subnormal: mantissa * 2^-24, exact in f32 */
    f = (float)mantissa * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* bfloat16 -> binary32, exact: the upper half of the f32 bits. */
static inline float sampcheck_plugin_bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

#endif /* SAMPCHECK_PLUGIN_HELPERS_H_ */
