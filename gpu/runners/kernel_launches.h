// SPDX-License-Identifier: Apache-2.0
#pragma once
// One launch description per kernel (docs/gpu.md "Adding a kernel"): the host arrays a kernel
// reads and writes, with their element counts and directions, its scalars and its grid, in
// the order the kernel's functor takes them. A description is run by a launcher `L`: the
// checking emulator's (gpu/runners/emulated_launch.h) maps each array to a bounds-checked host view, the
// CUDA device's (gpu/runners/cuda_launch.cuh) to a device buffer it uploads and downloads. A runner
// (gpu/runners/kernel_runner.h) accepts any description listed in `KernelLaunch` below.
//
// Contract of a launcher `L`, which every Describe below relies on:
//   l.In(p, n, name)              a host array of n elements the kernel only reads
//                                 (a read-only view; 0 elements when p is null);
//   l.Out(p, n, name)             a host array of n elements the kernel writes, copied back
//                                 after the launch (0 elements when p is null);
//   l.InOut(p, n, name)           both: copied in, written, copied back;
//   l.InAsOut(p, n, name)         an input the kernel only reads, viewed through the writable
//                                 array type: the filters pass their input and their output to
//                                 the same helpers, and on a device every instantiation of a
//                                 helper that declares __shared__ arrays gets its own copy of
//                                 them (two array types would double the filters' shared memory,
//                                 past the 48 KiB a block may declare statically);
//   l.template Scratch<T>(n, name) a work array of n T's that stays on the runner's side;
//   l.Tickets(n, name)            n u32 counters of the last-block protocol
//                                 (gpu/block/last_block.cuh), zero when the description
//                                 runs; every launch leaves them zero;
//   l.template Run<Kernel>(grid, args...) one launch of `grid` blocks of Kernel::kThreads
//                                 threads, Kernel{}(block, args...) in every block; it throws
//                                 std::runtime_error when the launch or the emulator's checks fail.
// Host pointers in, host pointers out. Row-major [rows, vocab] arrays with the row pitch given
// (pitch >= vocab), so that tests can pad rows.

#include <cstdint>
#include <variant>

#include "gpu/kernels/allowed_token_ids.cuh"
#include "gpu/kernels/ascend_top_k_top_p_sample_v2.cuh"
#include "gpu/kernels/bad_words.cuh"
#include "gpu/block/block_argmax.cuh"
#include "gpu/kernels/exponential_race.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/finish_rules.cuh"
#include "gpu/kernels/flashinfer_sampling_from_probs.cuh"
#include "gpu/kernels/greedy.cuh"
#include "gpu/kernels/gumbel_max.cuh"
#include "gpu/kernels/inverse_cdf.cuh"
#include "gpu/kernels/logit_bias.cuh"
#include "gpu/kernels/logprobs.cuh"
#include "gpu/kernels/min_new_tokens.cuh"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/nan_handling.cuh"
#include "gpu/kernels/noise.cuh"
#include "gpu/kernels/penalties.cuh"
#include "gpu/kernels/pipeline_select.cuh"
#include "gpu/kernels/qsample.cuh"
#include "gpu/kernels/sampling_filters.cuh"
#include "gpu/kernels/sampling_filters_slices.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "gpu/kernels/sglang_rank_draw.cuh"
#include "gpu/kernels/softmax.cuh"
#include "gpu/kernels/spec_greedy.cuh"
#include "gpu/kernels/spec_random.cuh"
#include "gpu/kernels/spec_step.cuh"
#include "gpu/kernels/spec_verify_block.cuh"
#include "gpu/kernels/spec_verify_sglang.cuh"
#include "gpu/kernels/stage_rules.h"
#include "gpu/kernels/temperature.cuh"
#include "gpu/kernels/token_bitmask.cuh"
#include "gpu/kernels/top_k.cuh"
#include "gpu/kernels/top_p.cuh"
#include "gpu/kernels/tp_consensus.cuh"
#include "reference/rng/noise_stream.h"

namespace sampcheck::gpu {

// Blocks for a kernel whose threads each take one of n items.
template <class Kernel>
constexpr std::int64_t BlocksFor(std::int64_t n) {
  return (n + Kernel::kThreads - 1) / Kernel::kThreads;
}

// The argmax-only kernels run one warp per row when V <= kOneWarpVocab, 1024 threads above it
// (gpu/block/block_argmax.cuh: the winner is the same).
template <template <int> class Kernel, class L, class... Args>
void RunArgmaxRows(L& l, std::int64_t rows, std::int64_t vocab, Args... args) {
  if (vocab <= kOneWarpVocab) {
    l.template Run<Kernel<kWarpSize>>(rows, args...);
  } else {
    l.template Run<Kernel<kCanonicalLanes>>(rows, args...);
  }
}

// token[b] = argmax of logits row b (gpu/kernels/greedy.cuh).
struct GreedyLaunch {
  const float* logits = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  // The batch the slices are planned for; 0: rows. The cost model counts the first rows of a
  // large batch as that batch would slice them (FastSamplingLaunch::plan_rows).
  std::int64_t plan_rows = 0;
  // Slices a row: the batch's share of the SMs (RowSliceBudget, gpu/block/row_slices.cuh), the
  // row's last block merging the slices' winners (gpu/kernels/greedy.cuh).
  std::int64_t Slices() const { return RowSliceBudget(plan_rows > 0 ? plan_rows : rows, vocab); }
  template <class L>
  void Describe(L& l) const {
    const std::int64_t slices = Slices();
    l.template Run<GreedyKernel>(rows * slices, l.In(logits, rows * pitch, "logits"), l.Out(token, rows, "token"),
                                 vocab, pitch,
                                 l.template Scratch<std::uint64_t>(slices > 1 ? rows * slices * 2 : 0, "slices"),
                                 l.Tickets(slices > 1 ? rows : 0, "tickets"), slices);
  }
};

// out = softmax or log_softmax of logits / temperature (gpu/kernels/softmax.cuh); temperature may be null.
struct SoftmaxLaunch {
  const float* logits = nullptr;
  const float* temperature = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  bool log = false;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<SoftmaxKernel>(rows, l.In(logits, rows * pitch, "logits"), l.In(temperature, rows, "temperature"),
                                  temperature != nullptr, l.Out(out, rows * vocab, log ? "logprobs" : "probs"), vocab,
                                  pitch, log);
  }
};

// gpu/kernels/temperature.cuh.
struct TemperatureLaunch {
  const float* logits = nullptr;
  const float* temperature = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  TemperatureRule rule{};
  float* out = nullptr;
  std::uint8_t* is_greedy = nullptr;
  bool point_mass = false;  // spec_step's canonical and block positions (the kernel's contract)
  template <class L>
  void Describe(L& l) const {
    l.template Run<TemperatureKernel>(rows, l.In(logits, rows * pitch, "logits"),
                                      l.In(temperature, rows, "temperature"), l.Out(out, rows * vocab, "logits_out"),
                                      l.Out(is_greedy, rows, "is_greedy"), vocab, pitch, rule, point_mass);
  }
};

// gpu/kernels/nan_handling.cuh: NaN and +-inf replaced as the rule says, else a bitwise copy.
struct NanHandlingLaunch {
  const float* logits = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  NanRule rule{};
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<NanHandlingKernel>(rows, l.In(logits, rows * pitch, "logits"),
                                      l.Out(out, rows * vocab, "logits_out"), vocab, pitch, rule);
  }
};

// gpu/kernels/token_bitmask.cuh: bitmask is [mask_rows, words] (row r masks logits row r when masked[r]).
struct TokenBitmaskLaunch {
  const float* logits = nullptr;
  const std::int32_t* bitmask = nullptr;
  const std::uint8_t* masked = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0, mask_rows = 0, words = 0, vocab_size = 0;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<TokenBitmaskKernel>(rows, l.In(logits, rows * pitch, "logits"),
                                       l.In(bitmask, mask_rows * words, "bitmask"), l.In(masked, rows, "masked"),
                                       l.Out(out, rows * vocab, "logits_out"), vocab, pitch, words, vocab_size);
  }
};

// gpu/kernels/logit_bias.cuh: dense [rows, vocab] may be null; the sparse list has n entries.
struct LogitBiasLaunch {
  const float* logits = nullptr;
  const float* dense = nullptr;
  const std::int32_t* bias_rows = nullptr;
  const std::int32_t* bias_ids = nullptr;
  const float* bias_values = nullptr;
  std::int64_t n = 0, rows = 0, vocab = 0, pitch = 0;
  LogitBiasRule rule{};
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<LogitBiasKernel>(rows, l.In(logits, rows * pitch, "logits"), l.In(dense, rows * vocab, "bias"),
                                    dense != nullptr, l.In(bias_rows, n, "bias_rows"), l.In(bias_ids, n, "bias_ids"),
                                    l.In(bias_values, n, "bias_values"), n, l.Out(out, rows * vocab, "logits_out"),
                                    vocab, pitch, rule);
  }
};

// gpu/kernels/allowed_token_ids.cuh: allowed is [rows, slots].
struct AllowedTokenIdsLaunch {
  const float* logits = nullptr;
  const std::int32_t* allowed = nullptr;
  std::int64_t slots = 0, rows = 0, vocab = 0, pitch = 0;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<AllowedTokenIdsKernel>(rows, l.In(logits, rows * pitch, "logits"),
                                          l.In(allowed, rows * slots, "allowed_ids"), slots,
                                          l.Out(out, rows * vocab, "logits_out"), vocab, pitch);
  }
};

// gpu/kernels/min_new_tokens.cuh: stop_ids is [rows, slots]; additive: sglang's rule.
struct MinNewTokensLaunch {
  const float* logits = nullptr;
  const std::int32_t* output_len = nullptr;
  const std::int32_t* min_tokens = nullptr;
  const std::int32_t* stop_ids = nullptr;
  std::int64_t slots = 0, rows = 0, vocab = 0, pitch = 0;
  bool additive = false;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<MinNewTokensKernel>(rows, l.In(logits, rows * pitch, "logits"), l.In(output_len, rows, "output_len"),
                                       l.In(min_tokens, rows, "min_tokens"), l.In(stop_ids, rows * slots, "stop_ids"),
                                       slots, l.Out(out, rows * vocab, "logits_out"), vocab, pitch, additive);
  }
};

// gpu/kernels/bad_words.cuh: output_ids [rows, output_len], bad_words [rows, n_words, word_len].
struct BadWordsLaunch {
  const float* logits = nullptr;
  const std::int32_t* output_ids = nullptr;
  std::int64_t output_len = 0;
  const std::int32_t* bad_words = nullptr;
  std::int64_t n_words = 0, word_len = 0, rows = 0, vocab = 0, pitch = 0;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<BadWordsKernel>(rows, l.In(logits, rows * pitch, "logits"),
                                   l.In(output_ids, rows * output_len, "output_ids"), output_len,
                                   l.In(bad_words, rows * n_words * word_len, "bad_words"), n_words, word_len,
                                   l.Out(out, rows * vocab, "logits_out"), vocab, pitch);
  }
};

// gpu/kernels/penalties.cuh: ids [rows, len] (len 0 when absent); rep/freq/pres one value per row.
struct PenaltiesLaunch {
  const float* logits = nullptr;
  const std::int32_t* prompt_ids = nullptr;
  std::int64_t prompt_len = 0;
  const std::int32_t* output_ids = nullptr;
  std::int64_t output_len = 0;
  const float* rep = nullptr;
  const float* freq = nullptr;
  const float* pres = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  bool additive = false;
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<PenaltiesKernel>(
        rows, l.In(logits, rows * pitch, "logits"), l.In(prompt_ids, rows * prompt_len, "prompt_ids"), prompt_len,
        l.In(output_ids, rows * output_len, "output_ids"), output_len, l.In(rep, rows, "repetition_penalty"),
        l.In(freq, rows, "frequency_penalty"), l.In(pres, rows, "presence_penalty"),
        l.Out(out, rows * vocab, "logits_out"), vocab, pitch, additive);
  }
};

// gpu/kernels/gumbel_max.cuh: scores and gumbel are [rows, pitch].
struct GumbelMaxLaunch {
  const float* scores = nullptr;
  const float* gumbel = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<GumbelMaxKernel>(l, rows, vocab, l.In(scores, rows * pitch, "logprobs"),
                                   l.In(gumbel, rows * pitch, "gumbel"), l.Out(token, rows, "token"), vocab, pitch);
  }
};

// gpu/kernels/exponential_race.cuh: probs and q are [rows, pitch]; all_tokens: vllm's argmax over every token.
struct ExponentialRaceLaunch {
  const float* probs = nullptr;
  const float* q = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  bool all_tokens = false;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<ExponentialRaceKernel>(l, rows, vocab, l.In(probs, rows * pitch, "probs"), l.In(q, rows * pitch, "q"),
                                         l.Out(token, rows, "token"), vocab, pitch, all_tokens);
  }
};

// gpu/kernels/inverse_cdf.cuh: probs [rows, pitch], u [rows].
struct InverseCdfLaunch {
  const float* probs = nullptr;
  const float* u = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<InverseCdfKernel>(l, rows, vocab, l.In(probs, rows * pitch, "probs"), l.In(u, rows, "u"),
                                    l.Out(token, rows, "token"), vocab, pitch);
  }
};

// gpu/kernels/qsample.cuh: probs and q are [rows, pitch].
struct QSampleLaunch {
  const float* probs = nullptr;
  const float* q = nullptr;
  float eps = 0.0f;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<QSampleKernel>(l, rows, vocab, l.In(probs, rows * pitch, "probs"), l.In(q, rows * pitch, "q"),
                                 l.Out(token, rows, "token"), vocab, pitch, eps);
  }
};

// gpu/kernels/seeded_gumbel.cuh: probs and token_ids (null: column = rank) are [rows, pitch]; seed and
// positions [rows] (positions checked to lie in [0, 2^32)).
struct SeededGumbelLaunch {
  const float* probs = nullptr;
  const std::int64_t* seed = nullptr;
  const std::int64_t* positions = nullptr;
  const std::int32_t* token_ids = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<SeededGumbelKernel>(l, rows, vocab, l.In(probs, rows * pitch, "probs"), l.In(seed, rows, "seed"),
                                      l.In(positions, rows, "positions"), l.In(token_ids, rows * pitch, "token_ids"),
                                      token_ids != nullptr, l.Out(token, rows, "token"), vocab, pitch);
  }
};

// gpu/kernels/flashinfer_sampling_from_probs.cuh: probs [rows, vocab], u [rows, width]; top_k,
// top_p, min_p one per row (every row, whichever the kernel reads); outputs token, valid, rounds
// [rows]. The renormalised row of top_k_first is a work array.
struct FlashinferSamplingFromProbsLaunch {
  const float* probs = nullptr;
  const std::uint32_t* top_k = nullptr;
  const float* top_p = nullptr;
  const float* min_p = nullptr;
  const float* u = nullptr;
  FlashinferKind kind = FlashinferKind::kTopKTopP;
  bool top_k_first = false;
  std::int64_t rows = 0, width = 0, vocab = 0;
  std::int64_t* token = nullptr;
  std::uint8_t* valid = nullptr;
  std::int32_t* rounds = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<FlashinferSamplingFromProbsKernel>(
        rows, l.In(probs, rows * vocab, "probs"),
        l.template Scratch<float>(top_k_first ? rows * vocab : 0, "renormed"), static_cast<std::int32_t>(kind),
        top_k_first, l.In(top_k, rows, "top_k"), l.In(top_p, rows, "top_p"), l.In(min_p, rows, "min_p"),
        l.In(u, rows * width, "u"), l.Out(token, rows, "token"), l.Out(valid, rows, "valid"),
        l.Out(rounds, rows, "rounds"), width, vocab);
  }
};

// The speculative stages' shapes: drafts [rows, width], counts [rows], target [rows, width + 1,
// vocab], draft [rows, width, vocab]; outputs emitted [rows, width + 1], accepted [rows].
struct SpecShape {
  std::int64_t rows = 0;
  std::int64_t width = 0;
  std::int64_t vocab = 0;
};

// gpu/kernels/spec_greedy.cuh.
struct SpecGreedyLaunch {
  const float* target_logits = nullptr;
  const std::int32_t* drafts = nullptr;
  const std::int64_t* counts = nullptr;
  SpecShape shape;
  std::int64_t* emitted = nullptr;
  std::int64_t* accepted = nullptr;
  template <class L>
  void Describe(L& l) const {
    const auto [rows, width, vocab] = shape;
    RunArgmaxRows<SpecGreedyKernel>(l, rows, vocab, l.In(target_logits, rows * (width + 1) * vocab, "target_logits"),
                                    l.In(drafts, rows * width, "draft_ids"), l.In(counts, rows, "counts"),
                                    l.Out(emitted, rows * (width + 1), "emitted"),
                                    l.Out(accepted, rows, "num_accepted"), width, vocab);
  }
};

// gpu/kernels/spec_random.cuh: one rule per profile; the noise and parameters a rule does not read are
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

struct SpecRandomLaunch {
  SpecRandomInputs in;
  SpecShape shape;
  std::int64_t* emitted = nullptr;
  std::int64_t* accepted = nullptr;
  template <class L>
  void Describe(L& l) const {
    const auto [rows, width, vocab] = shape;
    const auto target = l.In(in.target_probs, rows * (width + 1) * vocab, "target_probs");
    const auto draft_ids = l.In(in.drafts, rows * width, "draft_ids");
    const auto num_drafts = l.In(in.counts, rows, "counts");
    const auto out = l.Out(emitted, rows * (width + 1), "emitted");
    const auto num_accepted = l.Out(accepted, rows, "num_accepted");
    switch (in.rule) {
      case SpecRandomInputs::Rule::kVllm:
        RunArgmaxRows<SpecRandomVllmKernel>(
            l, rows, vocab, target, l.In(in.draft_probs, rows * width * vocab, "draft_probs"),
            in.draft_probs != nullptr, draft_ids, num_drafts, l.In(in.u_f64, rows * width, "u"),
            l.In(in.q, rows * vocab, "q"), l.In(in.bonus_q, rows * vocab, "bonus_q"), out, num_accepted, width, vocab);
        break;
      case SpecRandomInputs::Rule::kFlashinfer:
        RunArgmaxRows<SpecRandomFlashinferKernel>(
            l, rows, vocab, target, l.In(in.draft_probs, rows * width * vocab, "draft_probs"), draft_ids, num_drafts,
            l.In(in.u_f32, rows * (width + 1), "u"), out, num_accepted, width, vocab);
        break;
      case SpecRandomInputs::Rule::kTypicalAcceptance:
        l.template Run<SpecRandomTypicalKernel>(rows, target, draft_ids, num_drafts,
                                                l.In(in.bonus_q, rows * vocab, "bonus_q"), in.posterior_threshold,
                                                in.posterior_alpha, out, num_accepted, width, vocab);
        break;
    }
  }
};

// gpu/kernels/spec_verify_block.cuh: target [rows, width + 1, vocab] and draft [rows, width,
// vocab] probabilities, u f64 [rows, width], q and bonus_q [rows, vocab].
struct SpecVerifyBlockLaunch {
  const float* target_probs = nullptr;
  const float* draft_probs = nullptr;
  const std::int32_t* drafts = nullptr;
  const std::int64_t* counts = nullptr;
  const double* u = nullptr;
  const float* q = nullptr;
  const float* bonus_q = nullptr;
  SpecShape shape;
  std::int64_t* emitted = nullptr;
  std::int64_t* accepted = nullptr;
  template <class L>
  void Describe(L& l) const {
    const auto [rows, width, vocab] = shape;
    RunArgmaxRows<SpecVerifyBlockKernel>(
        l, rows, vocab, l.In(target_probs, rows * (width + 1) * vocab, "target_probs"),
        l.In(draft_probs, rows * width * vocab, "draft_probs"), l.In(drafts, rows * width, "draft_ids"),
        l.In(counts, rows, "counts"), l.In(u, rows * width, "u"), l.In(q, rows * vocab, "q"),
        l.In(bonus_q, rows * vocab, "bonus_q"), l.Out(emitted, rows * (width + 1), "emitted"),
        l.Out(accepted, rows, "num_accepted"), width, vocab);
  }
};

// gpu/kernels/spec_verify_sglang.cuh: probabilities [rows, width + 1, vocab] (softmax of each
// position), u f64 [rows, width], final_u [rows]; top_k and top_p [rows] may be null (absent).
struct SpecVerifySglangLaunch {
  const float* probs = nullptr;
  const std::int32_t* drafts = nullptr;
  const std::int64_t* counts = nullptr;
  const std::int32_t* top_k = nullptr;
  const float* top_p = nullptr;
  const double* u = nullptr;
  const float* final_u = nullptr;
  float threshold_single = 1.0f, threshold_acc = 1.0f;
  SpecShape shape;
  std::int64_t* emitted = nullptr;
  std::int64_t* accepted = nullptr;
  template <class L>
  void Describe(L& l) const {
    const auto [rows, width, vocab] = shape;
    RunArgmaxRows<SpecVerifySglangKernel>(
        l, rows, vocab, l.In(probs, rows * (width + 1) * vocab, "probs"),
        l.template Scratch<float>(rows * vocab, "renormed"), l.In(drafts, rows * width, "draft_ids"),
        l.In(counts, rows, "counts"), l.In(top_k, top_k ? rows : 0, "top_k"), top_k != nullptr,
        l.In(top_p, top_p ? rows : 0, "top_p"), top_p != nullptr, l.In(u, rows * width, "u"),
        l.In(final_u, rows, "final_u"), threshold_single, threshold_acc,
        l.Out(emitted, rows * (width + 1), "emitted"), l.Out(accepted, rows, "num_accepted"), width, vocab);
  }
};

// gpu/kernels/spec_step.cuh: the row kind's outcome and the stops; stop_ids [rows, n_stop],
// output_len and min_tokens [rows] may be null (absent).
struct SpecStepStopsLaunch {
  const std::uint8_t* is_greedy = nullptr;
  const std::int64_t* greedy_emitted = nullptr;
  const std::int64_t* greedy_accepted = nullptr;
  const std::int64_t* random_emitted = nullptr;
  const std::int64_t* random_accepted = nullptr;
  const std::int32_t* stop_ids = nullptr;
  std::int64_t n_stop = 0;
  const std::int32_t* output_len = nullptr;
  const std::int32_t* min_tokens = nullptr;
  SpecShape shape;
  std::int64_t* emitted = nullptr;
  std::int64_t* num_accepted = nullptr;
  std::int64_t* num_emitted = nullptr;
  std::uint8_t* finished = nullptr;
  template <class L>
  void Describe(L& l) const {
    const std::int64_t rows = shape.rows, width = shape.width;
    l.template Run<SpecStepStopsKernel>(
        BlocksFor<SpecStepStopsKernel>(rows), l.In(is_greedy, rows, "is_greedy"),
        l.In(greedy_emitted, rows * (width + 1), "greedy_emitted"), l.In(greedy_accepted, rows, "greedy_accepted"),
        l.In(random_emitted, rows * (width + 1), "random_emitted"), l.In(random_accepted, rows, "random_accepted"),
        l.In(stop_ids, rows * n_stop, "stop_ids"), n_stop, l.In(output_len, rows, "output_len"), output_len != nullptr,
        l.In(min_tokens, rows, "min_tokens"), min_tokens != nullptr, rows, width,
        l.Out(emitted, rows * (width + 1), "emitted"), l.Out(num_accepted, rows, "num_accepted"),
        l.Out(num_emitted, rows, "num_emitted"), l.Out(finished, rows, "finished"));
  }
};

// gpu/kernels/finish_rules.cuh: one row per request; eos_ids [rows, n_eos], stop_ids [rows, n_stop];
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

struct FinishRulesLaunch {
  FinishRulesInputs in;
  std::int64_t rows = 0;
  std::int32_t* finish_reason = nullptr;
  std::int64_t* stop_reason = nullptr;
  std::uint8_t* text_keep = nullptr;
  std::int32_t* next_banned = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<FinishRulesKernel>(
        BlocksFor<FinishRulesKernel>(rows), l.In(in.token, rows, "token"), l.In(in.output_len, rows, "output_len"),
        l.In(in.max_tokens, rows, "max_tokens"), l.In(in.min_tokens, rows, "min_tokens"),
        l.In(in.ignore_eos, rows, "ignore_eos"), l.In(in.keep_stop, rows, "keep_stop"), in.keep_stop != nullptr,
        l.In(in.eos_ids, rows * in.n_eos, "eos_ids"), in.n_eos, l.In(in.stop_ids, rows * in.n_stop, "stop_ids"),
        in.n_stop, rows, in.sglang, in.eos_stop_reason_none, l.Out(finish_reason, rows, "finish_reason"),
        l.Out(stop_reason, rows, "stop_reason"), l.Out(text_keep, rows, "text_keep"),
        l.Out(next_banned, rows * (in.n_eos + in.n_stop), "next_banned"));
  }
};

// gpu/kernels/tp_consensus.cuh: rank_ids [ranks, batch] (i32 widened); driver_rank: vllm (rank 0's id),
// else the minimum (sglang).
struct TpConsensusLaunch {
  const std::int64_t* rank_ids = nullptr;
  std::int64_t ranks = 0, batch = 0;
  bool driver_rank = false;
  std::int64_t* token = nullptr;
  std::uint8_t* unanimous = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<TpConsensusKernel>(BlocksFor<TpConsensusKernel>(batch), l.In(rank_ids, ranks * batch, "rank_ids"),
                                      ranks, batch, driver_rank, l.Out(token, batch, "token"),
                                      l.Out(unanimous, batch, "unanimous"));
  }
};

// gpu/kernels/noise.cuh: out [rows, n] = the noise stage's samples at seed[b], offset[b] + i.
struct NoiseLaunch {
  const std::int64_t* seed = nullptr;
  const std::int64_t* offset = nullptr;
  std::int64_t rows = 0, n = 0;
  rng::NoiseGenerator generator{};
  rng::NoiseLaw law{};
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<NoiseKernel>(rows * NoiseKernel::Chunks(n), l.In(seed, rows, "seed"), l.In(offset, rows, "offset"),
                                l.Out(out, rows * n, "noise"), n, generator, law);
  }
};

// The filters (gpu/kernels/top_k.cuh, gpu/kernels/top_p.cuh, gpu/kernels/min_p.cuh, gpu/kernels/sampling_filters.cuh): one
// parameter per row; sampling_filters' top_k, top_p and min_p may be null (absent).
struct TopKLaunch {
  const float* logits = nullptr;
  const std::int32_t* top_k = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  TopKRule rule{};
  float* out = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<TopKKernel>(rows, l.InAsOut(logits, rows * pitch, "logits"), l.Out(out, rows * vocab, "logits_out"),
                               l.In(top_k, rows, "top_k"), vocab, pitch, rule);
  }
};

struct TopPLaunch {
  const float* logits = nullptr;
  const float* top_p = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  TopPWalk rule{};
  float* out = nullptr;
  DegenerateRowRule degenerate{};
  template <class L>
  void Describe(L& l) const {
    l.template Run<TopPKernel>(rows, l.InAsOut(logits, rows * pitch, "logits"), l.Out(out, rows * vocab, "logits_out"),
                               l.In(top_p, rows, "top_p"), vocab, pitch, rule, degenerate);
  }
};

struct MinPLaunch {
  const float* logits = nullptr;
  const float* min_p = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  MinPRule rule{};
  float* out = nullptr;
  DegenerateRowRule degenerate{};
  template <class L>
  void Describe(L& l) const {
    l.template Run<MinPKernel>(rows, l.InAsOut(logits, rows * pitch, "logits"), l.Out(out, rows * vocab, "logits_out"),
                               l.In(min_p, rows, "min_p"), vocab, pitch, rule, degenerate);
  }
};

struct SamplingFiltersLaunch {
  const float* logits = nullptr;
  const std::int32_t* top_k = nullptr;
  const float* top_p = nullptr;
  const float* min_p = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  FilterRules rules{};
  float* out = nullptr;    // null: not written (nor copied back)
  float* probs = nullptr;  // null: not written (nor copied back)
  // The batch the slices are planned for (RowSliceBudget); 0: rows. The cost model counts the
  // first rows of a large batch as that batch would slice them (bench/device_sampling_bench.cu).
  std::int64_t plan_rows = 0;
  // With token: each row's multinomial_with_seed draw keyed by token id
  // (gpu/kernels/seeded_gumbel.cuh) over its filtered probabilities, [rows] i64 seed and
  // positions (in [0, 2^32), checked by the caller), done by the per-row kernel on its survivors
  // (bit-exact with SeededGumbelLaunch over probs; gpu/kernels/sampling_filters_on_survivors.cuh).
  const std::int64_t* seed = nullptr;
  const std::int64_t* positions = nullptr;
  std::int64_t* token = nullptr;

  // The slices the caller planned (> 0) when the arrays are on the device, where the host
  // cannot read top_k (gpu/runners/resident_sampling.h); 0: Slices() reads them.
  std::int64_t planned_slices = 0;

  std::int64_t SliceBudget() const { return RowSliceBudget(plan_rows > 0 ? plan_rows : rows, vocab); }

  // The slices of the first launch: the most any row takes (SamplingFiltersRowSlices); 1: one
  // block per row, no first or last launch. Reads the host top_k unless planned_slices is set.
  std::int64_t Slices() const {
    if (planned_slices > 0) return planned_slices;
    const std::int64_t budget = SliceBudget();
    std::int64_t slices = 1;
    for (std::int64_t r = 0; r < rows && budget > 1 && top_k != nullptr; ++r) {
      const std::int64_t n = SamplingFiltersRowSlices(budget, vocab, top_k[r], rules);
      slices = n > slices ? n : slices;
    }
    return slices;
  }

  // With slices (gpu/kernels/sampling_filters_slices.cuh): SamplingFiltersSlicesKernel over
  // rows x slices blocks, each row's last block running the per-row work
  // (gpu/block/last_block.cuh), then SamplingFiltersRowsKernel over rows x slices blocks when
  // out or probs is wanted. Without: SamplingFiltersKernel alone, one block per row. Rows that
  // do not take the survivor path write both rows whole, so a null out or probs becomes a
  // scratch row there (never touched on the survivor path).
  template <class L>
  void Describe(L& l) const {
    const std::int64_t budget = SliceBudget();
    const std::int64_t slices = Slices();
    const bool write_rows = out != nullptr || probs != nullptr;
    const auto logits_in = l.InAsOut(logits, rows * pitch, "logits");
    const auto out_rows = out != nullptr ? l.Out(out, rows * vocab, "logits_out")
                                         : l.template Scratch<float>(rows * vocab, "logits_out");
    const auto probs_rows =
        probs != nullptr ? l.Out(probs, rows * vocab, "probs") : l.template Scratch<float>(rows * vocab, "probs");
    const auto top_k_in = l.In(top_k, rows, "top_k");
    const auto partials = l.template Scratch<std::uint64_t>(slices > 1 ? rows * kRowSliceSlots : 0, "slices");
    const auto survivor_rows =
        l.template Scratch<std::uint64_t>(slices > 1 && write_rows ? rows * kSurvivorRowWords : 0, "survivor_rows");
    const auto order_keys = l.template Scratch<std::uint64_t>(rows * 2 * vocab, "order_keys");
    const auto top_p_in = l.In(top_p, rows, "top_p");
    const auto min_p_in = l.In(min_p, rows, "min_p");
    const auto seed_in = l.In(seed, rows, "seed");
    const auto positions_in = l.In(positions, rows, "positions");
    const auto token_out = l.Out(token, rows, "token");
    if (slices > 1) {
      l.template Run<SamplingFiltersSlicesKernel>(rows * slices, logits_in, out_rows, probs_rows, order_keys, top_k_in,
                                                  top_k != nullptr, top_p_in, top_p != nullptr, min_p_in,
                                                  min_p != nullptr, vocab, pitch, rules, partials, survivor_rows,
                                                  l.Tickets(rows, "tickets"), budget, slices, write_rows, seed_in,
                                                  positions_in, token_out, token != nullptr);
    } else {
      l.template Run<SamplingFiltersKernel>(rows, logits_in, out_rows, probs_rows, order_keys, top_k_in,
                                            top_k != nullptr, top_p_in, top_p != nullptr, min_p_in, min_p != nullptr,
                                            vocab, pitch, rules, partials, survivor_rows, std::int64_t{1}, write_rows,
                                            seed_in, positions_in, token_out, token != nullptr);
    }
    if (slices > 1 && write_rows) {
      l.template Run<SamplingFiltersRowsKernel>(rows * slices, logits_in, out_rows, probs_rows, survivor_rows,
                                                top_k_in, top_k != nullptr, vocab, pitch, budget, slices, rules);
    }
  }
};

// gpu/kernels/ascend_top_k_top_p_sample_v2.cuh: min_p and q may be null; the outputs the rule does not
// ask for are null.
struct AscendTopKTopPSampleV2Launch {
  const float* logits = nullptr;
  const std::int32_t* top_k = nullptr;
  const float* top_p = nullptr;
  const float* min_p = nullptr;
  const float* q = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  AscendSampleRule rule{};
  std::int64_t* select_idx = nullptr;
  float* top_kp_select = nullptr;
  float* sort_masked = nullptr;
  std::int64_t* idx = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<AscendTopKTopPSampleV2Kernel>(
        rows, l.InAsOut(logits, rows * pitch, "logits"), l.template Scratch<float>(rows * vocab, "work"),
        l.InAsOut(q, rows * vocab, "q"), q != nullptr, l.In(top_k, rows, "top_k"), l.In(top_p, rows, "top_p"),
        l.In(min_p, rows, "min_p"), min_p != nullptr, l.Out(select_idx, rows, "logits_select_idx"),
        l.Out(top_kp_select, rows * vocab, "logits_top_kp_select"),
        l.Out(sort_masked, rows * vocab, "logits_sort_masked"), l.Out(idx, rows * vocab, "logits_idx"), vocab, pitch,
        rule);
  }
};

// gpu/kernels/logprobs.cuh: per-row divisor, divide, filter, top_k, top_p, min_p, token (every row
// given); token_ids [rows, width] (width 0: none); outputs top_ids, top_values and top_ranks [rows, n].
struct LogprobsLaunch {
  const float* src = nullptr;
  const float* divisor = nullptr;
  const std::uint8_t* divide = nullptr;
  const std::uint8_t* filter = nullptr;
  const std::int32_t* top_k = nullptr;
  const float* top_p = nullptr;
  const float* min_p = nullptr;
  const std::int64_t* token = nullptr;
  const std::int32_t* token_ids = nullptr;
  std::int64_t width = 0, rows = 0, vocab = 0, pitch = 0, n = 0;
  LogprobsRule rule{};
  std::int64_t* top_ids = nullptr;
  float* top_values = nullptr;
  std::int64_t* top_ranks = nullptr;
  float* token_logprob = nullptr;
  std::int64_t* token_rank = nullptr;
  float* ids_values = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<LogprobsKernel>(rows, l.InAsOut(src, rows * pitch, "logits"),
                                   l.template Scratch<float>(rows * vocab, "work"), l.In(divisor, rows, "divisor"),
                                   l.In(divide, rows, "divide"), l.In(filter, rows, "filter"),
                                   l.In(top_k, rows, "top_k"), l.In(top_p, rows, "top_p"), l.In(min_p, rows, "min_p"),
                                   l.In(token, rows, "token"), l.In(token_ids, rows * width, "token_ids"), width,
                                   l.Out(top_ids, rows * n, "top_ids"), l.Out(top_values, rows * n, "top_values"),
                                   l.Out(top_ranks, rows * n, "top_ranks"), l.Out(token_logprob, rows, "token_logprob"), l.Out(token_rank, rows, "token_rank"),
                                   l.Out(ids_values, rows * width, "token_ids_logprobs"), n, vocab, pitch, rule);
  }
};

// gpu/kernels/sglang_rank_draw.cuh: SGLang's sorted-path draw; full, scaled and masked are [rows,
// pitch], draw (0: skip the row), seed and positions [rows]; token kNoIndex when a row has
// nothing to draw.
struct SglangRankDrawLaunch {
  const float* full = nullptr;
  const float* scaled = nullptr;
  const float* masked = nullptr;
  const std::uint8_t* draw = nullptr;
  const std::int64_t* seed = nullptr;
  const std::int64_t* positions = nullptr;
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    RunArgmaxRows<SglangRankDrawKernel>(
        l, rows, vocab, l.In(full, rows * pitch, "full_probs"), l.In(scaled, rows * pitch, "scaled_logits"),
        l.In(masked, rows * pitch, "filtered_logits"), l.In(draw, rows, "draw"), l.In(seed, rows, "seed"),
        l.In(positions, rows, "positions"), l.Out(token, rows, "token"), vocab, pitch);
  }
};

// gpu/kernels/pipeline_select.cuh: token = is_pinned ? pinned : drawn, per row (drawn may be null when
// every row is pinned).
struct PipelineSelectLaunch {
  const std::uint8_t* is_pinned = nullptr;
  const std::int64_t* pinned = nullptr;
  const std::int64_t* drawn = nullptr;
  std::int64_t rows = 0;
  std::int64_t* token = nullptr;
  template <class L>
  void Describe(L& l) const {
    l.template Run<PipelineSelectKernel>(BlocksFor<PipelineSelectKernel>(rows), l.In(is_pinned, rows, "is_pinned"),
                                         l.In(pinned, rows, "pinned_token"), l.In(drawn, rows, "drawn_token"),
                                         l.Out(token, rows, "token"), rows);
  }
};

// Every launch a runner accepts: a new kernel's description is added here once.
using KernelLaunch =
    std::variant<GreedyLaunch, SoftmaxLaunch, TemperatureLaunch, NanHandlingLaunch, TokenBitmaskLaunch, LogitBiasLaunch,
                 AllowedTokenIdsLaunch, MinNewTokensLaunch, BadWordsLaunch, PenaltiesLaunch, GumbelMaxLaunch,
                 ExponentialRaceLaunch, InverseCdfLaunch, QSampleLaunch, SeededGumbelLaunch, SpecGreedyLaunch,
                 SpecRandomLaunch, FlashinferSamplingFromProbsLaunch, SpecStepStopsLaunch, SpecVerifyBlockLaunch,
                 SpecVerifySglangLaunch, FinishRulesLaunch, TpConsensusLaunch, NoiseLaunch, TopKLaunch, TopPLaunch,
                 MinPLaunch, SamplingFiltersLaunch, AscendTopKTopPSampleV2Launch, LogprobsLaunch, SglangRankDrawLaunch,
                 PipelineSelectLaunch>;

}  // namespace sampcheck::gpu
