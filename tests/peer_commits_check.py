#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every peer rule a docs/spec file cites names a commit of docs/peers.md's commit tables.

Usage: peer_commits_check.py REPO_ROOT. Exit 0 when clean; otherwise one line per problem
(file:line: what) and exit 1.

docs/peers.md, section "Pinned commits": the tables there give each peer's commits (a cell
holding a backticked hex string of 7 to 40 digits, in a row naming the peer). The bullet list
under "Spec files not yet re-read at the pinned commits" names the spec files skipped.
In every other docs/spec/*.md:
1. In a unit of text (below) that names a peer, a commit cited as `@abcdef12`, `commit abcdef12`,
   `at abcdef12`, `read abcdef12` or `<peer> abcdef12` (`vLLM 0097a7bb`) must be a prefix of
   (or equal to) a commit of the tables. Units naming no peer (sampcheck's own history, other
   projects such as Random123) are not read for commits.
2. A unit of text (a table row, else a paragraph) that names a peer source file (a path such as
   `vllm/v1/sample/sampler.py`, `python/sglang/srt/...`, `include/flashinfer/...`) must name one
   of that peer's commits, in the unit itself or earlier in the same section (a section may say
   once which commit it read). Paths of the peers' tests count too.
"""
import os
import re
import sys

HEX = r"[0-9a-f]{7,40}"
# A cited commit: after '@', the words commit / at / read (as "read at 9aaf83ef"), or a peer's
# name; "main at" names sampcheck's own history.
PEER_NAME = r"(?:vLLM|SGLang|FlashInfer|xgrammar|ops-nn|CANN|Ascend|sgl-kernel)"
CITED = re.compile(r"(?:@|\bcommits? |(?<!main )\bat |\bread |\b" + PEER_NAME + r" )`?(" + HEX + r")\b")
# The peer a source path belongs to. Ordered: SGLang's python/sglang before a bare vllm/ match.
PEER_PATHS = [
    ("SGLang", re.compile(r"(?<![\w/])(?:python/)?sglang/[\w/.]*\.(?:py|cuh|cu|h)\b|(?<![\w/])sgl-kernel/[\w/.]+")),
    ("vLLM", re.compile(r"(?<![\w/])(?:tests/)?vllm/[\w/.]*\.py\b|(?<![\w/])tests/v1/[\w/.]+\.py\b")),
    ("FlashInfer", re.compile(r"(?<![\w/])include/flashinfer/[\w/.]+\.cuh\b")),
    ("CANN ops-nn", re.compile(r"(?<![\w/])index/top_k_top_p_sample_v2/[\w/.]*")),
    ("xgrammar", re.compile(r"(?<![\w/])python/xgrammar/[\w/.]+\.py\b")),
]


def read_tables(peers_md):
    """(peer -> [commit], exempt spec files) from docs/peers.md."""
    commits, exempt = {}, []
    section = None
    for line in open(peers_md, encoding="utf-8"):
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("### "):
            sub = line[4:].strip()
            if sub.startswith("Spec files not yet re-read"):
                section = "exempt"
        if section == "Pinned commits" and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            peer = next((p for p, _ in PEER_PATHS if any(c == p for c in cells)), None)
            for c in cells:
                for h in re.findall(r"`(" + HEX + r")`", c):
                    if peer is None:
                        raise SystemExit(f"peers.md: commit {h} in a row naming no known peer: {line.strip()}")
                    commits.setdefault(peer, []).append(h)
        elif section == "exempt":
            m = re.match(r"\s*- `(docs/spec/[\w.]+\.md)`", line)
            if m:
                exempt.append(m.group(1))
    return commits, exempt


def units(lines):
    """(first line number, text, section text before it) per table row or paragraph."""
    out, buf, start, before = [], [], 0, ""
    for n, line in enumerate(lines + [""], 1):
        if line.startswith("#"):
            if buf:
                out.append((start, "\n".join(buf), before))
            buf, before = [], ""
            continue
        if line.startswith("|") or not line.strip():
            if buf:
                out.append((start, "\n".join(buf), before))
                before += "\n".join(buf) + "\n"
                buf = []
            if line.startswith("|"):
                out.append((n, line, before))
            continue
        if not buf:
            start = n
        buf.append(line)
    return out


def main(root):
    commits, exempt = read_tables(os.path.join(root, "docs", "peers.md"))
    every = [c for cs in commits.values() for c in cs]
    if not every:
        print("peer_commits_check: docs/peers.md has no commit table")
        return 1
    known = lambda h, peer=None: any(c.startswith(h) or h.startswith(c)
                                     for c in (commits.get(peer, []) if peer else every))
    problems, checked = [], 0
    spec_dir = os.path.join(root, "docs", "spec")
    for f in sorted(os.listdir(spec_dir)):
        name = "docs/spec/" + f
        if not f.endswith(".md") or name in exempt:
            continue
        checked += 1
        lines = open(os.path.join(spec_dir, f), encoding="utf-8").read().splitlines()
        for n, text, before in units(lines):
            if re.search(r"\b" + PEER_NAME, text, re.I) or any(p.search(text) for _, p in PEER_PATHS):
                for k, line in enumerate(text.split("\n")):
                    for m in CITED.finditer(line):
                        if not known(m.group(1)):
                            problems.append(f"{name}:{n + k}: cites commit {m.group(1)}, which docs/peers.md's tables "
                                            "do not name")
            for peer, pattern in PEER_PATHS:
                paths = pattern.findall(text)
                if not paths:
                    continue
                where = text + "\n" + before
                if not any(re.search(r"\b" + c[:8], where) for c in commits.get(peer, [])):
                    problems.append(f"{name}:{n}: cites {peer}'s {paths[0]} without a {peer} commit of docs/peers.md "
                                    f"({', '.join(c[:8] for c in commits.get(peer, [])) or 'none'}) in its paragraph or section")
    for p in problems:
        print(p)
    print(f"peer_commits_check: {checked} spec files checked, {len(exempt)} listed as not yet re-read, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
