// SPDX-License-Identifier: Apache-2.0
// `sampcheck render` (cli/render_command.h).
#include "cli/render_command.h"

#include <cstdio>

#include "reports/report_reader.h"
#include "reports/report_set.h"

namespace sampcheck::cli {

void AddRenderCommand(CLI::App& app, RenderCommand& render) {
  render.command = app.add_subcommand("render", "Render a report.json as JUnit XML, Markdown and HTML");
  render.command->add_option("--report", render.report, "report.json, or a directory holding one")->required();
  render.command->add_option("--out", render.out, "Output directory (default: the report's directory)");
}

int RunRenderCommand(const RenderCommand& render) {
  const auto file = reports::ResolveReportPath(render.report);
  const auto dir = render.out.empty() ? file.parent_path() : std::filesystem::path(render.out);
  for (const auto& path : reports::WriteRenderings(reports::LoadReport(file), dir)) {
    std::printf("report: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace sampcheck::cli
