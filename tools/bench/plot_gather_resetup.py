#!/usr/bin/env python3
"""Steady ESC re-setup per product, 8-byte against 4-byte gather lists, with cuSPARSE SpGEMMreuse,
as a grouped bar chart PNG, from one kkperm_spgemm A/B run's raw JSON (session 35, run 284:
runNNN_raw/{a,b}_spgemm_v<i>_r<k>_<m>.json.gz). Each bar is the median over rounds and both
orders of the per-process medians (numeric_reuse_ms); the error bar spans orders a and b.

Usage: /usr/bin/python3 tools/bench/plot_gather_resetup.py OUT.png RAW_DIR VARIANT_A,VARIANT_B
  VARIANT_A / VARIANT_B: the v<i> indices of the 4-byte and 8-byte variants in order a (order b
  runs them reversed among N variants; N from the files).
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

MATS = ["2D 5-pt", "3D 7-pt", "3D 27-pt"]


def load(path):
    with gzip.open(path, "rt") as f:
        d = json.load(f)
    return d["results"] if isinstance(d, dict) else d


def main():
    out, raw, pick = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
    files = glob.glob(os.path.join(raw, "*_spgemm_v*_r*_*.json.gz"))
    nvar = 1 + max(int(re.search(r"_v(\d+)_", f).group(1)) for f in files)
    vals = {}  # (label, matrix, product, order) -> [ms]
    for f in files:
        base = os.path.basename(f)
        order = base[0]
        v = int(re.search(r"_v(\d+)_", base).group(1))
        m = int(re.search(r"_(\d+)\.json", base).group(1))
        va = v if order == "a" else nvar - 1 - v  # the variant's index in order a
        for r in load(f):
            if r.get("status") != "ok":
                continue
            if r.get("candidate") == "esc" and va in pick:
                label = "ESC, 4-byte lists" if va == pick[0] else "ESC, 8-byte lists"
            elif r.get("candidate") == "cusparse_reuse":
                label = "cuSPARSE SpGEMMreuse"
            else:
                continue
            vals.setdefault((label, m, r["product"], order), []).append(r["numeric_reuse_ms"])
    labels = ["ESC, 8-byte lists", "ESC, 4-byte lists", "cuSPARSE SpGEMMreuse"]
    cases = [(m, p) for m in range(3) for p in ("A2", "AP", "RAP")]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    x = np.arange(len(cases))
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for k, lab in enumerate(labels):
        med, lo, hi = [], [], []
        for (m, p) in cases:
            per = [statistics.median(vals[(lab, m, p, o)]) for o in "ab" if (lab, m, p, o) in vals]
            allv = [t for o in "ab" for t in vals.get((lab, m, p, o), [])]
            c = statistics.median(allv) if allv else float("nan")
            med.append(c)
            lo.append(c - min(per) if per else 0)
            hi.append(max(per) - c if per else 0)
        ax.bar(x + (k - 1) * 0.27, med, 0.27, yerr=[lo, hi], capsize=2, label=lab)
    ax.set_xticks(x)
    ax.set_xticklabels(["%s\n%s" % (MATS[m], p.replace("A2", "A²").replace("RAP", "R(AP)")) for m, p in cases])
    ax.set_ylabel("steady numeric re-setup (ms)")
    ax.set_title("ESC gather numeric, 8- vs 4-byte list words; H100 80GB HBM3, run 284 (2026-11-27)")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
