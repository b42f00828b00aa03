// SPDX-License-Identifier: Apache-2.0
// Exchange-directory backend (backends/exchange_backend.h).
#include "backends/exchange_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <system_error>

#include <nlohmann/json.hpp>

#include "backends/child_process.h"
#include "backends/exchange_response.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_limits.h"
#include "core/safetensors.h"
#include "core/stage_catalogue.h"

namespace sampcheck::backends {

namespace {

constexpr char kCasesPlaceholder[] = "{cases}";
constexpr char kResponsesPlaceholder[] = "{responses}";
constexpr double kDescribeTimeoutSeconds = 60.0;

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// A temporary directory removed when it goes out of scope.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/sampcheck-exchange-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw InputError(pattern + ": cannot create a temporary directory");
    path_ = pattern;
    RegisterLiveDirectory(path_.string());
  }
  ~TemporaryDirectory() {
    UnregisterLiveDirectory(path_.string());
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (!ec) return;
    // A backend that took away write or search permission from its directories: give them
    // back (everything inside is ours), then remove again.
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    for (auto it = std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code ignored;
      if (it->is_directory(ignored) && !it->is_symlink(ignored)) {
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ignored);
      }
    }
    std::filesystem::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string FileStem(std::size_t i) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "%04zu", i);
  return stem;
}

// Golden-format case bytes without expected outputs (docs/spec/golden.md "Case files").
std::string SerializeRequestCase(const Case& c) {
  TensorMap tensors;
  for (const auto& [name, t] : c.inputs) tensors.emplace("in." + name, t);
  const nlohmann::json meta = {
      {"id", c.id}, {"stage", c.stage}, {"profile", ProfileName(c.profile)}, {"params", c.params}};
  return SerializeSafetensors(tensors, {{"sampcheck.case", meta.dump()}});
}

}  // namespace

ExchangeBackend::ExchangeBackend(std::string command_template, double case_timeout_s)
    : command_template_(std::move(command_template)), case_timeout_s_(case_timeout_s) {
  if (command_template_.find(kCasesPlaceholder) == std::string::npos ||
      command_template_.find(kResponsesPlaceholder) == std::string::npos) {
    throw InputError("exec backend command '" + command_template_ + "' must contain both {cases} and {responses}");
  }
  if (!(case_timeout_s_ > 0)) throw InputError("the case time limit must be > 0 seconds");
  std::string text;
  Exchange("describe", {}, &text);
  const std::string what = "backend.json of exec backend '" + command_template_ + "'";
  nlohmann::json d;
  try {
    d = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(what + " is not valid JSON: " + e.what());
  }
  if (!d.is_object() || !d.contains("name") || !d["name"].is_string() || !d.contains("stages") ||
      !d["stages"].is_object()) {
    throw InputError(what + " must be an object with a string \"name\" and an object \"stages\"");
  }
  name_ = d["name"].get<std::string>();
  for (const auto& [stage, profiles] : d["stages"].items()) {
    const StageInfo& info = RequireStage(stage);
    if (!profiles.is_array() || profiles.empty()) {
      throw InputError(what + ": stage '" + stage + "' must list its profiles");
    }
    for (const auto& p : profiles) {
      if (!p.is_string()) throw InputError(what + ": stage '" + stage + "' has a profile that is not a string");
      profiles_by_stage_[stage].Add(RequireStageProfile(info, p.get<std::string>()));
    }
  }
  if (d.contains("count_draws")) {
    if (!d["count_draws"].is_array()) throw InputError(what + ": \"count_draws\" must be an array of stage names");
    for (const auto& s : d["count_draws"]) {
      if (!s.is_string()) throw InputError(what + ": \"count_draws\" must be an array of stage names");
      RequireStage(s.get<std::string>());
      draw_stages_.insert(s.get<std::string>());
    }
  }
}

std::vector<std::string> ExchangeBackend::SupportedStages() const {
  std::vector<std::string> out;
  for (const auto& [stage, profiles] : profiles_by_stage_) out.push_back(stage);
  return out;
}

StageCapabilities ExchangeBackend::Capabilities(const std::string& stage) const {
  auto it = profiles_by_stage_.find(stage);
  return {.profiles = it == profiles_by_stage_.end() ? ProfileSet{} : it->second,
          .count_draws = draw_stages_.contains(stage)};
}

std::vector<Backend::CaseOutcome> ExchangeBackend::Exchange(const std::string& request,
                                                            const std::vector<Request>& requests,
                                                            std::string* backend_json) {
  // The time limit covers the whole exchange: writing the cases, the command, and reading
  // its responses.
  const auto started = std::chrono::steady_clock::now();
  TemporaryDirectory tmp;
  const auto cases_dir = tmp.path() / "cases";
  const auto responses_dir = tmp.path() / "responses";
  std::filesystem::create_directories(cases_dir);
  std::filesystem::create_directories(responses_dir);
  nlohmann::json entries = nlohmann::json::array();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& q = requests[i];
    const std::string file = FileStem(i) + ".safetensors";
    WriteFileAtomically(cases_dir / file, SerializeRequestCase(*q.c), /*sync_to_disk=*/false);
    nlohmann::json e = {{"id", q.c->id}, {"stage", q.c->stage}, {"profile", ProfileName(q.c->profile)}, {"file", file}};
    if (q.draws > 0) {
      e["draws"] = q.draws;
      e["seed"] = q.seed;
    }
    entries.push_back(std::move(e));
  }
  const nlohmann::json manifest = {{"format", kExchangeFormatName},
                                   {"format_version", kExchangeFormatVersion},
                                   {"request", request},
                                   {"cases", entries}};
  WriteFileAtomically(cases_dir / "manifest.json", manifest.dump(2) + "\n", /*sync_to_disk=*/false);

  std::string command = ReplaceAll(command_template_, kCasesPlaceholder, ShellQuote(cases_dir.string()));
  command = ReplaceAll(command, kResponsesPlaceholder, ShellQuote(responses_dir.string()));
  // A describe request starts the interpreter and its libraries only: give it at least
  // kDescribeTimeoutSeconds whatever the per-case limit.
  const double timeout_s = backend_json != nullptr
                               ? std::max(case_timeout_s_, kDescribeTimeoutSeconds)
                               : case_timeout_s_ * static_cast<double>(std::max<std::size_t>(requests.size(), 1));
  const auto deadline = started + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
  const double left_s = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  const CommandResult run = RunShellCommand(command, std::max(left_s, 1e-3));
  std::string failure;
  if (!run.succeeded()) {
    // A time-out names the invocation's whole limit, not what was left of it when the command started.
    failure = "exec backend command " + (run.timed_out ? "timed out after " + SecondsText(timeout_s) : run.how_it_ended);
    std::string tail = run.output_tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    if (!tail.empty()) failure += "; its output ends: " + tail;
  }
  if (backend_json != nullptr) {
    if (!failure.empty()) throw InputError(failure);
    const auto path = responses_dir / "backend.json";
    if (!std::filesystem::exists(path)) {
      throw InputError("exec backend '" + command_template_ + "' wrote no backend.json for the describe request");
    }
    *backend_json = ReadBoundedFile(path, MaxResponseBytes(), kMaxResponseBytesVariable);
    return {};
  }
  std::vector<CaseOutcome> outcomes(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string stem = FileStem(i);
    const bool answered = std::filesystem::exists(responses_dir / (stem + ".safetensors")) ||
                          std::filesystem::exists(responses_dir / (stem + ".error"));
    if (!answered && !failure.empty()) {
      outcomes[i].error = CapReason(failure);
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      outcomes[i].error = "timed out after " + SecondsText(timeout_s) + " (while reading the responses)";
      continue;
    }
    outcomes[i] = ReadExchangeResponse(responses_dir, stem, *requests[i].c, requests[i].draws);
  }
  return outcomes;
}

TensorMap ExchangeBackend::Run(const std::string& stage, const Case& c) {
  auto outcomes = RunBatch(stage, {&c}, {});
  if (!outcomes[0].error.empty()) throw InputError(outcomes[0].error);
  return std::move(outcomes[0].outputs);
}

std::vector<Backend::CaseOutcome> ExchangeBackend::RunBatch(const std::string& stage,
                                                            const std::vector<const Case*>& cases,
                                                            const OutcomeCallback& on_outcome) {
  std::vector<Request> requests;
  for (const Case* c : cases) {
    if (c->stage != stage) throw InputError("case '" + c->id + "' is not of stage '" + stage + "'");
    requests.push_back({c});
  }
  auto outcomes = Exchange("run", requests, nullptr);
  for (std::size_t i = 0; on_outcome && i < outcomes.size(); ++i) on_outcome(i, outcomes[i]);
  return outcomes;
}

Tensor ExchangeBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  if (!draw_stages_.contains(stage)) return Backend::CountDraws(stage, c, draws, seed);
  if (draws <= 0) throw InputError("the number of draws must be positive");
  auto outcomes = Exchange("run", {{&c, draws, seed}}, nullptr);
  CaseOutcome& o = outcomes.at(0);
  if (!o.error.empty()) throw InputError(o.error);
  return CheckDrawCounts(std::move(o.outputs), c, draws);
}

}  // namespace sampcheck::backends
