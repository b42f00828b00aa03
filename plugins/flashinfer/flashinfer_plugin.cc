// SPDX-License-Identifier: Apache-2.0
// FlashInfer's own sampling kernels as a sampcheck backend: the C ABI plugin
// (docs/spec/plugin_abi.md) of docs/peers/flashinfer.md. Declares the catalogue stages and
// profiles that FlashInfer functions implement (the mapping and every gap are in that page),
// checks each case on the host (flashinfer_request.cc), runs it on the device
// (flashinfer_launch.cu) and returns the outputs. Every fault, a missing device included, is the
// case's error (code 1: bad argument, 2: no CUDA device, 3: CUDA or FlashInfer error, 4: out of
// memory on the host), never a crash. CUDA is first touched inside `run`, so a process that
// loads the plugin and forks (sampcheck's isolation) initialises CUDA only in the children.
//
// Use: sampcheck conform --golden golden/v1 --backend plugin:build/default/plugins/flashinfer/libsampcheck_flashinfer_plugin.so
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "plugins/flashinfer/flashinfer_request.h"
#include "sampcheck/backend_abi.h"
#include "sampcheck/plugin_helpers.h"

#define SAMPCHECK_FLASHINFER_EXPORT __attribute__((visibility("default")))

namespace sampcheck::flashinfer_plugin {
namespace {

enum : std::int32_t { kErrBadArgument = 1, kErrNoDevice = 2, kErrCuda = 3, kErrHost = 4 };

// The outputs of one run, owned here until release_outputs.
struct Outputs {
  Result result;
  std::vector<sampcheck_tensor> tensors;
  std::vector<std::vector<std::int64_t>> shapes;
};

// release_outputs gets the tensor array back: find its owner (run is called from one thread at
// a time, docs/spec/plugin_abi.md).
std::map<const sampcheck_tensor*, std::unique_ptr<Outputs>>& Live() {
  static std::map<const sampcheck_tensor*, std::unique_ptr<Outputs>> live;
  return live;
}

void Add(Outputs& o, const char* name, std::int32_t dtype, std::vector<std::int64_t> shape, void* data, std::size_t bytes) {
  o.shapes.push_back(std::move(shape));
  o.tensors.push_back({name, dtype, static_cast<std::int32_t>(o.shapes.back().size()), nullptr, data, bytes});
}

// The catalogue's outputs of the stage, from the launcher's result.
void MakeOutputs(const char* stage, const Request& r, Outputs& o) {
  Result& res = o.result;
  const std::string s = stage;
  o.shapes.reserve(2);
  if (s == "flashinfer_sampling_from_probs" || s == "inverse_cdf" || s == "gumbel_max") {
    res.token.resize(static_cast<std::size_t>(r.rows));
    Add(o, "token", SAMPCHECK_DTYPE_I64, {r.rows}, res.token.data(), res.token.size() * sizeof(std::int64_t));
    // FlashInfer reports no round count: the `rounds` output is left out (the stage is
    // claimed in distribution only, so no golden case compares it).
    if (s == "flashinfer_sampling_from_probs") {
      res.valid.resize(static_cast<std::size_t>(r.rows));
      Add(o, "valid", SAMPCHECK_DTYPE_BOOL, {r.rows}, res.valid.data(), res.valid.size());
    }
  } else if (s == "spec_random") {
    res.token.resize(static_cast<std::size_t>(r.rows * (r.drafts + 1)));
    res.num_accepted.resize(static_cast<std::size_t>(r.rows));
    Add(o, "emitted", SAMPCHECK_DTYPE_I64, {r.rows, r.drafts + 1}, res.token.data(), res.token.size() * sizeof(std::int64_t));
    Add(o, "num_accepted", SAMPCHECK_DTYPE_I64, {r.rows}, res.num_accepted.data(), res.num_accepted.size() * sizeof(std::int64_t));
  } else {
    res.values.resize(static_cast<std::size_t>(r.rows * r.vocab));
    Add(o, s == "softmax" ? "probs" : "logits", SAMPCHECK_DTYPE_F32, {r.rows, r.vocab}, res.values.data(),
        res.values.size() * sizeof(float));
  }
  for (std::size_t i = 0; i < o.tensors.size(); ++i) o.tensors[i].shape = o.shapes[i].data();
}

std::int32_t Run(void* /*context*/, const char* stage, const char* profile, const char* params_json,
                 const sampcheck_tensor* inputs, std::int32_t n_in, sampcheck_tensor** outputs, std::int32_t* n_out,
                 char* error, std::uint64_t error_size) {
  *outputs = nullptr;
  *n_out = 0;
  try {
    Request request;
    if (std::string why = ParseRequest(stage, profile, params_json, inputs, n_in, request); !why.empty()) {
      return sampcheck_plugin_fail(error, error_size, kErrBadArgument, "%s", why.c_str());
    }
    auto o = std::make_unique<Outputs>();
    if (std::string why = Launch(request, o->result); !why.empty()) {
      const bool no_device = why.rfind("no CUDA device", 0) == 0;
      return sampcheck_plugin_fail(error, error_size, no_device ? kErrNoDevice : kErrCuda, "%s: %s", stage, why.c_str());
    }
    // Launch filled the result's vectors; MakeOutputs sizes them to the catalogue's shapes
    // (a no-op for a launched request, the empty outputs for B = 0) and points the views at them.
    MakeOutputs(stage, request, *o);
    *n_out = static_cast<std::int32_t>(o->tensors.size());
    *outputs = o->tensors.data();
    Live().emplace(*outputs, std::move(o));
    return 0;
  } catch (const std::bad_alloc&) {
    return sampcheck_plugin_fail(error, error_size, kErrHost, "%s: out of host memory", stage);
  } catch (const std::exception& e) {
    return sampcheck_plugin_fail(error, error_size, kErrHost, "%s: %s", stage, e.what());
  }
}

void Release(void* /*context*/, sampcheck_tensor* outputs, std::int32_t /*n_out*/) { Live().erase(outputs); }

// docs/peers/flashinfer.md "Mapping": catalogue stage and profile -> FlashInfer function.
const char* const kFlashinfer[] = {"flashinfer"};
const char* const kCanonical[] = {"canonical"};
const sampcheck_stage kStages[] = {
    {"flashinfer_sampling_from_probs", kFlashinfer, 1},  // {top_k_top_p (both orders), top_k, top_p, min_p}_sampling_from_probs
    {"inverse_cdf", kCanonical, 1},                       // sampling_from_probs
    {"gumbel_max", kCanonical, 1},                        // sampling_from_logits
    {"spec_random", kFlashinfer, 1},                      // chain_speculative_sampling
    {"top_k", kFlashinfer, 1},                            // top_k_mask_logits
    {"top_p", kFlashinfer, 1},                            // softmax, top_p_renorm_probs, mask
    {"softmax", kCanonical, 1},                           // softmax
};
// The samplers draw with FlashInfer's own Philox: judged by the statistical harness.
const char* const kDistributional[] = {"flashinfer_sampling_from_probs", "inverse_cdf", "gumbel_max", "spec_random"};

const sampcheck_backend kBackend = {
    SAMPCHECK_BACKEND_ABI_VERSION,
    static_cast<std::uint32_t>(sizeof(sampcheck_backend)),
    "flashinfer",
    kStages,
    static_cast<std::int32_t>(sizeof kStages / sizeof kStages[0]),
    nullptr,
    Run,
    Release,
    nullptr,
};

}  // namespace
}  // namespace sampcheck::flashinfer_plugin

extern "C" SAMPCHECK_FLASHINFER_EXPORT const sampcheck_backend* sampcheck_backend_v1(void) {
  return &sampcheck::flashinfer_plugin::kBackend;
}

extern "C" SAMPCHECK_FLASHINFER_EXPORT std::int32_t sampcheck_backend_v1_distributional_stages(const char* const** stages) {
  *stages = sampcheck::flashinfer_plugin::kDistributional;
  return static_cast<std::int32_t>(sizeof sampcheck::flashinfer_plugin::kDistributional / sizeof(const char*));
}
