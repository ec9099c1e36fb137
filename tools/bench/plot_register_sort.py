#!/usr/bin/env python3
"""Session 39: ESC's A² and R(AP) setup per register-sort mode against cuSPARSE ALG1, one bar group
per product, from the fair_ab.py summaries of runs 318 (order a) and 319 (order b).

Usage: /usr/bin/python3 tools/bench/plot_register_sort.py OUT.png DATA_DIR
DATA_DIR: docs/benchmarks/data/h100_2026-11-27_s39 (run318_a_summary.md, run319_b_summary.md and
their _broad_ twins). Each bar is the mean of the two orders' medians; the whiskers span them.
"""
import os
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """{(matrix, what): {column label: value}} from a fair_ab.py table (kkperm_spgemm rows)."""
    out, head = {}, None
    for line in open(path):
        if not line.startswith('|') or line.startswith('|---'):
            continue
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if c[0] == 'matrix':
            head = c
            continue
        if c[1] != 'kkperm_spgemm':
            continue
        out[(c[0], c[2])] = {head[i]: float(c[i]) for i in range(3, len(c)) if i < len(head) and c[i]}
    return out


def main():
    png, d = sys.argv[1], sys.argv[2]
    runs = []
    for tag in ('run318_a', 'run319_b'):
        t = load(os.path.join(d, tag + '_summary.md'))
        t.update(load(os.path.join(d, tag + '_broad_summary.md')))
        runs.append(t)
    products = [('3D 7-pt', 'A² setup', '3D 7-point A²'), ('uniform 8', 'A² setup', 'uniform 10⁶×8 A²'),
                ('uniform 6', 'A² setup', 'uniform 10⁶×6 A²'), ('4elt kron', 'A² setup', 'Kronecker 4elt A²'),
                ('banded', 'A² setup', 'banded A²'), ('2D 5-pt', 'A² setup', '2D 5-point A²'),
                ('2D 5-pt', 'R(AP) setup', '2D 5-point R(AP)'), ('3D 7-pt', 'R(AP) setup', '3D 7-point R(AP)'),
                ('3D 27-pt', 'R(AP) setup', '3D 27-point R(AP)')]
    series = [('ESC mode0', 'mode 0 (before)', '#999999'), ('ESC mode2', 'mode 2', '#4c72b0'),
              ('ESC mode3', 'mode 3 (default)', '#dd8452'), ('ALG1 mode3', 'cuSPARSE ALG1', '#55a868')]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    w = 0.2
    for k, (col, label, colour) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for j, (m, what, _) in enumerate(products):
            vals = [r[(m, what)][col] for r in runs if (m, what) in r and col in r[(m, what)]]
            if not vals:
                continue
            # normalise by the default's mean so products of different size share one axis
            ref = [r[(m, what)]['ESC mode3'] for r in runs]
            base = sum(ref) / len(ref)
            v = [x / base for x in vals]
            xs.append(j + (k - 1.5) * w)
            ys.append(sum(v) / len(v))
            lo.append(ys[-1] - min(v))
            hi.append(max(v) - ys[-1])
        ax.bar(xs, ys, w, yerr=[lo, hi], label=label, color=colour, capsize=2)
    ax.axhline(1.0, color='black', lw=0.6)
    ax.set_xticks(range(len(products)))
    ax.set_xticklabels([p[2] for p in products], rotation=25, ha='right', fontsize=8)
    ax.set_ylabel('setup time / ESC default (mean of orders)')
    ax.set_title('ESC setup by register-sort mode, cuSPARSE ALG1 alongside '
                 '(H100, runs 318-319, 2026-11-27)', fontsize=10)
    ax.legend(fontsize=8, ncol=4)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == '__main__':
    main()
