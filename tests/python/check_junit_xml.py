#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Independent check of a JUnit rendering (docs/spec/report.md "JUnit XML"): parses report.xml
# with the standard library's XML parser (expat: any character XML 1.0 forbids is a parse
# error) and compares it with the report.json it was rendered from: one <testsuite> per stage
# with the right counts, one <testcase> per case (classname = stage, name = id), a <failure>
# whose message is the reason (forbidden control characters spelled \xNN) per failed case, a
# <skipped> per skipped case; and only the elements and attributes Jenkins' junit-10.xsd
# declares. Usage: check_junit_xml.py REPORT_XML REPORT_JSON. Exit 0 when
# everything matches; otherwise prints each mismatch and exits 1.
import json
import sys
import xml.etree.ElementTree as ET


def visible(text):
    """The reason as the spec says it must read after XML parsing."""
    out = []
    for ch in text:
        cp = ord(ch)
        if (cp < 0x20 and ch not in "\t\n\r") or cp == 0x7F:
            out.append("\\x%02X" % cp)
        elif cp in (0xFFFE, 0xFFFF):
            out.append("\\u%04X" % cp)
        else:
            out.append(ch)
    return "".join(out)


def main(xml_path, json_path):
    report = json.load(open(json_path, encoding="utf-8"))
    root = ET.parse(xml_path).getroot()  # raises on malformed XML
    errors = []
    if root.tag != "testsuites":
        errors.append("root element is <%s>, expected <testsuites>" % root.tag)
    cases = report["cases"]
    want_total = (len(cases), sum(c["verdict"] == "fail" for c in cases))
    got_total = tuple(int(root.get(k)) for k in ("tests", "failures"))
    if got_total != want_total:
        errors.append("testsuites tests/failures %s, expected %s" % (got_total, want_total))
    if "skipped" in root.attrib:
        errors.append("<testsuites> has a skipped attribute, which junit-10.xsd does not allow")
    allowed = {"testsuites": {"name", "time", "tests", "failures", "disabled", "errors"},
               "testsuite": {"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp",
                             "hostname", "id", "package", "file", "log", "url", "version"},
               "testcase": {"name", "assertions", "time", "classname", "status", "file", "line"},
               "failure": {"message", "type"}, "skipped": {"message"}, "system-out": set()}
    for element in root.iter():
        extra = set(element.attrib) - allowed.get(element.tag, set())
        if element.tag not in allowed or extra:
            errors.append("<%s> (attributes %s) is not in junit-10.xsd" % (element.tag, sorted(extra)))
    stages = sorted({c["stage"] for c in cases})
    suites = root.findall("testsuite")
    if [s.get("name") for s in suites] != stages:
        errors.append("testsuite names %s, expected %s" % ([s.get("name") for s in suites], stages))
    by_id = {c["id"]: c for c in cases}
    seen = 0
    for suite in suites:
        testcases = suite.findall("testcase")
        counts = (len(testcases), sum(t.find("failure") is not None for t in testcases),
                  sum(t.find("skipped") is not None for t in testcases))
        if counts != tuple(int(suite.get(k)) for k in ("tests", "failures", "skipped")):
            errors.append("testsuite %s: attributes disagree with its testcases %s" % (suite.get("name"), counts))
        for t in testcases:
            seen += 1
            c = by_id.get(t.get("name"))
            if c is None:
                errors.append("testcase %r is not a case of the report" % t.get("name"))
                continue
            if t.get("classname") != c["stage"] or suite.get("name") != c["stage"]:
                errors.append("testcase %r: classname %r, expected %r" % (c["id"], t.get("classname"), c["stage"]))
            failure, skipped = t.find("failure"), t.find("skipped")
            if (failure is not None) != (c["verdict"] == "fail") or (skipped is not None) != (c["verdict"] == "skip"):
                errors.append("testcase %r: verdict %s not rendered as such" % (c["id"], c["verdict"]))
            if failure is not None and failure.get("message") != visible(c.get("reason", "")):
                errors.append("testcase %r: failure message %r, expected %r"
                              % (c["id"], failure.get("message"), visible(c.get("reason", ""))))
            if skipped is not None and skipped.get("message") != visible(c.get("reason", "")):
                errors.append("testcase %r: skipped message %r" % (c["id"], skipped.get("message")))
    if seen != len(cases):
        errors.append("%d testcases, expected %d" % (seen, len(cases)))
    for e in errors:
        print("check_junit_xml: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
