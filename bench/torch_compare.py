#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's CPU sampling paths on the issue's shapes, to compare with sampcheck_bench.

Times, on B = 64 rows of V = 151936 f32 logits uniform on [-16, 16) (the distribution of
bench/support/bench_support.h's RandomLogits), with torch.set_num_threads(1) by default:

  plain_read      torch.amax over the logits: one read, the memory floor
  argmax          logits.argmax(-1): what vLLM and SGLang run for greedy rows
  topk_threshold  vLLM's top-k-only path: topk(50).values[:, -1:], masked_fill(logits < kth)
  sort_topk_topp_draw
                  vLLM's sort path (vllm/v1/sample/ops/topk_topp_sampler.py, apply_top_k_top_p):
                  ascending sort, top-k mask from the k-th largest, softmax, cumsum,
                  top-p mask (cumsum <= 1 - p, the last always kept), scatter back, then the
                  exponential-race draw: argmax(softmax(logits) / Exponential(1))
  vllm_min_p_first
                  min_p (0.05) on the softmax, then the sort path above: vLLM's order

Prints one line per path: the median of --repeat timings in ms, and the ratio to plain_read.
Run when python3-torch is installed (Debian: apt-get install python3-torch), with the
system interpreter: /usr/bin/python3 bench/torch_compare.py [--threads N] [--repeat R]
[--clock wall|cpu] (cpu: process CPU time, for a machine shared with other jobs).
Compare against sampcheck_bench's ratios to its own plain-read baselines measured on the
same machine (bench/README.md "The memory floor"): both sides are normalised by one read.
"""

import argparse
import statistics
import sys
import time

try:
    import torch
except ImportError:
    sys.exit("torch_compare.py: PyTorch is not installed (Debian: apt-get install python3-torch)")

B, V, K, P, MIN_P = 64, 151936, 50, 0.9, 0.05


def timed(fn, repeat, clock):
    fn()  # warm-up: allocations, first-touch pages
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    return statistics.median(times)


def sort_topk_topp(logits, k, p):
    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)
    kth = logits_sort.gather(1, (logits_sort.size(1) - k).unsqueeze(1))
    logits_sort.masked_fill_(logits_sort < kth, -float("inf"))
    probs_sort = logits_sort.softmax(dim=-1)
    probs_sum = probs_sort.cumsum(dim=-1)
    top_p_mask = probs_sum <= 1 - p.unsqueeze(1)
    top_p_mask[:, -1] = False
    logits_sort.masked_fill_(top_p_mask, -float("inf"))
    return logits_sort.scatter(dim=-1, index=logits_idx, src=logits_sort)


def draw(logits, generator):
    probs = logits.softmax(dim=-1)
    q = torch.empty_like(probs).exponential_(generator=generator)
    return probs.div_(q).argmax(dim=-1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: process CPU time (for a shared machine; compare with sampcheck_bench's cpu_time)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0x243F6A88)
    logits = (torch.randint(0, 1 << 24, (B, V), generator=gen, dtype=torch.int64).float() * 2.0**-24) * 32.0 - 16.0
    k = torch.full((B,), K, dtype=torch.int64)
    p = torch.full((B,), P, dtype=torch.float32)

    def topk_threshold():
        x = logits.clone()
        kth = x.topk(K, dim=1).values[:, -1:]
        return x.masked_fill_(x < kth, -float("inf"))

    def vllm_min_p_first():
        x = logits.clone()
        probs = x.softmax(dim=-1)
        keep = probs >= probs.amax(dim=-1, keepdim=True) * MIN_P
        x.masked_fill_(~keep, -float("inf"))
        return draw(sort_topk_topp(x, k, p), gen)

    paths = {
        "plain_read": lambda: torch.amax(logits),
        "argmax": lambda: logits.argmax(dim=-1),
        "topk_threshold": topk_threshold,
        "sort_topk_topp_draw": lambda: draw(sort_topk_topp(logits.clone(), k, p), gen),
        "vllm_min_p_first": vllm_min_p_first,
    }
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, clock {args.clock}, B {B}, V {V}, k {K}, p {P}, min_p {MIN_P}")
    floor = None
    for name, fn in paths.items():
        ms = timed(fn, args.repeat, time.perf_counter if args.clock == "wall" else time.process_time)
        floor = floor or ms
        print(f"{name:22s} {ms:10.2f} ms   {ms / floor:8.1f} x plain_read")


if __name__ == "__main__":
    main()
