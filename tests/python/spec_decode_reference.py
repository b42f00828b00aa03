#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent NumPy recomputation of the speculative-decoding goldens
(docs/spec/speculative.md): spec_greedy and spec_random under vllm, flashinfer and
typical_acceptance.

Written from the peers' published code (vLLM vllm/v1/sample/rejection_sampler.py
rejection_greedy_sample_kernel / rejection_random_sample_kernel / sample_recovered_tokens_kernel
at 9aaf83ef;
FlashInfer include/flashinfer/sampling.cuh ChainSpeculativeSampling with uniform_samples; vLLM v0
TypicalAcceptanceSampler and Medusa's evaluate_posterior) and the spec, with NumPy float32
scalars for every f32 operation -- no sampcheck code. check_golden_case.py imports CHECKS from
here, so `ctest -R python_golden_check` runs it over golden/v1.

typical_acceptance needs the correctly rounded f32 log and exp (sampcheck's LogF32Cr and
ExpF32Cr): here they are float64 results rounded once to float32, which equals the correctly
rounded value unless the float64 result lies within 2^-29 relative of a float32 rounding
boundary (double rounding); no golden input is near one, and a mismatch would show as a failure,
never as a silent pass. The canonical sum is the 1024-lane fold and tree of
docs/spec/reductions.md.
"""
import numpy as np

F32 = np.float32


def _draft_counts(drafts):
    return [int(np.sum(row != -1)) for row in drafts]


def _argmax(row):
    return int(np.argmax(row))  # NumPy: first NaN, else the first maximum (greedy.md's order)


def spec_greedy(meta, t):
    drafts = t["in.draft_ids"]
    target = t["in.target_logits"].astype(F32)
    rows, k = drafts.shape
    emitted = np.full((rows, k + 1), -1, dtype=np.int64)
    accepted = np.zeros(rows, dtype=np.int64)
    for b, n in enumerate(_draft_counts(drafts)):
        for i in range(n + 1):
            a = _argmax(target[b, i])
            emitted[b, i] = a
            if i == n or drafts[b, i] != a:
                accepted[b] = i
                break
    return {"out.emitted": emitted, "out.num_accepted": accepted}


def _race(weights, q):
    # argmax over every token of weights / q, one f32 division each, first maximum.
    return int(np.argmax((weights.astype(F32) / q.astype(F32)).astype(F32)))


def _race_reciprocal(weights, q):
    # vLLM 9aaf83ef sample_recovered_tokens: inv_q = q.reciprocal(), score = prob * inv_q (two f32
    # roundings), first maximum.
    # A NaN score never wins (the kernel keeps a tile only when local_max > max_val); every
    # score NaN: 0 (speculative.md "Degenerate rows").
    inv_q = (F32(1) / q.astype(F32)).astype(F32)
    score = (weights.astype(F32) * inv_q).astype(F32)
    return int(np.argmax(np.where(np.isnan(score), F32(-np.inf), score)))


def _vllm_row(drafts, target, draft, u, q, bonus_q):
    tokens = []
    for i, x in enumerate(drafts):
        tp = F32(target[i, x])
        dp = F32(1.0) if draft is None else F32(draft[i, x])
        if dp > 0 and float(F32(tp / dp)) >= float(u[i]):  # f32 quotient widened to f64
            tokens.append(int(x))
            continue
        if draft is None:
            residual = target[i].astype(F32).copy()
            residual[x] = F32(0)
        else:
            diff = (target[i].astype(F32) - draft[i].astype(F32)).astype(F32)
            residual = np.where(diff > 0, diff, F32(0)).astype(F32)  # NaN and -0 become +0
        tokens.append(_race_reciprocal(residual, q))
        return tokens, i
    tokens.append(_race(target[len(drafts)], bonus_q))
    return tokens, len(drafts)


def _flashinfer_draw(target_row, draft_row, u):
    r = target_row.astype(F32) if draft_row is None else (target_row.astype(F32) - draft_row.astype(F32)).astype(F32)
    r = np.where(r > 0, r, F32(0)).astype(F32)
    running = F32(0)
    cdf = np.empty_like(r)
    for j, v in enumerate(r):  # the fixed left-to-right f32 order
        running = F32(running + v)
        cdf[j] = running
    x = F32(F32(u) * running)
    for j in range(len(r)):
        if r[j] > 0 and x < cdf[j]:
            return j
    return len(r) - 1  # the kernel's initial sampled_id, d - 1


def _flashinfer_row(drafts, target, draft, u):
    n = len(drafts)
    tokens = []
    for i, x in enumerate(drafts):
        if F32(F32(u[i]) * F32(draft[i, x])) < F32(target[i, x]):
            tokens.append(int(x))
            continue
        tokens.append(_flashinfer_draw(target[i], draft[i], u[min(i + 1, n)]))
        return tokens, i
    tokens.append(_flashinfer_draw(target[n], None, u[n]))
    return tokens, n


def _canonical_sum(values):
    lanes = np.full(1024, F32(-0.0), dtype=F32)
    for i, v in enumerate(values.astype(F32)):
        lanes[i % 1024] = F32(lanes[i % 1024] + v)
    s = 512
    while s >= 1:
        lanes[:s] = (lanes[:s] + lanes[s:2 * s]).astype(F32)
        s //= 2
    return F32(lanes[0])


def _f32_log(x):
    return F32(np.log(np.float64(x)))


def _f32_exp(x):
    return F32(np.exp(np.float64(x)))


def _typical_row(drafts, target, bonus_q, threshold, alpha):
    tokens = []
    for i, x in enumerate(drafts):
        row = target[i].astype(F32)
        terms = np.array([F32(p * _f32_log(F32(p + F32(1e-5)))) for p in row], dtype=F32)
        scaled = F32(_f32_exp(_canonical_sum(terms)) * F32(alpha))
        thr = scaled if (np.isnan(scaled) or scaled < F32(threshold)) else F32(threshold)  # torch.minimum: NaN wins
        if row[x] > thr:
            tokens.append(int(x))
            continue
        tokens.append(_argmax(row))
        return tokens, i
    tokens.append(_race(target[len(drafts)], bonus_q))
    return tokens, len(drafts)


def spec_random(meta, t):
    profile = meta["profile"]
    drafts = t["in.draft_ids"]
    target = t["in.target_probs"].astype(F32)
    draft = t["in.draft_probs"].astype(F32) if "in.draft_probs" in t else None
    rows, k = drafts.shape
    emitted = np.full((rows, k + 1), -1, dtype=np.int64)
    accepted = np.zeros(rows, dtype=np.int64)
    params = meta.get("params", {})
    for b, n in enumerate(_draft_counts(drafts)):
        d = drafts[b, :n]
        if profile == "vllm":
            tokens, a = _vllm_row(d, target[b], None if draft is None else draft[b], t["in.u"][b], t["in.q"][b],
                                  t["in.bonus_q"][b])
        elif profile == "flashinfer":
            tokens, a = _flashinfer_row(d, target[b], draft[b], t["in.u"][b])
        else:
            tokens, a = _typical_row(d, target[b], t["in.bonus_q"][b], params.get("posterior_threshold", 0.09),
                                     params.get("posterior_alpha", 0.3))
        emitted[b, :len(tokens)] = tokens
        accepted[b] = a
    return {"out.emitted": emitted, "out.num_accepted": accepted}


CHECKS = {("spec_greedy", None): spec_greedy, ("spec_random", None): spec_random}
