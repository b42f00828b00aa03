# SPDX-License-Identifier: Apache-2.0
"""sampcheck from Python: the reference on NumPy arrays, golden cases, exec backends and the
draw harness (docs/python.md).

    import sampcheck
    sampcheck.reference.top_p(logits, top_p=0.9, profile="vllm")
    for case in sampcheck.golden.load("golden/v1"): ...
    sampcheck.backend.serve({"greedy": my_greedy})
    sampcheck.stats.check(my_draw, sampcheck.stats.cases("exponential_race")[0])
"""
from . import _sampcheck
from ._arrays import Bf16
from ._sampcheck import InputError
from . import backend, golden, reference, stats

__version__ = _sampcheck.version


def stages():
    """The stage catalogue: one dict per stage (name, inputs, outputs, params, profiles, ...)."""
    return _sampcheck.catalogue()


__all__ = ["Bf16", "InputError", "backend", "golden", "reference", "stages", "stats"]
