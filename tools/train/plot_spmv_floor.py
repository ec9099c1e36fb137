#!/usr/bin/env python3
"""Per-matrix % of the CSR byte floor of the fastest SpMV candidate, with and without the
candidates that read fewer bytes than the CSR floor (own_bytes < bytes_floor: SELL16), as a
horizontal bar chart PNG with the 85 % line of issue 4, from kkperm_spmv JSON (.json/.json.gz).

Usage: python3 tools/train/plot_spmv_floor.py OUT.png TITLE FILE.json[.gz]...
"""
import gzip
import json
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)["results"]


def main():
    out, title, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = {}
    for f in files:
        for r in load(f):
            if r.get("status") == "ok" and r.get("median_ms", 0) > 0:
                cases.setdefault((r["matrix"], r["value_type"]), []).append(r)
    rows = []
    for (m, vt), rs in cases.items():
        best = min(rs, key=lambda r: r["median_ms"])
        full = [r for r in rs if r.get("own_bytes", r["bytes_floor"]) >= 0.999 * r["bytes_floor"]]
        bf = min(full, key=lambda r: r["median_ms"]) if full else best
        name = m.split("/")[-1] if "kron:" in m else m
        rows.append((best["pct_peak"], bf["pct_peak"], f"{name[:60]} ({vt})", best["candidate"],
                     bf["candidate"]))
    rows.sort()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.5))
    ax.barh(y + 0.2, [r[1] for r in rows], 0.4, label="best of the candidates reading the CSR bytes")
    ax.barh(y - 0.2, [r[0] for r in rows], 0.4, label="best of all (incl. SELL16)")
    for i, r in enumerate(rows):
        ax.text(r[0] + 1, i - 0.2, r[3], va="center", fontsize=6)
        ax.text(r[1] + 1, i + 0.2, r[4], va="center", fontsize=6)
    ax.axvline(85, color="grey", ls="--", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels([r[2] for r in rows], fontsize=7)
    ax.set_xlabel("% of the CSR byte floor at the measured copy bandwidth")
    med_all = float(np.median([r[0] for r in rows]))
    med_full = float(np.median([r[1] for r in rows]))
    ax.set_title(f"{title}\nmedian {med_all:.1f} % (all), {med_full:.1f} % (CSR bytes only)",
                 fontsize=9)
    ax.set_xlim(0, max(r[0] for r in rows) + 25)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
