// SPDX-License-Identifier: Apache-2.0
// C ABI plugin backend (backends/plugin_backend.h).
#include "backends/plugin_backend.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "backends/plugin_output.h"
#include "core/error.h"
#include "core/input_limits.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "sampcheck/backend_abi.h"

namespace sampcheck::backends {

// The C enum mirrors core/dtype.h: a plugin's dtype values are DType values.
static_assert(SAMPCHECK_DTYPE_F32 == static_cast<int>(DType::kF32));
static_assert(SAMPCHECK_DTYPE_F16 == static_cast<int>(DType::kF16));
static_assert(SAMPCHECK_DTYPE_BF16 == static_cast<int>(DType::kBF16));
static_assert(SAMPCHECK_DTYPE_I32 == static_cast<int>(DType::kI32));
static_assert(SAMPCHECK_DTYPE_I64 == static_cast<int>(DType::kI64));
static_assert(SAMPCHECK_DTYPE_U8 == static_cast<int>(DType::kU8));
static_assert(SAMPCHECK_DTYPE_BOOL == static_cast<int>(DType::kBool));
static_assert(SAMPCHECK_DTYPE_F64 == static_cast<int>(DType::kF64));

namespace {

constexpr std::size_t kErrorBufferBytes = 4096;

// A plugin that calls exit() inside run (--no-isolate) would end sampcheck with the plugin's
// status, 0 included, before any verdict is printed: an incomplete run that looks like a pass.
// While a plugin's run is on the stack this names the plugin and the case; an atexit handler
// then turns any exit into status 2 with a message. (_exit and quick_exit bypass atexit: only
// isolation, the default, guards against those.)
// Only in the process that loaded the plugin: in an isolated child (fork) the plugin's exit
// status is the child's, reported as "exited with status N while running this case".
std::atomic<bool> g_inside_run{false};
std::atomic<pid_t> g_loading_process{-1};
char g_running_what[512];

void ExitDuringRun() {
  if (!g_inside_run.load() || ::getpid() != g_loading_process.load()) return;
  static const char kPrefix[] = "sampcheck: error: the plugin ended the process (exit) while running ";
  static const char kSuffix[] = "; the run is incomplete (run plugins isolated, the default, to keep going)\n";
  (void)!::write(STDERR_FILENO, kPrefix, sizeof kPrefix - 1);
  (void)!::write(STDERR_FILENO, g_running_what, std::strlen(g_running_what));
  (void)!::write(STDERR_FILENO, kSuffix, sizeof kSuffix - 1);
  ::_exit(2);
}

// Marks a plugin run in progress for ExitDuringRun.
class RunGuard {
 public:
  RunGuard(const std::string& plugin, const std::string& case_id) {
    std::snprintf(g_running_what, sizeof g_running_what, "case '%s' of plugin '%s'", case_id.c_str(), plugin.c_str());
    g_inside_run.store(true);
  }
  ~RunGuard() { g_inside_run.store(false); }
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
};

std::string CString(const char* s, const std::string& what) {
  if (s == nullptr) throw InputError(what + " is NULL");
  return s;
}

}  // namespace

PluginBackend::PluginBackend(const std::filesystem::path& path) : path_(path) {
  static const bool registered = std::atexit(ExitDuringRun) == 0;
  (void)registered;
  g_loading_process.store(::getpid());
  const std::string where = path.string() + ": ";
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    throw InputError(where + "cannot load plugin: " + (why ? why : "dlopen failed"));
  }
  try {
    void* symbol = ::dlsym(handle_, SAMPCHECK_BACKEND_ENTRY_SYMBOL);
    if (symbol == nullptr) {
      throw InputError(where + "not a sampcheck plugin: it does not export " SAMPCHECK_BACKEND_ENTRY_SYMBOL);
    }
    const auto entry = reinterpret_cast<sampcheck_backend_entry_fn>(symbol);
    descriptor_ = entry();
    if (descriptor_ == nullptr) throw InputError(where + SAMPCHECK_BACKEND_ENTRY_SYMBOL "() returned NULL");
    // Read the version before any other field: a plugin of another version may lay them out
    // differently.
    if (descriptor_->abi_version != SAMPCHECK_BACKEND_ABI_VERSION) {
      throw InputError(where + "plugin ABI version " + std::to_string(descriptor_->abi_version) +
                       " is not supported; this sampcheck supports ABI version " +
                       std::to_string(SAMPCHECK_BACKEND_ABI_VERSION));
    }
    if (descriptor_->struct_size < sizeof(sampcheck_backend)) {
      throw InputError(where + "plugin descriptor struct_size " + std::to_string(descriptor_->struct_size) +
                       " is smaller than ABI version 1's " + std::to_string(sizeof(sampcheck_backend)));
    }
    if (descriptor_->run == nullptr || descriptor_->release_outputs == nullptr) {
      throw InputError(where + "plugin descriptor has a NULL run or release_outputs");
    }
    name_ = CString(descriptor_->name, where + "plugin name");
    if (descriptor_->n_stages < 0 || (descriptor_->n_stages > 0 && descriptor_->stages == nullptr)) {
      throw InputError(where + "plugin stage list is invalid (n_stages " + std::to_string(descriptor_->n_stages) + ")");
    }
    for (std::int32_t i = 0; i < descriptor_->n_stages; ++i) {
      const sampcheck_stage& s = descriptor_->stages[i];
      const std::string stage = CString(s.name, where + "plugin stage " + std::to_string(i));
      const StageInfo& info = RequireStage(stage);
      if (s.n_profiles < 1 || s.profiles == nullptr) {
        throw InputError(where + "plugin stage '" + stage + "' lists no profile");
      }
      auto& profiles = profiles_by_stage_[stage];
      for (std::int32_t k = 0; k < s.n_profiles; ++k) {
        const std::string profile = CString(s.profiles[k], where + "plugin stage '" + stage + "' profile");
        try {
          profiles.Add(RequireStageProfile(info, profile));
        } catch (const InputError& e) {
          throw InputError(where + "plugin stage '" + stage + "': " + e.what());
        }
      }
    }
    // The optional second export: stages claimed only in distribution.
    if (void* claims = ::dlsym(handle_, SAMPCHECK_BACKEND_DISTRIBUTIONAL_SYMBOL)) {
      const char* const* names = nullptr;
      const std::int32_t n = reinterpret_cast<sampcheck_backend_distributional_fn>(claims)(&names);
      if (n < 0 || (n > 0 && names == nullptr)) {
        throw InputError(where + SAMPCHECK_BACKEND_DISTRIBUTIONAL_SYMBOL "() returned an invalid list (count " +
                         std::to_string(n) + ")");
      }
      for (std::int32_t i = 0; i < n; ++i) {
        const std::string stage = CString(names[i], where + "distributional stage " + std::to_string(i));
        if (!profiles_by_stage_.contains(stage)) {
          throw InputError(where + "distributional stage '" + stage + "' is not one of the plugin's declared stages");
        }
        distributional_.insert(stage);
      }
    }
  } catch (...) {
    if (descriptor_ != nullptr && descriptor_->abi_version == SAMPCHECK_BACKEND_ABI_VERSION &&
        descriptor_->struct_size >= sizeof(sampcheck_backend) && descriptor_->destroy != nullptr) {
      descriptor_->destroy(descriptor_->context);
    }
    ::dlclose(handle_);
    throw;
  }
}

PluginBackend::~PluginBackend() {
  if (descriptor_ != nullptr && descriptor_->destroy != nullptr) descriptor_->destroy(descriptor_->context);
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::vector<std::string> PluginBackend::SupportedStages() const {
  std::vector<std::string> out;
  for (const auto& [stage, profiles] : profiles_by_stage_) out.push_back(stage);
  return out;
}

StageCapabilities PluginBackend::Capabilities(const std::string& stage) const {
  auto it = profiles_by_stage_.find(stage);
  return {.profiles = it == profiles_by_stage_.end() ? ProfileSet{} : it->second,
          .claims_bitwise = !distributional_.contains(stage)};
}

TensorMap PluginBackend::Run(const std::string& stage, const Case& c) {
  std::vector<sampcheck_tensor> inputs;
  inputs.reserve(c.inputs.size());
  for (const auto& [name, t] : c.inputs) {
    inputs.push_back({name.c_str(), static_cast<std::int32_t>(t.dtype()), static_cast<std::int32_t>(t.rank()),
                      t.shape().data(), const_cast<std::byte*>(t.bytes().data()), t.nbytes()});
  }
  const std::string params = c.params.dump();
  sampcheck_tensor* outputs = nullptr;
  std::int32_t n_out = 0;
  std::string error(kErrorBufferBytes, '\0');
  std::int32_t code;
  {
    const RunGuard guard(path_.string(), c.id);
    code = descriptor_->run(descriptor_->context, stage.c_str(), std::string(ProfileName(c.profile)).c_str(),
                            params.c_str(), inputs.data(), static_cast<std::int32_t>(inputs.size()), &outputs, &n_out,
                            error.data(), error.size());
  }
  // Copy first, release always (also on failure), then report.
  TensorMap result;
  std::string fault;
  if (code == 0) {
    if (n_out < 0 || (n_out > 0 && outputs == nullptr)) {
      fault = "plugin returned an invalid output list (n_out " + std::to_string(n_out) + ")";
    }
    for (std::int32_t i = 0; fault.empty() && i < n_out; ++i) {
      try {
        const std::string name = CString(outputs[i].name, "plugin output " + std::to_string(i) + "'s name");
        if (result.contains(name)) throw InputError("plugin returned output '" + name + "' twice");
        result.emplace(name, CopyPluginOutput(outputs[i], path_.string() + ": plugin output '" + name + "'"));
      } catch (const InputError& e) {
        fault = e.what();
      }
    }
  }
  if (outputs != nullptr) descriptor_->release_outputs(descriptor_->context, outputs, n_out);
  if (code != 0) {
    error.back() = '\0';  // a message that filled the buffer is cut, never read past
    const std::string message = error.c_str();
    throw InputError("plugin error " + std::to_string(code) + ": " + (message.empty() ? "(no message)" : message));
  }
  if (!fault.empty()) throw InputError(fault);
  return result;
}

}  // namespace sampcheck::backends
