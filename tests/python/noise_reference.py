# SPDX-License-Identifier: Apache-2.0
"""Independent reference for the noise stage (docs/spec/noise.md), NumPy and the standard library
only: Philox4x32-10 written from Random123's definition (round multipliers 0xD2511F53 and
0xCD9E8D57, key bumps 0x9E3779B9 and 0xBB67AE85), MurmurHash3_x86_32 of SGLang's 16-byte key
from Austin Appleby's reference, and every logarithm evaluated with Python's decimal module at
50 digits and rounded once to the format the spec names (so the result is the correctly rounded
value; sampcheck's owned LogF32Cr is correctly rounded, and its LogF64Dd's rare misrounding
cannot reach an f32 result that is then rounded from it except at a 2^-29 coincidence).

Used by check_golden_case.py (every noise case of golden/v1, bit for bit) and by the exchange
backend tests/support/noise_exchange_backend.py (the generators only).
"""
import decimal
from fractions import Fraction

import numpy as np

_CTX = decimal.Context(prec=50)
MASK = np.uint64(0xFFFFFFFF)


def philox_words(seed, counters):
    """Word c % 4 of Philox4x32_10({c/4 low, c/4 high, 0, 0}, {seed low, seed high}): cuRAND's
    stream, subsequence 0."""
    block = counters // np.uint64(4)
    c0, c1 = block & MASK, block >> np.uint64(32)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    for _ in range(10):
        p0, p1 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK)
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & MASK, (k1 + np.uint64(0xBB67AE85)) & MASK
    words = np.stack([c0, c1, c2, c3])
    return words[(counters % np.uint64(4)).astype(np.int64), np.arange(counters.size)].astype(np.uint32)


def _rotl(x, r):
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))).astype(np.uint32)


def murmur_key(seed, counters):
    """MurmurHash3_x86_32 (hash seed 0) of the bytes seed low, seed high, c >> 32, c mod 2^32."""
    with np.errstate(over="ignore"):
        h = np.zeros(counters.size, dtype=np.uint32)
        for k in (np.full(counters.size, seed & 0xFFFFFFFF, dtype=np.uint32),
                  np.full(counters.size, seed >> 32, dtype=np.uint32),
                  (counters >> np.uint64(32)).astype(np.uint32), (counters & MASK).astype(np.uint32)):
            k = _rotl(k * np.uint32(0xCC9E2D51), 15) * np.uint32(0x1B873593)
            h = _rotl(h ^ k, 13) * np.uint32(5) + np.uint32(0xE6546B64)
        h ^= np.uint32(16)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h *= np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h


def _ln(x):
    return Fraction(_CTX.ln(decimal.Decimal(float(x))))


def _round_f32(x):
    """x (a Fraction, normal binary32 range) rounded to nearest-even binary32."""
    if x == 0:
        return np.float32(0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    q = round(a * Fraction(2) ** (23 - e))  # half to even; a 2^24 carry is still exact below
    return np.float32(float(q * Fraction(2) ** (e - 23)) * (1 if x > 0 else -1))


def sample(generator, law, seed, c):
    """Samples at counters c (np.uint64 array) as float32, per docs/spec/noise.md "Samples"."""
    out = np.empty(c.size, dtype=np.float32)
    if generator == "philox":
        u = philox_words(seed, c).astype(np.float32) * np.float32(2.0**-32) + np.float32(2.0**-33)
        for i, ui in enumerate(u):
            if law == "uniform":
                out[i] = ui
                continue
            q = np.float32(2.0**-24) if ui >= np.float32(1 - 2.0**-24) else _round_f32(-_ln(ui))
            out[i] = q if law == "exponential" else _round_f32(-_ln(q))
        return out
    for i, h in enumerate(murmur_key(seed, c)):
        u = float(Fraction(int(h), 4294967295))  # correctly rounded, as RN_f64(h / (2^32 - 1))
        if law == "uniform":
            out[i] = np.float32(u)
            continue
        l = float(_ln(u)) if h != 0 else -np.finfo(np.float64).max
        l = min(l, -(2.0**-32))
        out[i] = np.float32(-l) if law == "exponential" else np.float32(-float(_ln(-l)))
    return out


def noise(meta, t):
    params = meta["params"]
    n = params.get("n", 1)
    rows = t["in.seed"].shape[0]
    out = np.zeros((rows, n), dtype=np.float32)
    for b in range(rows):
        c = np.uint64(int(t["in.offset"][b])) + np.arange(n, dtype=np.uint64)
        out[b] = sample(params.get("generator", "philox"), params["law"], int(t["in.seed"][b]) & 0xFFFFFFFFFFFFFFFF, c)
    return {"out.noise": out}


CHECKS = {("noise", None): noise}
