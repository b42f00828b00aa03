// SPDX-License-Identifier: Apache-2.0
#pragma once
// A statistical case's `statistics` object in report.json (docs/spec/report.md "Statistical
// cases"): the one place that turns a TestStatistics into JSON. Every field of the table is
// written, the effect when the test has one, and a tensor-parallel case's consensus fields
// (docs/spec/tp_consensus.md) beside them.

#include <nlohmann/json.hpp>

#include "core/test_statistics.h"

namespace sampcheck::reports {

nlohmann::json StatisticsToJson(const TestStatistics& s);

}  // namespace sampcheck::reports
