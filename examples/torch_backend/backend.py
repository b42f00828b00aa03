#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A PyTorch sampler checked by sampcheck: the way vLLM's native sampling path is written
(vllm/v1/sample/ops/topk_topp_sampler.py: sort-based top-k and top-p, then an exponential
race `probs.div_(q).argmax()`), served as an exec backend with sampcheck.backend.serve
(docs/python.md "Backends"). ctest runs it (examples/torch_backend/run_conform.sh):

    sampcheck conform --golden golden/v1 --report out \\
        --backend "exec:python3 examples/torch_backend/backend.py {cases} {responses}"

It implements the `vllm` profile of greedy (canonical), top_k, top_p, temperature and
exponential_race, and draws exponential_race with its own torch.Generator for the statistical
cases. Replace a function's body with a call into your kernel to check the kernel.

Arithmetic: the `vllm` profile is vLLM's *rule* on sampcheck's canonical arithmetic
(docs/spec/filters.md#top_p): probabilities from the canonical softmax, and the ascending
running sum in float32, left to right. torch's CPU softmax uses its own exp, and its CPU
cumsum accumulates float32 in double, so top_p takes the softmax from sampcheck.reference and
sums with NumPy's sequential float32 accumulate; everything else is torch.
"""
import numpy as np
import torch

import sampcheck


def as_torch(x):
    """float32 torch tensor from a case input (f16 and bf16 widen exactly)."""
    if isinstance(x, sampcheck.Bf16):
        x = x.to_float32()
    return torch.from_numpy(np.ascontiguousarray(x)).to(torch.float32)


def greedy(case):
    # torch.argmax: NaN above every number, ties to the first index (docs/spec/greedy.md).
    return {"token": torch.argmax(as_torch(case.inputs["logits"]), dim=-1)}


def apply_top_k(logits, k):
    """vLLM's sort path: keep every logit >= the k-th largest; k <= 0 or k >= V disables."""
    vocab = logits.shape[-1]
    active = (k > 0) & (k < vocab)
    if not bool(active.any()):
        return logits
    sorted_desc = logits.sort(dim=-1, descending=True).values
    kth = sorted_desc.gather(-1, (k.clamp(1, vocab) - 1).long().unsqueeze(-1))
    masked = logits.masked_fill(logits < kth, float("-inf"))
    return torch.where(active.unsqueeze(-1), masked, logits)


def apply_top_p(logits, p):
    """vLLM's sort path: ascending sort, running sum, drop tokens whose sum <= 1 - p, keep the
    largest. p >= 1 disables; a row without a finite logit is left as it is, and so is one
    holding NaN or +inf (docs/spec/filters.md "Degenerate rows")."""
    out = logits.clone()
    probs_all = sampcheck.reference.softmax(logits.numpy())  # canonical softmax (see the module doc)
    for r in range(logits.shape[0]):
        pr = float(p[r])
        if pr >= 1 or not bool(torch.isfinite(logits[r]).any()):
            continue
        # A stable ascending sort, as torch.sort on CPU gives vLLM: value ascending, equal values
        # in index order, so of a tie at the boundary the higher index survives.
        order = np.lexsort((np.arange(logits.shape[1]), logits[r].numpy()))
        probs = probs_all[r][order]
        if pr <= 0 and not np.isnan(probs).any():
            # Outside vLLM's domain (it requires 0 < top_p): the spec keeps the top token, the
            # lowest index among tied maxima (np.argmax returns the first).
            keep_sorted = order == int(np.argmax(logits[r].numpy()))
        else:
            cumulative = np.add.accumulate(probs, dtype=np.float32)  # f32, left to right
            # vLLM masks `probs_sum <= 1 - p`: false for a NaN sum (a row holding NaN or +inf,
            # whose softmax is NaN everywhere), so such a row keeps every entry.
            keep_sorted = ~(cumulative <= np.float32(1) - np.float32(pr))
            keep_sorted[-1] = True  # vLLM: the largest token is always kept
        drop = torch.from_numpy(order[~keep_sorted])
        out[r, drop] = float("-inf")
    return out


def top_k(case):
    return {"logits": apply_top_k(as_torch(case.inputs["logits"]), torch.from_numpy(case.inputs["top_k"]))}


def top_p(case):
    return {"logits": apply_top_p(as_torch(case.inputs["logits"]), torch.from_numpy(case.inputs["top_p"]))}


def temperature(case):
    # vLLM: temperatures in (0, 0.01) are raised to 0.01; greedy rows (t < 1e-5) divide by 1.
    # The comparisons are made in double on the f32 value, as vLLM does in Python.
    logits = as_torch(case.inputs["logits"])
    t = case.inputs["temperature"].astype(np.float64)
    t = np.where((t > 0) & (t < 0.01), 0.01, t)
    greedy_rows = t < 1e-5
    divisor = torch.from_numpy(np.where(greedy_rows, 1.0, t).astype(np.float32))
    return {"logits": logits / divisor.unsqueeze(-1), "is_greedy": torch.from_numpy(greedy_rows)}


def exponential_race(case):
    # vLLM random_sample: probs.div_(q).argmax(dim=-1), over every token.
    probs, q = as_torch(case.inputs["probs"]), as_torch(case.inputs["q"])
    return {"token": probs.div(q).argmax(dim=-1)}


def draw_exponential_race(case, draws, seed):
    """`draws` tokens per row with torch's own Exp(1) noise, counted: counts [rows, V] i64."""
    probs = as_torch(case.inputs["probs"])
    rows, vocab = probs.shape
    generator = torch.Generator().manual_seed(seed)
    counts = torch.zeros((rows, vocab), dtype=torch.int64)
    chunk = max(1, (1 << 22) // vocab)  # draws per batch: about 16 MiB of noise
    for r in range(rows):
        done = 0
        while done < draws:
            n = min(chunk, draws - done)
            q = torch.empty((n, vocab)).exponential_(generator=generator)
            tokens = probs[r].unsqueeze(0).div(q).argmax(dim=-1)
            counts[r] += torch.bincount(tokens, minlength=vocab)
            done += n
    return counts


if __name__ == "__main__":
    sampcheck.backend.serve(
        {"greedy": (greedy, ["canonical"]), "top_k": top_k, "top_p": top_p, "temperature": temperature,
         "exponential_race": exponential_race},
        name="example-torch-vllm", profiles=["vllm"], draws={"exponential_race": draw_exponential_race})
