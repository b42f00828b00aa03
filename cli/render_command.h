// SPDX-License-Identifier: Apache-2.0
#pragma once
// `sampcheck render --report R [--out DIR]` (docs/spec/cli.md): renders an existing
// report.json as report.xml, report.md and report.html (docs/spec/report.md), e.g. for a
// report downloaded from a CI run, or one written by a run that stopped early.

#include <string>

#include <CLI/CLI.hpp>

namespace sampcheck::cli {

struct RenderCommand {
  CLI::App* command = nullptr;
  std::string report;  // report.json or a directory holding one
  std::string out;     // output directory; empty: the report's own directory
};

// Registers the command and its options on `app`; `render` must outlive parsing.
void AddRenderCommand(CLI::App& app, RenderCommand& render);
// Exit 0; throws InputError (exit 2 in main) on an invalid report or unwritable directory.
int RunRenderCommand(const RenderCommand& render);

}  // namespace sampcheck::cli
