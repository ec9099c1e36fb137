#!/usr/bin/env python3
"""Markdown table of kkperm_features JSON records (one file per matrix or several): per matrix,
the median time and SpMV-equivalents of validate, the fused feature sets 1+2 and every
permutation build found. Usage: summarize_features.py FILE.json [...] [--md OUT.md]"""
import argparse
import json


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        recs += d["results"] if isinstance(d, dict) and "results" in d else d
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--md", help="write the table here (default: stdout)")
    a = ap.parse_args()
    recs = load(a.files)
    mats, whats = [], []
    val = {}
    nnz = {}
    spmv = {}
    for r in recs:
        if "median_ms" not in r:
            continue
        m, w = r["matrix"], r["what"]
        if m not in mats:
            mats.append(m)
        nnz[m] = r["nnz"]
        spmv[m] = r["spmv_median_ms"]
        if w == "spmv" or w.startswith("features_set1") or w.startswith("features_set2_"):
            continue
        if w not in whats:
            whats.append(w)
        val[(m, w)] = (r["median_ms"], r["spmv_equivalents"])
    head = ["matrix", "nnz", "SpMV ms"] + [w.replace("permute_", "").replace("features_sets12_fused", "sets 1+2")
                                            for w in whats]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "---:|" * len(whats)]
    for m in mats:
        short = m.split("/")[-1] if "file=" not in m else "kron:" + m.split("file=")[1].split("/")[-1].split(",")[0]
        cells = [short, f"{nnz[m]:.3g}", f"{spmv[m]:.3f}"]
        for w in whats:
            v = val.get((m, w))
            cells.append(f"{v[0]:.3f} / {v[1]:.2f}" if v else "")
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n\nCells: median ms / SpMV-equivalents (one KokkosSparse::spmv of the same matrix).\n"
    if a.md:
        open(a.md, "w").write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
