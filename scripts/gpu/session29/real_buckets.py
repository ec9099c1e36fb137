#!/usr/bin/env python3
"""Best own SpMM candidate over cuSPARSE's best of the same layout, grouped by the matrix's
number of entries, from kkperm_spmm JSON files (.json or .json.gz).

Usage: python3 scripts/gpu/session29/real_buckets.py FILE... [--list-from NNZ]
Prints one markdown table (per size group and layout: cases, mean, geomean, min, max, cases where
own is ahead, median of cuSPARSE's best time); --list-from NNZ also lists every case of a matrix
with at least NNZ entries. Own = kkperm's kernels (not cusparse_*, not kk_*); cases without a
successful own and cuSPARSE record are left out.
"""
import argparse
import collections
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from run_json import load_results  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--list-from", type=int, default=0)
    a = ap.parse_args()
    cases = collections.defaultdict(list)
    for p in a.files:
        for r in load_results(p):
            if r.get("status") == "ok":
                cases[(r["matrix"], r["K"], r["layout"])].append(r)
    groups = [(0, 1000), (1000, 10000), (10000, 100000), (100000, None)]
    ratio = collections.defaultdict(list)
    cu_us = collections.defaultdict(list)
    rows = []
    for (m, K, lay), rs in sorted(cases.items()):
        cu = [(r["median_ms"], r["candidate"]) for r in rs if r["kernel"].startswith("cusparse")]
        own = [(r["median_ms"], r["candidate"]) for r in rs
               if not r["kernel"].startswith("cusparse") and not r["kernel"].startswith("kk_")]
        if not cu or not own:
            continue
        c, o = min(cu), min(own)
        nnz = rs[0]["nnz"]
        for g in groups:
            if nnz >= g[0] and (g[1] is None or nnz < g[1]):
                ratio[(g, lay)].append(c[0] / o[0])
                cu_us[(g, lay)].append(c[0] * 1e3)
        if a.list_from and nnz >= a.list_from:
            rows.append(f"| {m} | {nnz} | {rs[0]['rows']} | {K} | {lay} | {c[0]*1e3:.1f} ({c[1]}) | "
                        f"{o[0]*1e3:.1f} ({o[1]}) | {c[0]/o[0]:.2f} |")
    print("| entries | layout | cases | mean | geomean | min | max | own ahead | cuSPARSE best, median µs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (g, lay), v in sorted(ratio.items(), key=lambda kv: (kv[0][0][0], kv[0][1])):
        geo = math.exp(sum(map(math.log, v)) / len(v))
        span = f"{g[0]}–{g[1] - 1}" if g[1] else f"≥ {g[0]}"
        print(f"| {span} | {lay} | {len(v)} | {statistics.mean(v):.2f} | {geo:.2f} | {min(v):.2f} | "
              f"{max(v):.2f} | {sum(x > 1 for x in v)} | {statistics.median(cu_us[(g, lay)]):.1f} |")
    if rows:
        print()
        print("| matrix | entries | rows | K | layout | cuSPARSE best µs | own best µs | x |")
        print("|---|---:|---:|---:|---|---:|---:|---:|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
