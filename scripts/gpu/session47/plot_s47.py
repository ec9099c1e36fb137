#!/usr/bin/env python3
"""Session 47's PNG: where the warp instructions and the stall samples of the R(AP) setup's three
largest kernels go, by region of their SASS (session 46's ncu runs 364-365; the regions as
sass_regions.py prints them for that build, labelled from their opcodes and execution counts).
Usage: /usr/bin/python3 scripts/gpu/session47/plot_s47.py OUT.png RUN364.tgz RUN365.tgz
"""
import io
import os
import sys
import tarfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_regions  # noqa: E402

# (title, tarball index, member suffix, [(first, last, label)]) — SASS line ranges of run 364/365's build
KERNELS = [
    ("2D 5-point R(AP) count pass\n(8 lanes, 104 µs)", 1, "c2c_sass.csv.gz",
     [(0, 186, "row start"), (187, 349, "column window"), (350, 426, "bitmap clear"),
      (427, 2325, "product walk"), (2326, 99999, "bitmap read-out")]),
    ("2D 5-point R(AP) first numeric\n(16 lanes, 147 µs)", 0, "c2n_sass.csv.gz",
     [(0, 337, "row start"), (338, 607, "product walk"), (608, 99999, "search + add")]),
    ("3D 7-point R(AP) valued count\n(32 lanes, 490 µs)", 1, "c7v_sass.csv.gz",
     [(0, 340, "row start"), (341, 432, "column window"), (433, 509, "bitmap clear"), (510, 6509, "product walk"),
      (6510, 7426, "bitmap read-out"), (7427, 99999, "row sums")]),
]
COLORS = {"row start": "#9e9e9e", "column window": "#ffb74d", "bitmap clear": "#d7ccc8",
          "product walk": "#1976d2", "bitmap read-out": "#e53935", "search + add": "#7cb342",
          "row sums": "#8e24aa"}


def shares(tgz, suffix, ranges):
    with tarfile.open(tgz) as t:
        m = next(x for x in t.getmembers() if x.name.endswith(suffix))
        launch = sass_regions.launches(io.BytesIO(t.extractfile(m).read()))[0]
    ex = {lab: 0 for _, _, lab in ranges}
    st = dict(ex)
    for k, e, stalls, _ in sass_regions.line_counts(launch):
        for a, b, lab in ranges:
            if a <= k <= b:
                ex[lab] += e
                st[lab] += stalls
    te, ts = sum(ex.values()), sum(st.values())
    return {k: 100 * v / te for k, v in ex.items()}, {k: 100 * v / ts for k, v in st.items()}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, tgzs = sys.argv[1], sys.argv[2:]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.6), sharey=True)
    for ax, (title, ti, suffix, ranges) in zip(axes, KERNELS):
        ex, st = shares(tgzs[ti], suffix, ranges)
        for x, d in ((0, ex), (1, st)):
            bottom = 0.0
            for _, _, lab in ranges:
                ax.bar(x, d[lab], bottom=bottom, color=COLORS[lab], width=0.6,
                       label=lab if x == 0 else None, edgecolor="white")
                if d[lab] >= 5:
                    ax.text(x, bottom + d[lab] / 2, f"{d[lab]:.0f}%", ha="center", va="center", fontsize=8)
                bottom += d[lab]
        ax.set_xticks([0, 1], ["warp instructions", "stall samples"])
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    axes[0].set_ylabel("% of the kernel's")
    fig.suptitle("ESC R(AP) setup kernels on an H200: share by SASS region (ncu runs 364-365, 2026-11-29)", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
