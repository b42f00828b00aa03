/* SPDX-License-Identifier: Apache-2.0 */
/* A test plugin in plain C99 (docs/spec/plugin_abi.md) for the speculative-decoding stages
 * (docs/spec/speculative.md), written from the spec without sampcheck's reference code:
 * spec_greedy (canonical) and spec_random (vllm). ctest runs it on golden/v1 through
 * `sampcheck golden verify --backend plugin:...` (spec_plugin_backend_verify), so rank-3
 * position rows, f64 uniforms, empty [B, 0] drafts and two i64 outputs cross the C ABI.
 * Other spec_random profiles are not declared (their cases are skipped). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampcheck/backend_abi.h"
#include "sampcheck/plugin_helpers.h"

enum { kErrBadInput = 1, kErrUnsupported = 2, kErrNoMemory = 3 };

/* f32/f16/bf16 tensor widened into a new f32 buffer (caller frees); NULL on a bad dtype. */
static float* Widen(const sampcheck_tensor* t) {
  uint64_t n, i;
  float* out;
  if (t->dtype == SAMPCHECK_DTYPE_F32) n = t->nbytes / 4;
  else if (t->dtype == SAMPCHECK_DTYPE_F16 || t->dtype == SAMPCHECK_DTYPE_BF16) n = t->nbytes / 2;
  else return NULL;
  out = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (out == NULL) return NULL;
  for (i = 0; i < n; ++i) {
    if (t->dtype == SAMPCHECK_DTYPE_F32) memcpy(&out[i], (const char*)t->data + 4 * i, 4);
    else if (t->dtype == SAMPCHECK_DTYPE_BF16)
      out[i] = sampcheck_plugin_bf16_to_f32(((const uint16_t*)t->data)[i]);
    else
      out[i] = sampcheck_plugin_f16_to_f32(((const uint16_t*)t->data)[i]);
  }
  return out;
}

/* The outputs emitted [B, K + 1] and num_accepted [B], i64, in one allocation. */
typedef struct Outputs {
  sampcheck_tensor tensors[2];
  int64_t emitted_shape[2];
  int64_t accepted_shape[1];
} Outputs;

static Outputs* MakeOutputs(int64_t rows, int64_t width) {
  Outputs* o = (Outputs*)calloc(1, sizeof(Outputs));
  int64_t i;
  if (o == NULL) return NULL;
  o->emitted_shape[0] = rows;
  o->emitted_shape[1] = width + 1;
  o->accepted_shape[0] = rows;
  o->tensors[0].name = "emitted";
  o->tensors[1].name = "num_accepted";
  o->tensors[0].dtype = o->tensors[1].dtype = SAMPCHECK_DTYPE_I64;
  o->tensors[0].ndim = 2;
  o->tensors[1].ndim = 1;
  o->tensors[0].shape = o->emitted_shape;
  o->tensors[1].shape = o->accepted_shape;
  o->tensors[0].nbytes = (uint64_t)(rows * (width + 1)) * 8u;
  o->tensors[1].nbytes = (uint64_t)rows * 8u;
  o->tensors[0].data = malloc((size_t)o->tensors[0].nbytes + 8);
  o->tensors[1].data = malloc((size_t)o->tensors[1].nbytes + 8);
  if (o->tensors[0].data == NULL || o->tensors[1].data == NULL) {
    free(o->tensors[0].data);
    free(o->tensors[1].data);
    free(o);
    return NULL;
  }
  for (i = 0; i < rows * (width + 1); ++i) ((int64_t*)o->tensors[0].data)[i] = -1;
  return o;
}

/* First index of the maximum; NaN beats every number (greedy.md). */
static int64_t Argmax(const float* row, int64_t vocab) {
  int64_t best = 0, j;
  for (j = 1; j < vocab; ++j) {
    const float a = row[j], b = row[best];
    if (b != b) break; /* the first NaN wins */
    if (a != a || a > b) best = j;
  }
  return best;
}

/* argmax_j w_j / q_j over every j: the first NaN, else the first maximum (torch.argmax). */
static int64_t Race(const float* w, const float* q, int64_t vocab) {
  int64_t best = 0, j;
  float best_value = w[0] / q[0];
  for (j = 1; j < vocab; ++j) {
    const float v = w[j] / q[j];
    if (best_value != best_value) break; /* the first NaN wins */
    if (v != v || v > best_value) best = j, best_value = v;
  }
  return best;
}

/* argmax_j w_j * (1 / q_j) over every j, first maximum: vLLM's recovered race, prob * q.reciprocal().
   From -inf with a strict >: a NaN score never wins, and a row of NaN scores gives 0. */
static int64_t RaceReciprocal(const float* w, const float* q, int64_t vocab) {
  int64_t best = 0, j;
  float best_value = -INFINITY;
  for (j = 0; j < vocab; ++j) {
    const float v = w[j] * (1.0f / q[j]);
    if (v > best_value) best = j, best_value = v;
  }
  return best;
}

static int32_t Run(void* context, const char* stage, const char* profile, const char* params_json,
                   const sampcheck_tensor* inputs, int32_t n_in, sampcheck_tensor** outputs, int32_t* n_out, char* error,
                   uint64_t error_size) {
  const int greedy = strcmp(stage, "spec_greedy") == 0;
  const sampcheck_tensor *drafts = sampcheck_plugin_find_input(inputs, n_in, "draft_ids"),
                         *target = sampcheck_plugin_find_input(inputs, n_in, greedy ? "target_logits" : "target_probs"),
                         *draft = sampcheck_plugin_find_input(inputs, n_in, "draft_probs"),
                         *u = sampcheck_plugin_find_input(inputs, n_in, "u"),
                         *q = sampcheck_plugin_find_input(inputs, n_in, "q"),
                         *bonus_q = sampcheck_plugin_find_input(inputs, n_in, "bonus_q");
  int64_t rows, width, vocab, b, i, j;
  float *t = NULL, *d = NULL, *qf = NULL, *bq = NULL, *residual = NULL;
  Outputs* o;
  (void)context;
  (void)params_json;
  (void)profile;
  *outputs = NULL;
  *n_out = 0;
  if (!greedy && strcmp(stage, "spec_random") != 0)
    return sampcheck_plugin_fail(error, error_size, kErrUnsupported, "stage '%s' not implemented", stage);
  if (drafts == NULL || drafts->ndim != 2 || drafts->dtype != SAMPCHECK_DTYPE_I32 || target == NULL || target->ndim != 3) {
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "need draft_ids i32 [B, K] and a rank-3 target");
  }
  rows = drafts->shape[0];
  width = drafts->shape[1];
  vocab = target->shape[2];
  if (!greedy && (u == NULL || u->dtype != SAMPCHECK_DTYPE_F64 || q == NULL || bonus_q == NULL ||
                  q->dtype != SAMPCHECK_DTYPE_F32 || bonus_q->dtype != SAMPCHECK_DTYPE_F32)) {
    return sampcheck_plugin_fail(error, error_size, kErrBadInput, "vllm needs u f64, q and bonus_q f32");
  }
  o = MakeOutputs(rows, width);
  t = Widen(target);
  if (draft != NULL) d = Widen(draft);
  if (!greedy) {
    qf = Widen(q);
    bq = Widen(bonus_q);
  }
  residual = (float*)malloc((size_t)(vocab > 0 ? vocab : 1) * sizeof(float));
  if (o == NULL || t == NULL || (draft != NULL && d == NULL) || (!greedy && (qf == NULL || bq == NULL)) || residual == NULL) {
    free(t), free(d), free(qf), free(bq), free(residual);
    if (o) free(o->tensors[0].data), free(o->tensors[1].data), free(o);
    return sampcheck_plugin_fail(error, error_size, kErrNoMemory, "out of memory or bad dtype");
  }
  for (b = 0; b < rows; ++b) {
    const int32_t* x = (const int32_t*)drafts->data + b * width;
    int64_t* emitted = (int64_t*)o->tensors[0].data + b * (width + 1);
    int64_t n = 0, accepted = 0;
    while (n < width && x[n] != -1) ++n;
    for (i = 0; i <= n; ++i) {
      const float* row = t + (b * (width + 1) + i) * vocab;
      if (greedy) {
        emitted[i] = Argmax(row, vocab);
        if (i == n || x[i] != emitted[i]) break;
        ++accepted;
        continue;
      }
      if (i == n) {
        emitted[i] = Race(row, bq + b * vocab, vocab);
        break;
      }
      {
        const float tp = row[x[i]];
        const float dp = d != NULL ? d[(b * width + i) * vocab + x[i]] : 1.0f;
        const double ui = ((const double*)u->data)[b * width + i];
        if (dp > 0.0f && (double)(tp / dp) >= ui) {
          emitted[i] = x[i];
          ++accepted;
          continue;
        }
        for (j = 0; j < vocab; ++j) {
          if (d == NULL) {
            residual[j] = j == x[i] ? 0.0f : row[j];
          } else {
            const float r = row[j] - d[(b * width + i) * vocab + j];
            residual[j] = r > 0.0f ? r : 0.0f;
          }
        }
        emitted[i] = RaceReciprocal(residual, qf + b * vocab, vocab);
        break;
      }
    }
    ((int64_t*)o->tensors[1].data)[b] = accepted;
  }
  free(t), free(d), free(qf), free(bq), free(residual);
  *outputs = o->tensors;
  *n_out = 2;
  return 0;
}

static void Release(void* context, sampcheck_tensor* outputs, int32_t n_out) {
  (void)context;
  if (outputs == NULL || n_out < 2) return;
  free(outputs[0].data);
  free(outputs[1].data);
  free(outputs); /* the Outputs that holds them (tensors is its first member) */
}

static const char* const kCanonical[] = {"canonical"};
static const char* const kVllm[] = {"vllm"};
static const sampcheck_stage kStages[] = {{"spec_greedy", kCanonical, 1}, {"spec_random", kVllm, 1}};
static const sampcheck_backend kBackend = {SAMPCHECK_BACKEND_ABI_VERSION, (uint32_t)sizeof(sampcheck_backend),
                                           "spec-test-c-plugin", kStages, 2, NULL, Run, Release, NULL};

__attribute__((visibility("default"))) const sampcheck_backend* sampcheck_backend_v1(void) { return &kBackend; }
