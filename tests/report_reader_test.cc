// SPDX-License-Identifier: Apache-2.0
// Reading report.json back (reports/report_reader.h): the hand-made fixtures of
// tests/data/reports load; malformed documents are refused with the file and field named.
#include "reports/report_reader.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"

namespace sampcheck::reports {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(SAMPCHECK_SOURCE_DIR) / "tests/data/reports";

std::string ErrorOf(const nlohmann::json& doc) {
  try {
    ValidateReport(doc, "r.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json Minimal() {
  return {{"format", "sampcheck-report"}, {"format_version", 1}, {"summary", nlohmann::json::object()},
          {"cases", {{{"id", "greedy/a/canonical"}, {"stage", "greedy"}, {"verdict", "pass"}, {"reason", ""}}}}};
}

TEST(ReportReader, LoadsAFileOrADirectoryHoldingReportJson) {
  const auto report = LoadReport(kFixtures / "mixed_run.json");
  EXPECT_EQ(report["cases"].size(), 7u);
  const auto dir = std::filesystem::temp_directory_path() / "sampcheck_report_reader_test";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kFixtures / "baseline.json", dir / "report.json",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(LoadReport(dir)["cases"].size(), 7u);
  std::filesystem::remove_all(dir);
}

TEST(ReportReader, CountsStagesFromTheCases) {
  // mixed_run.json by hand: draws 2 pass; draws_<vllm> 1 fail; greedy 1 pass 1 fail; top_p 1
  // pass 1 skip.
  const auto stages = SummariseReportByStage(LoadReport(kFixtures / "mixed_run.json"));
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0].stage, "draws");
  EXPECT_EQ(stages[0].passed, 2);
  EXPECT_EQ(stages[1].stage, "draws_<vllm>");
  EXPECT_EQ(stages[1].failed, 1);
  EXPECT_EQ(stages[2].stage, "greedy");
  EXPECT_EQ(stages[2].passed, 1);
  EXPECT_EQ(stages[2].failed, 1);
  EXPECT_EQ(stages[3].stage, "top_p");
  EXPECT_EQ(stages[3].skipped, 1);
}

TEST(ReportReader, AcceptsTheMinimalDocument) { EXPECT_EQ(ErrorOf(Minimal()), ""); }

TEST(ReportReader, RefusesAnotherFormatOrVersion) {
  auto doc = Minimal();
  doc["format"] = "junit";
  EXPECT_NE(ErrorOf(doc).find("r.json: not a valid sampcheck report: expected \"format\": \"sampcheck-report\""),
            std::string::npos);
  doc = Minimal();
  doc["format_version"] = 2;
  EXPECT_NE(ErrorOf(doc).find("expected \"format_version\": 1, found 2"), std::string::npos);
  doc.erase("format_version");
  EXPECT_NE(ErrorOf(doc).find("found none"), std::string::npos);
}

TEST(ReportReader, NamesTheMalformedCase) {
  auto doc = Minimal();
  doc["cases"][0]["verdict"] = "maybe";
  EXPECT_NE(ErrorOf(doc).find("cases[0].verdict must be pass, fail or skip, found 'maybe'"), std::string::npos);
  doc = Minimal();
  doc["cases"][0].erase("id");
  EXPECT_NE(ErrorOf(doc).find("cases[0] lacks the string field 'id'"), std::string::npos);
  doc = Minimal();
  doc["cases"][0]["statistics"] = 3;
  EXPECT_NE(ErrorOf(doc).find("cases[0].statistics must be an object"), std::string::npos);
  doc = Minimal();
  doc["cases"][0]["comparison"] = 1;
  EXPECT_NE(ErrorOf(doc).find("cases[0].comparison must be a string"), std::string::npos);
  doc = Minimal();
  doc["backend"] = nullptr;
  EXPECT_NE(ErrorOf(doc).find("r.json: not a valid sampcheck report: backend must be a string"), std::string::npos);
  doc = Minimal();
  doc["complete"] = "yes";
  EXPECT_NE(ErrorOf(doc).find("'complete' must be true or false"), std::string::npos);
  EXPECT_NE(ErrorOf(nlohmann::json::array()).find("expected a JSON object"), std::string::npos);
}

TEST(ReportReader, RefusesUnreadableAndNonJsonFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "sampcheck_report_reader_bad";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.json") << "{\"format\": ";
  EXPECT_THROW(
      {
        try {
          LoadReport(dir / "bad.json");
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("bad.json: not a valid sampcheck report: expected JSON"),
                    std::string::npos);
          throw;
        }
      },
      InputError);
  EXPECT_THROW(LoadReport(dir / "missing.json"), InputError);
  EXPECT_THROW(LoadReport(dir), InputError);  // a directory without report.json
  std::filesystem::remove_all(dir);
}

TEST(ReportReader, TreatsAReportWithoutCompleteAsComplete) {
  auto doc = Minimal();
  EXPECT_TRUE(ReportIsComplete(doc));
  doc["complete"] = false;
  EXPECT_FALSE(ReportIsComplete(doc));
}

}  // namespace
}  // namespace sampcheck::reports
