#!/usr/bin/env python3
"""Session 38: R(AP) setup, cuSPARSE ALG1's over ESC's, per product and tool, for the comparisons
of runs 304-307 (docs/benchmarks/spgemm_fair_alg1_s38_2026-11-27.md): against the old cuSPARSE
wrapper, against the pooled one with both validated, and with both trusted. One dot per run and
order (the median over its rounds of each process's median); the line at 3 is issue 5's target.

Usage: /usr/bin/python3 tools/bench/plot_fair_alg1.py OUT.png DATA_DIR
DATA_DIR: docs/benchmarks/data/h100_2026-11-27_s38 (runNNN_raw/{a,b}_{spgemm,amg}_v*_r*_*.json.gz).
"""
import glob, os, re, sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'gpu', 'lib'))
from run_json import load_results, med  # noqa: E402

out, data = sys.argv[1], sys.argv[2]
# (run, order): {comparison: (ESC variant, ALG1 variant)}; variant indices as each run listed them
runs = {
    ('run304', 'a'): {'old wrapper': (1, 0), 'pooled, validated': (1, 1), 'both trusted': (2, 2)},
    ('run305', 'b'): {'old wrapper': (1, 2), 'pooled, validated': (1, 1), 'both trusted': (0, 0)},
    ('run306', 'a'): {'pooled, validated': (0, 0), 'both trusted': (1, 1)},
    ('run307', 'b'): {'pooled, validated': (1, 1), 'both trusted': (0, 0)},
}
mats = ['2D 5-pt', '3D 7-pt', '3D 27-pt']
groups = [(m, t) for m in range(3) for t in ('spgemm', 'amg')]
comps = ['old wrapper', 'pooled, validated', 'both trusted']
colors = {'old wrapper': '#999999', 'pooled, validated': '#1f77b4', 'both trusted': '#ff7f0e'}


def times(run, order, tool, m, v, cand):
    xs = []
    for f in glob.glob(os.path.join(data, '%s_raw' % run, '%s_%s_v%d_r*_%d.json.gz' % (order, tool, v, m))):
        for r in load_results(f):
            if r.get('candidate') == cand and r.get('status') == 'ok':
                xs.append(r.get('setup_ms') if (tool == 'spgemm' and r.get('product') == 'RAP') else
                          r.get('rap_setup_ms') if tool == 'amg' else None)
    return med(xs)


fig, ax = plt.subplots(figsize=(9, 4.5))
w = 0.25
for gi, (m, tool) in enumerate(groups):
    for ci, c in enumerate(comps):
        ys = []
        for (run, order), cmp in runs.items():
            if c not in cmp:
                continue
            ve, vg = cmp[c]
            e, g = times(run, order, tool, m, ve, 'esc'), times(run, order, tool, m, vg, 'cusparse_alg1')
            if e == e and g == g:
                ys.append(g / e)
        x = gi + (ci - 1) * w
        ax.scatter([x] * len(ys), ys, color=colors[c], s=22, label=c if gi == 0 else None, zorder=3)
ax.axhline(3.0, color='red', lw=1, ls='--', label="issue 5's target (3x)")
ax.set_xticks(range(len(groups)))
ax.set_xticklabels(['%s\n%s' % (mats[m], 'kkperm_' + t) for m, t in groups], fontsize=8)
ax.set_ylabel('R(AP) setup: ALG1 time / ESC time')
ax.set_ylim(0, 4.5)
ax.grid(axis='y', alpha=0.3)
ax.legend(fontsize=8, loc='upper left')
ax.set_title('H100, 2026-11-27, runs 304-307: R(AP) setup against cuSPARSE ALG1', fontsize=10)
fig.tight_layout()
fig.savefig(out, dpi=110)
print('wrote', out)
