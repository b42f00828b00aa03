// SPDX-License-Identifier: Apache-2.0
// The sampcheck command line (docs/spec/cli.md): stages, golden generate, golden verify,
// conform, render, gate. Exit status: 0 success, 1 a check failed, 2 bad usage or bad input.
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/backend_registry.h"
#include "cli/default_golden.h"
#include "cli/gate_command.h"
#include "cli/option_checks.h"
#include "cli/progress_bar.h"
#include "cli/render_command.h"
#include "cli/stats_command.h"
#include "core/comparison.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "core/stage_catalogue.h"
#include "golden/generator.h"
#include "golden/verifier.h"
#include "harness/conform.h"
#include "reference/row_threads.h"
#include "reports/conform_report.h"
#include "reports/report_set.h"
#include "reports/text_escape.h"

namespace sampcheck::cli {
namespace {

std::string ProfileList(const StageInfo& s) {
  std::string out;
  for (Profile p : s.profiles) out += (out.empty() ? "" : ",") + std::string(ProfileName(p));
  return out;
}

nlohmann::json TensorSpecsJson(const std::vector<TensorSpec>& specs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& t : specs) {
    a.push_back({{"name", t.name}, {"dtypes", t.dtypes}, {"shape", t.shape}, {"optional", t.optional}, {"meaning", t.meaning},
                 {"role", RoleName(t.role)}});
  }
  return a;
}

int RunStages(bool as_json) {
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : StageCatalogue()) {
      nlohmann::json params = nlohmann::json::array();
      for (const auto& p : s.params) {
        params.push_back({{"name", p.name}, {"type", p.type}, {"default", p.default_value}, {"meaning", p.meaning}});
      }
      nlohmann::json profiles = nlohmann::json::array();
      for (Profile p : s.profiles) profiles.push_back(ProfileName(p));
      out.push_back({{"name", s.name}, {"summary", s.summary}, {"tier", TierName(s.tier)},
                     {"comparison", s.comparison}, {"profiles", profiles}, {"spec", s.spec_section},
                     {"inputs", TensorSpecsJson(s.inputs)}, {"outputs", TensorSpecsJson(s.outputs)},
                     {"params", params}, {"exact_target", ExactTargetKindName(s.draw.target)},
                     {"reference_count_draws", s.draw.reference_count_draws}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-18s %-9s %-6s %-42s %s\n", "stage", "tier", "rule", "profiles", "spec");
  for (const auto& s : StageCatalogue()) {
    std::printf("%-18s %-9s %-6s %-42s %s\n", s.name.c_str(), std::string(TierName(s.tier)).c_str(),
                s.comparison.c_str(), ProfileList(s).c_str(), s.spec_section.c_str());
  }
  return 0;
}

// A failed case on stdout: its id, then its reason indented. Ids and reasons come from the
// backend: control characters are shown, not obeyed.
void PrintFailure(const CaseResult& r) {
  std::printf("FAIL %s\n     %s\n", reports::TerminalEscape(r.id).c_str(), reports::TerminalEscape(r.reason).c_str());
  std::fflush(stdout);
}

void ValidateFilters(const std::vector<std::string>& stages, const std::vector<std::string>& profiles) {
  for (const auto& s : stages) RequireStage(s);
  for (const auto& p : profiles) ParseProfile(p);
}

// Progress (cli/progress_bar.h): a redrawn bar on a terminal, plain lines in CI logs, both on
// stderr; the FAIL lines and the summary go to stdout.
golden::VerifyOptions MakeOptions(const std::vector<std::string>& stages, const std::vector<std::string>& profiles,
                                  const std::string& canonical_rule) {
  golden::VerifyOptions options{stages, profiles, std::nullopt, {}};
  if (!canonical_rule.empty()) options.canonical_rule = ComparisonRule::Parse(canonical_rule);
  auto bar = std::make_shared<ProgressBar>(ProgressBar::Options{.terminal = StderrIsTerminal()}, [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  });
  options.on_case = [bar](const CaseResult& r, std::size_t done, std::size_t total) {
    const bool failed = r.verdict == Verdict::kFail;
    if (failed) {
      bar->Clear();
      PrintFailure(r);
    }
    bar->Update(done, total, failed, r.id);
  };
  return options;
}

int RunVerify(const std::string& dir, const std::string& backend_name, const std::vector<std::string>& stages,
              const std::vector<std::string>& profiles, const std::string& canonical_rule,
              const BackendOptions& backend_options) {
  ValidateFilters(stages, profiles);
  auto backend = MakeBackend(backend_name, backend_options);
  auto results = golden::VerifyGoldenSet(dir, *backend, MakeOptions(stages, profiles, canonical_rule));
  harness::RequireSomethingRan(results, backend_name);
  std::cout << reports::SummaryTable(reports::SummariseByStage(results));
  const int failed = harness::CountFailures(results);
  std::printf("%s: %zu cases, %d failed\n", dir.c_str(), results.size(), failed);
  return failed ? 1 : 0;
}

int RunConform(const std::string& golden_dir, const std::string& backend_name, const std::string& report_dir,
               const std::vector<std::string>& stages, const std::vector<std::string>& profiles,
               const std::string& canonical_rule, bool batch_invariance, const StatsRunOptions* statistics,
               const BackendOptions& backend_options) {
  ValidateFilters(stages, profiles);
  auto backend = MakeBackend(backend_name, backend_options);
  const golden::VerifyOptions progress = MakeOptions(stages, profiles, canonical_rule);
  harness::ConformOptions options;
  options.golden_dir = golden_dir;
  options.report_dir = report_dir;
  options.backend_label = backend_name;
  options.stages = stages;
  options.profiles = profiles;
  options.canonical_rule = progress.canonical_rule;
  options.batch_invariance = batch_invariance;
  options.statistics = statistics != nullptr;
  if (statistics != nullptr) {
    options.statistical = *statistics;
    options.statistical.on_case = StatisticalProgress();  // the long phase of a slow backend
  }
  // Golden and batch-invariance cases print their FAIL line as they are judged; the others
  // (the decode-steps check, the statistical cases after Holm) once the run is over.
  auto printed = std::make_shared<std::set<std::string>>();
  options.on_case = [printed, print = progress.on_case](const CaseResult& r, std::size_t done, std::size_t total) {
    if (r.verdict == Verdict::kFail) printed->insert(r.id);
    print(r, done, total);
  };
  const harness::ConformResult run = harness::RunConform(*backend, options);
  for (const auto& r : run.results) {
    if (r.verdict == Verdict::kFail && !printed->contains(r.id)) PrintFailure(r);
  }
  std::printf("conformance of backend '%s' against %s\n", backend_name.c_str(), golden_dir.c_str());
  std::cout << reports::SummaryTable(reports::SummariseByStage(run.results));
  std::printf("report: %s\n", run.report.c_str());
  for (const auto& rendered : reports::WriteRenderedReports(run.report)) std::printf("report: %s\n", rendered.c_str());
  return run.failed ? 1 : 0;
}

// --isolate / --no-isolate and --case-timeout (docs/spec/cli.md "Backends").
void AddBackendOptions(CLI::App& cmd, BackendOptions& options) {
  auto* isolate = cmd.add_flag_callback("--isolate", [&options] { options.isolate = true; },
                                        "Run each case group in a child process under a time limit (default for "
                                        "plugin: and exec: backends)");
  auto* no_isolate = cmd.add_flag_callback("--no-isolate", [&options] { options.isolate = false; },
                                           "Run plugin cases in this process (a crash ends the run)");
  isolate->excludes(no_isolate);
  cmd.add_option("--case-timeout", options.case_timeout_s, "Seconds a case may take in an isolated or exec backend")
      ->capture_default_str()
      ->check(FiniteInRange(0, kMaxCaseTimeoutSeconds, /*min_open=*/true));
}

// What the command line fills; CLI11 binds each option to a member. One object for every
// subcommand, so that verify and conform share their --golden, --backend and filters.
struct Options {
  int threads = 1;
  bool as_json = false;  // stages
  std::string out_dir;   // golden generate
  std::uint64_t seed = golden::kDefaultGoldenSeed;
  std::string set_name = "full";
  std::string golden_dir;  // conform: DefaultGoldenDir() when not given
  std::string backend_name;
  std::vector<std::string> stage_filter, profile_filter;
  std::string canonical_rule;
  BackendOptions backend_options;
  std::string report_dir;  // conform
  bool no_batch_invariance = false;
  bool no_stats = false;
  StatsRunOptions conform_stats;
};

constexpr const char* kCanonicalRuleHelp =
    "Compare canonical-tier stages under this rule (e.g. ulp(4)) for backends that do not follow the canonical order";

struct GoldenCommands {
  CLI::App* generate;
  CLI::App* verify;
};

GoldenCommands AddGoldenCommands(CLI::App& app, Options& o) {
  auto* golden_cmd = app.add_subcommand("golden", "Generate or verify golden vectors");
  golden_cmd->require_subcommand(1);
  auto* gen_cmd = golden_cmd->add_subcommand("generate", "Write every stage's golden cases to a directory");
  gen_cmd->add_option("--out", o.out_dir, "Output directory (replaced atomically)")->required();
  gen_cmd->add_option("--seed", o.seed, "Seed of the random case families")->capture_default_str()->check(Uint64Text());
  gen_cmd
      ->add_option("--set", o.set_name,
                   "v1 (the checked-in set, <= 8 MiB), full (adds V = 32000 and 151936 for every stage) or huge "
                   "(only B x V > 2^31: 4.3 GB, ~9 GB of memory)")
      ->capture_default_str();

  auto* verify_cmd = golden_cmd->add_subcommand("verify", "Run a backend on a golden set and compare");
  verify_cmd->add_option("--golden", o.golden_dir, "Golden directory (holds manifest.json)")->required();
  verify_cmd->add_option("--backend", o.backend_name, "Backend name")->required();
  verify_cmd->add_option("--stage", o.stage_filter, "Only these stages");
  verify_cmd->add_option("--profile", o.profile_filter, "Only these profiles");
  verify_cmd->add_option("--canonical-rule", o.canonical_rule, kCanonicalRuleHelp);
  AddBackendOptions(*verify_cmd, o.backend_options);
  return {gen_cmd, verify_cmd};
}

// The backend options (--isolate ...) are added by the caller after the other subcommands, as
// they always were, so that `conform --help` lists them last.
CLI::App* AddConformCommand(CLI::App& app, Options& o) {
  auto* conform_cmd = app.add_subcommand("conform", "Run the conformance suite against a backend and write a report");
  conform_cmd->add_option("--backend", o.backend_name, "Backend name")->required();
  conform_cmd->add_option("--report", o.report_dir, "Report directory (report.json is written there)")->required();
  conform_cmd->add_option(
      "--golden", o.golden_dir,
      "Golden directory (default: the installed share/sampcheck/golden/v1, or the build's checkout golden/v1)");
  conform_cmd->add_option("--stage", o.stage_filter, "Only these stages");
  conform_cmd->add_option("--profile", o.profile_filter, "Only these profiles");
  conform_cmd->add_option("--canonical-rule", o.canonical_rule, kCanonicalRuleHelp);
  conform_cmd->add_flag("--no-batch-invariance", o.no_batch_invariance,
                        "Skip the batch-invariance and reproducibility check (docs/spec/batch_invariance.md)");
  conform_cmd->add_flag("--no-stats", o.no_stats, "Skip the statistical cases (docs/spec/harness.md)");
  conform_cmd->add_flag("--thorough", o.conform_stats.thorough,
                        "Statistical cases at their large-n (thorough) effect sizes");
  conform_cmd
      ->add_option("--seed-epoch", o.conform_stats.seed_epoch, "Statistical suite epoch (seeds = hash(case id, epoch))")
      ->capture_default_str()
      ->check(Uint64Text());
  return conform_cmd;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"sampcheck: conformance and reference suite for LLM token samplers"};
  app.set_version_flag("--version", std::string("sampcheck ") + SAMPCHECK_VERSION);
  app.require_subcommand(1);
  Options o;
  app.add_option("--threads", o.threads, "Threads for the reference's rows and for the draw batches of backends that declare concurrent runs "
                 "(same results for any count)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);  // the upper bound: reference::SetRowThreads

  auto* stages_cmd = app.add_subcommand("stages", "List the stage catalogue");
  stages_cmd->add_flag("--json", o.as_json, "Machine-readable JSON");
  const GoldenCommands golden = AddGoldenCommands(app, o);
  auto* conform_cmd = AddConformCommand(app, o);
  StatsCommand stats_cmd(app);
  RenderCommand render;
  AddRenderCommand(app, render);
  GateCommand gate;
  AddGateCommand(app, gate);
  AddBackendOptions(*conform_cmd, o.backend_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    reference::SetRowThreads(o.threads);
    if (stages_cmd->parsed()) return RunStages(o.as_json);
    if (golden.generate->parsed()) {
      auto m = golden::GenerateGoldenSet(o.out_dir, o.seed, golden::ParseGoldenSet(o.set_name));
      std::printf("wrote %zu cases to %s\n", m.cases.size(), o.out_dir.c_str());
      return 0;
    }
    if (golden.verify->parsed()) {
      return RunVerify(o.golden_dir, o.backend_name, o.stage_filter, o.profile_filter, o.canonical_rule,
                       o.backend_options);
    }
    if (stats_cmd.Parsed()) return stats_cmd.Run();
    if (conform_cmd->parsed()) {
      if (o.golden_dir.empty()) o.golden_dir = DefaultGoldenDir().string();
      o.conform_stats.stages = o.stage_filter;
      o.conform_stats.profiles = o.profile_filter;
      return RunConform(o.golden_dir, o.backend_name, o.report_dir, o.stage_filter, o.profile_filter, o.canonical_rule,
                        !o.no_batch_invariance, o.no_stats ? nullptr : &o.conform_stats, o.backend_options);
    }
    if (render.command->parsed()) return RunRenderCommand(render);
    if (gate.command->parsed()) return RunGateCommand(gate);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampcheck: error: %s\n", ExceptionText(e).c_str());
    return 2;
  }
  return 2;
}

}  // namespace sampcheck::cli

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // The draw harness builds, runs and frees a batch of replicated rows per Run (megabytes each,
  // thousands of batches per statistical case). glibc's defaults hand the freed top of the heap
  // back to the kernel after each batch, and the next batch faults every page in again: a sixth
  // of gpu-fast-emulated's statistical time went to page faults (spec_random: 2.9 s of system
  // time beside 8.9 s of user time; 0.3 s with these settings). Keep freed memory for reuse;
  // blocks up to 32 MiB (mmap's largest threshold) come from the heap.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  return sampcheck::cli::Main(argc, argv);
}
