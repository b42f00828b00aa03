// SPDX-License-Identifier: Apache-2.0
// Golden case families for flashinfer_sampling_from_probs
// (docs/spec/flashinfer_sampling_from_probs.md): hand-picked edges of each kernel (the NaN
// row, top_k 0, top_p 0, ties at the k-th value, u = 1 falling back to the last valid token,
// the loop exit on a one-hot row) and random rows of k/16 weights normalised in f32.
#include <limits>
#include <string>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Random rows hold at most 16 distinct positive values, so at most 17 rounds run.
constexpr std::int64_t kRandomRounds = 18;

// u [rows, width] with each row's first uniforms given and the rest 0.5.
Tensor Uniforms(std::int64_t rows, std::int64_t width, const std::vector<std::vector<float>>& first) {
  Tensor t(DType::kF32, {rows, width});
  auto d = t.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t r = 0; r < width; ++r) {
      const auto& row = first[static_cast<std::size_t>(b)];
      d[static_cast<std::size_t>(b * width + r)] =
          r < static_cast<std::int64_t>(row.size()) ? row[static_cast<std::size_t>(r)] : 0.5f;
    }
  }
  return t;
}

// k/16 weights (a quarter of them 0, token 0 always positive), divided by their f32 sum.
Tensor RandomNormalisedProbs(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor t(DType::kF32, {rows, vocab});
  auto p = t.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    float sum = 0.0f;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const auto w = static_cast<float>(i == 0 ? 8 : (rng.Below(4) == 0 ? 0 : rng.Between(1, 16)));
      p[static_cast<std::size_t>(b * vocab + i)] = w;
      sum = sum + w;
    }
    for (std::int64_t i = 0; i < vocab; ++i) p[static_cast<std::size_t>(b * vocab + i)] /= sum;
  }
  return t;
}

// Uniforms in (0, 1]: 24 random bits, k + 1 times 2^-24 (1 itself included, as curand).
Tensor RandomUniforms(SplitMix64& rng, std::int64_t rows, std::int64_t width) {
  Tensor t(DType::kF32, {rows, width});
  for (float& v : t.data<float>()) v = static_cast<float>((rng.Next() >> 40) + 1) * 0x1p-24f;
  return t;
}

void AddFlashinferSamplingFromProbsCases(CaseList& list) {
  const std::string stage = "flashinfer_sampling_from_probs";
  // top_p kernel. Row 0: the header's worked example (2 rounds, token 0). Row 1: all NaN ->
  // token 0, valid false. Row 2: top_p 0 on a flat row -> nothing passes: invalid after 2
  // rounds. Row 3: top_p 0 on a one-hot row -> pivot1 = (1 + 1) / 2 = high ends the loop with
  // the rejected sample, valid. Row 4: u = 1 on a row summing to 7/8 -> no running sum exceeds
  // t = 1: the last valid token (3), accepted. Row 5: NaN entries are skipped. Row 6: four
  // equal tokens with top_p 0.3 -> ties pass together (mass above each is 0).
  list.Add(stage, "edges_top_p",
           {{"probs", Logits(7, 4, {0.5f,  0.25f, 0.125f, 0.125f,  //
                                    kNaN,  kNaN,  kNaN,   kNaN,    //
                                    0.25f, 0.25f, 0.25f,  0.25f,   //
                                    0.0f,  1.0f,  0.0f,   0.0f,    //
                                    0.25f, 0.25f, 0.25f,  0.125f,  //
                                    kNaN,  0.5f,  kNaN,   0.5f,    //
                                    0.25f, 0.25f, 0.25f,  0.25f})},
            {"top_p", F32({7}, {0.7f, 0.9f, 0.0f, 0.0f, 1.0f, 0.6f, 0.3f})},
            {"u", Uniforms(7, 3, {{0.9f, 0.2f}, {0.5f}, {0.3f}, {0.4f}, {1.0f}, {0.3f}, {0.6f}})}},
           {{"kernel", "top_p"}});
  // top_k_top_p (joint). Row 0: k = 0 -> nothing passes: invalid. Row 1: k = -1 (2^32 - 1
  // as uint32: no limit) with top_p 1. Row 2: k = 2 keeps the three tokens tied at the k-th
  // value 0.2 (count above 0.2 is 1 < 2): u = 0.9 draws token 3 in one round. Row 3: the same
  // row with k = 1: token 3 rejected, pivot1 = 0.6 accepted (low = 0.2, q = 0.4), round 2
  // draws token 0. Row 4: NaN row. Row 5: both filters bind (k = 3, p = 0.5).
  list.Add(stage, "edges_top_k_top_p",
           {{"probs", Logits(6, 4, {0.4f, 0.3f, 0.2f, 0.1f,  //
                                    0.4f, 0.3f, 0.2f, 0.1f,  //
                                    0.4f, 0.2f, 0.2f, 0.2f,  //
                                    0.4f, 0.2f, 0.2f, 0.2f,  //
                                    kNaN, kNaN, kNaN, kNaN,  //
                                    0.1f, 0.2f, 0.3f, 0.4f})},
            {"top_k", I32({6}, {0, -1, 2, 1, 3, 3})},
            {"top_p", F32({6}, {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 0.5f})},
            {"u", Uniforms(6, 3, {{0.7f}, {0.95f}, {0.9f}, {0.9f, 0.5f}, {0.5f}, {0.05f, 0.99f}})}},
           {{"kernel", "top_k_top_p"}, {"deterministic", false}});
  // top_k_top_p with filter_apply_order "top_k_first" (FlashInfer's Python default):
  // top_k_renorm_probs, then the top_p kernel. Row 0: {0.4, 0.3, 0.2, 0.1}, k 2, p 0.5: the
  // renormalised {4/7, 3/7} rejects token 1 (mass above it 4/7 >= 0.5) where joint accepts it
  // (mass above 0.3 in the original row is 0.4 < 0.5); u {0.6, 0.3}: token 0 after 2 rounds.
  // (The joint kernel on row 0 gives token 1 in one round: tests/flashinfer_sampling_from_probs_test.cc.)
  // Row 1: k 2, p 0.5 again with u {0.6, 0.3}. Row 2: ties at the k-th value kept ({0.4, 0.2, 0.2, 0.2},
  // k 2 keeps all four, sum 1). Row 3: k = 0 keeps nothing: invalid. Row 4: k = -1 (no limit)
  // only renormalises a row summing to 7/8. Row 5: NaN entries dropped by the renorm.
  {
    TensorMap in = {{"probs", Logits(6, 4, {0.4f, 0.3f, 0.2f, 0.1f,     //
                                            0.4f, 0.3f, 0.2f, 0.1f,     //
                                            0.4f, 0.2f, 0.2f, 0.2f,     //
                                            0.4f, 0.3f, 0.2f, 0.1f,     //
                                            0.25f, 0.25f, 0.25f, 0.125f,  //
                                            kNaN, 0.5f, 0.25f, 0.25f})},
                    {"top_k", I32({6}, {2, 2, 2, 0, -1, 2})},
                    {"top_p", F32({6}, {0.5f, 0.5f, 0.9f, 0.9f, 0.9f, 0.6f})},
                    {"u", Uniforms(6, 3, {{0.6f, 0.3f}, {0.6f, 0.3f}, {0.95f}, {0.5f}, {0.99f}, {0.9f, 0.2f}})}};
    list.Add(stage, "edges_top_k_first", std::move(in), {{"kernel", "top_k_top_p"}, {"filter_apply_order", "top_k_first"}});
  }
  // top_k kernel: ties at the k-th value pass; k >= V is no limit; k = 0 invalid.
  list.Add(stage, "edges_top_k",
           {{"probs", Logits(3, 4,
                             {0.4f, 0.2f, 0.2f, 0.2f,  //
                              0.1f, 0.2f, 0.3f, 0.4f,  //
                              0.1f, 0.2f, 0.3f, 0.4f})},
            {"top_k", I32({3}, {2, 9, 0})},
            {"u", Uniforms(3, 3, {{0.9f}, {0.05f}, {0.5f}})}},
           {{"kernel", "top_k"}});
  // min_p kernel. Row 0: pivot 0.4 * 0.5 = 0.2 keeps {0, 1, 2}; u = 1 -> t = q = the kept
  // mass, no running sum exceeds it: the last valid token (2). Row 1: NaN row -> invalid.
  // Row 2: min_p 0 keeps zeros too (p >= 0): u = 1 falls back to the last valid token, 3,
  // whose probability is 0 (FlashInfer's fallback, not a law). Row 3: NaN entries beside a
  // finite maximum (fmaxf ignores NaN).
  list.Add(stage, "edges_min_p",
           {{"probs", Logits(4, 4,
                             {0.4f, 0.3f, 0.2f, 0.1f,  //
                              kNaN, kNaN, kNaN, kNaN,  //
                              0.5f, 0.5f, 0.0f, 0.0f,  //
                              kNaN, 0.6f, 0.1f, 0.3f})},
            {"min_p", F32({4}, {0.5f, 0.1f, 0.0f, 0.4f})},
            {"u", Uniforms(4, 1, {{1.0f}, {0.5f}, {1.0f}, {0.5f}})}},
           {{"kernel", "min_p"}});
  for (const char* kernel : {"top_k_top_p", "top_k", "top_p", "min_p"}) {
    for (std::int64_t vocab : {33, 1000}) {
      const std::string name = std::string("random_") + kernel + "_v" + std::to_string(vocab);
      auto rng = list.Rng(stage, name);
      TensorMap inputs;
      inputs.emplace("probs", RandomNormalisedProbs(rng, 4, vocab));
      inputs.emplace("u", RandomUniforms(rng, 4, kRandomRounds));
      inputs.emplace("top_k", I32({4}, {1, 5, static_cast<std::int32_t>(vocab / 2), 0x7fffffff}));
      inputs.emplace("top_p", F32({4}, {0.9f, 0.5f, 0.99f, 0.25f}));
      inputs.emplace("min_p", F32({4}, {0.1f, 0.5f, 0.9f, 0.01f}));
      if (std::string(kernel) == "top_k_top_p") {
        list.Add(stage, name + "_top_k_first", inputs, {{"kernel", kernel}, {"filter_apply_order", "top_k_first"}});
      }
      list.Add(stage, name, std::move(inputs), {{"kernel", kernel}});
    }
  }
}

// The `full` set's large-vocabulary row: the joint kernel over the k/16 probabilities the
// large-vocabulary family adds (16 distinct values: at most 17 rounds).
TensorMap LargeFlashinferInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t /*vocab*/) {
  TensorMap m;
  m.emplace("top_k", I32({1}, {50}));
  m.emplace("top_p", F32({1}, {0.9f}));
  m.emplace("u", RandomUniforms(rng, 1, kRandomRounds));
  return m;
}

}  // namespace

SAMPCHECK_CASE_FAMILY(FlashinferSamplingFromProbs, {.stages = {"flashinfer_sampling_from_probs"},
                                                    .add = AddFlashinferSamplingFromProbsCases,
                                                    .large_inputs = LargeFlashinferInputs});

}  // namespace sampcheck::golden
