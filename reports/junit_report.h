// SPDX-License-Identifier: Apache-2.0
#pragma once
// report.xml: a report as JUnit XML (docs/spec/report.md "JUnit XML"), so CI systems (Jenkins,
// GitLab, GitHub test reporters) list every case natively.
//
// Shape, as in the common Jenkins/GitLab JUnit schema (Jenkins' junit-10.xsd: attributes and
// child order as it requires; `skipped` only on <testsuite>):
//   <testsuites name="sampcheck conform: <backend>" tests failures errors="0" time="0">
//     <testsuite name="<stage>" tests failures errors="0" skipped time="0">   one per stage,
//                                                                              by stage name
//       <testcase classname="<stage>" name="<case id>" time="0">              report order
//         <failure message="<reason>" type="<comparison>">reason and statistics</failure>
//         <skipped message="<reason>"/>
//       </testcase>
// A statistical case carries its one-line statistics summary in <system-out>. Every text and
// attribute goes through XmlEscape (reports/text_escape.h). Times are 0: sampcheck does not
// time cases, and the schema requires the attribute to be a number.

#include <string>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

// `report` must have passed ValidateReport (reports/report_reader.h).
std::string JunitXml(const nlohmann::json& report);

}  // namespace sampcheck::reports
