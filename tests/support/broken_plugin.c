/* SPDX-License-Identifier: Apache-2.0 */
/* Deliberately broken plugins for the fault-isolation tests (tests/plugin_backend_test.cc,
 * docs/spec/plugin_abi.md "Fault isolation"): the example plugin (examples/plugin/) with one
 * fault injected, chosen at compile time by BROKEN_FAULT, in every case whose logits have a
 * single column (V = 1; in golden/v1: greedy/single_column, token_bitmask/random_v1_*,
 * logit_bias dense_v1 and sparse_v1). Every other case is answered correctly, so a test sees the fault fail
 * exactly those cases while the run goes on.
 *
 * Faults: 1 segfault, 2 abort, 3 hang, 4 wrong shape, 5 wrong dtype, 6 NaN in a float output,
 * 7 missing output, 8 unknown ABI version, 9 error code with a message, 10 extra output,
 * 11 exit(0) inside run, 12 fork a helper process that sleeps past the case (its pid is
 * appended to the file named by $SAMPCHECK_TEST_PID_FILE), 13 an output whose shape and
 * nbytes agree on 2^43 bytes over a one-element buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define sampcheck_backend_v1 example_sampcheck_backend_v1
#include "plugin/example_plugin.c"
#undef sampcheck_backend_v1

#ifndef BROKEN_FAULT
#error "compile with -DBROKEN_FAULT=N"
#endif

enum {
  kSegfault = 1,
  kAbort = 2,
  kHang = 3,
  kWrongShape = 4,
  kWrongDtype = 5,
  kNaNOutput = 6,
  kMissingOutput = 7,
  kUnknownAbi = 8,
  kErrorCode = 9,
  kExtraOutput = 10,
  kExitZero = 11,
  kForkHelper = 12,
  kHugeOutput = 13
};

static int64_t huge_shape[1] = {(int64_t)1 << 40};

static int Triggered(const sampcheck_tensor* inputs, int32_t n_in) {
  const sampcheck_tensor* logits = sampcheck_plugin_find_input(inputs, n_in, "logits");
  return logits != NULL && logits->ndim == 2 && logits->shape[1] == 1;
}

/* Output array of two tensors for the extra-output fault; released by BrokenRelease. */
typedef struct TwoOutputs {
  sampcheck_tensor tensors[2];
  sampcheck_tensor* original;
  int64_t extra_shape[1];
  float extra_value;
} TwoOutputs;

static int32_t BrokenRun(void* context, const char* stage, const char* profile, const char* params_json,
                         const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs, int32_t* n_out,
                         char* error, uint64_t error_size) {
  const int trigger = Triggered(inputs, n_in);
  int32_t code;
  sampcheck_tensor* out;
  if (trigger && BROKEN_FAULT == kSegfault) {
    volatile int* nowhere = NULL;
    *nowhere = 1;
  }
  if (trigger && BROKEN_FAULT == kAbort) abort();
  if (trigger && BROKEN_FAULT == kHang) {
    for (;;) pause();
  }
  if (trigger && BROKEN_FAULT == kErrorCode) {
    return sampcheck_plugin_fail(error, error_size, 42, "injected failure for a single-column case");
  }
  if (trigger && BROKEN_FAULT == kExitZero) exit(0);
  if (trigger && BROKEN_FAULT == kForkHelper) {
    const pid_t helper = fork();
    const char* pid_file = getenv("SAMPCHECK_TEST_PID_FILE");
    FILE* f;
    if (helper == 0) {
      sleep(300);
      _exit(0);
    }
    /* Written by the plugin, not the helper: a helper killed at once must still be listed. */
    f = pid_file != NULL && helper > 0 ? fopen(pid_file, "a") : NULL;
    if (f != NULL) {
      fprintf(f, "%ld\n", (long)helper);
      fclose(f);
    }
  }
  code = ExampleRun(context, stage, profile, params_json, inputs, n_in, outputs, n_out, error, error_size);
  if (code != 0 || !trigger) return code;
  out = *outputs;
  switch (BROKEN_FAULT) {
    case kWrongShape: { /* same bytes, another shape: [B] -> [B, 1], [B, V] -> [B * V] */
      int64_t* shape = (int64_t*)out->shape; /* points into the example's Output */
      if (out->ndim == 2) {
        shape[0] *= shape[1];
        out->ndim = 1;
      } else {
        shape[1] = 1;
        out->ndim = 2;
      }
      break;
    }
    case kWrongDtype: /* same element size, another type */
      out->dtype = out->dtype == SAMPCHECK_DTYPE_I64 ? SAMPCHECK_DTYPE_F64 : SAMPCHECK_DTYPE_I32;
      break;
    case kHugeOutput: /* shape [2^40] of i64: 2^43 bytes, and nbytes agrees */
      out->ndim = 1;
      out->shape = huge_shape;
      out->dtype = SAMPCHECK_DTYPE_I64;
      out->nbytes = (uint64_t)1 << 43;
      break;
    case kNaNOutput:
      if (out->dtype == SAMPCHECK_DTYPE_F32 && out->nbytes >= sizeof(float)) ((float*)out->data)[0] = NAN;
      break;
    case kMissingOutput:
      ExampleRelease(context, *outputs, *n_out);
      *outputs = NULL;
      *n_out = 0;
      break;
    case kExtraOutput: {
      TwoOutputs* two = (TwoOutputs*)calloc(1, sizeof(TwoOutputs));
      if (two == NULL) return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
      two->tensors[0] = *out;
      two->original = out;
      two->extra_shape[0] = 1;
      two->tensors[1].name = "debug";
      two->tensors[1].dtype = SAMPCHECK_DTYPE_F32;
      two->tensors[1].ndim = 1;
      two->tensors[1].shape = two->extra_shape;
      two->tensors[1].data = &two->extra_value;
      two->tensors[1].nbytes = sizeof(float);
      *outputs = two->tensors;
      *n_out = 2;
      break;
    }
    default: break;
  }
  return 0;
}

static void BrokenRelease(void* context, sampcheck_tensor* outputs, int32_t n_out) {
  if (BROKEN_FAULT == kExtraOutput && n_out == 2) {
    TwoOutputs* two = (TwoOutputs*)(void*)outputs; /* tensors is the first member */
    ExampleRelease(context, two->original, 1);
    free(two);
    return;
  }
  ExampleRelease(context, outputs, n_out);
}

static sampcheck_backend broken_backend;

EXAMPLE_EXPORT const sampcheck_backend* sampcheck_backend_v1(void) {
  broken_backend = *example_sampcheck_backend_v1();
  broken_backend.name = "broken-plugin";
  broken_backend.run = BrokenRun;
  broken_backend.release_outputs = BrokenRelease;
  if (BROKEN_FAULT == kUnknownAbi) broken_backend.abi_version = 99;
  return &broken_backend;
}
