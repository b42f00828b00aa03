# SPDX-License-Identifier: Apache-2.0
"""sampcheck.reference (python/sampcheck/reference.py): known answers from the stages'
contracts (docs/spec/), every golden/v1 case reproduced bit for bit through Python, the
catalogue-driven API, torch tensors and error messages.

Known answers are the worked examples of the specs (docs/spec/greedy.md, filters.md,
temperature.md), computed by hand there; the golden comparison is against golden/v1, which
the C++ generator writes (tests/golden_test.cc holds the generator to the checked-in bytes).
"""
import os
from pathlib import Path

import numpy as np
import pytest

import sampcheck

GOLDEN = Path(os.environ.get("SAMPCHECK_SOURCE_DIR", Path(__file__).resolve().parents[2])) / "golden" / "v1"
NEG_INF = np.float32(-np.inf)


def bits(a):
    """(dtype, shape, bytes): equality means the same bits."""
    a = np.asarray(a)
    return a.dtype.str, a.shape, a.tobytes()


# --- known answers -------------------------------------------------------------------------

def test_greedy_examples_of_the_contract():
    # docs/spec/greedy.md: {1, 3, 3, -inf} -> 1 (first maximum); {-inf, -inf} -> 0; {5, NaN, NaN} -> 1.
    for row, token in (([1, 3, 3, -np.inf], 1), ([-np.inf, -np.inf], 0), ([5, np.nan, np.nan], 1)):
        got = sampcheck.reference.greedy(np.array([row], dtype=np.float32))
        assert got.dtype == np.int64 and got.tolist() == [token], (row, got)


@pytest.mark.parametrize("profile,expected", [("canonical", [NEG_INF, 3, NEG_INF, NEG_INF]),
                                              ("vllm", [NEG_INF, 3, 3, NEG_INF])])
def test_top_k_ties_at_the_kth_value(profile, expected):
    # docs/spec/filters.md#top_k: {1, 3, 3, 2}, k = 1: canonical keeps the lower index of the tie,
    # vllm's sort path keeps every entry >= the k-th value.
    got = sampcheck.reference.top_k(np.array([[1, 3, 3, 2]], np.float32), top_k=1, profile=profile)
    assert bits(got) == bits(np.array([expected], np.float32))


@pytest.mark.parametrize("profile", ["canonical", "vllm", "sglang", "flashinfer"])
def test_top_p_keeps_the_dyadic_nucleus(profile):
    # probs {1/2, 1/4, 1/8, 1/8} up to the softmax's rounding; p = 0.6 is far from every
    # prefix mass (0, 0.5, 0.75, 0.875), so every profile keeps exactly the first two
    # (vllm: ascending sums 0.125, 0.25 <= 1 - p = 0.4 are dropped; 0.5 and 1 are not).
    logits = np.log(np.array([[0.5, 0.25, 0.125, 0.125]])).astype(np.float32)
    got = sampcheck.reference.top_p(logits, top_p=0.6, profile=profile)
    expected = logits.copy()
    expected[0, 2:] = NEG_INF
    assert bits(got) == bits(expected)


def test_temperature_has_two_outputs():
    # docs/spec/temperature.md: {1, 2}, t = 0.5 -> {2, 4}; t = 0 -> {1, 2}, greedy.
    logits = np.array([[1, 2], [1, 2]], np.float32)
    out = sampcheck.reference.temperature(logits, temperature=np.array([0.5, 0], np.float32))
    assert sorted(out) == ["is_greedy", "logits"]
    assert bits(out["logits"]) == bits(np.array([[2, 4], [1, 2]], np.float32))
    assert out["is_greedy"].tolist() == [False, True]


# --- bit for bit against the C++ reference --------------------------------------------------

def golden_cases():
    return [c for c in sampcheck.golden.load(GOLDEN) if c.comparison != "distribution"]


def test_every_golden_case_reproduced_bitwise_through_python():
    cases = golden_cases()
    assert len(cases) > 100
    seen = set()
    for case in cases:
        got = sampcheck.reference.run(case.stage, case.inputs, case.params, case.profile)
        assert sorted(got) == sorted(case.expected), case.id
        for name, expected in case.expected.items():
            assert type(got[name]) is type(expected), (case.id, name)
            assert bits(got[name]) == bits(expected), f"{case.id}: output '{name}' differs from the C++ reference"
        seen.add(case.stage)
    catalogue = {s["name"] for s in sampcheck.stages()}
    assert len(seen) >= len(catalogue) - 3, f"golden/v1 reaches only {sorted(seen)} of {sorted(catalogue)}"


def test_stage_functions_match_run():
    case = next(c for c in golden_cases() if c.stage == "top_p" and c.profile == "vllm")
    direct = sampcheck.reference.top_p(**case.inputs, profile="vllm", **case.params)
    assert bits(direct) == bits(case.expected["logits"])


def test_one_function_per_catalogue_stage():
    names = [s["name"] for s in sampcheck.stages()]
    assert sampcheck.reference.STAGES == names
    for name in names:
        f = getattr(sampcheck.reference, name)
        assert f.__name__ == name and "Returns:" in f.__doc__


# --- inputs other than NumPy arrays ---------------------------------------------------------

def test_lists_and_buffers_are_accepted():
    assert sampcheck.reference.greedy(memoryview(np.array([[0, 2, 1]], np.float32))).tolist() == [1]


def test_bf16_round_trip_is_exact():
    values = np.array([[1.5, -2.0, 3.0e38, -0.0]], np.float32)
    b = sampcheck.Bf16.from_float32(values)
    assert b.tolist() == [[0x3FC0, 0xC000, 0x7F62, 0x8000]]  # by hand: the top 16 bits; 3e38 is 0x7F61B1E6, whose low half 0xB1E6 > 0x8000 rounds up
    assert sampcheck.reference.greedy(b).tolist() == [2]
    widened = np.array([[0x3FC00000, 0xC0000000, 0x7F620000, 0x80000000]], np.uint32).view(np.float32)
    assert bits(b.astype(np.float32)) == bits(widened)
    # A result computed from the bits (here int64) is sent as its own dtype, never as bf16.
    assert sampcheck.golden.compare(sampcheck.golden.Case("x", "greedy", "canonical", {}, "exact", {},
                                                          {"token": np.array([1])}), np.argmax(b, axis=1))


def test_cpu_torch_tensors():
    torch = pytest.importorskip("torch", reason="python3-torch is not installed (ci/setup.sh installs it)")
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0]])
    got = sampcheck.reference.top_k(x, top_k=torch.tensor([1], dtype=torch.int32), profile="vllm")
    assert bits(got) == bits(np.array([[NEG_INF, 3, 3, NEG_INF]], np.float32))
    assert sampcheck.reference.greedy(x.to(torch.bfloat16)).tolist() == [1]


# --- errors ---------------------------------------------------------------------------------

def test_cpp_errors_become_input_errors_with_the_message():
    with pytest.raises(sampcheck.InputError, match="valid profiles"):
        sampcheck.reference.top_k(np.zeros((1, 4), np.float32), top_k=1, profile="nonsense")
    with pytest.raises(sampcheck.InputError, match="'logits' must be f32, f16 or bf16, got i32"):
        sampcheck.reference.top_k(np.zeros((1, 4), np.int32), top_k=1)
    assert issubclass(sampcheck.InputError, ValueError)


def test_python_usage_errors_name_the_arguments():
    with pytest.raises(TypeError, match="tensors: logits, top_k"):
        sampcheck.reference.top_k(np.zeros((1, 4), np.float32), top_k=1, kk=3)
    with pytest.raises(TypeError, match="not one of sampcheck's"):
        sampcheck.reference.greedy(np.zeros((1, 4), np.complex64))


# reference.run used to ignore a misspelt tensor or parameter name and run the stage with its
# default; the CLI refuses both with the accepted names (golden/verifier.h UnknownNames).
def test_run_refuses_unknown_tensor_and_parameter_names():
    logits = np.array([[0.0, 1.0, 2.0]], dtype=np.float32)
    with pytest.raises(sampcheck.InputError, match="tensor 'in.temprature' is not an input of stage 'softmax'"):
        sampcheck.reference.run("softmax", {"logits": logits, "temprature": np.ones(1, np.float32)})
    with pytest.raises(sampcheck.InputError, match="parameter 'ks_maxx' is not a parameter of stage 'top_k'"):
        sampcheck.reference.run("top_k", {"logits": logits, "top_k": np.ones(1, np.int32)}, {"ks_maxx": 4})
