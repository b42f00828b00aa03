// SPDX-License-Identifier: Apache-2.0
// Golden case family for spec_random (docs/spec/speculative.md#spec_random). The noise layout
// differs by profile (vllm: f64 u [B, K], q and bonus_q; flashinfer: f32 u [B, K + 1];
// typical_acceptance: bonus_q), so each profile gets its own cases. Edge rows: u = 0 and the
// largest value below 1, u = 1 (flashinfer), draft probability 0 for a sampled draft, an
// all-zero residual, ties, zero drafts, the f32 ratio widened to f64, n-gram drafts; random
// rows at V = 5, 100, 1023 and 8193 (smaller than, and not a multiple of, common tile widths);
// target rows after temperature 0.7 and top-k applied by the caller (the stage never tempers or
// filters: the caller does, as vLLM's compute_probs does before rejection_sample).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/reference_backend.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

namespace {

Tensor Rank3(std::int64_t rows, std::int64_t positions, std::int64_t vocab, const std::vector<float>& values) {
  return Tensor::FromValues(DType::kF32, {rows, positions, vocab}, values);
}

// Probability rows [rows, positions, vocab] of `dtype`: weights in {0} U [1, 16] / (16 V / 2),
// so each row sums to about 1 and a quarter of the entries are 0 (but never the whole row).
Tensor RandomProbRows(SplitMix64& rng, std::int64_t rows, std::int64_t positions, std::int64_t vocab, DType dtype) {
  Tensor t(dtype, {rows, positions, vocab});
  const float scale = 1.0f / (8.0f * static_cast<float>(vocab));
  for (std::int64_t r = 0; r < rows * positions; ++r) {
    for (std::int64_t j = 0; j < vocab; ++j) {
      const float w = rng.Below(4) == 0 ? 0.0f : static_cast<float>(rng.Between(1, 16));
      SetLogit(t, r * vocab + j, w * scale);
    }
    SetLogit(t, r * vocab + static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(vocab))), 0.25f);
  }
  return t;
}

// Drafts drawn (inverse CDF on SplitMix64 bits) from the draft rows, so draft probabilities are
// positive, except one draft per case with probability 0 when `zero_draft` (the vllm rejection
// guard); rows b % 3 == 2 get only one draft.
Tensor SampledDrafts(SplitMix64& rng, const Tensor& draft_probs, bool zero_draft) {
  const std::int64_t rows = draft_probs.dim(0), k = draft_probs.dim(1), vocab = draft_probs.dim(2);
  std::vector<std::int32_t> ids;
  bool planted_zero = !zero_draft;
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < k; ++i) {
      if (b % 3 == 2 && i >= 1) {
        ids.push_back(-1);
        continue;
      }
      const std::int64_t base = (b * k + i) * vocab;
      double total = 0.0;
      for (std::int64_t j = 0; j < vocab; ++j) total += GetLogit(draft_probs, base + j);
      double x = static_cast<double>(rng.Next() >> 11) * 0x1p-53 * total;
      std::int64_t chosen = vocab - 1;
      for (std::int64_t j = 0; j < vocab; ++j) {
        const double p = GetLogit(draft_probs, base + j);
        if (p > 0.0 && x < p) {
          chosen = j;
          break;
        }
        x -= p;
      }
      if (!planted_zero) {
        for (std::int64_t j = 0; j < vocab; ++j) {
          if (GetLogit(draft_probs, base + j) == 0.0f) {
            chosen = j;
            planted_zero = true;
            break;
          }
        }
      }
      ids.push_back(static_cast<std::int32_t>(chosen));
    }
  }
  return I32({rows, k}, ids);
}

Tensor FlashinferUniforms(SplitMix64& rng, std::int64_t rows, std::int64_t k) {
  Tensor u(DType::kF32, {rows, k + 1});
  for (float& v : u.data<float>()) v = static_cast<float>((rng.Next() >> 40) + 1) * 0x1p-24f;  // (0, 1]
  return u;
}

// Target rows the caller tempered (T = 0.7) and filtered (top-k 3, top-p 0.9) before the stage:
// the reference's temperature and sampling_filters stages turn random logits into probs.
Tensor TemperedFilteredProbs(SplitMix64& rng, std::int64_t rows, std::int64_t positions, std::int64_t vocab) {
  reference::ReferenceBackend backend;
  Case tempered{
      "spec_random/tempered_filtered/input",
      "temperature",
      Profile::kCanonical,
      nlohmann::json::object(),
      {{"logits", RandomLogits(rng, rows * positions, vocab, DType::kF32)},
       {"temperature", F32({rows * positions}, std::vector<float>(static_cast<std::size_t>(rows * positions), 0.7f))}}};
  Case filtered{
      "spec_random/tempered_filtered/input",
      "sampling_filters",
      Profile::kCanonical,
      nlohmann::json::object(),
      {{"logits", backend.Run("temperature", tempered).at("logits")},
       {"top_k", I32({rows * positions}, std::vector<std::int32_t>(static_cast<std::size_t>(rows * positions), 3))},
       {"top_p", F32({rows * positions}, std::vector<float>(static_cast<std::size_t>(rows * positions), 0.9f))}}};
  const Tensor probs = backend.Run("sampling_filters", filtered).at("probs");
  Tensor out(DType::kF32, {rows, positions, vocab});
  const auto src = probs.data<float>();
  std::copy(src.begin(), src.end(), out.data<float>().begin());
  return out;
}

void AddRandomFamilies(CaseList& list) {
  for (std::int64_t vocab : {5, 100, 1023, 8193}) {
    const std::string name = "random_v" + std::to_string(vocab);
    // golden/v1 stays under 8 MiB: the large vocabularies get fewer rows and profiles (V = 1023:
    // vllm and flashinfer; V = 8193: flashinfer, whose vectorised scan is the tile-sensitive
    // one; vllm's padded power-of-two vocabulary is already off at 100 and 1023).
    const std::int64_t rows = vocab == 8193 ? 1 : vocab == 1023 ? 2 : 3, k = vocab == 8193 ? 1 : vocab == 1023 ? 2 : 3;
    const DType dtype = vocab >= 1023 ? DType::kBF16 : DType::kF32;
    for (Profile profile : {Profile::kVllm, Profile::kFlashinfer, Profile::kTypicalAcceptance}) {
      if (vocab >= 1023 && profile == Profile::kTypicalAcceptance) continue;
      if (vocab == 8193 && profile == Profile::kVllm) continue;
      auto rng = list.Rng("spec_random", name + "/" + std::string(ProfileName(profile)));
      Tensor target = RandomProbRows(rng, rows, k + 1, vocab, dtype);
      Tensor draft = RandomProbRows(rng, rows, k, vocab, dtype);
      TensorMap in = {{"draft_ids", SampledDrafts(rng, draft, profile == Profile::kVllm)}, {"target_probs", target}};
      if (profile != Profile::kTypicalAcceptance) in.emplace("draft_probs", draft);
      if (profile == Profile::kVllm) {
        in.emplace("u", Uniforms64(rng, rows, k));
        in.emplace("q", ExpNoise(rng, rows, vocab));
      }
      if (profile == Profile::kFlashinfer) in.emplace("u", FlashinferUniforms(rng, rows, k));
      if (profile != Profile::kFlashinfer) in.emplace("bonus_q", ExpNoise(rng, rows, vocab));
      list.Add("spec_random", name, in, nlohmann::json::object(), {profile});
    }
  }
  // Temperature and filters applied by the caller (V = 33, K = 2).
  for (Profile profile : {Profile::kVllm, Profile::kFlashinfer}) {
    auto rng = list.Rng("spec_random", "tempered_filtered/" + std::string(ProfileName(profile)));
    const std::int64_t rows = 3, k = 2, vocab = 33;
    Tensor target = TemperedFilteredProbs(rng, rows, k + 1, vocab);
    Tensor draft = RandomProbRows(rng, rows, k, vocab, DType::kF32);
    TensorMap in = {{"draft_ids", SampledDrafts(rng, draft, false)}, {"target_probs", target}, {"draft_probs", draft}};
    if (profile == Profile::kVllm) {
      in.emplace("u", Uniforms64(rng, rows, k));
      in.emplace("q", ExpNoise(rng, rows, vocab));
      in.emplace("bonus_q", ExpNoise(rng, rows, vocab));
    } else {
      in.emplace("u", FlashinferUniforms(rng, rows, k));
    }
    list.Add("spec_random", "tempered_filtered", in, nlohmann::json::object(), {profile});
  }
}

// vllm: the edge rows with draft probabilities, then n-gram drafts.
void AddVllmEdgeCases(CaseList& list) {
  const double below_one = std::nextafter(1.0, 0.0);         // 0x1.fffffffffffffp-1
  const double third = static_cast<double>(0x1.555556p-2f);  // f32(1/3) widened exactly
  // vllm, V = 4, K = 2, one edge per row (docs/spec/speculative.md#vllm):
  //  0: u = 0 accepts a draft of target probability 0 (0 / 0.5 = 0 >= 0), then u = 0.5 accepts
  //     p = q; bonus by bonus_q.
  //  1: u = 1 - 2^-53 accepts tp / dp = 1; then 0.125 / 0.5 = 0.25 < 0.5: rejected, residual
  //     {0.25, 0, 0.125, 0} / q {1, 1, 0.25, 1} -> 2.
  //  2: draft probability 0 for the sampled draft: rejected although tp = 0.5.
  //  3: p == q with the draft's dp = 0: rejected, residual all zero -> token 0.
  //  4: no drafts: bonus only.
  //  5: f32(1/3) / 1 widened equals u exactly: accepted (>=); next draft with u one f64 ulp
  //     above f32(1/3) is rejected.
  //  6: residual tie {0.25, 0, 0.25, 0} with equal q: the lower index, 0.
  const std::vector<float> target = {
      0.0f, 0.5f, 0.5f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,  0.25f, 0.25f, 0.25f, 0.25f,    // row 0
      0.5f, 0.25f, 0.25f, 0.0f,  0.25f, 0.125f, 0.625f, 0.0f,  0.5f, 0.5f, 0.0f, 0.0f,     // row 1
      0.5f, 0.5f, 0.0f, 0.0f,  0.0f, 0.0f, 0.0f, 1.0f,  0.0f, 0.0f, 0.0f, 1.0f,            // row 2
      0.5f, 0.5f, 0.0f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,  0.25f, 0.25f, 0.25f, 0.25f,    // row 3
      0.125f, 0.5f, 0.125f, 0.25f,  0, 0, 0, 1,  0, 0, 0, 1,                              // row 4
      0x1.555556p-2f, 0.5f, 0.125f, 0.0f,  0x1.555556p-2f, 0.25f, 0.25f, 0.0f,  1, 0, 0, 0,  // row 5
      0.5f, 0.0f, 0.5f, 0.0f,  1, 0, 0, 0,  1, 0, 0, 0};                                  // row 6
  const std::vector<float> draft = {
      0.5f, 0.0f, 0.5f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,                                  // row 0
      0.5f, 0.25f, 0.25f, 0.0f,  0.0f, 0.5f, 0.5f, 0.0f,                                   // row 1
      0.0f, 0.5f, 0.5f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,                                 // row 2
      0.5f, 0.5f, 0.0f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,                                 // row 3
      0.25f, 0.25f, 0.25f, 0.25f,  0.25f, 0.25f, 0.25f, 0.25f,                             // row 4
      1.0f, 0.0f, 0.0f, 0.0f,  1.0f, 0.0f, 0.0f, 0.0f,                                     // row 5
      0.25f, 0.5f, 0.25f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f};                              // row 6
  const std::vector<std::int32_t> vllm_drafts = {0, 1,  0, 1,  0, 1,  2, 0,  -1, -1,  0, 0,  1, 0};
  Tensor u(DType::kF64, {7, 2});
  const std::vector<double> uv = {0.0, 0.5,  below_one, 0.5,  0.25, 0.25,  0.5, 0.5,  0.5, 0.5,
                                  third, std::nextafter(third, 1.0),  0.75, 0.5};
  std::copy(uv.begin(), uv.end(), u.data<double>().begin());
  std::vector<float> ones(28, 1.0f);
  std::vector<float> q = ones;
  q[1 * 4 + 2] = 0.25f;  // row 1 favours token 2 in the race
  std::vector<float> bonus_q = ones;
  bonus_q[4 * 4 + 1] = 0.125f;  // row 4's bonus: 0.5 / 0.125 = 4 wins
  list.Add("spec_random", "edges",
           {{"draft_ids", I32({7, 2}, vllm_drafts)}, {"target_probs", Rank3(7, 3, 4, target)},
            {"draft_probs", Rank3(7, 2, 4, draft)}, {"u", u}, {"q", F32({7, 4}, q)}, {"bonus_q", F32({7, 4}, bonus_q)}},
           nlohmann::json::object(), {Profile::kVllm});
  // vllm's recovered race scores prob * f32(1 / q) (docs/spec/speculative.md#vllm): n-gram draft
  // 2 with tp = 0 is rejected at u = 0.5; residual {5, 0x1.aaaaacp+0, 0} over q {3, 1, 1}:
  // 5 * f32(1/3) rounds up to 0x1.aaaaacp+0, a tie with token 1 that token 0 wins, where
  // 5 / 3 = 0x1.aaaaaap+0 would lose to token 1 (tests/spec_random_test.cc).
  {
    Tensor ur(DType::kF64, {1, 1});
    ur.data<double>()[0] = 0.5;
    list.Add("spec_random", "reciprocal_race",
             {{"draft_ids", I32({1, 1}, {2})},
              {"target_probs", Rank3(1, 2, 3, {5.0f, 0x1.aaaaacp+0f, 0.0f,  1, 1, 1})},
              {"u", ur}, {"q", F32({1, 3}, {3, 1, 1})}, {"bonus_q", F32({1, 3}, {1, 1, 1})}},
             nlohmann::json::object(), {Profile::kVllm});
  }
  // vllm n-gram drafts (no draft_probs, draft prob := 1): accept iff tp >= u; on rejection the
  // draft is zeroed in the residual although its ratio would win the race (rows 0 and 1: -> 3
  // and 1); row 2: u = 0 accepts tp = 1 and then tp = 0, bonus -> 2.
  {
    Tensor un(DType::kF64, {3, 2});
    const std::vector<double> unv = {0.25, 0.75,  0.5, 0.5,  0.0, 0.0};
    std::copy(unv.begin(), unv.end(), un.data<double>().begin());
    list.Add("spec_random", "ngram",
             {{"draft_ids", I32({3, 2}, {1, 2,  0, 3,  3, 3})},
              {"target_probs", Rank3(3, 3, 4, {0.25f, 0.25f, 0.25f, 0.25f,  0.125f, 0.125f, 0.5f, 0.25f,  1, 0, 0, 0,  //
                                                0.25f, 0.5f, 0.125f, 0.125f,  0, 0, 0, 1,  0, 1, 0, 0,  //
                                                0, 0, 0, 1,  0, 0, 0, 0,  0, 0.5f, 0.5f, 0})},
              {"u", un}, {"q", F32({3, 4}, {1, 1, 1, 0.125f,  0.125f, 1, 1, 1,  1, 1, 1, 1})},
              {"bonus_q", F32({3, 4}, {1, 1, 1, 1,  1, 1, 1, 1,  1, 1, 0.5f, 1})}},
             nlohmann::json::object(), {Profile::kVllm});
  }
}

void AddFlashinferEdgeCases(CaseList& list) {
  const float below_one_f = std::nextafter(1.0f, 0.0f);  // 0x1.fffffep-1
  // flashinfer, V = 4, K = 2, u [B, 3]:
  //  0: u = 0 accepts draft 0 (0 * 0.5 < 0.5); draft 1 has tp = dp = 0: 0 < 0 fails; recovered
  //     with u_2 = 0 on r = {0, 0, 0, 0.25} -> 3 (the first positive r with 0 < C_j).
  //  1: dp = 0, tp = 0.25: u * 0 = 0 < 0.25 accepts; then tp = dp = 0: rejected; recovered with
  //     u_2 = 1 on r = {0.25, 0, 0, 0}: x = C_3 is never < C_j -> fallback V - 1 = 3, whose
  //     target probability is 0.
  //  2: u * dp == tp (0.5 * 0.5 = 0.25): not <, rejected; recovered with u_1 = 1 - 2^-24 on
  //     r = {0, 0, 0.25, 0.25}: x = 0.49999997 < C_3 = 0.5 -> 3.
  //  3: all-zero residual (p == q, drafted token rejected as u_0 = 1 makes 1 * 0.5 < 0.5 false)
  //     -> fallback 3.
  //  4: no drafts: bonus from target row 0 with u_0 = 0.5 -> C = {0.125, 0.625, 0.75, 1},
  //     x = 0.5 -> 1.
  {
    const std::vector<float> ft = {
        0.5f, 0.5f, 0.0f, 0.0f,  0.0f, 0.25f, 0.25f, 0.5f,  1, 0, 0, 0,      // row 0
        0.25f, 0.25f, 0.5f, 0.0f,  0.5f, 0.0f, 0.5f, 0.0f,  1, 0, 0, 0,      // row 1
        0.25f, 0.25f, 0.25f, 0.25f,  1, 0, 0, 0,  1, 0, 0, 0,                // row 2
        0.5f, 0.5f, 0.0f, 0.0f,  1, 0, 0, 0,  1, 0, 0, 0,                    // row 3
        0.125f, 0.5f, 0.125f, 0.25f,  1, 0, 0, 0,  1, 0, 0, 0};              // row 4
    const std::vector<float> fd = {
        0.5f, 0.0f, 0.0f, 0.5f,  0.0f, 0.5f, 0.25f, 0.25f,                   // row 0
        0.0f, 0.5f, 0.5f, 0.0f,  0.25f, 0.0f, 0.5f, 0.25f,                   // row 1
        0.5f, 0.5f, 0.0f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,                 // row 2
        0.5f, 0.5f, 0.0f, 0.0f,  0.25f, 0.25f, 0.25f, 0.25f,                 // row 3
        0.25f, 0.25f, 0.25f, 0.25f,  0.25f, 0.25f, 0.25f, 0.25f};            // row 4
    list.Add("spec_random", "edges",
             {{"draft_ids", I32({5, 2}, {0, 0,  0, 1,  1, -1,  0, -1,  -1, -1})},
              {"target_probs", Rank3(5, 3, 4, ft)}, {"draft_probs", Rank3(5, 2, 4, fd)},
              {"u", F32({5, 3}, {0.0f, 0.0f, 0.0f,  0.5f, 0.5f, 1.0f,  0.5f, below_one_f, 0.5f,  1.0f, 0.5f, 0.5f,
                                 0.5f, 0.25f, 0.25f})}},
             nlohmann::json::object(), {Profile::kFlashinfer});
  }
}

void AddTypicalAcceptanceEdgeCases(CaseList& list) {
  // typical_acceptance, V = 4, K = 2: a flat row (threshold 0.3 exp(-H) = 0.3 * 0.25001 accepts
  // 0.25), a peaked row {0.8125, 0.0625 x 3} (exp(-H) = 0.5023, threshold min(0.09, 0.1507) =
  // 0.09 rejects 0.0625: the argmax 0 is emitted), and the same inputs with posterior_threshold
  // 0.5 / posterior_alpha 1 (threshold exp(-H) = 0.25001 > 0.25: the flat row is rejected too).
  {
    TensorMap in = {{"draft_ids", I32({3, 2}, {2, 1,  1, 0,  -1, -1})},
                    {"target_probs", Rank3(3, 3, 4, {0.25f, 0.25f, 0.25f, 0.25f,  0.8125f, 0.0625f, 0.0625f, 0.0625f,  1, 0, 0, 0,  //
                                                     0.8125f, 0.0625f, 0.0625f, 0.0625f,  1, 0, 0, 0,  1, 0, 0, 0,  //
                                                     0.125f, 0.5f, 0.125f, 0.25f,  1, 0, 0, 0,  1, 0, 0, 0})},
                    {"bonus_q", F32({3, 4}, {1, 1, 1, 1,  1, 1, 1, 1,  1, 0.25f, 1, 1})}};
    list.Add("spec_random", "edges", in, nlohmann::json::object(), {Profile::kTypicalAcceptance});
    list.Add("spec_random", "edges_params", in, nlohmann::json{{"posterior_threshold", 0.5}, {"posterior_alpha", 1.0}},
             {Profile::kTypicalAcceptance});
  }
}


// Degenerate rows (docs/spec/speculative.md "Degenerate rows") among healthy ones, V = 33, K = 2.
// The rows, each with its token derived by hand from the rules there (u, q and bonus_q as set
// below; x: the drafts):
//  0 healthy: x {1, 2}; position 0 {0: 0.5, 1: 0.5} accepts 1; position 1 {2: 0.25, 4: 0.75}
//    against the draft {2: 0.5, 5: 0.5} rejects 2; residual {4: 0.75} -> 4 (every profile;
//    typical: 0.0625 at token 2 below the threshold 0.09, the argmax 4).
//  1 position 0 all NaN, x {1}: rejected (a NaN comparison is false); residual max(NaN - d, +0)
//    all +0 -> vllm 0, flashinfer V - 1 = 32; typical: threshold NaN, argmax = the first NaN, 0.
//  2 NaN at token 7 of both positions, x {1, 2}: position 0 accepted as row 0 (typical: S is NaN,
//    rejected, the first NaN 7); position 1's residual takes NaN to +0: {4: 0.25, 9: 0.5} -> vllm
//    9 (the race, q = 1), flashinfer 9 (x = 0.5 * 0.75 = 0.375 is not below C_4 = 0.25, below
//    C_9 = 0.75).
//  3 x {1}, accepted; the bonus row {3: 0.5, 6: NaN, 8: NaN} -> vllm and typical the first NaN,
//    6; flashinfer 3 (NaN weights +0, x = 0.75 * 0.5 = 0.375 < C_3 = 0.5).
//  4 +inf: x {1, 2}; position 0 {0: 0.5, 1: +inf} accepts (inf >= u; typical: exp(S) = +inf,
//    the threshold 0.09); position 1 {2: 0.0625 (typical) or 0.25, 11: +inf, 12: 0.5} rejects
//    2: vllm the +inf score, 11; flashinfer V - 1 = 32 (the running sum is +inf); typical the
//    argmax 11.
//  5 no drafts, an all-zero bonus row (an empty allowed set): vllm and typical 0 (every ratio
//    +0), flashinfer V - 1 = 32.
//  6 healthy, no drafts: bonus row {5: 0.5, 20: 0.5}, bonus_q[20] = 0.5 -> 20 (flashinfer:
//    u_0 = 0.5, x = 0.5 is not below C_5 = 0.5, below C_20 = 1 -> 20).
void AddDegenerateRowCases(CaseList& list) {
  constexpr std::int64_t kRows = 7, kK = 2, kV = 33;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (Profile profile : {Profile::kVllm, Profile::kFlashinfer, Profile::kTypicalAcceptance}) {
    const bool typical = profile == Profile::kTypicalAcceptance;
    std::vector<float> target(kRows * (kK + 1) * kV, 0.0f), draft(kRows * kK * kV, 0.0f);
    auto t = [&](std::int64_t b, std::int64_t i, std::int64_t j, float v) { target[static_cast<std::size_t>((b * (kK + 1) + i) * kV + j)] = v; };
    auto d = [&](std::int64_t b, std::int64_t i, std::int64_t j, float v) { draft[static_cast<std::size_t>((b * kK + i) * kV + j)] = v; };
    const float low = typical ? 0.0625f : 0.25f;  // typical rejects below its 0.09 threshold
    for (std::int64_t b : {0, 2, 4}) {
      t(b, 0, 0, 0.5f), t(b, 0, 1, 0.5f), d(b, 0, 0, 0.5f), d(b, 0, 1, 0.5f);
      t(b, 1, 2, low), d(b, 1, 2, 0.5f), d(b, 1, 5, 0.5f);
    }
    t(0, 1, 4, 1.0f - low);
    for (std::int64_t j = 0; j < kV; ++j) t(1, 0, j, nan);
    d(1, 0, 1, 1.0f);
    t(2, 0, 7, nan), t(2, 1, 7, nan), t(2, 1, 4, 0.25f), t(2, 1, 9, 0.5f);
    t(3, 0, 1, 1.0f), d(3, 0, 1, 1.0f), t(3, 1, 3, 0.5f), t(3, 1, 6, nan), t(3, 1, 8, nan);
    t(4, 0, 1, inf), t(4, 1, 11, inf), t(4, 1, 12, 0.5f);
    t(6, 0, 5, 0.5f), t(6, 0, 20, 0.5f);
    TensorMap in = {{"draft_ids", I32({kRows, kK}, {1, 2,  1, -1,  1, 2,  1, -1,  1, 2,  -1, -1,  -1, -1})},
                    {"target_probs", Rank3(kRows, kK + 1, kV, target)}};
    if (!typical) in.emplace("draft_probs", Rank3(kRows, kK, kV, draft));
    std::vector<float> bonus_q(kRows * kV, 1.0f);
    bonus_q[6 * kV + 20] = 0.5f;
    if (profile == Profile::kVllm) {
      Tensor u(DType::kF64, {kRows, kK});
      const std::vector<double> uv = {0.5, 0.75,  0.5, 0.5,  0.5, 0.75,  0.5, 0.5,  0.5, 0.75,  0.5, 0.5,  0.5, 0.5};
      std::copy(uv.begin(), uv.end(), u.data<double>().begin());
      in.emplace("u", u);
      in.emplace("q", F32({kRows, kV}, std::vector<float>(kRows * kV, 1.0f)));
    }
    if (profile == Profile::kFlashinfer) {
      std::vector<float> u;
      for (std::int64_t b = 0; b < kRows; ++b) u.insert(u.end(), {0.5f, 0.75f, 0.5f});
      in.emplace("u", F32({kRows, kK + 1}, u));
    } else {
      in.emplace("bonus_q", F32({kRows, kV}, bonus_q));
    }
    list.Add("spec_random", "degenerate_rows_v33", in, nlohmann::json::object(), {profile});
  }
  // vllm n-gram drafts (r = t, the draft zeroed; NaN scores never win), V = 33, K = 2:
  //  0 healthy: x {1, 2}; {0: 0.5, 1: 0.5} accepts 1 (0.5 >= 0.25); {2: 0.25, 4: 0.75} rejects 2
  //    (0.25 < 0.75): r = {4: 0.75} -> 4.
  //  1 position 0 all NaN, x {3}: rejected; r is NaN but for the zeroed draft, whose score +0 is
  //    the only one not NaN -> 3.
  //  2 {1: 0.25, 5: NaN, 6: 0.5}, x {1}: rejected (0.25 < 0.5); r = {5: NaN, 6: 0.5} -> 6.
  {
    std::vector<float> target(3 * (kK + 1) * kV, 0.0f);
    auto t = [&](std::int64_t b, std::int64_t i, std::int64_t j, float v) { target[static_cast<std::size_t>((b * (kK + 1) + i) * kV + j)] = v; };
    t(0, 0, 0, 0.5f), t(0, 0, 1, 0.5f), t(0, 1, 2, 0.25f), t(0, 1, 4, 0.75f);
    for (std::int64_t j = 0; j < kV; ++j) t(1, 0, j, nan);
    t(2, 0, 1, 0.25f), t(2, 0, 5, nan), t(2, 0, 6, 0.5f);
    Tensor u(DType::kF64, {3, kK});
    const std::vector<double> uv = {0.25, 0.75,  0.5, 0.5,  0.5, 0.5};
    std::copy(uv.begin(), uv.end(), u.data<double>().begin());
    list.Add("spec_random", "degenerate_ngram_v33",
             {{"draft_ids", I32({3, kK}, {1, 2,  3, -1,  1, -1})}, {"target_probs", Rank3(3, kK + 1, kV, target)},
              {"u", u}, {"q", F32({3, kV}, std::vector<float>(3 * kV, 1.0f))},
              {"bonus_q", F32({3, kV}, std::vector<float>(3 * kV, 1.0f))}},
             nlohmann::json::object(), {Profile::kVllm});
  }
}
}  // namespace

void AddSpecRandomCases(CaseList& list) {
  AddVllmEdgeCases(list);
  AddFlashinferEdgeCases(list);
  AddTypicalAcceptanceEdgeCases(list);
  AddDegenerateRowCases(list);
  AddRandomFamilies(list);
}

void AddSpecRandomLargeVocabularyCases(CaseList& list) {
  for (std::int64_t vocab : {32000, 151936}) {
    const std::string name = "large_v" + std::to_string(vocab);
    for (Profile profile : {Profile::kVllm, Profile::kFlashinfer, Profile::kTypicalAcceptance}) {
      auto rng = list.Rng("spec_random", name + "/" + std::string(ProfileName(profile)));
      Tensor target = RandomProbRows(rng, 1, 2, vocab, DType::kBF16);
      Tensor draft = RandomProbRows(rng, 1, 1, vocab, DType::kBF16);
      TensorMap in = {{"draft_ids", SampledDrafts(rng, draft, false)}, {"target_probs", target}};
      if (profile != Profile::kTypicalAcceptance) in.emplace("draft_probs", draft);
      if (profile == Profile::kVllm) {
        in.emplace("u", Uniforms64(rng, 1, 1));
        in.emplace("q", ExpNoise(rng, 1, vocab));
      }
      if (profile == Profile::kFlashinfer) in.emplace("u", FlashinferUniforms(rng, 1, 1));
      if (profile != Profile::kFlashinfer) in.emplace("bonus_q", ExpNoise(rng, 1, vocab));
      list.Add("spec_random", name, in, nlohmann::json::object(), {profile});
    }
  }
}

SAMPCHECK_CASE_FAMILY(SpecRandom, {.stages = {"spec_random"}, .add = AddSpecRandomCases, .add_large = AddSpecRandomLargeVocabularyCases});

}  // namespace sampcheck::golden
