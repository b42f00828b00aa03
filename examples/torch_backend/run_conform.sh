#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ctest's run of the PyTorch example (torch_backend_conform): `sampcheck conform` with the
# backend in this directory against golden/v1 and the statistical cases, then a check that
# every stage it declares really ran (a conform where everything was skipped proves nothing).
# Environment (set by python/CMakeLists.txt): SAMPCHECK_CLI, SAMPCHECK_PYTHON, PYTHONPATH
# (the build's python/ directory), SAMPCHECK_REPORT_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${SAMPCHECK_PYTHON:-python3}
if ! "$python" -c "import torch" 2>/dev/null; then
  echo "torch_backend_conform: $python cannot import torch: install Debian's python3-torch (ci/setup.sh does)" >&2
  exit 1
fi
report=${SAMPCHECK_REPORT_DIR:-$(mktemp -d)}
"${SAMPCHECK_CLI:?}" conform --golden golden/v1 --report "$report" \
  --backend "exec:$python examples/torch_backend/backend.py {cases} {responses}"
"$python" - "$report/report.json" <<'PY'
import collections, json, sys
report = json.load(open(sys.argv[1]))
cases = report["cases"]
passed = collections.Counter(c["stage"] for c in cases if c["verdict"] == "pass")
failed = [c["id"] for c in cases if c["verdict"] == "fail"]
assert not failed, failed
for stage in ("greedy", "top_k", "top_p", "temperature", "exponential_race"):
    assert passed[stage] > 0, f"no {stage} case passed: {dict(passed)}"
stats = [c for c in cases if c["id"].startswith("stats/") and c["verdict"] == "pass"]
assert stats, "no statistical case ran for the torch backend"
print(f"torch backend: {sum(passed.values())} cases passed ({dict(passed)}), {len(stats)} statistical tests passed")
PY
