#!/usr/bin/env python3
"""How the row_major_left direct-run limits were chosen (run 214): for each limit pair on
entries x K (K <= 32, K > 32), the row_major_left time a case would get (the run-214 "new" build,
which ran every row set under one wave directly, where the rule allows it; the "old" build's
copies otherwise), how many direct cases win or lose against the copies, and the best own
column-major candidate (row_major_left or c_stationary) over cuSPARSE's best column-major
algorithm, by matrix size.

Usage: python3 scripts/gpu/session29/left_direct_rule.py RUN214_DIR
"""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from run_json import load_results  # noqa: E402


def load(d, v):
    out = collections.defaultdict(dict)
    for p in ("real1", "real2"):
        for r in load_results(f"{d}/{v}/spmm_{p}.json.gz"):
            if r["status"] == "ok":
                out[(r["matrix"], r["K"])][r["candidate"]] = (r["median_ms"], r["nnz"], r.get("details", ""))
    return out


def main():
    d = sys.argv[1]
    old, new = load(d, "old"), load(d, "new")
    groups = [(0, 1000), (1000, 10000), (10000, 100000)]
    print("| limit K <= 32 | limit K > 32 | direct faster | direct slower | < 1 000 | 1 000–9 999 | 10 000–99 999 | all |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lim32, lim in [(0, 0), (1 << 18, 1 << 18), (1 << 19, 1 << 18), (1 << 20, 1 << 18), (1 << 20, 1 << 17), (1 << 62, 1 << 62)]:
        res = collections.defaultdict(list)
        win = lose = 0
        for k, o in old.items():
            if k not in new or "row_major_left" not in o:
                continue
            nnz = o["row_major_left"][1]
            direct = "left_direct" in new[k]["row_major_left"][2] and nnz * k[1] <= (lim32 if k[1] <= 32 else lim)
            rml = new[k]["row_major_left"][0] if direct else o["row_major_left"][0]
            if direct:
                r = o["row_major_left"][0] / new[k]["row_major_left"][0]
                win += r > 1
                lose += r < 1
            own = min(rml, o["c_stationary"][0])
            cu = min(v[0] for c, v in o.items() if c.startswith("cusparse"))
            for g in groups:
                if g[0] <= nnz < g[1]:
                    res[g].append(cu / own)
        cells = " | ".join(f"{statistics.mean(res[g]):.3f}" for g in groups)
        every = statistics.mean([x for g in groups for x in res[g]])
        print(f"| {lim32 if lim32 < 1 << 62 else 'none'} | {lim if lim < 1 << 62 else 'none'} | {win} | {lose} | {cells} | {every:.3f} |")


if __name__ == "__main__":
    main()
