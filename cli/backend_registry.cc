// SPDX-License-Identifier: Apache-2.0
// The backend factory (cli/backend_registry.h).
#include "cli/backend_registry.h"

#include <stdexcept>

#include "backends/exchange_backend.h"
#include "backends/isolated_backend.h"
#include "backends/plugin_backend.h"
#include "core/error.h"
#include "gpu/fast/fast_backend.h"
#include "gpu/backend/gpu_backend.h"
#include "reference/reference_backend.h"
#include "harness/wrong/wrong_samplers.h"

namespace sampcheck::cli {

namespace {

constexpr char kPluginPrefix[] = "plugin:";
constexpr char kExecPrefix[] = "exec:";
constexpr char kWrongPrefix[] = "wrong:";

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A built-in backend or a planted bug; nullptr for any other name.
std::unique_ptr<Backend> MakeInProcess(const std::string& name) {
  if (name == "reference") return std::make_unique<reference::ReferenceBackend>();
  if (name == "gpu-emulated") return gpu::MakeGpuEmulatedBackend();
#if defined(SAMPCHECK_HAVE_CUDA)
  if (name == "gpu") return gpu::MakeCudaBackend();
  if (name == "gpu-fast") return gpu::MakeGpuFastCudaBackend();
#endif
  if (name == "gpu-fast-emulated") return gpu::MakeGpuFastEmulatedBackend();
  if (StartsWith(name, kWrongPrefix)) {
    const std::string bug = name.substr(sizeof kWrongPrefix - 1);
    // The fast kernel's planted filter bugs (gpu/fast/fast_backend.h), then the reference's.
    if (auto fast = gpu::MakeGpuFastWrongBackend(bug)) return fast;
    try {
      return statistical::MakeWrongSampler(bug);
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }
  return nullptr;
}

}  // namespace

// "gpu" and "gpu-fast" exist only in builds with the CUDA parts (SAMPCHECK_HAVE_CUDA, gpu/CMakeLists.txt).
std::vector<std::string> BuiltinBackendNames() {
#if defined(SAMPCHECK_HAVE_CUDA)
  return {"reference", "gpu-emulated", "gpu", "gpu-fast-emulated", "gpu-fast"};
#else
  return {"reference", "gpu-emulated", "gpu-fast-emulated"};
#endif
}

std::unique_ptr<Backend> MakeBackend(const std::string& spec, const BackendOptions& options) {
  if (!(options.case_timeout_s > 0)) throw InputError("--case-timeout must be > 0 seconds");
  if (StartsWith(spec, kPluginPrefix)) {
    const std::string path = spec.substr(sizeof kPluginPrefix - 1);
    if (path.empty()) throw InputError("--backend plugin:PATH needs the plugin's path");
    auto plugin = std::make_unique<backends::PluginBackend>(path);
    if (!options.isolate.value_or(true)) return plugin;
    return std::make_unique<backends::IsolatedBackend>(std::move(plugin), options.case_timeout_s);
  }
  if (StartsWith(spec, kExecPrefix)) {
    return std::make_unique<backends::ExchangeBackend>(spec.substr(sizeof kExecPrefix - 1), options.case_timeout_s);
  }
  auto in_process = MakeInProcess(spec);
  if (!in_process) {
    std::string valid;
    for (const auto& n : BuiltinBackendNames()) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError("unknown backend '" + spec + "'; valid backends: " + valid +
                     ", wrong:NAME, plugin:PATH.so, exec:'COMMAND {cases} {responses}'");
  }
  if (!options.isolate.value_or(false)) return in_process;
  return std::make_unique<backends::IsolatedBackend>(std::move(in_process), options.case_timeout_s);
}

}  // namespace sampcheck::cli
