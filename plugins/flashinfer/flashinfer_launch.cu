// SPDX-License-Identifier: Apache-2.0
// Runs one checked request through FlashInfer's own header-only kernels
// (plugins/flashinfer/flashinfer_request.h; docs/peers/flashinfer.md "The adapter"). Each call is
// made with the arguments FlashInfer's binding layer passes (csrc/sampling.cu at the commit
// docs/peers.md names): float probabilities, int32 ids, per-row parameter arrays, no `indices`,
// scalar seed and offset; the top-k radix kernels get a zeroed 1 MiB row-state buffer and the
// softmax a 1 MiB workspace, as python/flashinfer/sampling.py allocates them. No FlashInfer
// source is copied here: the include folder comes from SAMPCHECK_FLASHINFER_INCLUDE_DIR.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include <flashinfer/sampling.cuh>
#include <flashinfer/topk.cuh>

#include "plugins/flashinfer/flashinfer_chains.h"
#include "plugins/flashinfer/flashinfer_request.h"

namespace sampcheck::flashinfer_plugin {
namespace {

namespace fi = ::flashinfer::sampling;

constexpr std::size_t kScratchBytes = kChainScratchBytes;  // python/sampling.py: 1 MB buffers

std::string CudaReason(const char* what, cudaError_t e) {
  return std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// Device buffers freed on every path; the first CUDA error is kept with the call it came from.
class Session {
 public:
  ~Session() {
    for (void* p : owned_) cudaFree(p);
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  bool Check(cudaError_t e, const char* what) {
    if (e != cudaSuccess && error_.empty()) error_ = CudaReason(what, e);
    return error_.empty();
  }

  template <typename T>
  T* Alloc(std::size_t n) {
    void* p = nullptr;
    if (!ok() || !Check(cudaMalloc(&p, (n > 0 ? n : 1) * sizeof(T)), "cudaMalloc")) return nullptr;
    owned_.push_back(p);
    return static_cast<T*>(p);
  }

  template <typename T>
  T* Upload(const std::vector<T>& host) {
    T* d = Alloc<T>(host.size());
    if (d != nullptr && !host.empty()) Check(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
    return ok() ? d : nullptr;
  }

  template <typename T>
  T* Zeroed(std::size_t n) {
    T* d = Alloc<T>(n);
    if (d != nullptr) Check(cudaMemset(d, 0, n * sizeof(T)), "cudaMemset");
    return ok() ? d : nullptr;
  }

  template <typename T>
  bool Download(const T* device, std::vector<T>& host, std::size_t n) {
    host.resize(n);
    if (!ok() || n == 0) return ok();
    return Check(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  }

  // A FlashInfer host function's own status, then the kernel's (launch and execution).
  bool Call(cudaError_t status, const char* function) {
    if (!Check(status, function)) return false;
    if (!Check(cudaGetLastError(), function)) return false;
    return Check(cudaDeviceSynchronize(), function);
  }

 private:
  std::vector<void*> owned_;
  std::string error_;
};

std::string RequireDevice() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  }
  if (count < 1) return "no CUDA device: cudaGetDeviceCount found 0 devices";
  return {};
}

void Widen(const std::vector<std::int32_t>& in, std::vector<std::int64_t>& out) { out.assign(in.begin(), in.end()); }

// The sampling kernels' outputs: int32 token and bool valid per row.
bool SamplingOutputs(Session& s, const int* token, const bool* valid, std::int64_t rows, Result& result) {
  std::vector<std::int32_t> t;
  std::vector<unsigned char> v(static_cast<std::size_t>(rows));
  if (!s.Download(token, t, static_cast<std::size_t>(rows))) return false;
  if (rows > 0 && !s.Check(cudaMemcpy(v.data(), valid, v.size(), cudaMemcpyDeviceToHost), "cudaMemcpy from the device")) return false;
  Widen(t, result.token);
  result.valid.assign(v.begin(), v.end());
  return true;
}

}  // namespace

std::string Launch(const Request& r, Result& result) {
  if (std::string why = RequireDevice(); !why.empty()) return why;
  result = Result{};
  const auto b = static_cast<std::uint32_t>(r.rows);
  const auto d = static_cast<std::uint32_t>(r.vocab);
  const std::size_t cells = static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(r.vocab);
  if (r.rows == 0) return {};  // nothing to launch (a grid of 0 blocks is an error); empty outputs
  Session s;
  const std::uint64_t seed = r.seed;
  const std::uint64_t offset = r.offset;
  switch (r.call) {
    case Call::kSamplingFromProbs:
    case Call::kTopKTopPSamplingJoint:
    case Call::kTopKTopPSamplingTopKFirst:
    case Call::kTopKSampling:
    case Call::kTopPSampling:
    case Call::kMinPSampling: {
      float* probs = s.Upload(r.values);
      int* top_k = r.top_k.empty() ? nullptr : s.Upload(r.top_k);
      float* top_p = r.top_p.empty() ? nullptr : s.Upload(r.top_p);
      float* min_p = r.min_p.empty() ? nullptr : s.Upload(r.min_p);
      int* token = s.Zeroed<int>(b);
      bool* valid = s.Zeroed<bool>(b);
      if (!s.ok()) return s.error();
      if (r.call == Call::kSamplingFromProbs) {
        s.Call(fi::SamplingFromProb<float, int>(probs, token, valid, nullptr, b, d, r.deterministic, nullptr, seed, nullptr, offset),
               "flashinfer::sampling::SamplingFromProb");
      } else if (r.call == Call::kTopKTopPSamplingJoint) {
        s.Call(fi::TopKTopPSamplingFromProb<float, int>(probs, top_k, top_p, token, valid, nullptr, b, 0, 0.0f, d, r.deterministic,
                                                        nullptr, seed, nullptr, offset),
               "flashinfer::sampling::TopKTopPSamplingFromProb");
      } else if (r.call == Call::kTopKTopPSamplingTopKFirst) {
        // top_k_top_p_sampling_from_probs(filter_apply_order="top_k_first"): top_k_renorm_probs,
        // then top_p_sampling_from_probs on the renormalised rows with the same seed and offset.
        float* renormed = s.Alloc<float>(cells);
        void* row_states = s.Zeroed<unsigned char>(kScratchBytes);
        if (!s.ok()) return s.error();
        s.Call(::flashinfer::sampling::RadixTopKRenormProbMultiCTA<float, int>(
                   probs, renormed, top_k, b, 0, d, static_cast<::flashinfer::sampling::RadixRowState*>(row_states)),
               "flashinfer::sampling::RadixTopKRenormProbMultiCTA");
        if (s.ok()) {
          s.Call(fi::TopPSamplingFromProb<float, int>(renormed, token, valid, nullptr, top_p, b, 0.0f, d, r.deterministic, nullptr,
                                                      seed, nullptr, offset),
                 "flashinfer::sampling::TopPSamplingFromProb");
        }
      } else if (r.call == Call::kTopKSampling) {
        // csrc/sampling.cu top_k_sampling_from_probs passes the int32 top_k array through the
        // float* parameter; the kernel reads it as int32 again.
        s.Call(fi::TopKSamplingFromProb<float, int>(probs, token, valid, nullptr, reinterpret_cast<float*>(top_k), b, 0, d,
                                                    r.deterministic, nullptr, seed, nullptr, offset),
               "flashinfer::sampling::TopKSamplingFromProb");
      } else if (r.call == Call::kTopPSampling) {
        s.Call(fi::TopPSamplingFromProb<float, int>(probs, token, valid, nullptr, top_p, b, 0.0f, d, r.deterministic, nullptr, seed,
                                                    nullptr, offset),
               "flashinfer::sampling::TopPSamplingFromProb");
      } else {
        s.Call(fi::MinPSamplingFromProb<float, int>(probs, min_p, token, valid, nullptr, b, 0.0f, d, r.deterministic, nullptr, seed,
                                                    nullptr, offset),
               "flashinfer::sampling::MinPSamplingFromProb");
      }
      if (!s.ok() || !SamplingOutputs(s, token, valid, r.rows, result)) return s.error();
      return {};
    }
    case Call::kSamplingFromLogits: {
      float* logits = s.Upload(r.values);
      int* token = s.Zeroed<int>(b);
      if (!s.ok()) return s.error();
      s.Call(fi::SamplingFromLogits<float, int>(logits, token, nullptr, b, d, r.deterministic, nullptr, seed, nullptr, offset),
             "flashinfer::sampling::SamplingFromLogits");
      std::vector<std::int32_t> t;
      if (!s.Download(token, t, b)) return s.error();
      Widen(t, result.token);
      return {};
    }
    case Call::kTopKMaskLogits: {
      float* logits = s.Upload(r.values);
      int* top_k = s.Upload(r.top_k);
      float* masked = s.Alloc<float>(cells);
      void* row_states = s.Zeroed<unsigned char>(kScratchBytes);
      if (!s.ok()) return s.error();
      s.Call(::flashinfer::sampling::RadixTopKMaskLogitsMultiCTA<float, int>(
                 logits, masked, top_k, b, 0, d, static_cast<::flashinfer::sampling::RadixRowState*>(row_states)),
             "flashinfer::sampling::RadixTopKMaskLogitsMultiCTA");
      if (!s.Download(masked, result.values, cells)) return s.error();
      return {};
    }
    case Call::kSoftmax: {
      float* logits = s.Upload(r.values);
      float* temperature = r.temperature.empty() ? nullptr : s.Upload(r.temperature);
      float* probs = s.Alloc<float>(cells);
      void* workspace = s.Zeroed<unsigned char>(kScratchBytes);
      int device = 0, major = 0;
      if (!s.ok() || !s.Check(cudaGetDevice(&device), "cudaGetDevice") ||
          !s.Check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute")) {
        return s.error();
      }
      // python/sampling.py softmax: temperature 1.0 when none is given; enable_pdl from
      // device_support_pdl (compute capability 9 and above).
      s.Call(fi::OnlineSoftmax<float>(logits, probs, b, d, temperature, 1.0f, workspace, kScratchBytes, major >= 9),
             "flashinfer::sampling::OnlineSoftmax");
      if (!s.ok() || !s.Download(probs, result.values, cells)) return s.error();
      return {};
    }
    case Call::kTopPRenormMask: {
      // top_p on logits: top_p_renorm_probs(torch.softmax(logits)) (the softmax computed on the
      // host, flashinfer_request.cc), then the mask read off its output on the host
      // (TopPMaskedLogits, flashinfer_top_p_mask.cc).
      float* probs = s.Upload(r.probs);
      float* top_p = s.Upload(r.top_p);
      float* renormed = s.Alloc<float>(cells);
      if (!s.ok()) return s.error();
      s.Call(fi::TopPRenormProb<float>(probs, renormed, top_p, b, 0.0f, d), "flashinfer::sampling::TopPRenormProb");
      std::vector<float> kept;
      if (!s.Download(renormed, kept, cells)) return s.error();
      result.values = TopPMaskedLogits(r, kept);
      return {};
    }
    case Call::kChainSpeculativeSampling: {
      // One call per draft count (SpecCalls, flashinfer_spec_calls.cc): every row full is one call.
      result.token.assign(static_cast<std::size_t>(r.rows * (r.drafts + 1)), -1);
      result.num_accepted.assign(static_cast<std::size_t>(r.rows), 0);
      for (const SpecCall& call : SpecCalls(r)) {
        const auto rows = static_cast<std::uint32_t>(call.rows.size());
        const auto k = static_cast<std::uint32_t>(call.drafts);
        float* draft_probs = s.Upload(call.draft_probs);
        int* draft_ids = s.Upload(call.draft_ids);
        float* target_probs = s.Upload(call.target_probs);
        int* emitted = s.Zeroed<int>(static_cast<std::size_t>(rows) * (k + 1));
        int* accepted = s.Zeroed<int>(rows);  // python/sampling.py: torch.zeros, the kernel adds to it
        int* emitted_drafts = s.Zeroed<int>(rows);
        if (!s.ok()) return s.error();
        s.Call(fi::ChainSpeculativeSampling<float, int>(draft_probs, draft_ids, target_probs, emitted, accepted, emitted_drafts, rows, k,
                                                        d, r.deterministic, nullptr, seed, nullptr, call.offset),
               "flashinfer::sampling::ChainSpeculativeSampling");
        std::vector<std::int32_t> tokens, n_emitted;
        if (!s.Download(emitted, tokens, static_cast<std::size_t>(rows) * (k + 1)) || !s.Download(emitted_drafts, n_emitted, rows)) {
          return s.error();
        }
        // The catalogue's num_accepted is the accepted prefix: FlashInfer's
        // output_emitted_draft_token_num (its output_accepted_token_num also counts drafts after
        // the first rejection that would have passed).
        ScatterSpecCall(r, call, tokens, n_emitted, result);
      }
      return {};
    }
  }
  return "unknown request";
}

// The chains of flashinfer_chains.h: the calls below are the ones Launch makes for the same
// Python functions, composed as top_k_top_p_sampling_from_logits composes them.
cudaError_t TopKFirstChain(float* logits, int* top_k, float* top_p, std::uint32_t rows, std::uint32_t vocab,
                           bool deterministic, std::uint64_t seed, std::uint64_t offset, const ChainBuffers& buffers) {
  cudaError_t e = ::flashinfer::sampling::RadixTopKMaskLogitsMultiCTA<float, int>(
      logits, buffers.masked_logits, top_k, rows, 0, vocab,
      static_cast<::flashinfer::sampling::RadixRowState*>(buffers.row_states));
  if (e != cudaSuccess) return e;
  e = fi::OnlineSoftmax<float>(buffers.masked_logits, buffers.probs, rows, vocab, nullptr, 1.0f, buffers.workspace,
                               kChainScratchBytes, buffers.enable_pdl);
  if (e != cudaSuccess) return e;
  return fi::TopPSamplingFromProb<float, int>(buffers.probs, buffers.token, buffers.valid, nullptr, top_p, rows, 0.0f, vocab,
                                              deterministic, nullptr, seed, nullptr, offset);
}

cudaError_t JointChain(float* logits, int* top_k, float* top_p, std::uint32_t rows, std::uint32_t vocab,
                       bool deterministic, std::uint64_t seed, std::uint64_t offset, const ChainBuffers& buffers) {
  const cudaError_t e = fi::OnlineSoftmax<float>(logits, buffers.probs, rows, vocab, nullptr, 1.0f, buffers.workspace,
                                                 kChainScratchBytes, buffers.enable_pdl);
  if (e != cudaSuccess) return e;
  return fi::TopKTopPSamplingFromProb<float, int>(buffers.probs, top_k, top_p, buffers.token, buffers.valid, nullptr, rows, 0,
                                                  0.0f, vocab, deterministic, nullptr, seed, nullptr, offset);
}

}  // namespace sampcheck::flashinfer_plugin
