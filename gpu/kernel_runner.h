// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one interface between a backend's stage glue (gpu/gpu_backend.h) and a place that runs
// the kernels: the host emulator (gpu/emulated_runner.cc) or a CUDA device
// (gpu/cuda_runner.cu). Host pointers in, host pointers out; a runner copies to and from its
// device itself. Row-major [rows, vocab] arrays with the row pitch given, so tests can pad rows.
//
// Contract: a runner throws std::runtime_error when a kernel cannot run or its checks fail:
// the emulator's violations (kernel, block, thread, array, index), or the device's error
// ("no CUDA device" when there is none). It never aborts the process.

#include <cstdint>
#include <memory>
#include <string>

#include "gpu/filter_rules.h"
#include "gpu/stage_rules.h"
#include "reference/rng/noise_stream.h"

namespace sampcheck::gpu {

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual std::string Name() const = 0;

  // token[b] = argmax of logits[b * pitch + [0, vocab)] (gpu/greedy.cuh).
  virtual void Greedy(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                      std::int64_t* token) = 0;
  // out = softmax or log_softmax of logits / temperature (gpu/softmax.cuh); temperature may be null.
  virtual void Softmax(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
                       std::int64_t pitch, bool log, float* out) = 0;
  // gpu/temperature.cuh.
  virtual void Temperature(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
                           std::int64_t pitch, TemperatureRule rule, float* out, std::uint8_t* is_greedy) = 0;
  // gpu/nan_handling.cuh: NaN and +-inf replaced as the rule says, else a bitwise copy.
  virtual void NanHandling(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                           const NanRule& rule, float* out) = 0;
  // gpu/token_bitmask.cuh: bitmask is [rows, words] (row r masks logits row r when masked[r]).
  virtual void TokenBitmask(const float* logits, const std::int32_t* bitmask, const std::uint8_t* masked,
                            std::int64_t rows, std::int64_t vocab, std::int64_t pitch, std::int64_t mask_rows,
                            std::int64_t words, std::int64_t vocab_size, float* out) = 0;
  // gpu/logit_bias.cuh: dense [rows, vocab] may be null; the sparse list has n entries.
  virtual void LogitBias(const float* logits, const float* dense, const std::int32_t* bias_rows,
                         const std::int32_t* bias_ids, const float* bias_values, std::int64_t n, std::int64_t rows,
                         std::int64_t vocab, std::int64_t pitch, LogitBiasRule rule, float* out) = 0;
  // gpu/allowed_token_ids.cuh: allowed is [rows, slots].
  virtual void AllowedTokenIds(const float* logits, const std::int32_t* allowed, std::int64_t slots, std::int64_t rows,
                               std::int64_t vocab, std::int64_t pitch, float* out) = 0;
  // gpu/min_new_tokens.cuh: stop_ids is [rows, slots]; additive: sglang's rule.
  virtual void MinNewTokens(const float* logits, const std::int32_t* output_len, const std::int32_t* min_tokens,
                            const std::int32_t* stop_ids, std::int64_t slots, std::int64_t rows, std::int64_t vocab,
                            std::int64_t pitch, bool additive, float* out) = 0;
  // gpu/bad_words.cuh: output_ids [rows, output_len], bad_words [rows, n_words, word_len].
  virtual void BadWords(const float* logits, const std::int32_t* output_ids, std::int64_t output_len,
                        const std::int32_t* bad_words, std::int64_t n_words, std::int64_t word_len, std::int64_t rows,
                        std::int64_t vocab, std::int64_t pitch, float* out) = 0;
  // gpu/penalties.cuh: ids [rows, len] (len 0 when absent); rep/freq/pres one value per row.
  virtual void Penalties(const float* logits, const std::int32_t* prompt_ids, std::int64_t prompt_len,
                         const std::int32_t* output_ids, std::int64_t output_len, const float* rep, const float* freq,
                         const float* pres, std::int64_t rows, std::int64_t vocab, std::int64_t pitch, bool additive,
                         float* out) = 0;

  // gpu-draws group: the draws given their noise, the seeded draws and speculative
  // verification (gpu/draws_glue.h). Each writes token / emitted / accepted for every row.
  // gpu/gumbel_max.cuh: scores and gumbel are [rows, pitch].
  virtual void GumbelMax(const float* scores, const float* gumbel, std::int64_t rows, std::int64_t vocab,
                         std::int64_t pitch, std::int64_t* token) = 0;
  // gpu/exponential_race.cuh: probs and q are [rows, pitch]; all_tokens: vllm's argmax over every token.
  virtual void ExponentialRace(const float* probs, const float* q, std::int64_t rows, std::int64_t vocab,
                               std::int64_t pitch, bool all_tokens, std::int64_t* token) = 0;
  // gpu/inverse_cdf.cuh: probs [rows, pitch], u [rows].
  virtual void InverseCdf(const float* probs, const float* u, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                          std::int64_t* token) = 0;
  // gpu/qsample.cuh: probs and q are [rows, pitch].
  virtual void QSample(const float* probs, const float* q, float eps, std::int64_t rows, std::int64_t vocab,
                       std::int64_t pitch, std::int64_t* token) = 0;
  // gpu/seeded_gumbel.cuh: probs and token_ids (null: column = rank) are [rows, pitch]; seed and
  // positions [rows] (positions checked to lie in [0, 2^32)).
  virtual void SeededGumbel(const float* probs, const std::int64_t* seed, const std::int64_t* positions,
                            const std::int32_t* token_ids, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                            std::int64_t* token) = 0;
  // The speculative stages' shapes: drafts [rows, width], counts [rows], target [rows, width + 1,
  // vocab], draft [rows, width, vocab]; outputs emitted [rows, width + 1], accepted [rows].
  struct SpecShape {
    std::int64_t rows = 0;
    std::int64_t width = 0;
    std::int64_t vocab = 0;
  };
  // gpu/spec_greedy.cuh.
  virtual void SpecGreedy(const float* target_logits, const std::int32_t* drafts, const std::int64_t* counts,
                          SpecShape shape, std::int64_t* emitted, std::int64_t* accepted) = 0;
  // gpu/spec_random.cuh: one rule per profile; the noise and parameters a rule does not read are
  // null / ignored. draft_probs null: vllm's n-gram drafts (draft prob := 1).
  struct SpecRandomInputs {
    enum class Rule { kVllm, kFlashinfer, kTypicalAcceptance } rule = Rule::kVllm;
    const float* target_probs = nullptr;
    const float* draft_probs = nullptr;
    const std::int32_t* drafts = nullptr;
    const std::int64_t* counts = nullptr;
    const double* u_f64 = nullptr;   // vllm [rows, width]
    const float* u_f32 = nullptr;    // flashinfer [rows, width + 1]
    const float* q = nullptr;        // vllm [rows, vocab]
    const float* bonus_q = nullptr;  // vllm, typical_acceptance [rows, vocab]
    float posterior_threshold = 0.0f;
    float posterior_alpha = 0.0f;
  };
  virtual void SpecRandom(const SpecRandomInputs& in, SpecShape shape, std::int64_t* emitted,
                          std::int64_t* accepted) = 0;
  // gpu/finish_rules.cuh: one row per request; eos_ids [rows, n_eos], stop_ids [rows, n_stop];
  // keep_stop may be null; outputs finish_reason, stop_reason, text_keep [rows] and next_banned
  // [rows, n_eos + n_stop].
  struct FinishRulesInputs {
    const std::int64_t* token = nullptr;
    const std::int32_t* output_len = nullptr;
    const std::int32_t* max_tokens = nullptr;
    const std::int32_t* min_tokens = nullptr;
    const std::uint8_t* ignore_eos = nullptr;
    const std::uint8_t* keep_stop = nullptr;
    const std::int32_t* eos_ids = nullptr;
    std::int64_t n_eos = 0;
    const std::int32_t* stop_ids = nullptr;
    std::int64_t n_stop = 0;
    bool sglang = false;                // length first, no min_tokens, ignore_eos disables stop ids
    bool eos_stop_reason_none = false;  // vllm: stop_reason -1 for the primary eos
  };
  virtual void FinishRules(const FinishRulesInputs& in, std::int64_t rows, std::int32_t* finish_reason,
                           std::int64_t* stop_reason, std::uint8_t* text_keep, std::int32_t* next_banned) = 0;
  // gpu/tp_consensus.cuh: rank_ids [ranks, batch] (i32 widened); driver_rank: vllm (rank 0's id),
  // else the minimum (sglang).
  virtual void TpConsensus(const std::int64_t* rank_ids, std::int64_t ranks, std::int64_t batch, bool driver_rank,
                           std::int64_t* token, std::uint8_t* unanimous) = 0;
  // noise group (gpu/noise.cuh): out [rows, n] = the noise stage's samples at seed[b], offset[b] + i.
  virtual void Noise(const std::int64_t* seed, const std::int64_t* offset, std::int64_t rows, std::int64_t n,
                     rng::NoiseGenerator generator, rng::NoiseLaw law, float* out) = 0;
  // Filters (top_k, top_p, min_p, sampling_filters): gpu/top_k.cuh, gpu/top_p.cuh, gpu/min_p.cuh,
  // gpu/sampling_filters.cuh; one parameter per row; sampling_filters' top_k, top_p and min_p
  // may be null (absent).
  virtual void TopK(const float* logits, const std::int32_t* top_k, std::int64_t rows, std::int64_t vocab,
                    std::int64_t pitch, const TopKRule& rule, float* out) = 0;
  virtual void TopP(const float* logits, const float* top_p, std::int64_t rows, std::int64_t vocab,
                    std::int64_t pitch, TopPWalk rule, float* out) = 0;
  virtual void MinP(const float* logits, const float* min_p, std::int64_t rows, std::int64_t vocab,
                    std::int64_t pitch, const MinPRule& rule, float* out) = 0;
  virtual void SamplingFilters(const float* logits, const std::int32_t* top_k, const float* top_p,
                               const float* min_p, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                               const FilterRules& rules, float* out, float* probs) = 0;
  // gpu/ascend_top_k_top_p_sample_v2.cuh: min_p and q may be null; the outputs the rule does
  // not ask for are null.
  virtual void AscendTopKTopPSampleV2(const float* logits, const std::int32_t* top_k, const float* top_p,
                                      const float* min_p, const float* q, std::int64_t rows, std::int64_t vocab,
                                      std::int64_t pitch, const AscendSampleRule& rule, std::int64_t* select_idx,
                                      float* top_kp_select, float* sort_masked, std::int64_t* idx) = 0;
  // gpu/logprobs.cuh: per-row divisor, divide, filter, top_k, top_p, min_p, token (every row
  // given); token_ids [rows, width] (width 0: none); outputs top_ids and top_values [rows, n].
  virtual void Logprobs(const float* src, const float* divisor, const std::uint8_t* divide, const std::uint8_t* filter,
                        const std::int32_t* top_k, const float* top_p, const float* min_p, const std::int64_t* token,
                        const std::int32_t* token_ids, std::int64_t width, std::int64_t rows, std::int64_t vocab,
                        std::int64_t pitch, std::int64_t n, const LogprobsRule& rule, std::int64_t* top_ids,
                        float* top_values, float* token_logprob, std::int64_t* token_rank, float* ids_values) = 0;
  // pipeline group (gpu/pipeline_glue.h). gpu/sglang_rank_draw.cuh: SGLang's sorted-path draw;
  // full, scaled and masked are [rows, pitch], draw (0: skip the row), seed and positions [rows]; token kNoIndex when a
  // row has nothing to draw.
  virtual void SglangRankDraw(const float* full, const float* scaled, const float* masked, const std::uint8_t* draw,
                              const std::int64_t* seed,
                              const std::int64_t* positions, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                              std::int64_t* token) = 0;
  // gpu/pipeline_select.cuh: token = is_greedy ? greedy : drawn, per row (drawn may be null when
  // every row is greedy).
  virtual void PipelineSelect(const std::uint8_t* is_greedy, const std::int64_t* greedy, const std::int64_t* drawn,
                              std::int64_t rows, std::int64_t* token) = 0;
};

std::unique_ptr<KernelRunner> MakeEmulatedRunner();
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA): gpu/cuda_runner.cu.
std::unique_ptr<KernelRunner> MakeCudaRunner();
bool CudaDevicePresent();

}  // namespace sampcheck::gpu
