#!/usr/bin/env python3
"""Turn kkperm_spgemm JSON files into the issue-5 comparison table (Markdown).

Per (matrix, product): nnz(C), each candidate's setup and numeric-reuse medians, and
the ratios the issue's targets are stated in: best own ESC vs best cuSPARSE for
symbolic+numeric ("setup") and for numeric-only re-setup (cuSPARSE's reuse path counts as its
re-setup; the plain cuSPARSE ALGs recompute everything). KK rows appear when the JSON has them.
Setup = perf_json.spgemm_setup_ms: plan->setup() from session 23 on; in older files symbolic +
numeric, except cuSPARSE ALG1-3 whose one-shot product is their symbolic call alone (one
workEstimation/compute/copy pipeline; their numeric runs it again).

Usage: summarize_spgemm.py FILE.json [FILE.json ...] --out-md OUT.md
"""
import argparse
import math

from perf_json import amg_setups_ms, load_results, spgemm_setup_ms


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out-md", required=True)
    a = ap.parse_args()
    recs, metas = load_results(a.json, ok_only=False)
    rows = [r for r in recs if "candidate" in r and "product" in r]
    cases = {}
    for r in rows:
        cases.setdefault((r["matrix"], r["product"]), []).append(r)

    out = ["# kkperm SpGEMM summary", ""]
    devices = sorted({m.get("device", "?") for m in metas})
    dates = sorted({m.get("date", "?") for m in metas})
    out += [f"Device(s): {', '.join(devices)}  ", f"Date(s): {dates[0]} .. {dates[-1]}  ", ""]
    out += ["Commands:", ""] + [f"    {m.get('command', '?')}" for m in metas] + [""]
    out += ["Times are medians in ms (device events). setup = symbolic + first numeric (cuSPARSE "
            "ALG1-3: their one pipeline, the symbolic call); re-setup = "
            "numeric with the structure kept (own ESC, cuSPARSE reuse path); plain cuSPARSE "
            "ALG1/2/3 recompute everything on re-setup. Ratio = cuSPARSE best / own ESC best "
            "(> 1: ESC faster). KK = Kokkos Kernels SPGEMM_KK / SPGEMM_KK_MEMORY (view-level "
            "handle kept for re-setup; nan where the JSON has no KK rows). Fastest setup = the "
            "candidate with the smallest setup, with ESC setup / its setup in brackets.", ""]
    out += ["| matrix | product | nnz(C) | ESC setup | ESC re-setup | cuSPARSE best setup | "
            "cuSPARSE best re-setup | KK best setup | KK best re-setup | setup ratio | "
            "re-setup ratio | fastest setup (x ESC) | skipped/errors |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    setup_r, reset_r = {}, {}
    for (mat, prod), rs in sorted(cases.items()):
        ok = [r for r in rs if r.get("status") == "ok"]
        bad = [f"{r['candidate']}: {r.get('status')}" for r in rs if r.get("status") != "ok"]
        esc = [r for r in ok if r["candidate"].startswith("esc")]
        cus = [r for r in ok if r["candidate"].startswith("cusparse")]
        kk = [r for r in ok if r["candidate"].startswith("kk")]
        nnzc = next((r["nnz_c"] for r in ok), None)
        def best(lst, f):
            v = [f(r) for r in lst]
            return min(v) if v else float("nan")
        e_s = best(esc, spgemm_setup_ms)
        e_r = best(esc, lambda r: r["numeric_reuse_ms"])
        c_s = best(cus, spgemm_setup_ms)
        c_r = best(cus, lambda r: r["numeric_reuse_ms"])
        k_s = best(kk, spgemm_setup_ms)
        k_r = best(kk, lambda r: r["numeric_reuse_ms"])
        fastest = min(ok, key=spgemm_setup_ms) if ok else None
        fast_txt = (f"{fastest['candidate']} ({e_s / spgemm_setup_ms(fastest):.2f})"
                    if fastest and esc else "-")
        rs_ = c_s / e_s if esc and cus else float("nan")
        rr_ = c_r / e_r if esc and cus else float("nan")
        setup_r.setdefault(prod, []).append(rs_)
        reset_r.setdefault(prod, []).append(rr_)
        skipped = "; ".join(b[:90] for b in bad) if bad else ""
        out.append(f"| {mat} | {prod} | {nnzc if nnzc is not None else '-'} | {e_s:.3f} | "
                   f"{e_r:.3f} | {c_s:.3f} | {c_r:.3f} | {k_s:.3f} | {k_r:.3f} | {rs_:.2f} | {rr_:.2f} | "
                   f"{fast_txt} | {skipped} |")
    out += ["", "## Geometric-mean ratio per product (cuSPARSE best / ESC best)", "",
            "| product | cases | setup | re-setup |", "|---|---:|---:|---:|"]
    for prod in sorted(setup_r):
        out.append(f"| {prod} | {len(setup_r[prod])} | {geomean(setup_r[prod]):.2f} | "
                   f"{geomean(reset_r[prod]):.2f} |")
    amg = [r for r in recs if "setup_ms" in r and "resetup_numeric_ms" in r and "candidate" in r]
    if amg:
        out += ["", "## AMG Galerkin setup (kkperm_amg: AP and R(AP), both symbolic + numeric; "
                "re-setup = both numerics with new values)", "",
                "| matrix | candidate | status | setup ms | re-setup ms | setup / best | "
                "re-setup / best |", "|---|---|---|---:|---:|---:|---:|"]
        by_m = {}
        for r in amg:
            by_m.setdefault(r["matrix"], []).append(r)
        for mat, rs in sorted(by_m.items()):
            ok = [r for r in rs if r.get("status") == "ok"]
            setup = {id(r): amg_setups_ms(r)[0] for r in ok}
            bs = min(setup.values(), default=float("nan"))
            br = min((r["resetup_numeric_ms"] for r in ok), default=float("nan"))
            for r in sorted(rs, key=lambda r: setup.get(id(r), float("inf"))):
                if r.get("status") != "ok":
                    out.append(f"| {mat} | {r['candidate']} | {str(r.get('status'))[:60]} | - | - | - | - |")
                    continue
                out.append(f"| {mat} | {r['candidate']} | ok | {setup[id(r)]:.3f} | "
                           f"{r['resetup_numeric_ms']:.3f} | {setup[id(r)] / bs:.2f} | "
                           f"{r['resetup_numeric_ms'] / br:.2f} |")
    with open(a.out_md, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
