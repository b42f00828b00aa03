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
#include "gpu/penalties.cuh"
#include "gpu/softmax.cuh"
#include "gpu/temperature.cuh"
#include "gpu/token_bitmask.cuh"
// filters
#include "gpu/min_p.cuh"
#include "gpu/sampling_filters.cuh"
#include "gpu/top_k.cuh"
#include "gpu/top_p.cuh"
#include "gpu/ascend_top_k_top_p_sample_v2.cuh"
#include "gpu/logprobs.cuh"

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
};

}  // namespace

std::unique_ptr<KernelRunner> MakeEmulatedRunner() { return std::make_unique<EmulatedRunner>(); }

}  // namespace sampcheck::gpu
