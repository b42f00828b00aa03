// SPDX-License-Identifier: Apache-2.0
#pragma once
// An out-of-process backend driven through exchange directories (docs/spec/exchange.md):
// `--backend exec:'CMD {cases} {responses}'`.
//
// Contract:
// - The command is run by /bin/sh -c with {cases} and {responses} replaced by the two
//   directories' absolute paths, single-quoted for the shell; both placeholders must appear.
// - Construction sends a "describe" request and reads responses/backend.json: the backend's
//   name, its stages with their profiles, and the stages it can draw with its own randomness.
//   A command that fails, or a missing or malformed backend.json: InputError naming the file
//   or the command's status and output.
// - RunBatch writes the group's cases (golden-format safetensors without out.* tensors) and a
//   manifest, runs the command once, and reads responses/NNNN.safetensors (out.NAME tensors)
//   or responses/NNNN.error per case. A case with neither fails ("no response"), as does one
//   whose response is malformed; when the command itself failed or timed out, the cases
//   without a response fail with its status and the tail of its output.
// - The command has case_timeout_s seconds per case in the invocation (for the describe
//   request, max(case_timeout_s, 60 s)), covering the whole exchange: writing the cases, the
//   command, and reading the responses (backends/exchange_response.h: regular files within
//   the response cap, headers checked before data). Past that its process group is killed.
//   Reading the command's output stops at its exit (backends/child_process.h).
// - CountDraws sends one case with "draws" and "seed"; the response's out.counts must be i64
//   [rows, V] with every row summing to draws.
// - The exchange directories live in a fresh temporary directory per invocation and are
//   removed on every path (permissions the command took away are restored first; a SIGINT,
//   SIGTERM or SIGHUP to sampcheck removes them too).
// Example: ExchangeBackend b("python3 examples/python_backend/backend.py {cases} {responses}", 60);
//   b.SupportedStages() == {"greedy", "temperature", ...} as the script describes them.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/backend.h"

namespace sampcheck::backends {

inline constexpr char kExchangeFormatName[] = "sampcheck-exchange";
inline constexpr int kExchangeFormatVersion = 1;

class ExchangeBackend final : public Backend {
 public:
  ExchangeBackend(std::string command_template, double case_timeout_s);

  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override;
  StageCapabilities Capabilities(const std::string& stage) const override;
  TensorMap Run(const std::string& stage, const Case& c) override;
  std::vector<CaseOutcome> RunBatch(const std::string& stage, const std::vector<const Case*>& cases,
                                    const OutcomeCallback& on_outcome) override;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override;

 private:
  struct Request {
    const Case* c;
    std::int64_t draws = 0;  // > 0: a draw request
    std::uint64_t seed = 0;
  };
  std::vector<CaseOutcome> Exchange(const std::string& request, const std::vector<Request>& requests,
                                    std::string* backend_json);

  std::string command_template_;
  double case_timeout_s_;
  std::string name_;
  std::map<std::string, ProfileSet> profiles_by_stage_;  // declared by name, parsed once
  std::set<std::string> draw_stages_;
};

}  // namespace sampcheck::backends
