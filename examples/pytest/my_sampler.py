# SPDX-License-Identifier: Apache-2.0
"""The code under test in the pytest example (test_my_sampler.py): a small NumPy sampler
standing in for your kernels. Each function takes and returns NumPy arrays."""
import numpy as np


def greedy(logits):
    """argmax per row; NaN ranks first and ties go to the lowest index (np.argmax does both)."""
    return np.argmax(logits, axis=1).astype(np.int64)


def top_k(logits, k):
    """Keep the k largest logits per row (ties at the k-th value to the lower index; a NaN
    ranks above every number, docs/spec/filters.md "Degenerate rows"); k <= 0 or k >= V keeps
    the row."""
    out = logits.astype(np.float32).copy()
    vocab = out.shape[1]
    for r, kr in enumerate(k):
        if 0 < kr < vocab:
            # NaN first, then value descending, then index ascending (the last key is primary).
            order = np.lexsort((np.arange(vocab), -out[r], ~np.isnan(out[r])))
            out[r, order[kr:]] = -np.inf
    return out


def exponential_race(probs, q):
    """argmax(probs / q) over tokens of positive or NaN probability; NaN ranks first (np.argmax)
    and a row with neither draws 0 (docs/spec/draws.md "Degenerate rows")."""
    with np.errstate(divide="ignore"):
        ratio = np.where((probs > 0) | np.isnan(probs), probs.astype(np.float32) / q, -np.inf)
    return np.argmax(ratio, axis=1).astype(np.int64)


def draw_counts(probs, draws, seed):
    """`draws` exponential-race draws per row with NumPy's Exp(1) noise, counted per token."""
    rng = np.random.default_rng(seed)
    rows, vocab = probs.shape
    counts = np.zeros((rows, vocab), dtype=np.int64)
    chunk = max(1, (1 << 20) // vocab)
    for r in range(rows):
        done = 0
        while done < draws:
            n = min(chunk, draws - done)
            q = rng.standard_exponential((n, vocab), dtype=np.float32)
            q[q == 0] = np.float32(1e-30)  # Exp(1) noise must be > 0 (docs/spec/draws.md)
            tokens = exponential_race(np.broadcast_to(probs[r], (n, vocab)), q)
            counts[r] += np.bincount(tokens, minlength=vocab)
            done += n
    return counts
