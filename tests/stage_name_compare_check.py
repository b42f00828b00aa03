#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""No code compares a stage or profile name as a string outside the places allowed to know
names (docs/architecture.md "One place per stage"): every other layer asks the stage catalogue
for roles (core/stage_catalogue.h) and carries profiles as the Profile enum (core/profile.h).

Usage: stage_name_compare_check.py REPO_ROOT. Exit 0 when clean; otherwise one line per
offending compare (file:line: text) and exit 1.

A compare is `==` or `!=` between a string literal and an expression whose last name contains
"stage" or "profile" (`stage`, `c.stage`, `r.profile`, `info.stage_name`, `std::string(stage)`),
in either order. Allowed files:
- core/stage_catalogue.* (the catalogue) and core/profile.* (the profile parser);
- a stage's own files: those whose file name starts with a stage's stem followed by `_` or `.`
  (reference/top_p.cc, golden/top_p_cases.cc, tests/top_p_test.cc, gpu/backend/pipeline_glue.cc). The
  stems are the stage folders of the checked-in golden set (golden/v1/<stage>/), one per stage.
"""
import os
import re
import subprocess
import sys

SOURCE = re.compile(r"\.(cc|h|cu|cuh|c|cpp|hpp)$")
NAMED = r"(?:std::string(?:_view)?\(\s*)?(?:[\w\]\)]+(?:\.|->))*\w*(?:stage|profile)\w*(?:\(\))?\s*\)?"
LITERAL = r"\"[^\"\\]*\""
COMPARE = re.compile(r"(?i:%s)\s*[!=]=\s*%s|%s\s*[!=]=\s*(?i:%s)" % (NAMED, LITERAL, LITERAL, NAMED))
ALWAYS_ALLOWED = re.compile(r"^core/(stage_catalogue|profile)\.\w+$")


def files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout
    return sorted({f for f in out.splitlines() if f and SOURCE.search(f) and os.path.isfile(os.path.join(root, f))})


def stage_stems(root):
    golden = os.path.join(root, "golden", "v1")
    return sorted(d for d in os.listdir(golden) if os.path.isdir(os.path.join(golden, d)))


def allowed(path, stems):
    if ALWAYS_ALLOWED.match(path):
        return True
    base = os.path.basename(path)
    return any(base.startswith(s + "_") or base.startswith(s + ".") for s in stems)


def strip_comment(line):
    # Comments may mention compares ("Example: ... .stage == \"greedy\""); code may not.
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i]
    return line


def main(root):
    stems = stage_stems(root)
    if len(stems) < 10:
        print("golden/v1 holds %d stage folders; expected one per catalogue stage" % len(stems))
        return 1
    problems = []
    for path in files(root):
        if allowed(path, stems):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                code = strip_comment(line)
                if code.lstrip().startswith(("*", "/*")):
                    continue
                if COMPARE.search(code):
                    problems.append("%s:%d: stage or profile compared as a string (ask the catalogue for a role, "
                                    "or compare Profile enums): %s" % (path, number, line.strip()))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
