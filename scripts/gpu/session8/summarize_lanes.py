#!/usr/bin/env python3
"""Table of lanes_sweep.sh results: per matrix, sets 1+2 fused in SpMV-eq (median ms / median KK
SpMV ms of the same process), old binary vs new with each row_lanes (L) and row_stage_cols (S), every round.
Usage: summarize_lanes.py DIR (the unpacked TAG folder)"""
import glob, json, os, re, sys
from collections import defaultdict

d = sys.argv[1]
cells = defaultdict(lambda: defaultdict(list))  # matrix -> column -> [ (ms, eq) ]
order = []
for fn in sorted(glob.glob(os.path.join(d, "*_*_*.json")), key=lambda f: [int(x) if x.isdigit() else x for x in re.split(r"[_.]", os.path.basename(f))]):
    v, rep, i = os.path.basename(fn)[:-5].split("_")
    try:
        recs = json.load(open(fn))
    except Exception as e:
        print(f"# {fn}: {e}", file=sys.stderr)
        continue
    recs = recs.get("results", recs) if isinstance(recs, dict) else recs
    for r in recs:
        m = r["matrix"]
        if m not in order:
            order.append(m)
        w = r["what"]
        if w == "spmv":
            cells[m]["spmv_ms"].append((r["median_ms"], 1.0))
        elif w == "features_sets12_fused":
            cells[m][f"{v} fused"].append((r["median_ms"], r["spmv_equivalents"]))
        elif w.startswith("features_sets12_fused_lanes"):
            cells[m][f"{v} L{w[len('features_sets12_fused_lanes'):]}"].append((r["median_ms"], r["spmv_equivalents"]))
        elif w.startswith("features_sets12_fused_stage"):
            cells[m][f"{v} S{w[len('features_sets12_fused_stage'):]}"].append((r["median_ms"], r["spmv_equivalents"]))
cols = []
for m in order:
    for c in cells[m]:
        if c not in cols and c != "spmv_ms":
            cols.append(c)
def key(c):
    v, l = c.split(" ")
    return (v != "old", l != "fused", l[0] if l[0] in "LS" else "", int(l[1:]) if l[0] in "LS" else -1)
cols.sort(key=key)
print("| matrix | KK SpMV ms | " + " | ".join(cols) + " |")
print("|---|---:|" + "---:|" * len(cols))
for m in order:
    sp = cells[m]["spmv_ms"]
    row = [m, f"{min(x for x, _ in sp):.3f}–{max(x for x, _ in sp):.3f}" if sp else "-"]
    for c in cols:
        xs = cells[m].get(c, [])
        row.append(", ".join(f"{e:.2f}" for _, e in xs) if xs else "-")
    print("| " + " | ".join(row) + " |")
