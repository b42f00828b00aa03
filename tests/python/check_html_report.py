#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Independent check of an HTML rendering (docs/spec/report.md "HTML") against the report.json
# it came from. The page is written as well-formed XML, so the standard library's XML parser
# reads it. Checks: self-contained (no <script>, <link>, <img>, <iframe>, <object>, no src= or
# href= attribute, no url( or @import in CSS, a Content-Security-Policy of default-src 'none');
# the stage table has one body row per stage with the counts of the cases; the failure table
# lists each failed case with its reason; one frequency plot per statistical case with bins,
# one QQ point per p-value. Usage: check_html_report.py REPORT_HTML REPORT_JSON. Exit 0 when
# everything holds; otherwise prints each problem and exits 1.
import json
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def text_of(element):
    return "".join(element.itertext())


def visible(text):
    return "".join("\\x%02X" % ord(c) if (ord(c) < 0x20 and c not in "\t\n\r") or ord(c) == 0x7F else c
                   for c in text)


def main(html_path, json_path):
    report = json.load(open(json_path, encoding="utf-8"))
    raw = open(html_path, encoding="utf-8").read()
    root = ET.fromstring(raw)
    errors = []
    for tag in ("script", "link", "img", "iframe", "object", "embed"):
        if root.iter(tag) and list(root.iter(tag)):
            errors.append("page holds a <%s> element" % tag)
    for element in root.iter():
        for attribute in ("src", "href", "{http://www.w3.org/1999/xlink}href"):
            if attribute in element.attrib:
                errors.append("<%s> has a %s attribute" % (element.tag, attribute))
    styles = " ".join(text_of(s) for s in root.iter("style"))
    if "url(" in styles or "@import" in styles:
        errors.append("CSS refers to an external resource")
    csp = [m.get("content") for m in root.iter("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    if not csp or "default-src 'none'" not in csp[0]:
        errors.append("no Content-Security-Policy default-src 'none'")

    cases = report["cases"]
    counts = {}
    for c in cases:
        counts.setdefault(c["stage"], [0, 0, 0])[("pass", "fail", "skip").index(c["verdict"])] += 1
    tables = {t.get("id"): t for t in root.iter("table")}
    if "stages" not in tables:
        errors.append("no <table id=\"stages\">")
    else:
        rows = [[text_of(td) for td in tr.findall("td")] for tr in tables["stages"].find("tbody").findall("tr")]
        want = [[stage] + [str(n) for n in counts[stage]] for stage in sorted(counts)]
        if rows != want:
            errors.append("stage rows %s, expected %s" % (rows, want))
    failed = [c for c in cases if c["verdict"] == "fail"]
    if failed:
        if "failures" not in tables:
            errors.append("no <table id=\"failures\">")
        else:
            rows = [[text_of(td) for td in tr.findall("td")] for tr in tables["failures"].find("tbody").findall("tr")]
            want = [[c["id"], visible(c.get("reason", ""))] for c in failed]
            if rows != want:
                errors.append("failure rows %s, expected %s" % (rows, want))
    statistical = [c for c in cases if isinstance(c.get("statistics"), dict)]
    svgs = list(root.iter(SVG + "svg"))
    plots = [s for s in svgs if s.find(SVG + "title") is not None and
             text_of(s.find(SVG + "title")).startswith("expected vs observed")]
    want_plots = [c for c in statistical if c["statistics"].get("expected")]
    if len(plots) != len(want_plots):
        errors.append("%d frequency plots, expected %d" % (len(plots), len(want_plots)))
    for plot, c in zip(plots, want_plots):
        # Up to 128 bins: one bar per bin; above: a polyline through the bin centres and a dot
        # per marked bin (reports/svg_plot.h).
        bars = [r for r in plot.iter(SVG + "rect") if r.get("class", "").startswith("observed")]
        lines = [p for p in plot.iter(SVG + "polyline") if p.get("class") == "observed"]
        bins = len(c["statistics"]["expected"])
        drawn = len(bars) if bins <= 128 else (len(lines[0].get("points").split()) if len(lines) == 1 else -1)
        if drawn != bins:
            errors.append("%s: %d bins drawn, expected %d" % (c["id"], drawn, bins))
        marks = bars if bins <= 128 else [d for d in plot.iter(SVG + "circle")]
        marked = {text_of(r.find(SVG + "title")).split(":")[0] for r in marks if "marked" in r.get("class", "")}
        want_marked = {b["label"] for b in c["statistics"].get("top_bins", [])}
        if marked != want_marked:
            errors.append("%s: marked bins %s, expected %s" % (c["id"], marked, want_marked))
    if statistical:
        qq = [s for s in svgs if text_of(s.find(SVG + "title")).startswith("p-value QQ")]
        points = list(qq[0].iter(SVG + "circle")) if qq else []
        tests = [c for c in statistical if isinstance(c["statistics"].get("alpha"), (int, float))
                 and c["statistics"]["alpha"] > 0 and isinstance(c["statistics"].get("p_value"), (int, float))]
        if len(points) != len(tests):
            errors.append("QQ plot has %d points, expected %d (cases with alpha > 0)" % (len(points), len(tests)))
    for e in errors:
        print("check_html_report: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
