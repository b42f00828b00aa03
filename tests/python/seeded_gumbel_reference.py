#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent known answers for multinomial_with_seed (docs/spec/draws.md#multinomial_with_seed).

Written from SGLang's published function (python/sglang/srt/layers/sampler.py,
multinomial_with_seed / multinomial_with_seed_and_token_ids) and the public MurmurHash3_x86_32,
with mpmath logarithms rounded to binary64 — no sampcheck code. tests/seeded_gumbel_test.cc
pastes the printed winners. Run: /usr/bin/python3 tests/python/seeded_gumbel_reference.py
"""
import struct

import mpmath

mpmath.mp.prec = 200
M32 = 0xFFFFFFFF


def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & M32


def murmur3_x86_32(data: bytes, seed: int = 0) -> int:
    h = seed
    for i in range(0, len(data) // 4 * 4, 4):
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * 0xCC9E2D51) & M32
        k = rotl(k, 15)
        k = (k * 0x1B873593) & M32
        h ^= k
        h = rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & M32
    assert len(data) % 4 == 0
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return h


def log_rn(x: float) -> float:
    """Correctly rounded binary64 log (mpmath at 200 bits, then round to nearest)."""
    if x == 0.0:
        return float("-inf")
    return float(mpmath.log(mpmath.mpf(x)))


def gumbel(h: int) -> float:
    u = h / 4294967295.0  # one IEEE division, as torch's float64 tensor division
    lo = log_rn(u)
    lo = max(lo, -1.7976931348623157e308)  # clamp_(min=finfo(float64).min, ...
    lo = min(lo, -(2.0 ** -32))            #         max=-(2.0 ** -32))
    return -log_rn(-lo)


def draw(probs, seed, position, columns=None):
    s = seed & 0xFFFFFFFFFFFFFFFF  # seed.to(torch.uint64)
    best, best_v = None, None
    for j, p in enumerate(probs):
        col = j if columns is None else columns[j]
        key = struct.pack("<IIII", s & M32, s >> 32, position & M32, col & M32)
        v = log_rn(p) + gumbel(murmur3_x86_32(key))
        if best is None or v > best_v:
            best, best_v = j, v
    return best


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


ROWS = [
    ([0.5, 0.25, 0.125, 0.125], 0, 0),
    ([0.5, 0.25, 0.125, 0.125], 42, 7),
    ([0.5, 0.25, 0.125, 0.125], -1, 4294967295),
    ([0.25] * 4, 1234567890123, 3),
    ([0.0, 0.0, 1.0, 0.0], 99, 1),
    ([f32(0.1)] * 10, 2024, 11),
]
for probs, seed, pos in ROWS:
    print("rank", seed, pos, draw(probs, seed, pos))
ids = [7, 3, 151935, 0, 42, 1000, 5, 6, 8, 9]
for probs, seed, pos in ROWS:
    print("ids ", seed, pos, draw(probs, seed, pos, ids[: len(probs)]))
print("hash(0,0,0) =", hex(murmur3_x86_32(bytes(16))))
# tests/pipeline_test.cc: the canonical pipeline draws with token-id columns on the row in
# vocabulary order; softmax of {-2 ln2, 0, -2 ln2, -ln2} is exactly {1/8, 1/2, 1/8, 1/4}.
for seed, pos in [(-1, 4294967295), (0, 0), (42, 7), (7, 1)]:
    print("canonical", seed, pos, draw([0.125, 0.5, 0.125, 0.25], seed, pos))
    print("sglang rank", seed, pos, draw([0.5, 0.25, 0.125, 0.125], seed, pos))
