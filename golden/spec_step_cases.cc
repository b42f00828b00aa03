// SPDX-License-Identifier: Apache-2.0
// Golden case family for spec_step (docs/spec/spec_step.md): the whole speculative step from
// logits. Edge rows (greedy stop inside the accepted drafts, min_tokens turning a stop draft
// into a rejection, zero drafts, padded drafts), a case where filtering the draft rows decides
// the acceptance, n-gram drafts, and random rows (V = 8 and 100) with mixed greedy and random
// requests, filters, stop ids and min_tokens; every case under both verification profiles
// (canonical token-wise, block_verification) unless it needs one; degenerate target and draft
// rows (NaN, +inf, no finite logit) among healthy ones.
#include <limits>
#include <string>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {
namespace {

Tensor Rank3(std::int64_t rows, std::int64_t positions, std::int64_t vocab, SplitMix64& rng) {
  Tensor t(DType::kF32, {rows, positions, vocab});
  // Logits k / 4 for k in [-12, 12]: ties are common and exact.
  for (float& v : t.data<float>()) v = static_cast<float>(static_cast<std::int64_t>(rng.Below(25)) - 12) / 4.0f;
  return t;
}

// Adds the noise every random row reads: u [B, K], q and bonus_q [B, V].
void AddNoise(TensorMap& in, SplitMix64& rng, std::int64_t rows, std::int64_t k, std::int64_t vocab) {
  in.emplace("u", Uniforms64(rng, rows, k));
  in.emplace("q", ExpNoise(rng, rows, vocab));
  in.emplace("bonus_q", ExpNoise(rng, rows, vocab));
}

// Token-wise and block profiles read u, q and bonus_q; sglang reads u and final_u instead
// (its own copy of every family, with final_u from a stream of its own so the other
// profiles' bytes do not move).
void AddEveryProfile(CaseList& list, const std::string& name, TensorMap in, std::vector<Profile> profiles,
                     nlohmann::json params = nlohmann::json::object()) {
  const std::int64_t rows = in.at("draft_ids").dim(0);
  TensorMap sglang = in;
  list.Add("spec_step", name, std::move(in), params, std::move(profiles));
  auto rng = list.Rng("spec_step", name + "/sglang");
  Tensor final_u(DType::kF32, {rows});
  for (float& v : final_u.data<float>()) v = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;  // [0, 1)
  sglang.erase("q");
  sglang.erase("bonus_q");
  sglang.emplace("final_u", std::move(final_u));
  list.Add("spec_step", name, std::move(sglang), std::move(params), {Profile::kSglang});
}

const std::vector<Profile> kTokenWise = {Profile::kCanonical, Profile::kBlockVerification, Profile::kVllm};

// Target [B, K + 1, V] and draft [B, K, V] logits, all 0, for the degenerate cases to write
// single entries into.
struct PositionRows {
  PositionRows(std::int64_t rows, std::int64_t k, std::int64_t vocab)
      : k_(k), vocab_(vocab), target(static_cast<std::size_t>(rows * (k + 1) * vocab), 0.0f),
        draft(static_cast<std::size_t>(rows * k * vocab), 0.0f) {}
  void Target(std::int64_t b, std::int64_t i, std::int64_t j, float v) {
    target[static_cast<std::size_t>((b * (k_ + 1) + i) * vocab_ + j)] = v;
  }
  void Draft(std::int64_t b, std::int64_t i, std::int64_t j, float v) {
    draft[static_cast<std::size_t>((b * k_ + i) * vocab_ + j)] = v;
  }
  void FillTarget(std::int64_t b, std::int64_t i, float v) {
    for (std::int64_t j = 0; j < vocab_; ++j) Target(b, i, j, v);
  }
  void FillDraft(std::int64_t b, std::int64_t i, float v) {
    for (std::int64_t j = 0; j < vocab_; ++j) Draft(b, i, j, v);
  }
  std::int64_t k_, vocab_;
  std::vector<float> target, draft;
};

void AddSpecStepCases(CaseList& list) {
  const std::string stage = "spec_step";
  {
    // V = 6, K = 2. Rows 0-2 greedy (temperature 0): row 0 drafts {1, 2} match the argmaxes
    // {1, 2, 3}; stop id 2 ends the row after it: emitted {1, 2}, finished. Row 1 the same
    // with min_tokens 3: position 1 (output_len 0 + 1 < 3) masks token 2, the argmax becomes
    // 4 and draft 2 is rejected: emitted {1, 4}. Row 2 zero drafts: the bonus argmax 0. Row 3
    // random (temperature 1) with padded drafts {0, -1}, stop id 5 and min_tokens 0.
    auto rng = list.Rng(stage, "edges");
    const std::vector<float> pos0 = {0, 3, 1, 0, 0, 0}, pos1 = {0, 1, 3, 0, 2, 0}, pos2 = {1, 0, 0, 3, 0, 0};
    std::vector<float> target;
    for (int r = 0; r < 4; ++r) {
      for (const auto* row : {&pos0, &pos1, &pos2}) {
        if (r == 2 && row == &pos0) {
          target.insert(target.end(), {2, 0, 0, 0, 0, 1});
          continue;
        }
        target.insert(target.end(), row->begin(), row->end());
      }
    }
    Tensor draft(DType::kF32, {4, 2, 6});
    for (float& v : draft.data<float>()) v = static_cast<float>(rng.Below(5)) / 2.0f;
    TensorMap in;
    in.emplace("draft_ids", I32({4, 2}, {1, 2, 1, 2, -1, -1, 0, -1}));
    in.emplace("target_logits", Tensor::FromValues(DType::kF32, {4, 3, 6}, target));
    in.emplace("draft_logits", draft);
    in.emplace("temperature", F32({4}, {0.0f, 0.0f, 0.0f, 1.0f}));
    in.emplace("stop_ids", I32({4, 1}, {2, 2, 2, 5}));
    in.emplace("min_tokens", I32({4}, {0, 3, 0, 0}));
    in.emplace("output_len", I32({4}, {0, 0, 7, 0}));
    AddNoise(in, rng, 4, 2, 6);
    AddEveryProfile(list, "edges", std::move(in), kTokenWise);
  }
  {
    // Filtering decides the acceptance (the verifier must see filtered draft probabilities):
    // V = 4, one draft x = 0, top_p 0.55. Draft probs ~{0.4, 0.3, 0.2, 0.1}: top-p keeps {0, 1},
    // dp = 0.4 / 0.7 = 0.571 (unfiltered 0.4); target ~{0.3, 0.3, 0.2, 0.2} keeps {0, 1}:
    // tp = 0.5. tp / dp = 0.875 (unfiltered 1.25): u = 0.9 and 0.95 reject, 0.5 accepts.
    auto rng = list.Rng(stage, "filtered_draft");
    // ln 0.4, ln 0.3, ln 0.2, ln 0.1 as literals (no libm: the bytes must not depend on the machine).
    const float l4 = -0.916290731874155f, l3 = -1.203972804325936f, l2 = -1.6094379124341003f, l1 = -2.302585092994046f;
    std::vector<float> target, draft;
    for (int r = 0; r < 3; ++r) {
      target.insert(target.end(), {l3, l3, l2, l2, l3, l3, l2, l2});
      draft.insert(draft.end(), {l4, l3, l2, l1});
    }
    TensorMap in;
    in.emplace("draft_ids", I32({3, 1}, {0, 0, 0}));
    in.emplace("target_logits", Tensor::FromValues(DType::kF32, {3, 2, 4}, target));
    in.emplace("draft_logits", Tensor::FromValues(DType::kF32, {3, 1, 4}, draft));
    in.emplace("temperature", F32({3}, {1.0f, 1.0f, 1.0f}));
    in.emplace("top_p", F32({3}, {0.55f, 0.55f, 0.55f}));
    in.emplace("u", Tensor::FromValues<double>(DType::kF64, {3, 1}, {0.9, 0.95, 0.5}));
    in.emplace("q", ExpNoise(rng, 3, 4));
    in.emplace("bonus_q", ExpNoise(rng, 3, 4));
    // vLLM's drafts are one-hot by default (draft_sample_method "greedy"); its probabilistic
    // drafts read the draft rows unfiltered (docs/spec/spec_step.md, profile vllm).
    list.Add(stage, "filtered_draft_probabilistic", in, {{"draft_sample_method", "probabilistic"}}, {Profile::kVllm});
    AddEveryProfile(list, "filtered_draft", std::move(in), kTokenWise);
  }
  {
    // vLLM's bonus token under min_tokens (docs/spec/spec_step.md, profile vllm): the ordinary
    // sampler's mask tests the length before the step. Draft {1}, target rows {0, 5, 0, 0} /
    // {0, 0, 0, 9}, stop id 3, min_tokens 1, output_len 0. Row 0 greedy: vllm {1, 0}, the others
    // {1, 3} and finished. Row 1 the same at temperature 1 (noise from the stream); row 2 with
    // output_len 1: no mask anywhere.
    auto rng = list.Rng(stage, "bonus_min_tokens");
    std::vector<float> target;
    for (int r = 0; r < 3; ++r) target.insert(target.end(), {0, 5, 0, 0, 0, 0, 0, 9});
    Tensor draft(DType::kF32, {3, 1, 4});
    for (float& v : draft.data<float>()) v = static_cast<float>(rng.Below(5)) / 2.0f;
    TensorMap in;
    in.emplace("draft_ids", I32({3, 1}, {1, 1, 1}));
    in.emplace("target_logits", Tensor::FromValues(DType::kF32, {3, 2, 4}, target));
    in.emplace("draft_logits", draft);
    in.emplace("temperature", F32({3}, {0.0f, 1.0f, 0.0f}));
    in.emplace("stop_ids", I32({3, 1}, {3, 3, 3}));
    in.emplace("min_tokens", I32({3}, {1, 1, 1}));
    in.emplace("output_len", I32({3}, {0, 0, 1}));
    AddNoise(in, rng, 3, 1, 4);
    AddEveryProfile(list, "bonus_min_tokens", std::move(in), kTokenWise);
  }
  {
    // n-gram drafts (no draft_logits): canonical and vllm (block verification needs draft rows).
    auto rng = list.Rng(stage, "ngram");
    TensorMap in;
    in.emplace("draft_ids", I32({3, 3}, {1, 2, 3, 0, -1, -1, 7, 7, 7}));
    in.emplace("target_logits", Rank3(3, 4, 8, rng));
    in.emplace("temperature", F32({3}, {0.8f, 1.0f, 0.0f}));
    in.emplace("top_k", I32({3}, {4, 0, 0}));
    AddNoise(in, rng, 3, 3, 8);
    AddEveryProfile(list, "ngram", std::move(in), {Profile::kCanonical, Profile::kVllm});
  }
  {
    // Degenerate rows among healthy ones (docs/spec/spec_step.md "Degenerate rows"), V = 33,
    // K = 2, f32. D(c): logits 0 with 40 at column c (probability 1 - 32 e^-40, 1 in f32 after
    // the softmax; the draft rows equal the target rows, so tp / dp = 1). Temperature 1 unless
    // said. Tokens by profile, canonical (c) / block (b) / vllm one-hot drafts (v) / vllm
    // probabilistic (vp) / sglang (s):
    //  0 healthy: x {1, 2}, D(1), D(2), D(10), u {0.3, 0.6}: {1, 2, 10} everywhere.
    //  1 position 0 D(1) with a NaN at 5, x {1, 2}, u {0.5, 0.5}: c, b point mass 5: draft 1
    //    rejected, residual 5 -> {5}; v NaN row: rejected, the draft's own lane (+0) is the
    //    only score not NaN -> {1}; vp residual max(NaN - d, 0) = +0 -> {0}; s rejected, no
    //    positive entry -> V - 1 = {32}.
    //  2 top_k 3, position 1 D(2) with +inf at 7, x {1, 2}, u {0.1, 0.5}: c, b {1, 7} (block:
    //    h_1 = 1, h_2 = 0); v {1, 2}; vp {1, 0}; s (the renorm zeroes the NaN row) {1, 32}.
    //  3 position 2 (the bonus) all -inf, x {1, 2}, u {0.2, 0.2}: c, b, v, vp {1, 2, 0}; s {1, 2, 32}.
    //  4 greedy, position 0 D(1) with a NaN at 9, x {9, 3}: the argmax's first NaN accepts 9,
    //    then 2 -> {9, 2} everywhere.
    //  5 position 0 all -inf but the stop id 4, masked by min_tokens 1 (output_len 0), one
    //    draft x {4}, u {0.5}: c, b point mass 0 -> {0}; v the draft's lane -> {4} (not a
    //    finishing stop: 0 < min_tokens); vp {0}; s {32}.
    //  6 position 0 all NaN, x {1, 2}, u {0, 0.5}: c point mass 0, tp = 0 meets u = 0 (`>=`):
    //    accepted, {1, 2, 10}; b tau 1 (u_0 = 0 <= h_1 = 0), all-zero residual -> {1, 0}; v
    //    NaN / 1 >= 0 is false: {1}; vp {0}; s coin 0 <= NaN is false: {32}. A NaN read as 0
    //    accepts here (0 >= 0, 0 <= 0).
    //  7 zero drafts, temperature 0.5, position 0 holds 3e38 at 6: x / t overflows to +inf: c, b
    //    {6}; v, vp {0}; s {32}.
    //  8 healthy greedy: x {3, 0}, D(3), D(4), D(5) -> {3, 4}.
    auto rng = list.Rng(stage, "degenerate_rows_v33");
    constexpr std::int64_t kRows = 9, kK = 2, kV = 33;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    PositionRows rows(kRows, kK, kV);
    std::vector<float>&target = rows.target, &draft = rows.draft;
    auto t = [&](std::int64_t b, std::int64_t i, std::int64_t j, float v) { rows.Target(b, i, j, v); };
    auto d = [&](std::int64_t b, std::int64_t i, std::int64_t j, float v) { rows.Draft(b, i, j, v); };
    auto fill = [&](std::int64_t b, std::int64_t i, float v) { rows.FillTarget(b, i, v); };
    for (std::int64_t b : {0, 1, 2, 3, 6}) {
      t(b, 0, 1, 40), t(b, 1, 2, 40), t(b, 2, 10, 40), d(b, 0, 1, 40), d(b, 1, 2, 40);
    }
    t(1, 0, 5, nan);
    t(2, 1, 7, inf);
    fill(3, 2, -inf);
    t(4, 0, 1, 40), t(4, 0, 9, nan), t(4, 1, 2, 40), t(4, 2, 10, 40);
    fill(5, 0, -inf), t(5, 0, 4, 0), t(5, 1, 10, 40), d(5, 0, 4, 40);
    fill(6, 0, nan);
    t(7, 0, 6, 3e38f);
    t(8, 0, 3, 40), t(8, 1, 4, 40), t(8, 2, 5, 40);
    TensorMap in;
    in.emplace("draft_ids", I32({kRows, kK}, {1, 2, 1, 2, 1, 2, 1, 2, 9, 3, 4, -1, 1, 2, -1, -1, 3, 0}));
    in.emplace("target_logits", Tensor::FromValues(DType::kF32, {kRows, kK + 1, kV}, target));
    in.emplace("draft_logits", Tensor::FromValues(DType::kF32, {kRows, kK, kV}, draft));
    in.emplace("temperature", F32({kRows}, {1, 1, 1, 1, 0, 1, 1, 0.5f, 0}));
    in.emplace("top_k", I32({kRows}, {0, 0, 3, 0, 0, 0, 0, 0, 0}));
    in.emplace("stop_ids", I32({kRows, 1}, {-1, -1, -1, -1, -1, 4, -1, -1, -1}));
    in.emplace("min_tokens", I32({kRows}, {0, 0, 0, 0, 0, 1, 0, 0, 0}));
    in.emplace("u", Tensor::FromValues<double>(DType::kF64, {kRows, kK},
                                               {0.3, 0.6, 0.5, 0.5, 0.1, 0.5, 0.2, 0.2, 0.5, 0.5, 0.5, 0.5, 0.0, 0.5,
                                                0.5, 0.5, 0.5, 0.5}));
    in.emplace("q", ExpNoise(rng, kRows, kV));
    in.emplace("bonus_q", ExpNoise(rng, kRows, kV));
    list.Add(stage, "degenerate_rows_v33_probabilistic", in, {{"draft_sample_method", "probabilistic"}},
             {Profile::kVllm});
    AddEveryProfile(list, "degenerate_rows_v33", std::move(in), kTokenWise);
  }
  {
    // Degenerate DRAFT rows among healthy ones (docs/spec/spec_step.md "Degenerate rows", the
    // draft row of the table), V = 33, K = 2, f32, every target row healthy. D(c) as above; the
    // draft rows are D(c) with the named entries replaced; temperature 1 unless said. e = f32
    // e^-40, a target's probability off its column. The profiles that read draft rows:
    // canonical (c): a draft row's point mass at its t* (first NaN, else first +inf, else 0),
    // then spec_random's vllm rule; block verification (b): Algorithm 2 on the same rows
    // (d(x) = 0 gives P = 1 when t(x) > 0); vllm probabilistic (vp): the unfiltered draft
    // softmax, NaN everywhere, so dp is NaN (rejected) and every max(t - NaN, 0) is +0
    // (recovered 0). vllm's one-hot drafts and sglang never read the draft rows.
    //  0 healthy: x {1, 2}, targets D(1), D(2), D(10), drafts D(1), D(2), u {0.3, 0.6}: {1, 2, 10}
    //    everywhere.
    //  1 draft 0 D(1) with a NaN at 5, x {1, 2}, u {0.5, 0.5}: c t* = 5, dp(1) = 0: rejected,
    //    the residual's mass is column 1 -> {1}; b P_1 = 1 (d(1) = 0, t(1) = 1), h_1 = 1 (t_1 =
    //    d_1), h_2 = P_2 = 1 -> {1, 2, 10}; vp {0}.
    //  2 draft 0 D(1) with NaNs at 5 and 9, x {5, 2}, target 0 D(5), u {0.5, 0.5}: c t* = 5 (the
    //    first NaN), tp / dp = 1 accepts -> {5, 2, 10}; b the same; vp {0}.
    //  3 draft 1 D(2) with +inf at 7, x {1, 2}, u {0.3, 0.5}: c draft 1 accepted, then t* = 7,
    //    dp(2) = 0: rejected, recovered 2 -> {1, 2}; b P_2 = 1 (d(2) = 0), h_1 = N_1 / N_1 = 1 ->
    //    {1, 2, 10}; vp {1, 0}.
    //  4 draft 0 all -inf, x {0, 2}, target 0 D(0), u {0.5, 0.5}: c t* = 0, tp / dp = 1 accepts
    //    -> {0, 2, 10}; b the same; vp (the softmax of a row of -inf is NaN) {0}.
    //  5 temperature 0.5, draft 0 holds 3e38 at 6 (x / t overflows to +inf), x {6, 2}, target 0
    //    D(6), u {0.5, 0.5}: c, b t* = 6 accepted -> {6, 2, 10}; vp {0}.
    //  6 draft 0 D(1) with +inf at 3, x {3, 2}, target 0 D(1), u {0.5, 0.5}: c dp(3) = 1, tp(3) =
    //    e: rejected, recovered 1 -> {1}; b P_1 = e, N_1 = 0 (every e t_1(j) < d_1(j)): h_1 = 0,
    //    h_2 = P_2 = e: tau 0, recovered 1 -> {1}; vp {0}. Read as healthy (the +inf dropped),
    //    dp(3) = e would accept: {3, 2, 10}.
    //  7 greedy, both draft rows all NaN, targets D(3), D(4), D(5), x {3, 0}: a greedy row reads
    //    no draft row -> {3, 4} everywhere.
    //  8 draft 1 all NaN, x {1, 0}, u {0.3, 0}: c draft 1 accepted, then t* = 0, dp(0) = 1, tp(0)
    //    = e >= 0 accepts -> {1, 0, 10}; b P_1 = 1, h_1 = N_1 / N_1 = 1, h_2 = P_2 = e >= u_1 = 0
    //    -> {1, 0, 10}; vp {1, 0} (dp NaN is rejected even at u = 0).
    auto rng = list.Rng(stage, "degenerate_drafts_v33");
    constexpr std::int64_t kRows = 9, kK = 2, kV = 33;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    PositionRows g(kRows, kK, kV);
    for (std::int64_t b = 0; b < kRows; ++b) {
      if (b == 7) continue;
      g.Target(b, 0, 1, 40), g.Target(b, 1, 2, 40), g.Target(b, 2, 10, 40);
      g.Draft(b, 0, 1, 40), g.Draft(b, 1, 2, 40);
    }
    g.Draft(1, 0, 5, nan);
    g.Target(2, 0, 1, 0), g.Target(2, 0, 5, 40), g.Draft(2, 0, 5, nan), g.Draft(2, 0, 9, nan);
    g.Draft(3, 1, 7, inf);
    g.Target(4, 0, 1, 0), g.Target(4, 0, 0, 40), g.FillDraft(4, 0, -inf);
    g.Target(5, 0, 1, 0), g.Target(5, 0, 6, 40), g.Draft(5, 0, 6, 3e38f);
    g.Draft(6, 0, 3, inf);
    g.Target(7, 0, 3, 40), g.Target(7, 1, 4, 40), g.Target(7, 2, 5, 40);
    g.FillDraft(7, 0, nan), g.FillDraft(7, 1, nan);
    g.FillDraft(8, 1, nan);
    TensorMap in;
    in.emplace("draft_ids", I32({kRows, kK}, {1, 2, 1, 2, 5, 2, 1, 2, 0, 2, 6, 2, 3, 2, 3, 0, 1, 0}));
    in.emplace("target_logits", Tensor::FromValues(DType::kF32, {kRows, kK + 1, kV}, g.target));
    in.emplace("draft_logits", Tensor::FromValues(DType::kF32, {kRows, kK, kV}, g.draft));
    in.emplace("temperature", F32({kRows}, {1, 1, 1, 1, 1, 0.5f, 1, 0, 1}));
    in.emplace("u", Tensor::FromValues<double>(DType::kF64, {kRows, kK},
                                               {0.3, 0.6, 0.5, 0.5, 0.5, 0.5, 0.3, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
                                                0.5, 0.5, 0.3, 0.0}));
    in.emplace("q", ExpNoise(rng, kRows, kV));
    in.emplace("bonus_q", ExpNoise(rng, kRows, kV));
    list.Add(stage, "degenerate_drafts_v33_probabilistic", in, {{"draft_sample_method", "probabilistic"}},
             {Profile::kVllm});
    list.Add(stage, "degenerate_drafts_v33", std::move(in), nlohmann::json::object(),
             {Profile::kCanonical, Profile::kBlockVerification});
  }
  for (std::int64_t vocab : {8, 100}) {
    // 6 rows, K = 3: row 0 greedy, row 1 zero drafts, row 2 one draft (padded), rows 3-5 three
    // drafts; filters, stop ids {3, 5} and min_tokens 2 at output_len 0 on rows 4-5.
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng(stage, name);
    const std::int64_t rows = 6, k = 3;
    std::vector<std::int32_t> ids;
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t n = b == 1 ? 0 : b == 2 ? 1 : 3;
      for (std::int64_t i = 0; i < k; ++i)
        ids.push_back(i < n ? static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab))) : -1);
    }
    TensorMap in;
    in.emplace("draft_ids", I32({rows, k}, ids));
    in.emplace("target_logits", Rank3(rows, k + 1, vocab, rng));
    in.emplace("draft_logits", Rank3(rows, k, vocab, rng));
    in.emplace("temperature", F32({rows}, {0.0f, 0.7f, 1.0f, 1.0f, 1.3f, 0.9f}));
    in.emplace("top_k", I32({rows}, {0, 0, 5, 0, 0, 3}));
    in.emplace("top_p", F32({rows}, {1.0f, 0.9f, 1.0f, 0.8f, 1.0f, 1.0f}));
    in.emplace("min_p", F32({rows}, {0.0f, 0.0f, 0.0f, 0.0f, 0.05f, 0.0f}));
    in.emplace("stop_ids", I32({rows, 2}, {3, 5, 3, 5, 3, 5, 3, 5, 3, 5, 3, 5}));
    in.emplace("min_tokens", I32({rows}, {0, 0, 0, 0, 2, 2}));
    AddNoise(in, rng, rows, k, vocab);
    if (vocab == 8) {
      // sglang's lossy thresholds (server arguments speculative_accept_threshold_single /
      // _acc): accept when p(x) >= 0.3 or u <= p(x) / 0.5.
      TensorMap lossy = in;
      lossy.erase("q");
      lossy.erase("bonus_q");
      auto urng = list.Rng(stage, "thresholds_v8/sglang");
      Tensor final_u(DType::kF32, {rows});
      for (float& v : final_u.data<float>()) v = static_cast<float>(urng.Next() >> 40) * 0x1p-24f;
      lossy.emplace("final_u", std::move(final_u));
      list.Add(stage, "thresholds_v8", std::move(lossy), {{"threshold_single", 0.3}, {"threshold_acc", 0.5}},
               {Profile::kSglang});
    }
    AddEveryProfile(list, name, std::move(in), kTokenWise);
  }
}

// The `full` set: one request at V = 32000 and 151936, two drafts, top-k 50.
void AddSpecStepLargeVocabularyCases(CaseList& list) {
  for (std::int64_t vocab : {32000, 151936}) {
    const std::string name = "large_v" + std::to_string(vocab);
    auto rng = list.Rng("spec_step", name);
    TensorMap in;
    in.emplace("draft_ids", I32({1, 2}, {static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab))),
                                         static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)))}));
    in.emplace("target_logits", Rank3(1, 3, vocab, rng));
    in.emplace("draft_logits", Rank3(1, 2, vocab, rng));
    in.emplace("temperature", F32({1}, {0.8f}));
    in.emplace("top_k", I32({1}, {50}));
    AddNoise(in, rng, 1, 2, vocab);
    AddEveryProfile(list, name, std::move(in), kTokenWise);
  }
}

}  // namespace

SAMPCHECK_CASE_FAMILY(SpecStep,
                      {.stages = {"spec_step"}, .add = AddSpecStepCases, .add_large = AddSpecStepLargeVocabularyCases});

}  // namespace sampcheck::golden
