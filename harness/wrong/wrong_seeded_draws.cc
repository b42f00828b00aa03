// SPDX-License-Identifier: Apache-2.0
// Seeded draws a backend makes with its own noise planted wrong: a row's stream keyed by its batch
// slot (caught by the reproducibility harness), vLLM's per-request generators and
// tensor-parallel ranks (layer "harness": conform's decode_steps_check and tp_consensus_check).
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - batch_dependent_seed    the pipeline's seeded rows use seed + (slot in the batch): each
//                           draw still follows the target, but a row's token changes with the
//                           batch -> the reproducibility harness (alpha 0)
// - vllm_generator_seed_row0     vllm rows with their own generator (`seeded`) all read seed[0]
//                                -> decode_steps_check/vllm/seeds (a row alone draws with its
//                                own seed, in the batch with row 0's)
// - vllm_generator_global_noise  when a vllm batch holds a random row without a seed, the seeded
//                                rows draw from the global q too (random_sample's per-request
//                                overwrite skipped) -> decode_steps_check/vllm/seeds
// - vllm_generator_offset_stuck  decode_steps under vllm: a seeded row's generator does not
//                                advance across steps (positions + 0; q[:, t] still advances)
//                                -> decode_steps_check/vllm/fresh_noise (and history)
// - tp_rank_keyed_noise          the pipeline's seeded rows on tensor-parallel rank r draw with
//                                seed + r (noise keyed by rank) -> tp_consensus_check/<profile>/ranks
// - tp_unseeded_rank_uniforms    the pipeline's seeded rows on a rank draw from uniforms that
//                                no seed keys (a per-rank stream, fresh at every call)
//                                -> tp_consensus_check/<profile>/ranks
//                                (both only when the case names its rank: param tp_rank)
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

class BatchDependentSeed final : public WrappingBackend {
 public:
  BatchDependentSeed() : WrappingBackend("batch_dependent_seed") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || !in.inputs.count("seed")) return in;
    Case c = in;
    auto seeds = c.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 0; b < seeds.size(); ++b) {
      seeds[b] = static_cast<std::int64_t>(static_cast<std::uint64_t>(seeds[b]) + b);  // the slot leaks in
    }
    return c;
  }
};

// vLLM's per-request generators (reference/pipeline.h): faults of a case whose rows carry
// `seeded` under vllm.
bool HasVllmGenerators(const Case& c) { return c.profile == Profile::kVllm && c.inputs.count("seeded") && c.inputs.count("seed"); }

class VllmGeneratorSeedRow0 final : public ExactFaultBackend {
 public:
  VllmGeneratorSeedRow0() : ExactFaultBackend("vllm_generator_seed_row0") {}

 protected:
  Case Transform(const Case& c) override {
    if (!HasVllmGenerators(c)) return c;
    Case wrong = c;
    auto seeds = wrong.inputs.at("seed").data<std::int64_t>();
    std::fill(seeds.begin(), seeds.end(), seeds.empty() ? 0 : seeds[0]);  // the bug: element 0 for every row
    return wrong;
  }
};

class VllmGeneratorGlobalNoise final : public ExactFaultBackend {
 public:
  VllmGeneratorGlobalNoise() : ExactFaultBackend("vllm_generator_global_noise") {}

 protected:
  Case Transform(const Case& c) override {
    if (!HasVllmGenerators(c)) return c;
    const auto seeded = c.inputs.at("seeded").data<std::uint8_t>();
    if (std::all_of(seeded.begin(), seeded.end(), [](std::uint8_t s) { return s != 0; })) return c;
    Case wrong = c;
    wrong.inputs.erase("seeded");  // the bug: one row without a seed sends every row to the global q
    return wrong;
  }
};

class VllmGeneratorOffsetStuck final : public ExactFaultBackend {
 public:
  VllmGeneratorOffsetStuck() : ExactFaultBackend("vllm_generator_offset_stuck") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3 || !HasVllmGenerators(c) || !c.inputs.count("positions")) {
      return ExactFaultBackend::Run(stage, c);
    }
    const Tensor start = c.inputs.at("positions");
    return reference::RunDecodeStepsOn(c, c.profile, {}, [&](const Case& step) {
      Case stuck = step;
      stuck.inputs.insert_or_assign("positions", start);  // the bug: the generator never advances
      return reference::RunPipeline(stuck, c.profile);
    });
  }
};

// Tensor-parallel ranks (docs/spec/tp_consensus.md "Per-rank draws"): faults of a pipeline case
// that names its rank (param tp_rank), on its seed input.
class TpRankFault final : public ExactFaultBackend {
 public:
  enum class Kind { kRankKeyed, kUnseeded };
  TpRankFault(std::string name, Kind kind) : ExactFaultBackend(std::move(name)), kind_(kind) {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("tp_rank") || !c.params["tp_rank"].is_number_integer() || !c.inputs.count("seed")) return c;
    const auto rank = c.params["tp_rank"].get<std::uint64_t>();
    Case wrong = c;
    for (auto& s : wrong.inputs.at("seed").data<std::int64_t>()) {
      // kRankKeyed: the seed plus the rank (rank 0 draws right); kUnseeded: a per-rank stream
      // advanced at every call, which no seed keys (torch.rand without a generator on each rank).
      const std::uint64_t u = kind_ == Kind::kRankKeyed ? static_cast<std::uint64_t>(s) + rank : unseeded_.Next() ^ rank;
      s = static_cast<std::int64_t>(u);
    }
    return wrong;
  }

 private:
  Kind kind_;
  SplitMix64 unseeded_{0x7a2u};
};

std::unique_ptr<Backend> MakeVllmGeneratorSeedRow0() { return std::make_unique<VllmGeneratorSeedRow0>(); }

std::unique_ptr<Backend> MakeVllmGeneratorGlobalNoise() { return std::make_unique<VllmGeneratorGlobalNoise>(); }

std::unique_ptr<Backend> MakeVllmGeneratorOffsetStuck() { return std::make_unique<VllmGeneratorOffsetStuck>(); }

std::unique_ptr<Backend> MakeTpRankKeyedNoise() {
  return std::make_unique<TpRankFault>("tp_rank_keyed_noise", TpRankFault::Kind::kRankKeyed);
}

std::unique_ptr<Backend> MakeTpUnseededRankUniforms() {
  return std::make_unique<TpRankFault>("tp_unseeded_rank_uniforms", TpRankFault::Kind::kUnseeded);
}

}  // namespace

SAMPCHECK_WRONG_SAMPLER(BatchDependentSeed, {{"batch_dependent_seed", "a seeded row's stream depends on its slot in the batch", "reproducibility", "reproducibility"},
       [] { return std::make_unique<BatchDependentSeed>(); }});
SAMPCHECK_WRONG_SAMPLER(VllmGeneratorSeedRow0, {{"vllm_generator_seed_row0", "vLLM's seeded rows all read the seed array at element 0",
        "decode_steps_check/vllm/seeds", "harness"},
       MakeVllmGeneratorSeedRow0});
SAMPCHECK_WRONG_SAMPLER(VllmGeneratorGlobalNoise, {{"vllm_generator_global_noise", "a vLLM batch with an unseeded row draws its seeded rows from the global noise too",
        "decode_steps_check/vllm/seeds", "harness"},
       MakeVllmGeneratorGlobalNoise});
SAMPCHECK_WRONG_SAMPLER(VllmGeneratorOffsetStuck, {{"vllm_generator_offset_stuck", "a vLLM request's generator does not advance across decode steps",
        "decode_steps_check/vllm/fresh_noise", "harness"},
       MakeVllmGeneratorOffsetStuck});
SAMPCHECK_WRONG_SAMPLER(TpRankKeyedNoise, {{"tp_rank_keyed_noise", "each tensor-parallel rank draws with seed + its rank", "tp_consensus_check/", "harness"},
       MakeTpRankKeyedNoise});
SAMPCHECK_WRONG_SAMPLER(TpUnseededRankUniforms, {{"tp_unseeded_rank_uniforms", "each tensor-parallel rank draws from uniforms no seed keys", "tp_consensus_check/",
        "harness"},
       MakeTpUnseededRankUniforms});

}  // namespace sampcheck::statistical
