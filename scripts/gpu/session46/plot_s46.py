#!/usr/bin/env python3
"""Session 46: R(AP) setup (kkperm_amg rap_setup_ms) of the three Laplacians for the two refuted
experiments against the default of the same binary, with cuSPARSE ALG1 / 3 (issue 5's target).

Usage: plot_s46.py OUT.png RUN363.tgz RUN367.tgz
Each bar is the median over the processes of their medians (as scripts/gpu/session41/ab_tables.py);
run 363: v0 default, v1 --esc-window-kernel; run 367: v1 default (no aggregation), v0 both
aggregations, v2 numeric aggregation only. ALG1 is the median of its processes in the default's.
"""
import collections
import gzip
import io
import json
import statistics as st
import sys
import tarfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rap(path):
    d = collections.defaultdict(list)
    with tarfile.open(path) as tf:
        for m in tf.getmembers():
            name = m.name.rsplit("/", 1)[-1]
            if not name.endswith(".json.gz") or name.startswith("trace"):
                continue
            v = name.split("_")[0]
            for r in json.load(gzip.open(io.BytesIO(tf.extractfile(m).read())))["results"]:
                if r.get("product") is None and "rap_setup_ms" in r:
                    d[(r["matrix"].split(":")[0], r["candidate"], v)].append(r["rap_setup_ms"])
    return {k: st.median(x) for k, x in d.items()}


def main():
    out, r363, r367 = sys.argv[1], rap(sys.argv[2]), rap(sys.argv[3])
    mats = ["laplace2d5", "laplace3d7", "laplace3d27"]
    series = [("default (run 363)", r363, "v0", "#4c72b0"), ("window kernel (run 363)", r363, "v1", "#dd8452"),
              ("default (run 367)", r367, "v1", "#55a868"), ("both aggregations (run 367)", r367, "v0", "#c44e52"),
              ("numeric aggregation (run 367)", r367, "v2", "#8172b3")]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    w = 0.15
    for j, (label, d, v, c) in enumerate(series):
        xs = [i + (j - 2) * w for i in range(len(mats))]
        ax.bar(xs, [d[(m, "esc", v)] for m in mats], w, label=label, color=c)
    for i, m in enumerate(mats):
        t = r367[(m, "cusparse_alg1", "v1")] / 3
        ax.plot([i - 2.6 * w, i + 2.6 * w], [t, t], "k--", lw=1.2, label="cuSPARSE ALG1 / 3 (issue 5's target)" if i == 0 else None)
    ax.set_xticks(range(len(mats)))
    ax.set_xticklabels(["2D 5-point 1000²", "3D 7-point 100³", "3D 27-point 64³"])
    ax.set_ylabel("ESC R(AP) setup, ms (kkperm_amg)")
    ax.set_ylim(0, 1.05)
    ax.set_title("Session 46, H200: two refuted ideas for the R(AP) setup")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
