// SPDX-License-Identifier: Apache-2.0
// The kernels on the checking host emulator (gpu/kernel_runner.h, docs/gpu.md): every launch
// runs with every check on, and any violation fails the run with the emulator's report.
#include <stdexcept>
#include <vector>

#include "gpu/emulator.h"
#include "gpu/greedy.cuh"
#include "gpu/kernel_runner.h"
#include "gpu/allowed_token_ids.cuh"
#include "gpu/bad_words.cuh"
#include "gpu/logit_bias.cuh"
#include "gpu/min_new_tokens.cuh"
#include "gpu/nan_handling.cuh"
#include "gpu/noise.cuh"
#include "gpu/penalties.cuh"
#include "gpu/softmax.cuh"
#include "gpu/temperature.cuh"
#include "gpu/token_bitmask.cuh"
// gpu-draws group.
#include "gpu/exponential_race.cuh"
#include "gpu/finish_rules.cuh"
#include "gpu/gumbel_max.cuh"
#include "gpu/inverse_cdf.cuh"
#include "gpu/qsample.cuh"
#include "gpu/seeded_gumbel.cuh"
#include "gpu/spec_greedy.cuh"
#include "gpu/spec_random.cuh"
#include "gpu/tp_consensus.cuh"
// filters
#include "gpu/min_p.cuh"
#include "gpu/sampling_filters.cuh"
#include "gpu/top_k.cuh"
#include "gpu/top_p.cuh"
#include "gpu/ascend_top_k_top_p_sample_v2.cuh"
#include "gpu/logprobs.cuh"
// pipeline group
#include "gpu/pipeline_select.cuh"
#include "gpu/sglang_rank_draw.cuh"

namespace sampcheck::gpu {

namespace {

template <class Kernel, class... Args>
void Run(std::int64_t grid, Args... args) {
  const LaunchReport report = emu::Launch(Kernel::kName, static_cast<int>(grid), Kernel::kThreads,
                                          [&](Block& block) { Kernel{}(block, args...); });
  if (!report.ok()) {
    throw std::runtime_error("gpu-emulated: kernel '" + std::string(Kernel::kName) +
                             "' failed the emulator's checks:\n" + report.Summary());
  }
}

template <class T>
GlobalArray<T> Global(T* p, std::int64_t n, const char* name) {
  return GlobalArray<T>(p, p == nullptr ? 0 : n, name);
}

class EmulatedRunner final : public KernelRunner {
 public:
  std::string Name() const override { return "gpu-emulated"; }

  void Greedy(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
              std::int64_t* token) override {
    Run<GreedyKernel>(rows, Global(logits, rows * pitch, "logits"), Global(token, rows, "token"), vocab, pitch);
  }

  void Softmax(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
               std::int64_t pitch, bool log, float* out) override {
    Run<SoftmaxKernel>(rows, Global(logits, rows * pitch, "logits"), Global(temperature, rows, "temperature"),
                       temperature != nullptr, Global(out, rows * vocab, log ? "logprobs" : "probs"), vocab, pitch,
                       log);
  }

  void Temperature(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
                   std::int64_t pitch, TemperatureRule rule, float* out, std::uint8_t* is_greedy) override {
    Run<TemperatureKernel>(rows, Global(logits, rows * pitch, "logits"), Global(temperature, rows, "temperature"),
                           Global(out, rows * vocab, "logits_out"), Global(is_greedy, rows, "is_greedy"), vocab,
                           pitch, rule);
  }

  void NanHandling(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch, const NanRule& rule,
                   float* out) override {
    Run<NanHandlingKernel>(rows, Global(logits, rows * pitch, "logits"), Global(out, rows * vocab, "logits_out"),
                           vocab, pitch, rule);
  }

  void TokenBitmask(const float* logits, const std::int32_t* bitmask, const std::uint8_t* masked, std::int64_t rows,
                    std::int64_t vocab, std::int64_t pitch, std::int64_t mask_rows, std::int64_t words,
                    std::int64_t vocab_size, float* out) override {
    Run<TokenBitmaskKernel>(rows, Global(logits, rows * pitch, "logits"), Global(bitmask, mask_rows * words, "bitmask"),
                            Global(masked, rows, "masked"), Global(out, rows * vocab, "logits_out"), vocab, pitch,
                            words, vocab_size);
  }

  void LogitBias(const float* logits, const float* dense, const std::int32_t* bias_rows, const std::int32_t* bias_ids,
                 const float* bias_values, std::int64_t n, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                 LogitBiasRule rule, float* out) override {
    Run<LogitBiasKernel>(rows, Global(logits, rows * pitch, "logits"), Global(dense, rows * vocab, "bias"),
                         dense != nullptr, Global(bias_rows, n, "bias_rows"), Global(bias_ids, n, "bias_ids"),
                         Global(bias_values, n, "bias_values"), n, Global(out, rows * vocab, "logits_out"), vocab,
                         pitch, rule);
  }

  void AllowedTokenIds(const float* logits, const std::int32_t* allowed, std::int64_t slots, std::int64_t rows,
                       std::int64_t vocab, std::int64_t pitch, float* out) override {
    Run<AllowedTokenIdsKernel>(rows, Global(logits, rows * pitch, "logits"), Global(allowed, rows * slots, "allowed_ids"),
                               slots, Global(out, rows * vocab, "logits_out"), vocab, pitch);
  }

  void MinNewTokens(const float* logits, const std::int32_t* output_len, const std::int32_t* min_tokens,
                    const std::int32_t* stop_ids, std::int64_t slots, std::int64_t rows, std::int64_t vocab,
                    std::int64_t pitch, bool additive, float* out) override {
    Run<MinNewTokensKernel>(rows, Global(logits, rows * pitch, "logits"), Global(output_len, rows, "output_len"),
                            Global(min_tokens, rows, "min_tokens"), Global(stop_ids, rows * slots, "stop_ids"), slots,
                            Global(out, rows * vocab, "logits_out"), vocab, pitch, additive);
  }

  void BadWords(const float* logits, const std::int32_t* output_ids, std::int64_t output_len,
                const std::int32_t* bad_words, std::int64_t n_words, std::int64_t word_len, std::int64_t rows,
                std::int64_t vocab, std::int64_t pitch, float* out) override {
    Run<BadWordsKernel>(rows, Global(logits, rows * pitch, "logits"), Global(output_ids, rows * output_len, "output_ids"),
                        output_len, Global(bad_words, rows * n_words * word_len, "bad_words"), n_words, word_len,
                        Global(out, rows * vocab, "logits_out"), vocab, pitch);
  }

  void Penalties(const float* logits, const std::int32_t* prompt_ids, std::int64_t prompt_len,
                 const std::int32_t* output_ids, std::int64_t output_len, const float* rep, const float* freq,
                 const float* pres, std::int64_t rows, std::int64_t vocab, std::int64_t pitch, bool additive,
                 float* out) override {
    Run<PenaltiesKernel>(rows, Global(logits, rows * pitch, "logits"), Global(prompt_ids, rows * prompt_len, "prompt_ids"),
                         prompt_len, Global(output_ids, rows * output_len, "output_ids"), output_len,
                         Global(rep, rows, "repetition_penalty"), Global(freq, rows, "frequency_penalty"),
                         Global(pres, rows, "presence_penalty"), Global(out, rows * vocab, "logits_out"), vocab, pitch,
                         additive);
  }

  // gpu-draws group (gpu/draws_glue.h). The argmax-only kernels run one warp per row when
  // V <= kOneWarpVocab, 1024 threads above it (gpu/block_argmax.cuh: the result is the same).
  template <template <int> class Kernel, class... Args>
  static void RunSized(std::int64_t rows, std::int64_t vocab, Args... args) {
    if (vocab <= kOneWarpVocab) {
      Run<Kernel<kWarpSize>>(rows, args...);
    } else {
      Run<Kernel<kCanonicalLanes>>(rows, args...);
    }
  }

  void GumbelMax(const float* scores, const float* gumbel, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                 std::int64_t* token) override {
    RunSized<GumbelMaxKernel>(rows, vocab, Global(scores, rows * pitch, "logprobs"),
                              Global(gumbel, rows * pitch, "gumbel"), Global(token, rows, "token"), vocab, pitch);
  }

  void ExponentialRace(const float* probs, const float* q, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                       bool all_tokens, std::int64_t* token) override {
    RunSized<ExponentialRaceKernel>(rows, vocab, Global(probs, rows * pitch, "probs"), Global(q, rows * pitch, "q"),
                                    Global(token, rows, "token"), vocab, pitch, all_tokens);
  }

  void InverseCdf(const float* probs, const float* u, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                  std::int64_t* token) override {
    RunSized<InverseCdfKernel>(rows, vocab, Global(probs, rows * pitch, "probs"), Global(u, rows, "u"),
                               Global(token, rows, "token"), vocab, pitch);
  }

  void QSample(const float* probs, const float* q, float eps, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
               std::int64_t* token) override {
    RunSized<QSampleKernel>(rows, vocab, Global(probs, rows * pitch, "probs"), Global(q, rows * pitch, "q"),
                            Global(token, rows, "token"), vocab, pitch, eps);
  }

  void SeededGumbel(const float* probs, const std::int64_t* seed, const std::int64_t* positions,
                    const std::int32_t* token_ids, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                    std::int64_t* token) override {
    RunSized<SeededGumbelKernel>(rows, vocab, Global(probs, rows * pitch, "probs"), Global(seed, rows, "seed"),
                                 Global(positions, rows, "positions"), Global(token_ids, rows * pitch, "token_ids"),
                                 token_ids != nullptr, Global(token, rows, "token"), vocab, pitch);
  }

  void SpecGreedy(const float* target_logits, const std::int32_t* drafts, const std::int64_t* counts, SpecShape shape,
                  std::int64_t* emitted, std::int64_t* accepted) override {
    const auto [rows, width, vocab] = shape;
    RunSized<SpecGreedyKernel>(rows, vocab, Global(target_logits, rows * (width + 1) * vocab, "target_logits"),
                               Global(drafts, rows * width, "draft_ids"), Global(counts, rows, "counts"),
                               Global(emitted, rows * (width + 1), "emitted"), Global(accepted, rows, "num_accepted"),
                               width, vocab);
  }

  void SpecRandom(const SpecRandomInputs& in, SpecShape shape, std::int64_t* emitted, std::int64_t* accepted) override {
    const auto [rows, width, vocab] = shape;
    const auto target = Global(in.target_probs, rows * (width + 1) * vocab, "target_probs");
    const auto draft = Global(in.draft_probs, rows * width * vocab, "draft_probs");
    const auto drafts = Global(in.drafts, rows * width, "draft_ids");
    const auto counts = Global(in.counts, rows, "counts");
    const auto out = Global(emitted, rows * (width + 1), "emitted");
    const auto num = Global(accepted, rows, "num_accepted");
    switch (in.rule) {
      case SpecRandomInputs::Rule::kVllm:
        RunSized<SpecRandomVllmKernel>(rows, vocab, target, draft, in.draft_probs != nullptr, drafts, counts,
                                       Global(in.u_f64, rows * width, "u"), Global(in.q, rows * vocab, "q"),
                                       Global(in.bonus_q, rows * vocab, "bonus_q"), out, num, width, vocab);
        break;
      case SpecRandomInputs::Rule::kFlashinfer:
        RunSized<SpecRandomFlashinferKernel>(rows, vocab, target, draft, drafts, counts,
                                             Global(in.u_f32, rows * (width + 1), "u"), out, num, width, vocab);
        break;
      case SpecRandomInputs::Rule::kTypicalAcceptance:
        Run<SpecRandomTypicalKernel>(rows, target, drafts, counts, Global(in.bonus_q, rows * vocab, "bonus_q"),
                                     in.posterior_threshold, in.posterior_alpha, out, num, width, vocab);
        break;
    }
  }

  void FinishRules(const FinishRulesInputs& in, std::int64_t rows, std::int32_t* finish_reason,
                   std::int64_t* stop_reason, std::uint8_t* text_keep, std::int32_t* next_banned) override {
    const std::int64_t width = in.n_eos + in.n_stop;
    Run<FinishRulesKernel>((rows + FinishRulesKernel::kThreads - 1) / FinishRulesKernel::kThreads,
                           Global(in.token, rows, "token"), Global(in.output_len, rows, "output_len"),
                           Global(in.max_tokens, rows, "max_tokens"), Global(in.min_tokens, rows, "min_tokens"),
                           Global(in.ignore_eos, rows, "ignore_eos"), Global(in.keep_stop, rows, "keep_stop"),
                           in.keep_stop != nullptr, Global(in.eos_ids, rows * in.n_eos, "eos_ids"), in.n_eos,
                           Global(in.stop_ids, rows * in.n_stop, "stop_ids"), in.n_stop, rows, in.sglang,
                           in.eos_stop_reason_none, Global(finish_reason, rows, "finish_reason"),
                           Global(stop_reason, rows, "stop_reason"), Global(text_keep, rows, "text_keep"),
                           Global(next_banned, rows * width, "next_banned"));
  }

  void TpConsensus(const std::int64_t* rank_ids, std::int64_t ranks, std::int64_t batch, bool driver_rank,
                   std::int64_t* token, std::uint8_t* unanimous) override {
    Run<TpConsensusKernel>((batch + TpConsensusKernel::kThreads - 1) / TpConsensusKernel::kThreads,
                           Global(rank_ids, ranks * batch, "rank_ids"), ranks, batch, driver_rank,
                           Global(token, batch, "token"), Global(unanimous, batch, "unanimous"));
  }

  // noise group
  void Noise(const std::int64_t* seed, const std::int64_t* offset, std::int64_t rows, std::int64_t n,
             rng::NoiseGenerator generator, rng::NoiseLaw law, float* out) override {
    Run<NoiseKernel>(rows * NoiseKernel::Chunks(n), Global(seed, rows, "seed"), Global(offset, rows, "offset"),
                     Global(out, rows * n, "noise"), n, generator, law);
  }

  // Filters (top_k, top_p, min_p, sampling_filters). The kernels read the input and mask the
  // output through one array type, so both views are non-const; the input is never written.
  void TopK(const float* logits, const std::int32_t* top_k, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            const TopKRule& rule, float* out) override {
    Run<TopKKernel>(rows, Global(const_cast<float*>(logits), rows * pitch, "logits"),
                    Global(out, rows * vocab, "logits_out"),
                    Global(top_k, rows, "top_k"), vocab, pitch, rule);
  }

  void TopP(const float* logits, const float* top_p, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            TopPWalk rule, float* out) override {
    Run<TopPKernel>(rows, Global(const_cast<float*>(logits), rows * pitch, "logits"),
                    Global(out, rows * vocab, "logits_out"),
                    Global(top_p, rows, "top_p"), vocab, pitch, rule);
  }

  void MinP(const float* logits, const float* min_p, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            const MinPRule& rule, float* out) override {
    Run<MinPKernel>(rows, Global(const_cast<float*>(logits), rows * pitch, "logits"),
                    Global(out, rows * vocab, "logits_out"),
                    Global(min_p, rows, "min_p"), vocab, pitch, rule);
  }

  void SamplingFilters(const float* logits, const std::int32_t* top_k, const float* top_p, const float* min_p,
                       std::int64_t rows, std::int64_t vocab, std::int64_t pitch, const FilterRules& rules, float* out,
                       float* probs) override {
    Run<SamplingFiltersKernel>(rows, Global(const_cast<float*>(logits), rows * pitch, "logits"),
                               Global(out, rows * vocab, "logits_out"), Global(probs, rows * vocab, "probs"),
                               Global(top_k, rows, "top_k"), top_k != nullptr, Global(top_p, rows, "top_p"),
                               top_p != nullptr, Global(min_p, rows, "min_p"), min_p != nullptr, vocab, pitch, rules);
  }

  void AscendTopKTopPSampleV2(const float* logits, const std::int32_t* top_k, const float* top_p, const float* min_p,
                              const float* q, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                              const AscendSampleRule& rule, std::int64_t* select_idx, float* top_kp_select,
                              float* sort_masked, std::int64_t* idx) override {
    std::vector<float> work(static_cast<std::size_t>(rows * vocab));
    Run<AscendTopKTopPSampleV2Kernel>(
        rows, Global(const_cast<float*>(logits), rows * pitch, "logits"), Global(work.data(), rows * vocab, "work"),
        Global(const_cast<float*>(q), rows * vocab, "q"), q != nullptr, Global(top_k, rows, "top_k"),
        Global(top_p, rows, "top_p"), Global(min_p, rows, "min_p"), min_p != nullptr,
        Global(select_idx, rows, "logits_select_idx"), Global(top_kp_select, rows * vocab, "logits_top_kp_select"),
        Global(sort_masked, rows * vocab, "logits_sort_masked"), Global(idx, rows * vocab, "logits_idx"), vocab, pitch,
        rule);
  }

  void Logprobs(const float* src, const float* divisor, const std::uint8_t* divide, const std::uint8_t* filter,
                const std::int32_t* top_k, const float* top_p, const float* min_p, const std::int64_t* token,
                const std::int32_t* token_ids, std::int64_t width, std::int64_t rows, std::int64_t vocab,
                std::int64_t pitch, std::int64_t n, const LogprobsRule& rule, std::int64_t* top_ids, float* top_values,
                float* token_logprob, std::int64_t* token_rank, float* ids_values) override {
    std::vector<float> work(static_cast<std::size_t>(rows * vocab));
    Run<LogprobsKernel>(rows, Global(const_cast<float*>(src), rows * pitch, "logits"),
                        Global(work.data(), rows * vocab, "work"), Global(divisor, rows, "divisor"),
                        Global(divide, rows, "divide"), Global(filter, rows, "filter"), Global(top_k, rows, "top_k"),
                        Global(top_p, rows, "top_p"), Global(min_p, rows, "min_p"), Global(token, rows, "token"),
                        Global(token_ids, rows * width, "token_ids"), width, Global(top_ids, rows * n, "top_ids"),
                        Global(top_values, rows * n, "top_values"), Global(token_logprob, rows, "token_logprob"),
                        Global(token_rank, rows, "token_rank"), Global(ids_values, rows * width, "token_ids_logprobs"),
                        n, vocab, pitch, rule);
  }

  // pipeline group (gpu/pipeline_glue.h).
  void SglangRankDraw(const float* full, const float* scaled, const float* masked, const std::uint8_t* draw,
                      const std::int64_t* seed,
                      const std::int64_t* positions, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                      std::int64_t* token) override {
    RunSized<SglangRankDrawKernel>(rows, vocab, Global(full, rows * pitch, "full_probs"),
                                   Global(scaled, rows * pitch, "scaled_logits"),
                                   Global(masked, rows * pitch, "filtered_logits"), Global(draw, rows, "draw"),
                                   Global(seed, rows, "seed"),
                                   Global(positions, rows, "positions"), Global(token, rows, "token"), vocab, pitch);
  }

  void PipelineSelect(const std::uint8_t* is_greedy, const std::int64_t* greedy, const std::int64_t* drawn,
                      std::int64_t rows, std::int64_t* token) override {
    Run<PipelineSelectKernel>((rows + PipelineSelectKernel::kThreads - 1) / PipelineSelectKernel::kThreads,
                              Global(is_greedy, rows, "is_greedy"), Global(greedy, rows, "greedy_token"),
                              Global(drawn, rows, "drawn_token"), Global(token, rows, "token"), rows);
  }
};

}  // namespace

std::unique_ptr<KernelRunner> MakeEmulatedRunner() { return std::make_unique<EmulatedRunner>(); }

}  // namespace sampcheck::gpu
