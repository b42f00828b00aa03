/* SPDX-License-Identifier: Apache-2.0 */
/* An example sampcheck backend plugin in plain C99 (docs/spec/plugin_abi.md): implements
 * greedy (docs/spec/greedy.md), token_bitmask (docs/spec/masks.md#token_bitmask) and
 * logit_bias (docs/spec/logit_bias.md, canonical and vllm profiles) on its own, without
 * sampcheck's reference code, as a kernel library would.
 *
 * Build: cc -std=c99 -O2 -fPIC -shared -ffp-contract=off -I include example_plugin.c -o libplugin.so
 * Check: sampcheck golden verify --golden golden/v1 --backend plugin:./libplugin.so
 *
 * f16 and bf16 logits are widened to f32 exactly; outputs are f32 logits or i64 tokens,
 * allocated here and freed in release_outputs. Errors return a non-zero code and a message.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampcheck/backend_abi.h"
#include "sampcheck/plugin_helpers.h"

#if defined(_WIN32)
#define EXAMPLE_EXPORT __declspec(dllexport)
#else
#define EXAMPLE_EXPORT __attribute__((visibility("default")))
#endif

enum { kErrBadInput = 1, kErrUnsupported = 2, kErrNoMemory = 3 };

/* Logits [B, V] widened into a new f32 buffer (caller frees). */
static float* WidenLogits(const sampcheck_tensor* t, int64_t* rows, int64_t* cols, char* error, uint64_t error_size,
                          int* code) {
  int64_t n, i;
  float* out;
  if (t == NULL || t->ndim != 2) {
    *code = sampcheck_plugin_fail(error, error_size, kErrBadInput, "input 'logits' must be a [B, V] tensor");
    return NULL;
  }
  *rows = t->shape[0];
  *cols = t->shape[1];
  n = *rows * *cols;
  out = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (out == NULL) {
    *code = sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory for %lld logits", (long long)n);
    return NULL;
  }
  for (i = 0; i < n; ++i) {
    switch (t->dtype) {
      case SAMPCHECK_DTYPE_F32: out[i] = ((const float*)t->data)[i]; break;
      case SAMPCHECK_DTYPE_F16:
        out[i] = sampcheck_plugin_f16_to_f32(((const uint16_t*)t->data)[i]);
        break;
      case SAMPCHECK_DTYPE_BF16:
        out[i] = sampcheck_plugin_bf16_to_f32(((const uint16_t*)t->data)[i]);
        break;
      default:
        free(out);
        *code = sampcheck_plugin_fail(error, error_size, kErrBadInput,
                                      "input 'logits' must be f32, f16 or bf16 (dtype %d)", t->dtype);
        return NULL;
    }
  }
  *code = 0;
  return out;
}

/* One output tensor with its own shape storage. */
typedef struct Output {
  sampcheck_tensor tensor;
  int64_t shape[2];
} Output;

static int MakeOutput(const char* name, int32_t dtype, int32_t ndim, int64_t d0, int64_t d1, void* data,
                      uint64_t nbytes, sampcheck_tensor** outputs, int32_t* n_out) {
  Output* o = (Output*)calloc(1, sizeof(Output));
  if (o == NULL) return 0;
  o->shape[0] = d0;
  o->shape[1] = d1;
  o->tensor.name = name;
  o->tensor.dtype = dtype;
  o->tensor.ndim = ndim;
  o->tensor.shape = o->shape;
  o->tensor.data = data;
  o->tensor.nbytes = nbytes;
  /* Output is laid out with the tensor first, so &o->tensor is the array release gets. */
  *outputs = &o->tensor;
  *n_out = 1;
  return 1;
}

static int LogitsOutput(float* x, int64_t rows, int64_t cols, sampcheck_tensor** outputs, int32_t* n_out,
                        char* error, uint64_t error_size) {
  if (!MakeOutput("logits", SAMPCHECK_DTYPE_F32, 2, rows, cols, x, (uint64_t)(rows * cols) * sizeof(float), outputs,
                  n_out)) {
    free(x);
    return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
  }
  return 0;
}

/* greedy: index of the first NaN, else the first index of the maximum (-0.0 == +0.0). */
static int RunGreedy(const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs, int32_t* n_out,
                     char* error, uint64_t error_size) {
  int64_t rows, cols, r, c;
  int code;
  int64_t* tokens;
  float* x = WidenLogits(sampcheck_plugin_find_input(inputs, n_in, "logits"), &rows, &cols, error, error_size, &code);
  if (x == NULL) return code;
  if (cols < 1) {
    free(x);
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "input 'logits' must have V >= 1 columns");
  }
  tokens = (int64_t*)malloc((size_t)(rows > 0 ? rows : 1) * sizeof(int64_t));
  if (tokens == NULL) {
    free(x);
    return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
  }
  for (r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    int64_t best = 0;
    for (c = 0; c < cols; ++c) {
      if (isnan(row[c])) {
        best = c;
        break;
      }
      if (row[c] > row[best]) best = c;
    }
    tokens[r] = best;
  }
  free(x);
  if (!MakeOutput("token", SAMPCHECK_DTYPE_I64, 1, rows, 0, tokens, (uint64_t)rows * sizeof(int64_t), outputs, n_out)) {
    free(tokens);
    return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
  }
  return 0;
}

/* Reads an integer parameter "key": N from the case's JSON object text (flat, no nesting). */
static int ParamInt(const char* params_json, const char* key, long long* value) {
  char quoted[64];
  const char* at;
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  at = strstr(params_json, quoted);
  if (at == NULL) return 0;
  at = strchr(at + strlen(quoted), ':');
  if (at == NULL) return 0;
  return sscanf(at + 1, " %lld", value) == 1;
}

/* token_bitmask: token t of a masked row r is allowed iff bit t%32 of word t/32 is set. */
static int RunTokenBitmask(const sampcheck_tensor* inputs, int32_t n_in, const char* params_json,
                           sampcheck_tensor** outputs, int32_t* n_out, char* error, uint64_t error_size) {
  int64_t rows, cols, words, limit, i, t;
  long long vocab_size;
  int code;
  const sampcheck_tensor* mask = sampcheck_plugin_find_input(inputs, n_in, "bitmask");
  const sampcheck_tensor* indices = sampcheck_plugin_find_input(inputs, n_in, "indices");
  float* x = WidenLogits(sampcheck_plugin_find_input(inputs, n_in, "logits"), &rows, &cols, error, error_size, &code);
  if (x == NULL) return code;
  if (mask == NULL || mask->ndim != 2 || mask->dtype != SAMPCHECK_DTYPE_I32 ||
      (indices != NULL && (indices->ndim != 1 || indices->dtype != SAMPCHECK_DTYPE_I32))) {
    free(x);
    return sampcheck_plugin_fail(error, error_size, kErrBadInput,
                                 "token_bitmask needs bitmask i32 [Bm, W] and optional indices i32 [N]");
  }
  words = mask->shape[1];
  limit = cols < 32 * words ? cols : 32 * words;
  if (ParamInt(params_json, "vocab_size", &vocab_size)) {
    if (vocab_size < 0 || vocab_size > limit) {
      free(x);
      return sampcheck_plugin_fail(error, error_size, kErrBadInput,
                                   "parameter vocab_size = %lld must be an integer in [0, min(V, 32 W)] = [0, %lld]",
                                   vocab_size, (long long)limit);
    }
    limit = vocab_size;
  }
  if (indices == NULL && mask->shape[0] != rows) {
    free(x);
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "bitmask has %lld rows; logits have %lld",
                                 (long long)mask->shape[0], (long long)rows);
  }
  for (i = 0; i < (indices ? indices->shape[0] : rows); ++i) {
    const int64_t r = indices ? ((const int32_t*)indices->data)[i] : i;
    const uint32_t* row_mask;
    if (r < 0 || r >= rows || r >= mask->shape[0]) {
      free(x);
      return sampcheck_plugin_fail(error, error_size, kErrBadInput, "indices[%lld] = %lld is out of range",
                                   (long long)i, (long long)r);
    }
    row_mask = (const uint32_t*)mask->data + r * words;
    for (t = 0; t < limit; ++t) {
      if (((row_mask[t >> 5] >> (t & 31)) & 1u) == 0) x[r * cols + t] = -INFINITY;
    }
  }
  return LogitsOutput(x, rows, cols, outputs, n_out, error, error_size);
}

/* Python's min(100.0, max(-100.0, v)): NaN -> -100 (max keeps its first argument). */
static float VllmClamp(float v) {
  float lo = (v > -100.0f) ? v : -100.0f;
  return (100.0f < lo) ? 100.0f : lo;
}

/* logit_bias: dense bias added everywhere, then listed sparse entries. */
static int RunLogitBias(const sampcheck_tensor* inputs, int32_t n_in, const char* profile, sampcheck_tensor** outputs,
                        int32_t* n_out, char* error, uint64_t error_size) {
  int64_t rows, cols, i, k;
  int code;
  const int clamp = strcmp(profile, "vllm") == 0;
  const sampcheck_tensor* bias = sampcheck_plugin_find_input(inputs, n_in, "bias");
  const sampcheck_tensor* bias_rows = sampcheck_plugin_find_input(inputs, n_in, "bias_rows");
  const sampcheck_tensor* bias_ids = sampcheck_plugin_find_input(inputs, n_in, "bias_ids");
  const sampcheck_tensor* bias_values = sampcheck_plugin_find_input(inputs, n_in, "bias_values");
  float* x = WidenLogits(sampcheck_plugin_find_input(inputs, n_in, "logits"), &rows, &cols, error, error_size, &code);
  if (x == NULL) return code;
  if (bias != NULL) {
    if (bias->dtype != SAMPCHECK_DTYPE_F32 || bias->ndim != 2 || bias->shape[0] != rows || bias->shape[1] != cols) {
      free(x);
      return sampcheck_plugin_fail(error, error_size, kErrBadInput, "input 'bias' must be f32 [B, V] like the logits");
    }
    for (i = 0; i < rows * cols; ++i) x[i] = x[i] + ((const float*)bias->data)[i];
  }
  if (bias_rows != NULL || bias_ids != NULL || bias_values != NULL) {
    int64_t n;
    if (bias_rows == NULL || bias_ids == NULL || bias_values == NULL || bias_rows->ndim != 1 ||
        bias_ids->ndim != 1 || bias_values->ndim != 1 || bias_rows->shape[0] != bias_ids->shape[0] ||
        bias_rows->shape[0] != bias_values->shape[0]) {
      free(x);
      return sampcheck_plugin_fail(error, error_size, kErrBadInput,
                                   "bias_rows, bias_ids and bias_values must be given together, [N] each");
    }
    n = bias_rows->shape[0];
    for (k = 0; k < n; ++k) {
      const int64_t r = ((const int32_t*)bias_rows->data)[k];
      const int64_t t = ((const int32_t*)bias_ids->data)[k];
      const float v = ((const float*)bias_values->data)[k];
      if (r < 0 || r >= rows || t < 0 || t >= cols) {
        free(x);
        return sampcheck_plugin_fail(error, error_size, kErrBadInput,
                                     "sparse bias entry %lld (%lld, %lld) is out of range", (long long)k, (long long)r,
                                     (long long)t);
      }
      x[r * cols + t] = x[r * cols + t] + (clamp ? VllmClamp(v) : v);
    }
  }
  return LogitsOutput(x, rows, cols, outputs, n_out, error, error_size);
}

static int32_t ExampleRun(void* context, const char* stage, const char* profile, const char* params_json,
                          const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs, int32_t* n_out,
                          char* error, uint64_t error_size) {
  (void)context;
  *outputs = NULL;
  *n_out = 0;
  if (strcmp(stage, "greedy") == 0) return RunGreedy(inputs, n_in, outputs, n_out, error, error_size);
  if (strcmp(stage, "token_bitmask") == 0) {
    return RunTokenBitmask(inputs, n_in, params_json, outputs, n_out, error, error_size);
  }
  if (strcmp(stage, "logit_bias") == 0) return RunLogitBias(inputs, n_in, profile, outputs, n_out, error, error_size);
  return sampcheck_plugin_fail(error, error_size, kErrUnsupported, "stage '%s' is not implemented by this plugin",
                               stage);
}

static void ExampleRelease(void* context, sampcheck_tensor* outputs, int32_t n_out) {
  (void)context;
  if (outputs == NULL || n_out < 1) return;
  free(outputs[0].data);
  free(outputs); /* the Output that holds it (tensor is its first member) */
}

static const char* const kCanonicalOnly[] = {"canonical"};
static const char* const kLogitBiasProfiles[] = {"canonical", "vllm"};
static const sampcheck_stage kStages[] = {
    {"greedy", kCanonicalOnly, 1},
    {"token_bitmask", kCanonicalOnly, 1},
    {"logit_bias", kLogitBiasProfiles, 2},
};

static const sampcheck_backend kBackend = {
    SAMPCHECK_BACKEND_ABI_VERSION,
    (uint32_t)sizeof(sampcheck_backend),
    "example-c-plugin",
    kStages,
    (int32_t)(sizeof kStages / sizeof kStages[0]),
    NULL,
    ExampleRun,
    ExampleRelease,
    NULL,
};

EXAMPLE_EXPORT const sampcheck_backend* sampcheck_backend_v1(void) { return &kBackend; }
