#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every repository path cited in README.md, docs/ and the headers exists, and no file cites a
document a clone does not contain (docs/architecture.md "A tree that stands on its own").

Usage: doc_paths_check.py REPO_ROOT. Exit 0 when clean; otherwise one line per problem
(file:line: what) and exit 1. A path is cited when it starts with a top-level folder of the
repository followed by '/'; `{h,cc}` brace lists are expanded, '#anchors' and trailing
punctuation dropped, and names with '*', '<' or '...' (patterns, placeholders) skipped.
"""
import os
import re
import subprocess
import sys

# A line naming a peer project cites the peer's tree, not ours (include/flashinfer/...).
PEER = re.compile(r"flashinfer|Random123|vLLM|vllm|SGLang|sglang|xgrammar|CANN|ops-nn|aclnn|cuRAND|PyTorch|torch", re.I)
# What a run writes (not in a clone) and the README's placeholder stage `foo`.
GENERATED = ("reports/out", "reports/gate")
PLACEHOLDER = re.compile(r"(^|/)foo([._/]|$)")
FORBIDDEN = re.compile(r"\b(DESIGN|PEERS|STATS|STYLE)\.md\b|\b[Ii]ssue \d+\b|\.\./shared\b")
# CI keeps peers' sources (FlashInfer's headers) beside the checkout; these two scripts alone may
# name that folder, to pass it to the build and to copy it for a device run (docs/peers/flashinfer.md).
MAY_NAME_PEER_SOURCES = {".ci/run", "ci/device_bundle.sh"}


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if f]


def expand(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [x for alt in m.group(1).split(",") for x in expand(path[: m.start()] + alt + path[m.end():])]


def main(root):
    files = tracked_files(root)
    top = sorted({f.split("/")[0] for f in files if "/" in f} - {".ci", ".github"})
    cited = re.compile(r"(?<![\w./-])((?:%s)/[\w./{},*<>-]*[\w}*>])" % "|".join(re.escape(t) for t in top))
    sources = [f for f in files if f == "README.md" or (f.startswith("docs/") and f.endswith(".md"))
               or f.endswith((".h", ".cuh", ".hpp"))]
    problems = []
    for name in files:
        if name.startswith("golden/v1/") or name.startswith("tests/data/") or name == "tests/doc_paths_check.py":
            continue
        if not name.endswith((".h", ".cc", ".cu", ".cuh", ".c", ".md", ".py", ".sh", ".txt", ".cmake", ".json")) and \
                not name.endswith("CMakeLists.txt"):
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
    print(f"doc_paths_check: {len(sources)} files checked for paths, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
