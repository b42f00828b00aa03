// SPDX-License-Identifier: Apache-2.0
// FlashInfer's rejection samplers from probabilities planted wrong
// (docs/spec/flashinfer_sampling_from_probs.md): a golden case or a stats/ case of the draw
// harness rejects each.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - flashinfer_nan_row_valid     outputs with a `rounds` beside `valid` (FlashInfer's
//                                rejection samplers) flag every row valid: a NaN row's token
//                                0 passes as a draw
//                                -> flashinfer_sampling_from_probs/edges_top_p/flashinfer
// - flashinfer_ignores_top_k     cases with a `kernel` parameter and a top_k input run with
//                                top_k -1 (no limit): the joint kernel filters by top-p only
//                                -> stats/flashinfer_sampling_from_probs/joint_v16/ (L1)
// - flashinfer_top_k_first_as_joint  cases with a `kernel` and a filter_apply_order parameter
//                                run without it: top_k_first asked, the joint kernel run
//                                -> stats/flashinfer_sampling_from_probs/top_k_first_v16/ L1
// - flashinfer_joint_as_top_k_first  cases with kernel top_k_top_p run with filter_apply_order
//                                "top_k_first": joint asked, top_k_first run
//                                -> stats/flashinfer_sampling_from_probs/joint_order_v16/ L3
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

class FlashinferNanRowValid final : public ExactFaultBackend {
 public:
  FlashinferNanRowValid() : ExactFaultBackend("flashinfer_nan_row_valid") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("valid");
    if (it == out.end() || !out.count("rounds")) return out;
    for (auto& v : it->second.data<std::uint8_t>()) v = 1;  // the NaN row's flag forgotten
    return out;
  }
};

class FlashinferIgnoresTopK final : public ExactFaultBackend {
 public:
  FlashinferIgnoresTopK() : ExactFaultBackend("flashinfer_ignores_top_k") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.inputs.count("top_k")) return c;
    Case wrong = c;
    for (auto& k : wrong.inputs.at("top_k").data<std::int32_t>()) k = -1;  // uint32 2^32 - 1: no limit
    return wrong;
  }
};

// The top_k_first order asked, the joint kernel run (the filter_apply_order parameter
// dropped: joint is the stage's default).
class FlashinferTopKFirstAsJoint final : public ExactFaultBackend {
 public:
  FlashinferTopKFirstAsJoint() : ExactFaultBackend("flashinfer_top_k_first_as_joint") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.params.contains("filter_apply_order")) return c;
    Case wrong = c;
    wrong.params.erase("filter_apply_order");
    return wrong;
  }
};

// The joint order asked (the top_k_top_p kernel without filter_apply_order, or "joint"),
// top_k_first run.
class FlashinferJointAsTopKFirst final : public ExactFaultBackend {
 public:
  FlashinferJointAsTopKFirst() : ExactFaultBackend("flashinfer_joint_as_top_k_first") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || c.params["kernel"] != "top_k_top_p") return c;
    Case wrong = c;
    wrong.params["filter_apply_order"] = "top_k_first";
    return wrong;
  }
};

std::unique_ptr<Backend> MakeFlashinferNanRowValid() { return std::make_unique<FlashinferNanRowValid>(); }

std::unique_ptr<Backend> MakeFlashinferIgnoresTopK() { return std::make_unique<FlashinferIgnoresTopK>(); }

std::unique_ptr<Backend> MakeFlashinferTopKFirstAsJoint() { return std::make_unique<FlashinferTopKFirstAsJoint>(); }

std::unique_ptr<Backend> MakeFlashinferJointAsTopKFirst() { return std::make_unique<FlashinferJointAsTopKFirst>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(FlashinferNanRowValid, {{"flashinfer_nan_row_valid", "FlashInfer's samplers flag a NaN row valid",
        "flashinfer_sampling_from_probs/edges_top_p/flashinfer", "golden"},
       MakeFlashinferNanRowValid});
SAMPCHECK_WRONG_SAMPLER(FlashinferIgnoresTopK, {{"flashinfer_ignores_top_k", "FlashInfer's joint top-k/top-p sampler ignores top_k",
        "stats/flashinfer_sampling_from_probs/joint_v16/", "L1"},
       MakeFlashinferIgnoresTopK});
SAMPCHECK_WRONG_SAMPLER(FlashinferTopKFirstAsJoint, {{"flashinfer_top_k_first_as_joint", "FlashInfer runs the joint top-k/top-p kernel when top_k_first is asked",
        "stats/flashinfer_sampling_from_probs/top_k_first_v16/", "L1"},
       MakeFlashinferTopKFirstAsJoint});
SAMPCHECK_WRONG_SAMPLER(FlashinferJointAsTopKFirst, {{"flashinfer_joint_as_top_k_first", "FlashInfer runs top_k_first when the joint order is asked",
        "stats/flashinfer_sampling_from_probs/joint_order_v16/", "L3"},
       MakeFlashinferJointAsTopKFirst});

}  // namespace sampcheck::statistical
