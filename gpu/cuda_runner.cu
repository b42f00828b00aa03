// SPDX-License-Identifier: Apache-2.0
// The kernels on a CUDA device (gpu/kernel_runner.h, docs/gpu.md "Backends"): the same kernel
// bodies the emulator runs, each wrapped in one __global__ entry; host buffers copied in and
// out per call. Launch helpers return cudaError_t (docs/contributing.md "Errors"); the runner turns a
// failure into std::runtime_error at its boundary, and "no CUDA device" when there is none.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/block_model.h"
#include "gpu/gpu_backend.h"
#include "gpu/greedy.cuh"
#include "gpu/kernel_entry.cuh"
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

// Where a CUDA call failed, for the error message.
struct CudaStatus {
  cudaError_t error = cudaSuccess;
  const char* what = "";
  int line = 0;
};

#define SAMPCHECK_CUDA_CHECK(status, expr)                                   \
  do {                                                                       \
    const cudaError_t sampcheck_e_ = (expr);                                 \
    if (sampcheck_e_ != cudaSuccess && (status).error == cudaSuccess) {      \
      (status) = CudaStatus{sampcheck_e_, #expr, __LINE__};                  \
    }                                                                        \
  } while (0)

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer(std::int64_t n, CudaStatus& status) : n_(n) {
    if (n > 0) SAMPCHECK_CUDA_CHECK(status, cudaMalloc(reinterpret_cast<void**>(&p_), sizeof(T) * static_cast<std::size_t>(n)));
  }
  ~DeviceBuffer() {
    if (p_ != nullptr) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void Upload(const T* host, CudaStatus& status) {
    if (p_ != nullptr && host != nullptr) {
      SAMPCHECK_CUDA_CHECK(status, cudaMemcpy(p_, host, sizeof(T) * static_cast<std::size_t>(n_), cudaMemcpyHostToDevice));
    }
  }
  void Download(T* host, CudaStatus& status) const {
    if (p_ != nullptr) {
      SAMPCHECK_CUDA_CHECK(status, cudaMemcpy(host, p_, sizeof(T) * static_cast<std::size_t>(n_), cudaMemcpyDeviceToHost));
    }
  }
  GlobalArray<T> View(const char* name) const { return GlobalArray<T>(p_, n_, name); }
  GlobalArray<const T> ConstView(const char* name) const { return GlobalArray<const T>(p_, n_, name); }

 private:
  T* p_ = nullptr;
  std::int64_t n_;
};

template <class Kernel, class... Args>
void LaunchKernel(std::int64_t grid, CudaStatus& status, Args... args) {
  if (status.error != cudaSuccess || grid == 0) return;
  KernelEntry<Kernel, Args...><<<static_cast<unsigned>(grid), Kernel::kThreads>>>(args...);
  SAMPCHECK_CUDA_CHECK(status, cudaGetLastError());
  SAMPCHECK_CUDA_CHECK(status, cudaDeviceSynchronize());
}

void Throw(const CudaStatus& status, const char* kernel) {
  if (status.error == cudaSuccess) return;
  throw std::runtime_error(std::string("gpu: kernel '") + kernel + "': " + status.what + " failed at " __FILE__ ":" +
                           std::to_string(status.line) + ": " + cudaGetErrorName(status.error) + " (" +
                           cudaGetErrorString(status.error) + ")");
}

class CudaRunner final : public KernelRunner {
 public:
  std::string Name() const override { return "gpu"; }

  void Greedy(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
              std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    x.Upload(logits, st);
    LaunchKernel<GreedyKernel>(rows, st, x.ConstView("logits"), y.View("token"), vocab, pitch);
    y.Download(token, st);
    Throw(st, GreedyKernel::kName);
  }

  void Softmax(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
               std::int64_t pitch, bool log, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> t(temperature != nullptr ? rows : 0, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    t.Upload(temperature, st);
    LaunchKernel<SoftmaxKernel>(rows, st, x.ConstView("logits"), t.ConstView("temperature"), temperature != nullptr,
                                y.View("out"), vocab, pitch, log);
    y.Download(out, st);
    Throw(st, SoftmaxKernel::kName);
  }

  void Temperature(const float* logits, const float* temperature, std::int64_t rows, std::int64_t vocab,
                   std::int64_t pitch, TemperatureRule rule, float* out, std::uint8_t* is_greedy) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> t(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    DeviceBuffer<std::uint8_t> g(rows, st);
    x.Upload(logits, st);
    t.Upload(temperature, st);
    LaunchKernel<TemperatureKernel>(rows, st, x.ConstView("logits"), t.ConstView("temperature"), y.View("out"),
                                    g.View("is_greedy"), vocab, pitch, rule);
    y.Download(out, st);
    g.Download(is_greedy, st);
    Throw(st, TemperatureKernel::kName);
  }

  void NanHandling(const float* logits, std::int64_t rows, std::int64_t vocab, std::int64_t pitch, const NanRule& rule,
                   float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    LaunchKernel<NanHandlingKernel>(rows, st, x.ConstView("logits"), y.View("out"), vocab, pitch, rule);
    y.Download(out, st);
    Throw(st, NanHandlingKernel::kName);
  }

  void TokenBitmask(const float* logits, const std::int32_t* bitmask, const std::uint8_t* masked, std::int64_t rows,
                    std::int64_t vocab, std::int64_t pitch, std::int64_t mask_rows, std::int64_t words,
                    std::int64_t vocab_size, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> m(mask_rows * words, st);
    DeviceBuffer<std::uint8_t> r(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    m.Upload(bitmask, st);
    r.Upload(masked, st);
    LaunchKernel<TokenBitmaskKernel>(rows, st, x.ConstView("logits"), m.ConstView("bitmask"), r.ConstView("masked"),
                                     y.View("out"), vocab, pitch, words, vocab_size);
    y.Download(out, st);
    Throw(st, TokenBitmaskKernel::kName);
  }

  void LogitBias(const float* logits, const float* dense, const std::int32_t* bias_rows, const std::int32_t* bias_ids,
                 const float* bias_values, std::int64_t n, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                 LogitBiasRule rule, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> d(dense != nullptr ? rows * vocab : 0, st);
    DeviceBuffer<std::int32_t> br(n, st);
    DeviceBuffer<std::int32_t> bi(n, st);
    DeviceBuffer<float> bv(n, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    d.Upload(dense, st);
    br.Upload(bias_rows, st);
    bi.Upload(bias_ids, st);
    bv.Upload(bias_values, st);
    LaunchKernel<LogitBiasKernel>(rows, st, x.ConstView("logits"), d.ConstView("bias"), dense != nullptr,
                                  br.ConstView("bias_rows"), bi.ConstView("bias_ids"), bv.ConstView("bias_values"), n,
                                  y.View("out"), vocab, pitch, rule);
    y.Download(out, st);
    Throw(st, LogitBiasKernel::kName);
  }

  void AllowedTokenIds(const float* logits, const std::int32_t* allowed, std::int64_t slots, std::int64_t rows,
                       std::int64_t vocab, std::int64_t pitch, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> a(rows * slots, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    a.Upload(allowed, st);
    LaunchKernel<AllowedTokenIdsKernel>(rows, st, x.ConstView("logits"), a.ConstView("allowed_ids"), slots,
                                        y.View("out"), vocab, pitch);
    y.Download(out, st);
    Throw(st, AllowedTokenIdsKernel::kName);
  }

  void MinNewTokens(const float* logits, const std::int32_t* output_len, const std::int32_t* min_tokens,
                    const std::int32_t* stop_ids, std::int64_t slots, std::int64_t rows, std::int64_t vocab,
                    std::int64_t pitch, bool additive, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> len(rows, st);
    DeviceBuffer<std::int32_t> mn(rows, st);
    DeviceBuffer<std::int32_t> stop(rows * slots, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    len.Upload(output_len, st);
    mn.Upload(min_tokens, st);
    stop.Upload(stop_ids, st);
    LaunchKernel<MinNewTokensKernel>(rows, st, x.ConstView("logits"), len.ConstView("output_len"),
                                     mn.ConstView("min_tokens"), stop.ConstView("stop_ids"), slots, y.View("out"),
                                     vocab, pitch, additive);
    y.Download(out, st);
    Throw(st, MinNewTokensKernel::kName);
  }

  void BadWords(const float* logits, const std::int32_t* output_ids, std::int64_t output_len,
                const std::int32_t* bad_words, std::int64_t n_words, std::int64_t word_len, std::int64_t rows,
                std::int64_t vocab, std::int64_t pitch, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> o(rows * output_len, st);
    DeviceBuffer<std::int32_t> w(rows * n_words * word_len, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    o.Upload(output_ids, st);
    w.Upload(bad_words, st);
    LaunchKernel<BadWordsKernel>(rows, st, x.ConstView("logits"), o.ConstView("output_ids"), output_len,
                                 w.ConstView("bad_words"), n_words, word_len, y.View("out"), vocab, pitch);
    y.Download(out, st);
    Throw(st, BadWordsKernel::kName);
  }

  void Penalties(const float* logits, const std::int32_t* prompt_ids, std::int64_t prompt_len,
                 const std::int32_t* output_ids, std::int64_t output_len, const float* rep, const float* freq,
                 const float* pres, std::int64_t rows, std::int64_t vocab, std::int64_t pitch, bool additive,
                 float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> pi(rows * prompt_len, st);
    DeviceBuffer<std::int32_t> oi(rows * output_len, st);
    DeviceBuffer<float> r(rows, st);
    DeviceBuffer<float> f(rows, st);
    DeviceBuffer<float> p(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    pi.Upload(prompt_ids, st);
    oi.Upload(output_ids, st);
    r.Upload(rep, st);
    f.Upload(freq, st);
    p.Upload(pres, st);
    LaunchKernel<PenaltiesKernel>(rows, st, x.ConstView("logits"), pi.ConstView("prompt_ids"), prompt_len,
                                  oi.ConstView("output_ids"), output_len, r.ConstView("repetition_penalty"),
                                  f.ConstView("frequency_penalty"), p.ConstView("presence_penalty"), y.View("out"), vocab,
                                  pitch, additive);
    y.Download(out, st);
    Throw(st, PenaltiesKernel::kName);
  }

  // gpu-draws group (gpu/draws_glue.h). The argmax-only kernels run one warp per row when
  // V <= kOneWarpVocab, 1024 threads above it (gpu/block_argmax.cuh: the result is the same).
  template <template <int> class Kernel, class... Args>
  static void LaunchSized(std::int64_t rows, std::int64_t vocab, CudaStatus& st, Args... args) {
    if (vocab <= kOneWarpVocab) {
      LaunchKernel<Kernel<kWarpSize>>(rows, st, args...);
    } else {
      LaunchKernel<Kernel<kCanonicalLanes>>(rows, st, args...);
    }
  }

  void GumbelMax(const float* scores, const float* gumbel, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                 std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> g(rows * pitch, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    x.Upload(scores, st);
    g.Upload(gumbel, st);
    LaunchSized<GumbelMaxKernel>(rows, vocab, st, x.ConstView("logprobs"), g.ConstView("gumbel"), y.View("token"),
                                 vocab, pitch);
    y.Download(token, st);
    Throw(st, GumbelMaxKernel<>::kName);
  }

  void ExponentialRace(const float* probs, const float* q, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                       bool all_tokens, std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> p(rows * pitch, st);
    DeviceBuffer<float> e(rows * pitch, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    p.Upload(probs, st);
    e.Upload(q, st);
    LaunchSized<ExponentialRaceKernel>(rows, vocab, st, p.ConstView("probs"), e.ConstView("q"), y.View("token"), vocab,
                                       pitch, all_tokens);
    y.Download(token, st);
    Throw(st, ExponentialRaceKernel<>::kName);
  }

  void InverseCdf(const float* probs, const float* u, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                  std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> p(rows * pitch, st);
    DeviceBuffer<float> w(rows, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    p.Upload(probs, st);
    w.Upload(u, st);
    LaunchSized<InverseCdfKernel>(rows, vocab, st, p.ConstView("probs"), w.ConstView("u"), y.View("token"), vocab,
                                  pitch);
    y.Download(token, st);
    Throw(st, InverseCdfKernel<>::kName);
  }

  void QSample(const float* probs, const float* q, float eps, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
               std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> p(rows * pitch, st);
    DeviceBuffer<float> e(rows * pitch, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    p.Upload(probs, st);
    e.Upload(q, st);
    LaunchSized<QSampleKernel>(rows, vocab, st, p.ConstView("probs"), e.ConstView("q"), y.View("token"), vocab, pitch,
                               eps);
    y.Download(token, st);
    Throw(st, QSampleKernel<>::kName);
  }

  void SeededGumbel(const float* probs, const std::int64_t* seed, const std::int64_t* positions,
                    const std::int32_t* token_ids, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                    std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> p(rows * pitch, st);
    DeviceBuffer<std::int64_t> s(rows, st);
    DeviceBuffer<std::int64_t> pos(rows, st);
    DeviceBuffer<std::int32_t> ids(token_ids != nullptr ? rows * pitch : 0, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    p.Upload(probs, st);
    s.Upload(seed, st);
    pos.Upload(positions, st);
    ids.Upload(token_ids, st);
    LaunchSized<SeededGumbelKernel>(rows, vocab, st, p.ConstView("probs"), s.ConstView("seed"),
                                    pos.ConstView("positions"), ids.ConstView("token_ids"), token_ids != nullptr,
                                    y.View("token"), vocab, pitch);
    y.Download(token, st);
    Throw(st, SeededGumbelKernel<>::kName);
  }

  void SpecGreedy(const float* target_logits, const std::int32_t* drafts, const std::int64_t* counts, SpecShape shape,
                  std::int64_t* emitted, std::int64_t* accepted) override {
    RequireDevice();
    const auto [rows, width, vocab] = shape;
    CudaStatus st;
    DeviceBuffer<float> t(rows * (width + 1) * vocab, st);
    DeviceBuffer<std::int32_t> d(rows * width, st);
    DeviceBuffer<std::int64_t> n(rows, st);
    DeviceBuffer<std::int64_t> e(rows * (width + 1), st);
    DeviceBuffer<std::int64_t> a(rows, st);
    t.Upload(target_logits, st);
    d.Upload(drafts, st);
    n.Upload(counts, st);
    LaunchSized<SpecGreedyKernel>(rows, vocab, st, t.ConstView("target_logits"), d.ConstView("draft_ids"),
                                  n.ConstView("counts"), e.View("emitted"), a.View("num_accepted"), width, vocab);
    e.Download(emitted, st);
    a.Download(accepted, st);
    Throw(st, SpecGreedyKernel<>::kName);
  }

  void SpecRandom(const SpecRandomInputs& in, SpecShape shape, std::int64_t* emitted, std::int64_t* accepted) override {
    RequireDevice();
    const auto [rows, width, vocab] = shape;
    using Rule = SpecRandomInputs::Rule;
    CudaStatus st;
    DeviceBuffer<float> t(rows * (width + 1) * vocab, st);
    DeviceBuffer<float> dp(in.draft_probs != nullptr ? rows * width * vocab : 0, st);
    DeviceBuffer<std::int32_t> d(rows * width, st);
    DeviceBuffer<std::int64_t> n(rows, st);
    DeviceBuffer<double> u64(in.rule == Rule::kVllm ? rows * width : 0, st);
    DeviceBuffer<float> u32(in.rule == Rule::kFlashinfer ? rows * (width + 1) : 0, st);
    DeviceBuffer<float> q(in.rule == Rule::kVllm ? rows * vocab : 0, st);
    DeviceBuffer<float> bq(in.rule != Rule::kFlashinfer ? rows * vocab : 0, st);
    DeviceBuffer<std::int64_t> e(rows * (width + 1), st);
    DeviceBuffer<std::int64_t> a(rows, st);
    t.Upload(in.target_probs, st);
    dp.Upload(in.draft_probs, st);
    d.Upload(in.drafts, st);
    n.Upload(in.counts, st);
    u64.Upload(in.u_f64, st);
    u32.Upload(in.u_f32, st);
    q.Upload(in.q, st);
    bq.Upload(in.bonus_q, st);
    const char* kernel = SpecRandomVllmKernel<>::kName;
    switch (in.rule) {
      case Rule::kVllm:
        LaunchSized<SpecRandomVllmKernel>(rows, vocab, st, t.ConstView("target_probs"), dp.ConstView("draft_probs"),
                                          in.draft_probs != nullptr, d.ConstView("draft_ids"), n.ConstView("counts"),
                                          u64.ConstView("u"), q.ConstView("q"), bq.ConstView("bonus_q"),
                                          e.View("emitted"), a.View("num_accepted"), width, vocab);
        break;
      case Rule::kFlashinfer:
        kernel = SpecRandomFlashinferKernel<>::kName;
        LaunchSized<SpecRandomFlashinferKernel>(
            rows, vocab, st, t.ConstView("target_probs"), dp.ConstView("draft_probs"), d.ConstView("draft_ids"),
            n.ConstView("counts"), u32.ConstView("u"), e.View("emitted"), a.View("num_accepted"), width, vocab);
        break;
      case Rule::kTypicalAcceptance:
        kernel = SpecRandomTypicalKernel::kName;
        LaunchKernel<SpecRandomTypicalKernel>(rows, st, t.ConstView("target_probs"), d.ConstView("draft_ids"),
                                              n.ConstView("counts"), bq.ConstView("bonus_q"), in.posterior_threshold,
                                              in.posterior_alpha, e.View("emitted"), a.View("num_accepted"), width,
                                              vocab);
        break;
    }
    e.Download(emitted, st);
    a.Download(accepted, st);
    Throw(st, kernel);
  }

  void FinishRules(const FinishRulesInputs& in, std::int64_t rows, std::int32_t* finish_reason,
                   std::int64_t* stop_reason, std::uint8_t* text_keep, std::int32_t* next_banned) override {
    RequireDevice();
    const std::int64_t width = in.n_eos + in.n_stop;
    CudaStatus st;
    DeviceBuffer<std::int64_t> tok(rows, st);
    DeviceBuffer<std::int32_t> len(rows, st);
    DeviceBuffer<std::int32_t> mx(rows, st);
    DeviceBuffer<std::int32_t> mn(rows, st);
    DeviceBuffer<std::uint8_t> ign(rows, st);
    DeviceBuffer<std::uint8_t> keep(in.keep_stop != nullptr ? rows : 0, st);
    DeviceBuffer<std::int32_t> eos(rows * in.n_eos, st);
    DeviceBuffer<std::int32_t> stop(rows * in.n_stop, st);
    DeviceBuffer<std::int32_t> reason(rows, st);
    DeviceBuffer<std::int64_t> matched(rows, st);
    DeviceBuffer<std::uint8_t> kept(rows, st);
    DeviceBuffer<std::int32_t> banned(rows * width, st);
    tok.Upload(in.token, st);
    len.Upload(in.output_len, st);
    mx.Upload(in.max_tokens, st);
    mn.Upload(in.min_tokens, st);
    ign.Upload(in.ignore_eos, st);
    keep.Upload(in.keep_stop, st);
    eos.Upload(in.eos_ids, st);
    stop.Upload(in.stop_ids, st);
    LaunchKernel<FinishRulesKernel>((rows + FinishRulesKernel::kThreads - 1) / FinishRulesKernel::kThreads, st,
                                    tok.ConstView("token"), len.ConstView("output_len"), mx.ConstView("max_tokens"),
                                    mn.ConstView("min_tokens"), ign.ConstView("ignore_eos"),
                                    keep.ConstView("keep_stop"), in.keep_stop != nullptr, eos.ConstView("eos_ids"),
                                    in.n_eos, stop.ConstView("stop_ids"), in.n_stop, rows, in.sglang,
                                    in.eos_stop_reason_none, reason.View("finish_reason"),
                                    matched.View("stop_reason"), kept.View("text_keep"), banned.View("next_banned"));
    reason.Download(finish_reason, st);
    matched.Download(stop_reason, st);
    kept.Download(text_keep, st);
    banned.Download(next_banned, st);
    Throw(st, FinishRulesKernel::kName);
  }

  void TpConsensus(const std::int64_t* rank_ids, std::int64_t ranks, std::int64_t batch, bool driver_rank,
                   std::int64_t* token, std::uint8_t* unanimous) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<std::int64_t> ids(ranks * batch, st);
    DeviceBuffer<std::int64_t> y(batch, st);
    DeviceBuffer<std::uint8_t> same(batch, st);
    ids.Upload(rank_ids, st);
    LaunchKernel<TpConsensusKernel>((batch + TpConsensusKernel::kThreads - 1) / TpConsensusKernel::kThreads, st,
                                    ids.ConstView("rank_ids"), ranks, batch, driver_rank, y.View("token"),
                                    same.View("unanimous"));
    y.Download(token, st);
    same.Download(unanimous, st);
    Throw(st, TpConsensusKernel::kName);
  }

  // noise group
  void Noise(const std::int64_t* seed, const std::int64_t* offset, std::int64_t rows, std::int64_t n,
             rng::NoiseGenerator generator, rng::NoiseLaw law, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<std::int64_t> s(rows, st);
    DeviceBuffer<std::int64_t> o(rows, st);
    DeviceBuffer<float> y(rows * n, st);
    s.Upload(seed, st);
    o.Upload(offset, st);
    LaunchKernel<NoiseKernel>(rows * NoiseKernel::Chunks(n), st, s.ConstView("seed"), o.ConstView("offset"),
                              y.View("noise"), n, generator, law);
    y.Download(out, st);
    Throw(st, NoiseKernel::kName);
  }

  // Filters (top_k, top_p, min_p, sampling_filters): input and output through one array type.
  void TopK(const float* logits, const std::int32_t* top_k, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            const TopKRule& rule, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> k(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    k.Upload(top_k, st);
    LaunchKernel<TopKKernel>(rows, st, x.View("logits"), y.View("out"), k.ConstView("top_k"), vocab, pitch, rule);
    y.Download(out, st);
    Throw(st, TopKKernel::kName);
  }

  void TopP(const float* logits, const float* top_p, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            TopPWalk rule, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> p(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    p.Upload(top_p, st);
    LaunchKernel<TopPKernel>(rows, st, x.View("logits"), y.View("out"), p.ConstView("top_p"), vocab, pitch, rule);
    y.Download(out, st);
    Throw(st, TopPKernel::kName);
  }

  void MinP(const float* logits, const float* min_p, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
            const MinPRule& rule, float* out) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> m(rows, st);
    DeviceBuffer<float> y(rows * vocab, st);
    x.Upload(logits, st);
    m.Upload(min_p, st);
    LaunchKernel<MinPKernel>(rows, st, x.View("logits"), y.View("out"), m.ConstView("min_p"), vocab, pitch, rule);
    y.Download(out, st);
    Throw(st, MinPKernel::kName);
  }

  void SamplingFilters(const float* logits, const std::int32_t* top_k, const float* top_p, const float* min_p,
                       std::int64_t rows, std::int64_t vocab, std::int64_t pitch, const FilterRules& rules, float* out,
                       float* probs) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<std::int32_t> k(top_k != nullptr ? rows : 0, st);
    DeviceBuffer<float> p(top_p != nullptr ? rows : 0, st);
    DeviceBuffer<float> m(min_p != nullptr ? rows : 0, st);
    DeviceBuffer<float> y(rows * vocab, st);
    DeviceBuffer<float> q(rows * vocab, st);
    x.Upload(logits, st);
    k.Upload(top_k, st);
    p.Upload(top_p, st);
    m.Upload(min_p, st);
    LaunchKernel<SamplingFiltersKernel>(rows, st, x.View("logits"), y.View("out"), q.View("probs"),
                                        k.ConstView("top_k"), top_k != nullptr, p.ConstView("top_p"), top_p != nullptr,
                                        m.ConstView("min_p"), min_p != nullptr, vocab, pitch, rules);
    y.Download(out, st);
    q.Download(probs, st);
    Throw(st, SamplingFiltersKernel::kName);
  }

  void AscendTopKTopPSampleV2(const float* logits, const std::int32_t* top_k, const float* top_p, const float* min_p,
                              const float* q, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                              const AscendSampleRule& rule, std::int64_t* select_idx, float* top_kp_select,
                              float* sort_masked, std::int64_t* idx) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> work(rows * vocab, st);
    DeviceBuffer<float> qd(q != nullptr ? rows * vocab : 0, st);
    DeviceBuffer<std::int32_t> k(rows, st);
    DeviceBuffer<float> p(rows, st);
    DeviceBuffer<float> m(min_p != nullptr ? rows : 0, st);
    DeviceBuffer<std::int64_t> sel(select_idx != nullptr ? rows : 0, st);
    DeviceBuffer<float> kp(top_kp_select != nullptr ? rows * vocab : 0, st);
    DeviceBuffer<float> sm(sort_masked != nullptr ? rows * vocab : 0, st);
    DeviceBuffer<std::int64_t> ix(idx != nullptr ? rows * vocab : 0, st);
    x.Upload(logits, st);
    qd.Upload(q, st);
    k.Upload(top_k, st);
    p.Upload(top_p, st);
    m.Upload(min_p, st);
    LaunchKernel<AscendTopKTopPSampleV2Kernel>(rows, st, x.View("logits"), work.View("work"), qd.View("q"),
                                               q != nullptr, k.ConstView("top_k"), p.ConstView("top_p"),
                                               m.ConstView("min_p"), min_p != nullptr, sel.View("logits_select_idx"),
                                               kp.View("logits_top_kp_select"), sm.View("logits_sort_masked"),
                                               ix.View("logits_idx"), vocab, pitch, rule);
    if (select_idx != nullptr) sel.Download(select_idx, st);
    if (top_kp_select != nullptr) kp.Download(top_kp_select, st);
    if (sort_masked != nullptr) sm.Download(sort_masked, st);
    if (idx != nullptr) ix.Download(idx, st);
    Throw(st, AscendTopKTopPSampleV2Kernel::kName);
  }

  void Logprobs(const float* src, const float* divisor, const std::uint8_t* divide, const std::uint8_t* filter,
                const std::int32_t* top_k, const float* top_p, const float* min_p, const std::int64_t* token,
                const std::int32_t* token_ids, std::int64_t width, std::int64_t rows, std::int64_t vocab,
                std::int64_t pitch, std::int64_t n, const LogprobsRule& rule, std::int64_t* top_ids, float* top_values,
                float* token_logprob, std::int64_t* token_rank, float* ids_values) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> work(rows * vocab, st);
    DeviceBuffer<float> dv(rows, st);
    DeviceBuffer<std::uint8_t> dd(rows, st);
    DeviceBuffer<std::uint8_t> df(rows, st);
    DeviceBuffer<std::int32_t> k(rows, st);
    DeviceBuffer<float> p(rows, st);
    DeviceBuffer<float> m(rows, st);
    DeviceBuffer<std::int64_t> tok(rows, st);
    DeviceBuffer<std::int32_t> ids(rows * width, st);
    DeviceBuffer<std::int64_t> ti(rows * n, st);
    DeviceBuffer<float> tv(rows * n, st);
    DeviceBuffer<float> tl(rows, st);
    DeviceBuffer<std::int64_t> tr(rows, st);
    DeviceBuffer<float> iv(rows * width, st);
    x.Upload(src, st);
    dv.Upload(divisor, st);
    dd.Upload(divide, st);
    df.Upload(filter, st);
    k.Upload(top_k, st);
    p.Upload(top_p, st);
    m.Upload(min_p, st);
    tok.Upload(token, st);
    ids.Upload(token_ids, st);
    LaunchKernel<LogprobsKernel>(rows, st, x.View("logits"), work.View("work"), dv.ConstView("divisor"),
                                 dd.ConstView("divide"), df.ConstView("filter"), k.ConstView("top_k"),
                                 p.ConstView("top_p"), m.ConstView("min_p"), tok.ConstView("token"),
                                 ids.ConstView("token_ids"), width, ti.View("top_ids"), tv.View("top_values"),
                                 tl.View("token_logprob"), tr.View("token_rank"), iv.View("token_ids_logprobs"), n,
                                 vocab, pitch, rule);
    ti.Download(top_ids, st);
    tv.Download(top_values, st);
    tl.Download(token_logprob, st);
    tr.Download(token_rank, st);
    iv.Download(ids_values, st);
    Throw(st, LogprobsKernel::kName);
  }

  // pipeline group (gpu/pipeline_glue.h).
  void SglangRankDraw(const float* full, const float* scaled, const float* masked, const std::uint8_t* draw,
                      const std::int64_t* seed,
                      const std::int64_t* positions, std::int64_t rows, std::int64_t vocab, std::int64_t pitch,
                      std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<float> f(rows * pitch, st);
    DeviceBuffer<float> x(rows * pitch, st);
    DeviceBuffer<float> m(rows * pitch, st);
    DeviceBuffer<std::uint8_t> d(rows, st);
    DeviceBuffer<std::int64_t> s(rows, st);
    DeviceBuffer<std::int64_t> pos(rows, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    d.Upload(draw, st);
    f.Upload(full, st);
    x.Upload(scaled, st);
    m.Upload(masked, st);
    s.Upload(seed, st);
    pos.Upload(positions, st);
    LaunchSized<SglangRankDrawKernel>(rows, vocab, st, f.ConstView("full_probs"), x.ConstView("scaled_logits"),
                                      m.ConstView("filtered_logits"), d.ConstView("draw"), s.ConstView("seed"), pos.ConstView("positions"),
                                      y.View("token"), vocab, pitch);
    y.Download(token, st);
    Throw(st, SglangRankDrawKernel<>::kName);
  }

  void PipelineSelect(const std::uint8_t* is_greedy, const std::int64_t* greedy, const std::int64_t* drawn,
                      std::int64_t rows, std::int64_t* token) override {
    RequireDevice();
    CudaStatus st;
    DeviceBuffer<std::uint8_t> g(rows, st);
    DeviceBuffer<std::int64_t> a(rows, st);
    DeviceBuffer<std::int64_t> d(drawn != nullptr ? rows : 0, st);
    DeviceBuffer<std::int64_t> y(rows, st);
    g.Upload(is_greedy, st);
    a.Upload(greedy, st);
    d.Upload(drawn, st);
    LaunchKernel<PipelineSelectKernel>((rows + PipelineSelectKernel::kThreads - 1) / PipelineSelectKernel::kThreads,
                                       st, g.ConstView("is_greedy"), a.ConstView("greedy_token"),
                                       d.ConstView("drawn_token"), y.View("token"), rows);
    y.Download(token, st);
    Throw(st, PipelineSelectKernel::kName);
  }

 private:
  // Every call checks: a device may be absent (CI) or lost; the message starts with
  // "no CUDA device" so scripts and tests can recognise the skip reason.
  static void RequireDevice() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      throw std::runtime_error(std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + " (" +
                               cudaGetErrorString(e) + ")");
    }
    if (count == 0) throw std::runtime_error("no CUDA device: cudaGetDeviceCount found 0 devices");
  }
};

}  // namespace

std::unique_ptr<KernelRunner> MakeCudaRunner() { return std::make_unique<CudaRunner>(); }
std::unique_ptr<Backend> MakeCudaBackend() { return std::make_unique<GpuBackend>(MakeCudaRunner()); }

// Whether a device is present, for tests that must skip with "no CUDA device".
bool CudaDevicePresent() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace sampcheck::gpu
