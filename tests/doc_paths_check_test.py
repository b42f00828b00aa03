#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/doc_paths_check.py reports what it promises: in a temporary git tree, a clean tree
passes, and each planted problem (a quoted section a cited file lacks, a heading inside a code
fence, a missing path, a citation of a document outside the repository) fails with a line
naming it. Without this, a change that made the checker skip everything would pass silently.

Usage: doc_paths_check_test.py. Exit 0 when every case behaves; otherwise the failing cases.
"""
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doc_paths_check.py")

SPEC = """# A spec
## Real section
Text.
### 2. Numbered section (`with_code`)
**Run-in label.** A paragraph named by its bold opening.
```
## Fenced heading
```
"""


def run_checker(files):
    """Writes `files` (path -> text) into a fresh git tree and runs the checker on it."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "-A"], check=True)
        out = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
        return out.returncode, out.stdout + out.stderr


def main():
    clean_citations = ('// docs/spec/a.md "Real section", docs/spec/a.md "Run-in label",\n'
                       '// a.md "Numbered section", [a](docs/spec/a.md#real-section) "Real section",\n'
                       '// docs/spec/a.md "real section" (case), docs/spec/a.md "Real" (a prefix ending at a space)\n')
    cases = [
        # (name, cited line in src/x.h, expected exit, text the output must hold)
        ("clean tree", clean_citations, 0, "0 problem(s)"),
        ("missing section", '// docs/spec/a.md "Missing section"\n', 1,
         'src/x.h:1: cites section "Missing section" of docs/spec/a.md, which has no such heading'),
        ("bare file name resolved under docs/spec", '// a.md "Streams"\n', 1,
         'cites section "Streams" of docs/spec/a.md'),
        ("heading inside a code fence", '// docs/spec/a.md "Fenced heading"\n', 1,
         'cites section "Fenced heading"'),
        ("a prefix that stops inside a word", '// docs/spec/a.md "Real sec"\n', 1, 'cites section "Real sec"'),
        ("missing path", "// src/missing.h holds it\n", 1, "src/x.h:1: cites 'src/missing.h', which does not exist"),
        ("document outside the repository", "// see ../shared/notes\n", 1, "cites a document outside the repository"),
    ]
    failures = []
    for name, line, want_rc, want_text in cases:
        rc, out = run_checker({"docs/spec/a.md": SPEC, "src/x.h": line})
        if rc != want_rc or want_text not in out:
            failures.append(f"{name}: exit {rc} (want {want_rc}), output:\n{out}")
    for f in failures:
        print("FAIL", f)
    print(f"doc_paths_check_test: {len(cases)} cases, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
