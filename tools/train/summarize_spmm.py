#!/usr/bin/env python3
"""Summarize kkperm_spmm JSON results (issue 4): per matrix the best candidate and the oracle
speedups over (a) the own plain-CSR kernel (c_stationary), (b) cuSPARSE's best algorithm,
(c) KK native; per permutation/format variant of the own kernels the max/mean/min speedup over
plain CSR; how often each candidate is best; per layout of B and Y (a caller who does not convert
them has only that layout's candidates) the best own candidate against cuSPARSE's best in the same
layout; and a box plot PNG.

A "case" is one (matrix, value_type, K). Only records with status "ok" count. Speedup = baseline
median time / compared median time (> 1 means faster than the baseline).

Usage:
  python3 tools/train/summarize_spmm.py gpu-out/spmm_*.json --out-md summary.md \
      --out-png speedups.png [--out-json summary.json]
"""
import argparse
import collections
import json
import sys

import numpy as np

from perf_json import load_results

PLAIN = "c_stationary"
OWN_KERNELS = ("c_stationary", "row_major")


def cases(recs):
    out = collections.defaultdict(dict)
    for r in recs:
        key = (r["matrix"], r.get("value_type", "?"), int(r.get("K", 0)))
        out[key][r["candidate"]] = r
    return out


def stats(v):
    v = np.asarray(v, dtype=float)
    if v.size == 0:
        return dict(n=0, max=float("nan"), mean=float("nan"), gmean=float("nan"),
                    min=float("nan"))
    return dict(n=int(v.size), max=float(v.max()), mean=float(v.mean()),
                gmean=float(np.exp(np.log(v).mean())), min=float(v.min()))


def summarize(recs):
    per_case = []
    variant_speedups = collections.defaultdict(list)  # "perm/format" -> speedups over plain
    oracle = {"own_plain_csr": [], "cusparse_best": [], "kk_native_best": []}
    best_count = collections.Counter()
    for (matrix, vt, K), cand in sorted(cases(recs).items()):
        best_name = min(cand, key=lambda c: cand[c]["median_ms"])
        t_best = cand[best_name]["median_ms"]
        best_count[best_name] += 1
        row = dict(matrix=matrix, value_type=vt, K=K, nnz=cand[best_name].get("nnz"),
                   best=best_name, best_ms=t_best)

        def best_of(pred):
            ts = [r["median_ms"] for c, r in cand.items() if pred(r)]
            return min(ts) if ts else None

        t_plain = cand[PLAIN]["median_ms"] if PLAIN in cand else None
        t_cus = best_of(lambda r: r.get("kernel", "").startswith("cusparse"))
        t_kk = best_of(lambda r: r.get("kernel") == "kk_native")
        for key, t in (("own_plain_csr", t_plain), ("cusparse_best", t_cus),
                       ("kk_native_best", t_kk)):
            row["oracle_vs_" + key] = t / t_best if t else None
            if t:
                oracle[key].append(t / t_best)
        if t_plain:
            variants = collections.defaultdict(list)
            for c, r in cand.items():
                if r.get("kernel") in OWN_KERNELS:
                    variants["%s/%s" % (r.get("permutation", "?"), r.get("format", "?"))].append(
                        r["median_ms"])
            for v, ts in variants.items():
                variant_speedups[v].append(t_plain / min(ts))
        per_case.append(row)
    return per_case, {k: stats(v) for k, v in variant_speedups.items()}, \
        {k: stats(v) for k, v in oracle.items()}, best_count, variant_speedups, oracle


def layout_oracle(recs):
    """Per layout ("left" = column-major B/Y, "right" = row-major): for every case with an own and a
    cuSPARSE candidate of that layout, best cuSPARSE time / best own time, and the own winner."""
    out = {}
    for layout in ("left", "right"):
        ratios, winners, rows = [], collections.Counter(), []
        for (matrix, vt, K), cand in sorted(cases(recs).items()):
            own = {c: r for c, r in cand.items()
                   if r.get("layout") == layout and r.get("kernel") in OWN_KERNELS}
            cus = [r["median_ms"] for r in cand.values()
                   if r.get("layout") == layout and r.get("kernel", "").startswith("cusparse")]
            if not own or not cus:
                continue
            best = min(own, key=lambda c: own[c]["median_ms"])
            ratio = min(cus) / own[best]["median_ms"]
            ratios.append(ratio)
            winners[best] += 1
            rows.append(dict(matrix=matrix, value_type=vt, K=K, best_own=best,
                             best_own_ms=own[best]["median_ms"], cusparse_ms=min(cus), ratio=ratio))
        out[layout] = dict(stats=stats(ratios), own_ahead=sum(1 for x in ratios if x > 1.0),
                           winners=dict(winners), per_case=rows)
    return out


def fmt(x, spec="%.2f"):
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else spec % x


def markdown(per_case, variants, oracle, best_count, metas, layouts=None):
    lines = ["# SpMM candidates: oracle summary", ""]
    devs = sorted({m.get("device", "?") for m in metas})
    lines += ["Device(s): " + ", ".join(devs), "",
              "Commands:", ""] + ["    " + m.get("command", "?") for m in metas] + [""]
    lines += ["## Oracle speedup (best candidate per case over the baseline)", "",
              "| baseline | cases | max | mean | geomean | min |", "|---|---|---|---|---|---|"]
    for k, s in oracle.items():
        lines.append("| %s | %d | %s | %s | %s | %s |" % (
            k, s["n"], fmt(s["max"]), fmt(s["mean"]), fmt(s["gmean"]), fmt(s["min"])))
    lines += ["", "## Own kernels per permutation/format: speedup over plain CSR (c_stationary)",
              "", "Best own kernel (c_stationary or row_major) with that row order/format.", "",
              "| permutation/format | cases | max | mean | geomean | min |",
              "|---|---|---|---|---|---|"]
    for k in sorted(variants):
        s = variants[k]
        lines.append("| %s | %d | %s | %s | %s | %s |" % (
            k, s["n"], fmt(s["max"]), fmt(s["mean"]), fmt(s["gmean"]), fmt(s["min"])))
    if layouts:
        lines += ["", "## Per layout of B and Y: best own candidate over cuSPARSE's best in that layout",
                  "", "left = column-major (Tpetra's multivector layout), right = row-major.", "",
                  "| layout | cases | own ahead | max | mean | geomean | min | own winners |",
                  "|---|---|---|---|---|---|---|---|"]
        for layout, d in layouts.items():
            s_ = d["stats"]
            lines.append("| %s | %d | %d | %s | %s | %s | %s | %s |" % (
                layout, s_["n"], d["own_ahead"], fmt(s_["max"]), fmt(s_["mean"]), fmt(s_["gmean"]),
                fmt(s_["min"]), ", ".join("%s %d" % kv for kv in sorted(d["winners"].items()))))
    total = sum(best_count.values())
    lines += ["", "## How often each candidate is best", "", "| candidate | cases | share |",
              "|---|---|---|"]
    for c, n in best_count.most_common():
        lines.append("| %s | %d | %.1f%% |" % (c, n, 100.0 * n / total if total else 0.0))
    lines += ["", "## Per case", "",
              "| matrix | type | K | nnz | best | best ms | vs plain CSR | vs cuSPARSE best | "
              "vs KK native |", "|---|---|---|---|---|---|---|---|---|"]
    for r in per_case:
        lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
            r["matrix"], r["value_type"], r["K"], r["nnz"], r["best"], fmt(r["best_ms"], "%.4f"),
            fmt(r["oracle_vs_own_plain_csr"]), fmt(r["oracle_vs_cusparse_best"]),
            fmt(r["oracle_vs_kk_native_best"])))
    return "\n".join(lines) + "\n"


def box_plot(path, variant_speedups, oracle):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = [("oracle / " + k, v) for k, v in oracle.items() if v]
    groups += [("plain CSR / " + k, v) for k, v in sorted(variant_speedups.items()) if v]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups)), 4.5))
    if groups:
        ax.boxplot([g[1] for g in groups], showmeans=True)
        ax.set_xticks(range(1, len(groups) + 1))
        ax.set_xticklabels([g[0] for g in groups], rotation=30, ha="right", fontsize=8)
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_ylabel("speedup (baseline time / compared time)")
    ax.set_title("kkperm SpMM: oracle and per-permutation speedups")
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="kkperm_spmm --json outputs")
    ap.add_argument("--out-md", required=True)
    ap.add_argument("--out-png", required=True)
    ap.add_argument("--out-json", default=None)
    a = ap.parse_args(argv)
    recs, metas = load_results(a.json)
    if not recs:
        print("summarize_spmm: no successful records in " + ", ".join(a.json), file=sys.stderr)
        return 1
    per_case, variants, oracle, best_count, vs, orc = summarize(recs)
    layouts = layout_oracle(recs)
    md = markdown(per_case, variants, oracle, best_count, metas, layouts)
    with open(a.out_md, "w") as f:
        f.write(md)
    box_plot(a.out_png, vs, orc)
    if a.out_json:
        with open(a.out_json, "w") as f:
            json.dump(dict(per_case=per_case, variants=variants, oracle=oracle,
                           best_count=dict(best_count), layouts=layouts), f, indent=1)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
