#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every repository path cited in README.md, docs/ and the headers exists, every quoted section
name cited after a Markdown file exists in that file, and no file cites a document a clone does
not contain (docs/architecture.md "A tree that stands on its own").

Usage: doc_paths_check.py REPO_ROOT. Exit 0 when clean; otherwise one line per problem
(file:line: what) and exit 1. tests/doc_paths_check_test.py plants each kind of problem in a
temporary tree and checks that it is reported.

Paths: a path is cited when it starts with a top-level folder of the repository followed by
'/'; `{h,cc}` brace lists are expanded, '#anchors' and trailing punctuation dropped, and names
with '*', '<' or '...' (patterns, placeholders) skipped. Checked in README.md, docs/ and the
headers.

Sections: in every tracked text file, `NAME.md "Section"` (also `[x](NAME.md) "Section"`,
`NAME.md#anchor "Section"`, `` `NAME.md` "Section" `` and `NAME.md, "Section"`) cites a section
of NAME.md, found relative to the citing file, then to the repository root, docs/ and
docs/spec/ (code comments write `rng.md "Streams"` for docs/spec/rng.md). The section exists
when a heading of that file (outside code fences), or a bold run-in label opening a paragraph
(`**Diffuse TV.** ...`), reads the same or starts with it followed by a non-word character
("Layout" names "## Layout: one stage, one name"); backticks, asterisks and a leading section
number ("2. Uniform conversions") are ignored, and case too. A cited file that is not in the
tree is the path check's business (or a peer's file), not this one's.
"""
import os
import re
import subprocess
import sys

# A line naming a peer project cites the peer's tree, not ours (include/flashinfer/...).
PEER = re.compile(r"flashinfer|Random123|vLLM|vllm|SGLang|sglang|xgrammar|CANN|ops-nn|aclnn|cuRAND|PyTorch|torch", re.I)
# What a run writes (not in a clone) and the placeholder stage `foo` of docs/contributing.md.
GENERATED = ("reports/out", "reports/gate")
PLACEHOLDER = re.compile(r"(^|/)foo([._/]|$)")
FORBIDDEN = re.compile(r"\b(DESIGN|PEERS|STATS|STYLE)\.md\b|\b[Ii]ssue \d+\b|\.\./shared\b")
# CI keeps peers' sources (FlashInfer's headers) beside the checkout; these two scripts alone may
# name that folder, to pass it to the build and to copy it for a device run (docs/peers/flashinfer.md).
MAY_NAME_PEER_SOURCES = {".ci/run", "ci/device_bundle.sh"}
# NAME.md, an optional #anchor, a closing ')' or '`', an optional comma, then "Section".
SECTION_CITE = re.compile(r"(?<![\w./-])((?:\.\./)*[\w./-]*\w\.md)(?:#[\w-]*)?[)`]*,? +\"([^\"\n]+)\"")
HEADING = re.compile(r"#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$")
RUN_IN = re.compile(r"(?:[-*] +)?\*\*([^*]+?)[.:]?\*\*")
TEXT_SUFFIXES = (".h", ".cc", ".cu", ".cuh", ".c", ".md", ".py", ".sh", ".txt", ".cmake", ".json")


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if f]


def expand(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [x for alt in m.group(1).split(",") for x in expand(path[: m.start()] + alt + path[m.end():])]


def normalise(title):
    title = re.sub(r"[`*]", "", title).strip()
    title = re.sub(r"^\d+(\.\d+)*\.?\s+", "", title)
    return title.lower()


def section_titles(path):
    """The headings and run-in labels of a Markdown file, normalised."""
    titles, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            m = HEADING.match(line) or RUN_IN.match(line)
            if m:
                titles.append(normalise(m.group(1)))
    return titles


def names_section(titles, name):
    want = normalise(name)
    return any(t == want or (t.startswith(want) and not (t[len(want)].isalnum() or t[len(want)] == "_"))
               for t in titles)


def resolve(root, citing, cited):
    for base in (os.path.dirname(citing), "", "docs", "docs/spec"):
        p = os.path.normpath(os.path.join(base, cited))
        if not p.startswith("..") and os.path.isfile(os.path.join(root, p)):
            return p
    return None


def main(root):
    files = tracked_files(root)
    top = sorted({f.split("/")[0] for f in files if "/" in f} - {".ci", ".github"})
    cited = re.compile(r"(?<![\w./-])((?:%s)/[\w./{},*<>-]*[\w}*>])" % "|".join(re.escape(t) for t in top))
    sources = [f for f in files if f == "README.md" or (f.startswith("docs/") and f.endswith(".md"))
               or f.endswith((".h", ".cuh", ".hpp"))]
    titles_of = {}
    problems = []
    sections_checked = 0
    for name in files:
        if name.startswith("golden/v1/") or name.startswith("tests/data/") or \
                name in ("tests/doc_paths_check.py", "tests/doc_paths_check_test.py"):
            continue
        if not name.endswith(TEXT_SUFFIXES) and not name.endswith("CMakeLists.txt"):
            continue
        try:
            text = open(os.path.join(root, name), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        lines = text.splitlines()
        for n, line in enumerate(lines, 1):
            if FORBIDDEN.search(line) and not (name in MAY_NAME_PEER_SOURCES and "../shared/peers/" in line
                                                and not FORBIDDEN.search(line.replace("../shared/peers/", ""))):
                problems.append(f"{name}:{n}: cites a document outside the repository: {line.strip()[:100]}")
            for m in SECTION_CITE.finditer(line):
                target = resolve(root, name, m.group(1))
                if target is None:
                    continue
                if target not in titles_of:
                    titles_of[target] = section_titles(os.path.join(root, target))
                sections_checked += 1
                if not names_section(titles_of[target], m.group(2)):
                    problems.append(f"{name}:{n}: cites section \"{m.group(2)}\" of {target}, which has no such "
                                    f"heading")
            # A peer named on this line or the one before (a citation wrapped across lines).
            if name not in sources or PEER.search(line) or (n > 1 and PEER.search(lines[n - 2])):
                continue
            for m in cited.finditer(line):
                raw = m.group(1).split("#")[0].rstrip(".,:;)")
                if any(c in raw for c in "*<>") or "..." in raw or raw.startswith(GENERATED) or PLACEHOLDER.search(raw):
                    continue
                for p in expand(raw):
                    if not os.path.exists(os.path.join(root, p)):
                        problems.append(f"{name}:{n}: cites '{p}', which does not exist")
    for p in problems:
        print(p)
    print(f"doc_paths_check: {len(sources)} files checked for paths, {sections_checked} section citations, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
