# SPDX-License-Identifier: Apache-2.0
"""Independent checks of the token_bitmask_fill, token_bitmask_allowed and
token_bitmask_stop_tokens goldens (docs/spec/token_bitmask_fill.md and beside it), written from
the spec with Python integers: bit t % 32 of word t // 32, LSB first; vLLM's logit index = batch
index + the speculative tokens before it; xgrammar's stop-token rule."""
import numpy as np


def _i32(word):
    word &= 0xFFFFFFFF
    return word - (1 << 32) if word >= 1 << 31 else word


def token_bitmask_fill(meta, t):
    vocab = meta["params"]["vocab_size"]
    words = meta["params"].get("words", (vocab + 31) // 32)
    spec = [int(k) for k in t["in.spec_tokens"]]
    first = [sum(1 + k for k in spec[:b]) for b in range(len(spec))]
    rows = sum(1 + k for k in spec)
    mask = [[(1 << 32) - 1] * words for _ in range(rows)]
    indices, g = [], 0
    for b in (int(x) for x in t["in.structured"]):
        for i in range(spec[b] + 1):
            row = first[b] + i
            indices.append(row)
            bits = [0] * ((vocab + 31) // 32)
            for tok in range(vocab, 32 * len(bits)):  # the tail is 1
                bits[tok // 32] |= 1 << (tok % 32)
            for tok in (int(x) for x in t["in.allowed_ids"][g]):
                if tok >= 0:
                    bits[tok // 32] |= 1 << (tok % 32)
            mask[row][:len(bits)] = bits
            g += 1
    return {"out.bitmask": np.array([[_i32(w) for w in r] for r in mask], dtype=np.int32).reshape(rows, words),
            "out.indices": np.array(indices, dtype=np.int32)}


def token_bitmask_allowed(meta, t):
    mask = t["in.bitmask"]
    vocab = meta["params"].get("vocab_size", 32 * mask.shape[1])
    ids = t["in.token_ids"]
    out = np.zeros(ids.shape, dtype=np.bool_)
    for b in range(ids.shape[0]):
        for j in range(ids.shape[1]):
            tok = int(ids[b, j])
            out[b, j] = 0 <= tok < vocab and (int(mask[b, tok // 32]) & 0xFFFFFFFF) >> (tok % 32) & 1 == 1
    return {"out.allowed": out}


def token_bitmask_stop_tokens(meta, t):
    mask = [[int(w) & 0xFFFFFFFF for w in r] for r in t["in.bitmask"]]
    for b, row in enumerate(t["in.stop_ids"]):
        for tok in (int(x) for x in row):
            if tok < 0:
                continue
            if t["in.can_end"][b]:
                mask[b][tok // 32] |= 1 << (tok % 32)
            else:
                mask[b][tok // 32] &= ~(1 << (tok % 32))
    return {"out.bitmask": np.array([[_i32(w) for w in r] for r in mask], dtype=np.int32).reshape(t["in.bitmask"].shape)}


CHECKS = {("token_bitmask_fill", None): token_bitmask_fill, ("token_bitmask_allowed", None): token_bitmask_allowed,
          ("token_bitmask_stop_tokens", None): token_bitmask_stop_tokens}
