/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SAMPCHECK_BACKEND_ABI_H_
#define SAMPCHECK_BACKEND_ABI_H_
/* The sampcheck backend plugin ABI, version 1 (docs/spec/plugin_abi.md): plain C99, so a
 * kernel library can be checked without linking against sampcheck or using C++.
 *
 * A plugin is a shared library that exports
 *     const sampcheck_backend* sampcheck_backend_v1(void);
 * returning a pointer to a descriptor that stays valid until `destroy` is called. sampcheck
 * reads `abi_version` and `struct_size` first and refuses a plugin whose version is not
 * SAMPCHECK_BACKEND_ABI_VERSION or whose struct is smaller than this header's.
 *
 * Tensors are named views {name, dtype, ndim, shape, data, nbytes}: contiguous, row-major,
 * little-endian, nbytes = product(shape) * element size (a 0-d tensor holds one element).
 * Inputs are the case's tensors under their stage-catalogue names (`sampcheck stages --json`)
 * without the "in." prefix; they are read-only and valid for the duration of `run`.
 *
 * Outputs are ALLOCATED BY THE PLUGIN: `run` stores an array of `*n_out` tensors in `*outputs`;
 * sampcheck copies them and then calls `release_outputs(context, *outputs, *n_out)` exactly
 * once (also when `run` failed and left `*outputs` non-NULL). Output names carry no prefix
 * ("token", "logits").
 *
 * Errors: `run` returns 0 on success; any other value is an error code, and the plugin writes
 * a NUL-terminated message of at most `error_size` bytes (terminator included) into `error`.
 * sampcheck reports "plugin error CODE: MESSAGE" as the case's failure reason.
 *
 * Threads: sampcheck calls `run` from one thread at a time.
 *
 * Optional second export (docs/spec/plugin_abi.md "Distributional stages"):
 *     int32_t sampcheck_backend_v1_distributional_stages(const char* const** stages);
 * stores an array of stage names in `*stages` and returns its length: the declared stages whose
 * outputs the plugin claims only in distribution (it draws with its own randomness, as a
 * production kernel does, instead of the case's noise). Golden verification skips their cases
 * and the statistical harness judges their draws. Without the export every declared stage is
 * claimed bit for bit (its catalogue tier).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SAMPCHECK_BACKEND_ABI_VERSION 1u
#define SAMPCHECK_BACKEND_ENTRY_SYMBOL "sampcheck_backend_v1"

/* Element types; the values equal sampcheck's DType enum (core/dtype.h), checked by
 * static_assert in backends/plugin_backend.cc. bool is one byte holding 0 or 1. */
typedef enum sampcheck_dtype {
  SAMPCHECK_DTYPE_F32 = 0,
  SAMPCHECK_DTYPE_F16 = 1,
  SAMPCHECK_DTYPE_BF16 = 2,
  SAMPCHECK_DTYPE_I32 = 3,
  SAMPCHECK_DTYPE_I64 = 4,
  SAMPCHECK_DTYPE_U8 = 5,
  SAMPCHECK_DTYPE_BOOL = 6,
  SAMPCHECK_DTYPE_F64 = 7
} sampcheck_dtype;

typedef struct sampcheck_tensor {
  const char* name;      /* NUL-terminated, e.g. "logits" */
  int32_t dtype;         /* a sampcheck_dtype value */
  int32_t ndim;          /* 0 .. 8 */
  const int64_t* shape;  /* ndim extents, each >= 0 */
  void* data;            /* nbytes bytes; may be NULL when nbytes == 0 */
  uint64_t nbytes;
} sampcheck_tensor;

/* A supported stage and the profiles (docs/spec/profiles.md) the plugin implements for it. */
typedef struct sampcheck_stage {
  const char* name;               /* a stage-catalogue name, e.g. "greedy" */
  const char* const* profiles;    /* e.g. {"canonical", "vllm"} */
  int32_t n_profiles;
} sampcheck_stage;

typedef struct sampcheck_backend {
  uint32_t abi_version; /* SAMPCHECK_BACKEND_ABI_VERSION */
  uint32_t struct_size; /* sizeof(sampcheck_backend) as the plugin was compiled */
  const char* name;     /* shown in reports */
  const sampcheck_stage* stages;
  int32_t n_stages;
  void* context; /* passed back to every call */
  /* Run one case. `params_json` is the case's scalar parameters as a JSON object text,
   * e.g. {"vocab_size":31}; "{}" when there are none. */
  int32_t (*run)(void* context, const char* stage, const char* profile, const char* params_json,
                 const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs,
                 int32_t* n_out, char* error, uint64_t error_size);
  void (*release_outputs)(void* context, sampcheck_tensor* outputs, int32_t n_out);
  /* Called once before the library is unloaded; may be NULL. */
  void (*destroy)(void* context);
} sampcheck_backend;

typedef const sampcheck_backend* (*sampcheck_backend_entry_fn)(void);

#define SAMPCHECK_BACKEND_DISTRIBUTIONAL_SYMBOL "sampcheck_backend_v1_distributional_stages"
typedef int32_t (*sampcheck_backend_distributional_fn)(const char* const** stages);

#ifdef __cplusplus
}
#endif

#endif /* SAMPCHECK_BACKEND_ABI_H_ */
