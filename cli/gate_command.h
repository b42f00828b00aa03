// SPDX-License-Identifier: Apache-2.0
#pragma once
// `sampcheck gate --report R --baseline B [--effect-tolerance X] [--allow-missing]`
// (docs/spec/cli.md "sampcheck gate"): the CI gate of reports/gate.h on two report.json files.
// Exit 0 when nothing regressed, 1 when something did (each regression printed with its
// reason), 2 when a report is unreadable, invalid or incomplete (`"complete": false`: a run
// that stopped early cannot be compared case by case, so it is refused, not warned about).

#include <string>

#include <CLI/CLI.hpp>

#include "reports/gate.h"

namespace sampcheck::cli {

struct GateCommand {
  CLI::App* command = nullptr;
  std::string report;    // report.json or a directory holding one
  std::string baseline;  // likewise
  reports::GateOptions options;
};

// Registers the command and its options on `app`; `gate` must outlive parsing.
void AddGateCommand(CLI::App& app, GateCommand& gate);
// Returns the exit status; throws InputError (exit 2 in main) on a bad or incomplete report.
int RunGateCommand(const GateCommand& gate);

}  // namespace sampcheck::cli
