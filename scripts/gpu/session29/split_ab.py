#!/usr/bin/env python3
"""Tables of a split_ab.sh run: per matrix, K and layout, each own candidate's median (ms) in the
old and the new build (medians over rounds), the new build's split details, and the best own
candidate over cuSPARSE's best of the same layout in each build.

Usage: python3 scripts/gpu/session29/split_ab.py RUN_DIR [old new]
"""
import collections
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from run_json import load_results  # noqa: E402


def main():
    d = sys.argv[1]
    builds = sys.argv[2:] or ["old", "new"]
    t = collections.defaultdict(list)  # (build, matrix, K, layout, cand) -> [ms]
    det = {}
    order = []
    for p in sorted(glob.glob(os.path.join(d, "*.json.gz"))):
        b = os.path.basename(p).split("_")[0]
        if b not in builds:
            continue
        for r in load_results(p):
            if r.get("status") != "ok":
                continue
            key = (r["matrix"], r["K"], r["layout"])
            if key not in order:
                order.append(key)
            t[(b,) + key + (r["candidate"],)].append(r["median_ms"])
            if b == builds[-1] and "split_from=" in r.get("details", ""):
                det[key + (r["candidate"],)] = " ".join(
                    re.findall(r"split_(?:from|len)=\d+|segments=\d+", r["details"]))
    med = {k: statistics.median(v) for k, v in t.items()}
    print(f"| matrix | K | layout | candidate | {builds[0]} ms | {builds[-1]} ms | {builds[0]} / {builds[-1]} | split ({builds[-1]}) |")
    print("|---|---:|---|---|---:|---:|---:|---|")
    for key in order:
        cands = sorted({k[4] for k in med if k[1:4] == key and not k[4].startswith("cusparse")})
        for c in cands:
            o, n = med.get((builds[0],) + key + (c,)), med.get((builds[-1],) + key + (c,))
            if o is None or n is None:
                continue
            print(f"| {key[0]} | {key[1]} | {key[2]} | {c} | {o:.4f} | {n:.4f} | {o / n:.2f} | {det.get(key + (c,), '')} |")
    print()
    print(f"| matrix | K | layout | cuSPARSE best ms ({builds[-1]} run) | own best {builds[0]} | own best {builds[-1]} | x cuSPARSE {builds[0]} | x cuSPARSE {builds[-1]} |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for key in order:
        def best(b, own):
            v = [m for k, m in med.items() if k[0] == b and k[1:4] == key and k[4].startswith("cusparse") != own]
            return min(v) if v else None
        cu = best(builds[-1], False)
        o, n = best(builds[0], True), best(builds[-1], True)
        if None in (cu, o, n):
            continue
        print(f"| {key[0]} | {key[1]} | {key[2]} | {cu:.4f} | {o:.4f} | {n:.4f} | {cu / o:.2f} | {cu / n:.2f} |")


if __name__ == "__main__":
    main()
