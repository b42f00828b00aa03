# SPDX-License-Identifier: Apache-2.0
"""NumPy re-derivations of finish_rules and of logprobs in raw_logits mode (docs/spec/finish_rules.md,
docs/spec/logprobs.md), written from the spec, independent of sampcheck's C++.

Used by check_golden_case.py through CHECKS.
"""
import numpy as np


def finish_rules(meta, t):
    profile = meta["profile"]
    rows = t["in.token"].shape[0]
    reason = np.zeros(rows, dtype=np.int32)
    stop_reason = np.full(rows, -1, dtype=np.int64)
    keep = np.ones(rows, dtype=np.bool_)
    width = t["in.eos_ids"].shape[1] + t["in.stop_ids"].shape[1]
    banned = np.full((rows, width), -1, dtype=np.int32)
    keep_stop = t.get("in.keep_stop", np.zeros(rows, dtype=np.bool_))
    for b in range(rows):
        tok = int(t["in.token"][b])
        n, mx, mn = int(t["in.output_len"][b]), int(t["in.max_tokens"][b]), int(t["in.min_tokens"][b])
        ignore = bool(t["in.ignore_eos"][b])
        eos = [int(x) for x in t["in.eos_ids"][b] if x >= 0]
        stop = [int(x) for x in t["in.stop_ids"][b] if x >= 0]
        primary = int(t["in.eos_ids"][b][0]) if t["in.eos_ids"].shape[1] else -1
        extras = [int(x) for x in t["in.eos_ids"][b][1:] if x >= 0]
        if profile == "sglang":  # Req.update_finish_state: the token match before the length
            if not ignore and (tok in stop or tok in eos):
                reason[b], stop_reason[b] = 1, tok
            elif n >= mx:
                reason[b] = 2
        elif n >= mn:  # check_stop
            if not ignore and primary >= 0 and tok == primary:
                reason[b], stop_reason[b] = 1, (-1 if profile == "vllm" else tok)
            elif tok in stop or (not ignore and tok in extras):
                reason[b], stop_reason[b] = 1, tok
            elif n >= mx:
                reason[b] = 2
        if reason[b] == 1:
            keep[b] = bool(keep_stop[b]) or (profile == "sglang" and tok == 0)
        if n < mn:
            # SGLang's min-new-tokens penalizer bans the tokenizer's EOS (the primary) and the
            # stop ids, not the generation-config extras.
            banned_eos = ([primary] if primary >= 0 else []) if profile == "sglang" else eos
            ids = sorted(set(banned_eos) | set(stop))
            banned[b, :len(ids)] = ids
    return {"out.finish_reason": reason, "out.stop_reason": stop_reason, "out.text_keep": keep,
            "out.next_banned": banned}


def logprobs(meta, t):
    params = meta["params"]
    if meta["profile"] == "sglang" or params.get("mode", "raw_logprobs") != "raw_logits":
        return {}
    if meta["profile"] == "vllm" and "in.token_ids" in t:
        return {}  # logprob_token_ids: the processed log-softmax (logprobs.md), not raw logits
    x = t.get("in.raw_logits", t["in.logits"]).astype(np.float32)
    n = int(params.get("num_logprobs", 0))
    rows = x.shape[0]
    ids = np.zeros((rows, n), dtype=np.int64)
    vals = np.zeros((rows, n), dtype=np.float32)
    rank = np.zeros(rows, dtype=np.int64)
    top_ranks = np.zeros((rows, n), dtype=np.int64)
    tok_val = np.zeros(rows, dtype=np.float32)
    for b in range(rows):
        row = x[b]
        order = sorted(range(row.size), key=lambda j: (0 if np.isnan(row[j]) else 1,
                                                       0.0 if np.isnan(row[j]) else -float(row[j]), j))
        ids[b] = order[:n]
        vals[b] = row[order[:n]]
        with np.errstate(invalid="ignore"):
            # canonical: 1 + #{x > value} (NaN never greater); vllm: the position + 1
            # (vllm/logprobs.py append_logprobs_for_next_position, topk_ranks).
            for j in range(n):
                top_ranks[b, j] = j + 1 if meta["profile"] == "vllm" else 1 + int(np.sum(row > vals[b, j]))
        tok = int(t["in.token"][b])
        v = row[tok]
        tok_val[b] = v
        with np.errstate(invalid="ignore"):
            rank[b] = int(np.sum(row >= v)) if meta["profile"] == "vllm" else 1 + int(np.sum(row > v))
    out = {"out.top_ids": ids, "out.top_values": vals, "out.top_ranks": top_ranks, "out.token_logprob": tok_val,
           "out.token_rank": rank}
    if "in.token_ids" in t:
        req = t["in.token_ids"]
        got = np.full(req.shape, np.nan, dtype=np.float32)
        for b in range(rows):
            for j, i in enumerate(req[b]):
                if i >= 0:
                    got[b, j] = x[b, i]
        out["out.token_ids_logprobs"] = got
    return out


CHECKS = {("finish_rules", None): finish_rules, ("logprobs", None): logprobs}
