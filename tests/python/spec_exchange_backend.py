#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An out-of-process (exec) backend for spec_greedy and spec_random (docs/spec/exchange.md,
docs/spec/speculative.md): the example backend's protocol loop and safetensors reader/writer
(examples/python_backend/backend.py) with its stages replaced by the independent NumPy
recomputation of tests/python/spec_decode_reference.py. `ctest -R spec_exec_backend_verify`
runs it on golden/v1 through `sampcheck golden verify --backend exec:...`, so the stages'
f64 uniforms, rank-3 position rows, [B, 0] draft tensors and -1 padded outputs cross the
exchange format.

Usage: spec_exchange_backend.py CASES_DIR RESPONSES_DIR
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "examples" / "python_backend"))

import backend  # noqa: E402  (the example's protocol)
import spec_decode_reference as reference  # noqa: E402


def _adapt(fn):
    # spec_decode_reference works on golden-case names ("in.X" in, "out.Y" out).
    def run(meta, inputs):
        outputs = fn(meta, {"in." + name: value for name, value in inputs.items()})
        return {name[len("out."):]: value for name, value in outputs.items()}
    return run


backend.STAGES = {"spec_greedy": (_adapt(reference.spec_greedy), ["canonical"]),
                  "spec_random": (_adapt(reference.spec_random), ["vllm", "flashinfer", "typical_acceptance"])}
backend.DRAWS = {}

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: spec_exchange_backend.py CASES_DIR RESPONSES_DIR")
    backend.main(sys.argv[1], sys.argv[2])
