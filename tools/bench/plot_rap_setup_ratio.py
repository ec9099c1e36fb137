#!/usr/bin/env python3
"""R(AP) setup over cuSPARSE ALG1's (issue 5's "RAP >= 3x" target) per product and tool, one dot
per run and order, for chosen variants of setup_ab.py summaries (session 36: runs 289-291;
session 37: runs 295-297).

Usage: /usr/bin/python3 tools/bench/plot_rap_setup_ratio.py OUT.png DATA_DIR LABEL=VAR[,VAR...] ...
  DATA_DIR holds runNNN_{a,b}_summary.md (scripts/gpu/session27/setup_ab.py output); each
  LABEL=VAR,... plots, under LABEL, the rows of those variant names from every summary there
  (VAR as runNNN:NAME: that run's only).
  kkperm_spgemm rows: the "RAP" product rows' "x ALG1" column; kkperm_amg rows: the AMG table's
  "R(AP) x ALG1" column.
"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

MATS = ["2D 5-pt", "3D 7-pt", "3D 27-pt"]


def rows(path):
    """(tool, matrix, variant, ratio) of one summary file."""
    out = []
    for line in open(path):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 9 and c[1] == "RAP":  # matrix | product | variant | setup | x ALG1 | ...
            out.append(("kkperm_spgemm", c[0], c[2], float(c[4])))
        elif len(c) == 8 and c[0] in MATS:  # matrix | variant | AP setup | R(AP) setup | R(AP) x ALG1 | ...
            out.append(("kkperm_amg", c[0], c[1], float(c[4])))
    return out


def main():
    out, data = sys.argv[1], sys.argv[2]
    groups = []
    for arg in sys.argv[3:]:
        label, names = arg.split("=", 1)
        groups.append((label, set(names.split(","))))
    pts = {}  # (label, tool, matrix) -> [ratios]
    for f in sorted(glob.glob(os.path.join(data, "run*_[ab]_summary.md"))):
        run = os.path.basename(f).split("_")[0]
        for tool, mat, var, ratio in rows(f):
            for label, names in groups:
                if var in names or f"{run}:{var}" in names:
                    pts.setdefault((label, tool, mat), []).append(ratio)
    fig, ax = plt.subplots(figsize=(9, 4.8 + 0.25 * max(len(groups) - 4, 0)))
    xs, ticks = [], []
    colors = ["tab:gray", "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:olive"]
    for i, (tool, mat) in enumerate((t, m) for t in ("kkperm_spgemm", "kkperm_amg") for m in MATS):
        ticks.append(f"{mat}\n{tool}")
        xs.append(i)
        for g, (label, _) in enumerate(groups):
            y = pts.get((label, tool, mat), [])
            off = (g - (len(groups) - 1) / 2) * min(0.25, 0.84 / max(len(groups), 1))
            ax.scatter([i + off] * len(y), y, color=colors[g % len(colors)], s=22,
                       label=label if i == 0 else None, zorder=3)
    ax.axhline(3.0, color="black", lw=1, ls="--", label="target 3x")
    ax.set_xticks(xs)
    ax.set_xticklabels(ticks, fontsize=8)
    ax.set_ylabel("R(AP) setup: cuSPARSE ALG1 time / ESC time")
    ax.set_title("R(AP) setup (symbolic + first numeric) over ALG1, H100, one dot per run and order")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4 if len(groups) <= 3 else 2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
