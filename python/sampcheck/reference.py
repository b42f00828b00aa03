# SPDX-License-Identifier: Apache-2.0
"""The bit-exact CPU reference of every stage, on NumPy arrays (docs/python.md "Reference").

One function per stage of the catalogue (``sampcheck stages``), generated from it, so a stage
added in C++ appears here without a Python edit::

    sampcheck.reference.top_p(logits, top_p=0.9, profile="vllm")      # -> np.ndarray
    sampcheck.reference.run("top_p", {"logits": x}, {"top_p": 0.9}, profile="vllm")  # -> dict

Tensor inputs are passed by their catalogue names (positionally in catalogue order, or by
keyword; a Python number for a per-row ``[B]`` input is repeated for every row), scalar
parameters by keyword, ``profile`` (default ``"canonical"``) by keyword. A
stage with one output returns that array; a stage with several returns a dict name -> array.
Errors raise :class:`sampcheck.InputError` (a ``ValueError``) with the C++ message.
"""
import json

import numpy as np

from . import _sampcheck
from ._arrays import from_wire_map, to_wire_map


def run(stage, inputs, params=None, profile="canonical"):
    """Runs `stage` of the reference on `inputs` (name -> array); returns name -> array."""
    outputs = _sampcheck.run_reference(stage, profile, json.dumps(params or {}), to_wire_map(inputs))
    return from_wire_map(outputs)


_NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "bool": np.bool_}


def _broadcast_scalars(info, inputs):
    """A Python number for a per-row input (shape "[B]") becomes one value per row, of the
    input's first catalogue dtype, B being the first dimension of the stage's first tensor."""
    rows = next((np.shape(v)[0] for v in inputs.values() if np.ndim(v) >= 1 and not np.isscalar(v)), None)
    for spec in info["inputs"]:
        value = inputs.get(spec["name"])
        if value is None or not isinstance(value, (int, float, bool, np.number)) or spec["shape"] != "[B]":
            continue
        if rows is None:
            raise TypeError(f"{info['name']}(): '{spec['name']}' is a number, but no tensor gives the batch size")
        dtype = _NUMPY.get(spec["dtypes"].split("|")[0])
        if dtype is None:
            raise TypeError(f"{info['name']}(): pass '{spec['name']}' as an array ({spec['dtypes']} {spec['shape']})")
        inputs[spec["name"]] = np.full(rows, value, dtype=dtype)


def _stage_function(info):
    input_names = [t["name"] for t in info["inputs"]]
    param_names = {p["name"] for p in info["params"]}
    output_names = [t["name"] for t in info["outputs"]]
    stage = info["name"]

    def call(*args, profile="canonical", **kwargs):
        if len(args) > len(input_names):
            raise TypeError(f"{stage}() takes at most {len(input_names)} tensors ({', '.join(input_names)}), "
                            f"{len(args)} given")
        inputs = dict(zip(input_names, args))
        params = {}
        for key, value in kwargs.items():
            if key in input_names:
                if key in inputs:
                    raise TypeError(f"{stage}() got tensor '{key}' twice")
                inputs[key] = value
            elif key in param_names:
                params[key] = value
            else:
                raise TypeError(f"{stage}() got an unexpected argument '{key}'; tensors: {', '.join(input_names)}; "
                                f"parameters: {', '.join(sorted(param_names)) or 'none'}")
        _broadcast_scalars(info, inputs)
        outputs = run(stage, inputs, params, profile)
        if len(output_names) == 1 and output_names[0] in outputs and len(outputs) == 1:
            return outputs[output_names[0]]
        return outputs

    call.__name__ = call.__qualname__ = stage
    lines = [f"{info['summary']}", "", f"Spec: {info['spec']}; tier {info['tier']}, compared {info['comparison']}.",
             f"Profiles: {', '.join(info['profiles'])}.", "", "Tensors:"]
    lines += [f"  {t['name']} {t['dtypes']} {t['shape']}{' (optional)' if t['optional'] else ''}: {t['meaning']}"
              for t in info["inputs"]]
    if info["params"]:
        lines += ["Parameters:"] + [f"  {p['name']} ({p['type']}, default {p['default'] or 'none'}): {p['meaning']}"
                                    for p in info["params"]]
    lines += ["Returns:"] + [f"  {t['name']} {t['dtypes']} {t['shape']}: {t['meaning']}" for t in info["outputs"]]
    call.__doc__ = "\n".join(lines)
    return call


STAGES = [info["name"] for info in _sampcheck.catalogue()]
for _info in _sampcheck.catalogue():
    globals()[_info["name"]] = _stage_function(_info)
del _info
__all__ = ["run", "STAGES"] + STAGES
