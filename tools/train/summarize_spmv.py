#!/usr/bin/env python3
"""Summarize kkperm_spmv JSON results (issue 4) as Markdown tables and a box plot PNG.

A "case" is one (matrix, value_type, alpha, beta). Only records with status "ok" count.
Speedup = baseline median time / compared median time (> 1 means faster than the baseline).

Definitions:
  own plain CSR   csr_vector (unpermuted): the team/warp-per-row CSR kernel, the own analogue
                  of KK's and cuSPARSE's CSR paths. csr_scalar is reported beside it.
  cuSPARSE best   min median over cusparse_* candidates of the case (absent on CPU builds).
  KK native       kk_native.
  oracle          the fastest candidate of the case (any kernel, permutation or format).
  per permutation for every row-permuted candidate "kernel@perm": speedup of kernel@perm over
                  the same kernel unpermuted (the permutation's own effect), and per
                  permutation over all kernels: min over kernels of t(kernel@perm) against min
                  over the same kernels of t(kernel).
  % of byte floor pct_peak of the record: GB/s of the CSR byte floor against the peak
                  bandwidth in the JSON meta (measured device-to-device copy or --peak-gbs).
  % own floor     pct_peak_own: the same with the candidate's own byte floor (own_bytes), which
                  is below the CSR floor only for narrower-index formats (SELL16); the median is
                  also given over the candidates that read the full CSR bytes only.
Prep time (permutation / format build) is not included in any speedup; it is reported in its
own column (prep_ms of the best candidate, and in SpMV calls of the best = prep / median).

Usage:
  python3 tools/train/summarize_spmv.py gpu-out/spmv_*.json --out-md summary.md \\
      --out-png spmv_speedups.png [--out-json summary.json]
"""
import argparse
import collections
import json
import math
import sys

import numpy as np

from perf_json import load_results

PLAIN = "csr_vector"
SCALAR = "csr_scalar"


def cases(recs):
    out = collections.defaultdict(dict)
    for r in recs:
        key = (r["matrix"], r.get("value_type", "?"), r.get("alpha", 1.0), r.get("beta", 0.0))
        out[key][r["candidate"]] = r
    return out


def stats(v):
    v = np.asarray([x for x in v if x > 0 and math.isfinite(x)], dtype=float)
    if v.size == 0:
        return dict(n=0, max=float("nan"), mean=float("nan"), gmean=float("nan"),
                    min=float("nan"))
    return dict(n=int(v.size), max=float(v.max()), mean=float(v.mean()),
                gmean=float(np.exp(np.log(v).mean())), min=float(v.min()))


def split(name):
    """'csr_vector@lpt' -> ('csr_vector', 'lpt'); 'ell' -> ('ell', None)."""
    return tuple(name.split("@", 1)) if "@" in name else (name, None)


def summarize(recs):
    per_case = []
    kp_speedups = collections.defaultdict(list)    # (kernel, perm) -> [t(kernel)/t(kernel@perm)]
    perm_speedups = collections.defaultdict(list)  # perm -> [min_k t(k) / min_k t(k@perm)]
    oracle = collections.defaultdict(list)         # baseline -> [t(baseline)/t(best)]
    best_count = collections.Counter()
    for (matrix, vt, alpha, beta), cand in sorted(cases(recs).items()):
        t = {c: r["median_ms"] for c, r in cand.items() if r.get("median_ms", 0) > 0}
        if not t:
            continue
        best = min(t, key=t.get)
        best_count[best] += 1
        row = dict(matrix=matrix, value_type=vt, alpha=alpha, beta=beta, best=best,
                   best_ms=t[best], nnz=cand[best].get("nnz"),
                   best_pct_floor=cand[best].get("pct_peak", float("nan")),
                   best_pct_own=cand[best].get("pct_peak_own",
                                               cand[best].get("pct_peak", float("nan"))),
                   best_gbs=cand[best].get("gbs", float("nan")),
                   best_prep_ms=cand[best].get("prep_ms", float("nan")))
        floor = {c: cand[c].get("bytes_floor", 0) for c in t}
        full = [c for c in t if cand[c].get("own_bytes", floor[c]) >= 0.999 * floor[c]]
        row["best_full_pct_floor"] = (cand[min(full, key=t.get)].get("pct_peak", float("nan"))
                                      if full else float("nan"))
        cus = {c: v for c, v in t.items() if c.startswith("cusparse")}
        baselines = {
            "own_plain_csr": t.get(PLAIN),
            "csr_scalar": t.get(SCALAR),
            "cusparse_best": min(cus.values()) if cus else None,
            "kk_native": t.get("kk_native"),
        }
        for b, tb in baselines.items():
            row["over_" + b] = tb / t[best] if tb else float("nan")
            if tb:
                oracle[b].append(tb / t[best])
        row["cusparse_best_name"] = min(cus, key=cus.get) if cus else ""
        # Permutation effects.
        by_perm = collections.defaultdict(dict)  # perm -> kernel -> time
        for c, tc in t.items():
            k, p = split(c)
            if p is not None:
                by_perm[p][k] = tc
                if k in t:
                    kp_speedups[(k, p)].append(t[k] / tc)
        for p, kt in by_perm.items():
            ks = [k for k in kt if k in t]
            if ks:
                perm_speedups[p].append(min(t[k] for k in ks) / min(kt[k] for k in ks))
        per_case.append(row)
    return per_case, kp_speedups, perm_speedups, oracle, best_count


def fmt(x, nd=2):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{nd}f}"


def markdown(per_case, kp, perm, oracle, best_count, metas, paths):
    L = []
    devs = sorted({m.get("device", "?") for m in metas})
    L.append("# kkperm SpMV summary\n")
    L.append(f"Inputs: {', '.join(paths)}  ")
    L.append(f"Device(s): {', '.join(devs)}  ")
    peaks = sorted({m.get("peak_gbs") for m in metas if m.get("peak_gbs") is not None})
    L.append(f"Peak GB/s used for % of byte floor: {', '.join(fmt(p, 1) for p in peaks)}  ")
    L.append(f"Cases (matrix x value type x alpha/beta): {len(per_case)}\n")
    L.append("Own plain CSR = `csr_vector` (unpermuted). Speedup = baseline time / best time. "
             "Prep time is excluded from speedups.\n")

    L.append("## Oracle speedup of the best candidate\n")
    L.append("| baseline | n | max | mean | geomean | min |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for b in ("own_plain_csr", "csr_scalar", "cusparse_best", "kk_native"):
        s = stats(oracle.get(b, []))
        L.append(f"| {b} | {s['n']} | {fmt(s['max'])} | {fmt(s['mean'])} | "
                 f"{fmt(s['gmean'])} | {fmt(s['min'])} |")
    L.append("")

    L.append("## Per permutation: speedup over the unpermuted kernel\n")
    L.append("All kernels: min over kernels of t(kernel@perm) vs min over the same kernels "
             "unpermuted.\n")
    L.append("| permutation | n | max | mean | geomean | min |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for p in sorted(perm):
        s = stats(perm[p])
        L.append(f"| {p} | {s['n']} | {fmt(s['max'])} | {fmt(s['mean'])} | "
                 f"{fmt(s['gmean'])} | {fmt(s['min'])} |")
    L.append("")
    L.append("Per kernel x permutation:\n")
    L.append("| kernel | permutation | n | max | mean | geomean | min |")
    L.append("|---|---|---:|---:|---:|---:|---:|")
    for (k, p) in sorted(kp):
        s = stats(kp[(k, p)])
        L.append(f"| {k} | {p} | {s['n']} | {fmt(s['max'])} | {fmt(s['mean'])} | "
                 f"{fmt(s['gmean'])} | {fmt(s['min'])} |")
    L.append("")

    L.append("## How often each candidate is best\n")
    L.append("| candidate | cases best | share |")
    L.append("|---|---:|---:|")
    total = max(1, sum(best_count.values()))
    for c, n in best_count.most_common():
        L.append(f"| {c} | {n} | {100.0 * n / total:.1f} % |")
    L.append("")

    L.append("## Per matrix\n")
    L.append("| matrix | type | nnz | best | best ms | % byte floor | % own floor | "
             "prep ms (SpMVs) | x own CSR | x csr_scalar | x cuSPARSE best | x KK native |")
    L.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in per_case:
        prep = r["best_prep_ms"]
        spmvs = prep / r["best_ms"] if r["best_ms"] > 0 and math.isfinite(prep) else float("nan")
        cus = fmt(r["over_cusparse_best"])
        if r["cusparse_best_name"]:
            cus += f" ({r['cusparse_best_name'].replace('cusparse_csr_', '')})"
        L.append(f"| {r['matrix']} | {r['value_type']} | {r['nnz']} | {r['best']} | "
                 f"{fmt(r['best_ms'], 4)} | {fmt(r['best_pct_floor'], 1)} | "
                 f"{fmt(r['best_pct_own'], 1)} | "
                 f"{fmt(prep, 1)} ({fmt(spmvs, 0)}) | {fmt(r['over_own_plain_csr'])} | "
                 f"{fmt(r['over_csr_scalar'])} | {cus} | {fmt(r['over_kk_native'])} |")
    L.append("")
    s = stats([r["best_pct_floor"] for r in per_case])
    L.append(f"Best candidate's % of byte floor: median "
             f"{fmt(float(np.median([r['best_pct_floor'] for r in per_case])) if per_case else None, 1)}"
             f", min {fmt(s['min'], 1)}, max {fmt(s['max'], 1)} (target: median >= 85 %).\n")
    full = [r["best_full_pct_floor"] for r in per_case if math.isfinite(r["best_full_pct_floor"])]
    if full:
        L.append(f"Best candidate among those reading the full CSR bytes (own floor = CSR floor): "
                 f"median {fmt(float(np.median(full)), 1)} % of the byte floor.\n")
    return "\n".join(L) + "\n"


def box_plot(perm, oracle, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels, data = [], []
    for b in ("own_plain_csr", "cusparse_best", "kk_native"):
        if oracle.get(b):
            labels.append("oracle vs " + b)
            data.append(oracle[b])
    for p in sorted(perm):
        labels.append(p)
        data.append(perm[p])
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels) + 2), 4.5))
    if data:
        ax.boxplot(data, showfliers=True)
        ax.set_xticks(range(1, len(labels) + 1))
        ax.set_xticklabels(labels, rotation=45, ha="right")
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_ylabel("speedup (baseline time / time)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+", help="kkperm_spmv --json outputs")
    ap.add_argument("--out-md", help="Markdown summary (default: stdout)")
    ap.add_argument("--out-png", help="box plot of oracle and per-permutation speedups")
    ap.add_argument("--out-json", help="machine-readable summary")
    a = ap.parse_args(argv)
    recs, metas = load_results(a.json)
    if not recs:
        print("no records with status ok in " + ", ".join(a.json), file=sys.stderr)
        return 1
    per_case, kp, perm, oracle, best_count = summarize(recs)
    md = markdown(per_case, kp, perm, oracle, best_count, metas, a.json)
    if a.out_md:
        with open(a.out_md, "w") as f:
            f.write(md)
    else:
        sys.stdout.write(md)
    if a.out_png:
        devs = ", ".join(sorted({m.get("device", "?") for m in metas}))
        box_plot(perm, oracle, a.out_png, f"kkperm SpMV speedups ({devs})")
    if a.out_json:
        with open(a.out_json, "w") as f:
            json.dump(dict(per_case=per_case,
                           per_permutation={p: stats(v) for p, v in perm.items()},
                           per_kernel_permutation={f"{k}@{p}": stats(v) for (k, p), v in kp.items()},
                           oracle={b: stats(v) for b, v in oracle.items()},
                           best_count=dict(best_count)), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
