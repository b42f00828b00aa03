/* SPDX-License-Identifier: Apache-2.0 */
/* A test plugin in plain C99 (docs/spec/plugin_abi.md) that declares only the `noise` stage
 * (docs/spec/noise.md), written from the spec without sampcheck's code: Philox4x32-10
 * (Random123's round and key schedule) on cuRAND's stream layout, SGLang's MurmurHash3 key,
 * and the conversions with libm's logf/log instead of sampcheck's owned log (so exponential
 * and Gumbel samples may differ in the last bit; the laws are the same). ctest runs
 * `sampcheck stats --backend plugin:... --stage noise` on it (noise_plugin_stats): a plugin
 * gets the noise harness by declaring the stage. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampcheck/backend_abi.h"
#include "sampcheck/plugin_helpers.h"

enum { kErrBadInput = 1, kErrNoMemory = 3 };

/* Word c % 4 of Philox4x32_10({c/4 low, c/4 high, 0, 0}, {seed low, seed high}). */
static uint32_t PhiloxWord(uint64_t seed, uint64_t c) {
  const uint64_t block = c / 4;
  uint32_t x[4], k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  int r;
  x[0] = (uint32_t)block, x[1] = (uint32_t)(block >> 32), x[2] = 0, x[3] = 0;
  for (r = 0; r < 10; ++r) {
    const uint64_t p0 = (uint64_t)0xD2511F53u * x[0], p1 = (uint64_t)0xCD9E8D57u * x[2];
    const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0, y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0, x[1] = (uint32_t)p1, x[2] = y2, x[3] = (uint32_t)p0;
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return x[c % 4];
}

static uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* MurmurHash3_x86_32, hash seed 0, of the 16 bytes seed low, seed high, c >> 32, c mod 2^32. */
static uint32_t MurmurKey(uint64_t seed, uint64_t c) {
  const uint32_t words[4] = {(uint32_t)seed, (uint32_t)(seed >> 32), (uint32_t)(c >> 32), (uint32_t)c};
  uint32_t h = 0;
  int i;
  for (i = 0; i < 4; ++i) {
    const uint32_t k = Rotl(words[i] * 0xcc9e2d51u, 15) * 0x1b873593u;
    h = Rotl(h ^ k, 13) * 5u + 0xe6546b64u;
  }
  h ^= 16u;
  h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
  return h;
}

/* The string value of "key" in a compact JSON object, copied into out; 0 when absent. */
static int JsonString(const char* json, const char* key, char* out, size_t size) {
  char pattern[32];
  const char* at;
  size_t n = 0;
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  at = strstr(json, pattern);
  if (at == NULL) return 0;
  at += strlen(pattern);
  while (at[n] != '\0' && at[n] != '"' && n + 1 < size) out[n] = at[n], ++n;
  out[n] = '\0';
  return 1;
}

static float Sample(int philox, int law, uint64_t seed, uint64_t c) {
  if (philox) {
    const float u = (float)PhiloxWord(seed, c) * 0x1p-32f + 0x1p-33f; /* curand_uniform */
    const float q = u >= 1.0f - 0x1p-24f ? 0x1p-24f : -logf(u);        /* torch exponential_ (CUDA) */
    return law == 0 ? u : law == 1 ? q : -logf(q);
  } else {
    const double u = (double)MurmurKey(seed, c) / 4294967295.0;
    double l = log(u), e;
    if (l < -1.7976931348623157e308) l = -1.7976931348623157e308;
    if (l > -0x1p-32) l = -0x1p-32;
    e = -l;
    return (float)(law == 0 ? u : law == 1 ? e : -log(e));
  }
}

typedef struct {
  sampcheck_tensor tensor;
  int64_t shape[2];
} Output;

static int32_t Run(void* context, const char* stage, const char* profile, const char* params_json,
                   const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs, int32_t* n_out,
                   char* error, uint64_t error_size) {
  const sampcheck_tensor* seed = sampcheck_plugin_find_input(inputs, n_in, "seed");
  const sampcheck_tensor* offset = sampcheck_plugin_find_input(inputs, n_in, "offset");
  char generator[16] = "philox", law_name[16] = "";
  const char* n_at = strstr(params_json, "\"n\":");
  int64_t rows, n = n_at != NULL ? strtoll(n_at + 4, NULL, 10) : 1, b, i;
  int law;
  Output* o;
  (void)context, (void)stage, (void)profile;
  *outputs = NULL, *n_out = 0;
  if (seed == NULL || offset == NULL || seed->dtype != SAMPCHECK_DTYPE_I64 || offset->dtype != SAMPCHECK_DTYPE_I64 ||
      seed->nbytes != offset->nbytes) {
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "noise needs i64 seed and offset of one length");
  }
  JsonString(params_json, "generator", generator, sizeof generator);
  if (!JsonString(params_json, "law", law_name, sizeof law_name))
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "no law");
  law = strcmp(law_name, "uniform") == 0 ? 0 : strcmp(law_name, "exponential") == 0 ? 1 : strcmp(law_name, "gumbel") == 0 ? 2 : -1;
  if (law < 0 || (strcmp(generator, "philox") != 0 && strcmp(generator, "murmur3") != 0) || n < 0) {
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "bad params %s", params_json);
  }
  rows = (int64_t)(seed->nbytes / 8);
  o = (Output*)calloc(1, sizeof *o);
  if (o == NULL) return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
  o->shape[0] = rows, o->shape[1] = n;
  o->tensor.name = "noise", o->tensor.dtype = SAMPCHECK_DTYPE_F32, o->tensor.ndim = 2, o->tensor.shape = o->shape;
  o->tensor.nbytes = (uint64_t)(rows * n) * 4u;
  o->tensor.data = malloc(o->tensor.nbytes > 0 ? o->tensor.nbytes : 1);
  *outputs = &o->tensor;
  *n_out = 1;
  if (o->tensor.data == NULL) return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory");
  for (b = 0; b < rows; ++b) {
    const uint64_t s = (uint64_t)((const int64_t*)seed->data)[b], c0 = (uint64_t)((const int64_t*)offset->data)[b];
    for (i = 0; i < n; ++i) {
      ((float*)o->tensor.data)[b * n + i] = Sample(strcmp(generator, "philox") == 0, law, s, c0 + (uint64_t)i);
    }
  }
  return 0;
}

static void Release(void* context, sampcheck_tensor* outputs, int32_t n_out) {
  (void)context;
  if (outputs == NULL || n_out < 1) return;
  free(outputs[0].data);
  free(outputs); /* the Output that holds it (tensor is its first member) */
}

static const char* const kCanonical[] = {"canonical"};
static const sampcheck_stage kStages[] = {{"noise", kCanonical, 1}};
static const sampcheck_backend kBackend = {SAMPCHECK_BACKEND_ABI_VERSION, (uint32_t)sizeof(sampcheck_backend),
                                           "noise-test-c-plugin", kStages, 1, NULL, Run, Release, NULL};

__attribute__((visibility("default"))) const sampcheck_backend* sampcheck_backend_v1(void) { return &kBackend; }
