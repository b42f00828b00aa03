// SPDX-License-Identifier: Apache-2.0
// Golden case family for finish_rules (docs/spec/finish_rules.md): random requests, and
// hand-picked rows where vLLM and SGLang disagree.
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

Tensor Bools(const std::vector<std::uint8_t>& v) {
  Tensor t(DType::kBool, {static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<std::uint8_t>().begin());
  return t;
}

}  // namespace

void AddFinishRulesCases(CaseList& list) {
  // Random requests over a vocabulary of 8 (so tokens often hit the eos and stop ids): lengths
  // around min and max tokens, ignore_eos and keep_stop on a quarter of the rows each.
  {
    constexpr std::int64_t kRows = 64, kVocab = 8;
    auto rng = list.Rng("finish_rules", "random_v8");
    std::vector<std::int64_t> token;
    std::vector<std::int32_t> len, max, min;
    std::vector<std::uint8_t> ignore, keep;
    for (std::int64_t b = 0; b < kRows; ++b) {
      token.push_back(static_cast<std::int64_t>(rng.Below(kVocab)));
      max.push_back(static_cast<std::int32_t>(1 + rng.Below(6)));
      min.push_back(static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(max.back()) + 1)));
      len.push_back(static_cast<std::int32_t>(1 + rng.Below(7)));
      ignore.push_back(rng.Below(4) == 0 ? 1 : 0);
      keep.push_back(rng.Below(4) == 0 ? 1 : 0);
    }
    std::vector<std::int64_t> eos_len(kRows), stop_len(kRows);
    for (auto& n : eos_len) n = static_cast<std::int64_t>(rng.Below(3));
    for (auto& n : stop_len) n = static_cast<std::int64_t>(rng.Below(4));
    list.Add("finish_rules", "random_v8",
             {{"token", I64({kRows}, token)},
              {"output_len", I32({kRows}, len)},
              {"max_tokens", I32({kRows}, max)},
              {"min_tokens", I32({kRows}, min)},
              {"ignore_eos", Bools(ignore)},
              {"keep_stop", Bools(keep)},
              {"eos_ids", RandomIds(rng, kRows, 2, kVocab, eos_len)},
              {"stop_ids", RandomIds(rng, kRows, 3, kVocab, stop_len)}});
  }
  // Edges, one row each; eos_ids {2, 5} (primary 2, generation-config extra 5), stop_ids {0, 7}
  // unless said otherwise:
  //  0 primary EOS at the max_tokens-th token      stop everywhere (vllm reason -1, others 2)
  //  1 stop id 7 while output_len < min_tokens      vllm running, sglang stop; vllm bans
  //                                                 {0, 2, 5, 7}, sglang {0, 2, 7} (not extra 5)
  //  2 stop id 7 with ignore_eos                    vllm stop, sglang running
  //  3 primary EOS with ignore_eos, below min       running everywhere; EOS 2 still banned
  //  4 extra model EOS 5, not in the stop list      stop everywhere, reason 5
  //  5 stop id 0 (Python-falsy)                     sglang keeps its text, vllm trims it
  //  6 stop id 7 with keep_stop                     text kept everywhere
  //  7 ordinary token 3 below max                   running
  //  8 output_len == min_tokens, stop id 7          vllm stop (the gate is <), next_banned empty
  //  9 ordinary token at max_tokens                 length everywhere
  // 10 no eos ids at all (row padded), token 2      running (2 is no EOS here)
  list.Add("finish_rules", "edges",
           {{"token", I64({11}, {2, 7, 7, 2, 5, 0, 7, 3, 7, 3, 2})},
            {"output_len", I32({11}, {4, 1, 3, 1, 2, 2, 2, 2, 3, 5, 2})},
            {"max_tokens", I32({11}, {4, 8, 8, 8, 8, 8, 8, 8, 8, 5, 8})},
            {"min_tokens", I32({11}, {0, 3, 0, 2, 0, 0, 0, 0, 3, 0, 0})},
            {"ignore_eos", Bools({0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0})},
            {"keep_stop", Bools({0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})},
            {"eos_ids", I32({11, 2}, {2, 5, 2, 5, 2, 5, 2, 5, 2, 5, 2, 5, 2, 5, 2, 5, 2, 5, 2, 5, -1, -1})},
            {"stop_ids", I32({11, 2}, {0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeFinishRulesInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t vocab) {
  // No logits: the vocabulary only bounds the ids.
  const auto v = static_cast<std::int32_t>(vocab);
  Tensor no(DType::kBool, {1});
  return {{"token", I64({1}, {vocab - 1})}, {"output_len", I32({1}, {1})}, {"max_tokens", I32({1}, {16})},
          {"min_tokens", I32({1}, {2})}, {"ignore_eos", no}, {"eos_ids", I32({1, 2}, {v - 1, v - 2})},
          {"stop_ids", I32({1, 1}, {0})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(FinishRules, {.stages = {"finish_rules"}, .add = AddFinishRulesCases, .large_inputs = LargeFinishRulesInputs});

}  // namespace sampcheck::golden
