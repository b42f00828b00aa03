// SPDX-License-Identifier: Apache-2.0
#pragma once
// A backend loaded from a C ABI plugin (include/sampcheck/backend_abi.h,
// docs/spec/plugin_abi.md): `--backend plugin:PATH.so`.
//
// Contract:
// - Loading: dlopen(PATH, RTLD_NOW | RTLD_LOCAL), then the entry symbol sampcheck_backend_v1.
//   A missing file or symbol, a NULL descriptor, an abi_version other than
//   SAMPCHECK_BACKEND_ABI_VERSION, a struct_size below this build's, a NULL run or
//   release_outputs, or a stage list naming an unknown stage or profile: InputError naming the
//   file and the fault (for the version: the plugin's and the supported one).
// - Distributional stages: when the plugin also exports sampcheck_backend_v1_distributional_stages,
//   the stages it names are claimed only in distribution (Capabilities().claims_bitwise false); a name that is
//   not a declared stage, a negative count or a NULL list is an InputError naming the file.
// - Run: inputs are passed as views of the case's tensors; outputs are copied into owned
//   tensors and released through the plugin. A non-zero return code becomes an InputError
//   "plugin error CODE: MESSAGE". An output with an unknown dtype, a negative extent, more
//   than 8 dimensions, nbytes not equal to the shape's byte size, NULL data with nbytes > 0,
//   or a duplicate name is refused with an InputError naming the output. Shape/dtype checks
//   against the stage are the verifier's.
// - Faults inside the plugin (a crash, a hang) are not caught here: wrap the backend in
//   IsolatedBackend (backends/isolated_backend.h).
// Example: PluginBackend p("build/default/examples/plugin/libsampcheck_example_plugin.so");
//   p.Name() == "example-c-plugin"; p.Run("greedy", c) returns {"token": i64 [B]}.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/backend.h"

struct sampcheck_backend;

namespace sampcheck::backends {

class PluginBackend final : public Backend {
 public:
  explicit PluginBackend(const std::filesystem::path& path);
  ~PluginBackend() override;
  PluginBackend(const PluginBackend&) = delete;
  PluginBackend& operator=(const PluginBackend&) = delete;

  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override;
  StageCapabilities Capabilities(const std::string& stage) const override;
  TensorMap Run(const std::string& stage, const Case& c) override;

 private:
  std::filesystem::path path_;
  void* handle_ = nullptr;
  const sampcheck_backend* descriptor_ = nullptr;
  std::string name_;
  std::map<std::string, ProfileSet> profiles_by_stage_;  // declared by name, parsed once
  std::set<std::string> distributional_;  // claimed only in distribution (not bit for bit)
};

}  // namespace sampcheck::backends
