// SPDX-License-Identifier: Apache-2.0
// `sampcheck gate` (cli/gate_command.h).
#include "cli/gate_command.h"

#include <cstdio>

#include "cli/option_checks.h"
#include "core/error.h"
#include "reports/report_reader.h"

namespace sampcheck::cli {
namespace {

nlohmann::json LoadCompleteReport(const std::string& path) {
  const auto file = reports::ResolveReportPath(path);
  nlohmann::json report = reports::LoadReport(file);
  if (!reports::ReportIsComplete(report)) {
    throw InputError(file.string() +
                     ": the report is incomplete (\"complete\": false): its run stopped before the last case; "
                     "gate only a finished run");
  }
  return report;
}

}  // namespace

void AddGateCommand(CLI::App& app, GateCommand& gate) {
  gate.command = app.add_subcommand("gate", "Fail on regressions of a report against a baseline report");
  gate.command->add_option("--report", gate.report, "report.json of this run, or a directory holding one")
      ->required();
  gate.command->add_option("--baseline", gate.baseline, "report.json of the baseline run, or a directory holding one")
      ->required();
  gate.command
      ->add_option("--effect-tolerance", gate.options.effect_tolerance,
                   "Largest allowed effect-size growth, in units of each case's minimum detectable effect")
      ->check(FiniteInRange(0, kMaxEffectTolerance))
      ->capture_default_str();
  gate.command->add_flag("--allow-missing", gate.options.allow_missing,
                         "Do not fail on baseline cases that are absent from the report or now skipped");
}

int RunGateCommand(const GateCommand& gate) {
  const nlohmann::json report = LoadCompleteReport(gate.report);
  const nlohmann::json baseline = LoadCompleteReport(gate.baseline);
  const auto result = reports::EvaluateGate(report, baseline, gate.options,
                                            reports::ResolveReportPath(gate.report).string(),
                                            reports::ResolveReportPath(gate.baseline).string());
  std::printf("gate: %s (%zu cases) against baseline %s (%zu cases), effect tolerance %g mde\n",
              reports::ResolveReportPath(gate.report).c_str(), report["cases"].size(),
              reports::ResolveReportPath(gate.baseline).c_str(), baseline["cases"].size(),
              gate.options.effect_tolerance);
  std::fputs(reports::FormatGateResult(result).c_str(), stdout);
  return result.Passed() ? 0 : 1;
}

}  // namespace sampcheck::cli
