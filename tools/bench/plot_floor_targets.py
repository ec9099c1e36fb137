#!/usr/bin/env python3
"""PNG of issue 5's AMG targets against the byte floor, from one or more spgemm_profile.sh runs of a
build that records the floor (session 40 on): for each Laplacian, the R(AP) setup and the
numeric-only AMG re-setup (AP + R(AP)) of ESC, cuSPARSE ALG1 and SpGEMMreuse (µs, log scale,
medians over the rounds of each process's median), the byte floor at the measured copy rate, and
the time each target asks for (ALG1's R(AP) setup / 3; ALG1's and SpGEMMreuse's re-setup / 5).

Usage: /usr/bin/python3 tools/bench/plot_floor_targets.py OUT.png TITLE RUN_DIR:VARIANT [RUN_DIR:VARIANT ...]
(kkperm_amg files amg_v<VARIANT>_r*_<m>.json[.gz], m = 0, 1, 2 for MATS, default the 2D 5-point,
3D 7-point and 3D 27-point Laplacians; several runs are pooled.)
"""
import glob, os, sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'gpu', 'lib'))
from run_json import load_results, med as median  # noqa: E402

out, title, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
mats = os.environ.get('MATS', '2D 5-point,3D 7-point,3D 27-point').split(',')


def med(rs, k):
    """Median of field k over the records rs (NaN when none has it)."""
    return median([r.get(k) for r in rs])


res = [[] for _ in mats]
for s in specs:
    d, v = s.rsplit(':', 1)
    for m in range(len(mats)):
        for f in glob.glob(os.path.join(d, 'amg_v%s_r*_%d.json*' % (v, m))):
            res[m].extend(r for r in load_results(f) if r.get('status') == 'ok')

cands = (('esc', 'kkperm ESC', '#1f77b4'), ('cusparse_alg1', 'cuSPARSE ALG1', '#ff7f0e'),
         ('cusparse_reuse', 'cuSPARSE SpGEMMreuse', '#2ca02c'))
fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=False)
for ax, (what, key, fkey, tgt) in zip(axes, (
        ('R(AP) setup (symbolic + numeric)', 'rap_setup_ms', 'rap_floor_us', (('cusparse_alg1', 3.0, '3x ALG1'),)),
        ('numeric-only AMG re-setup (AP + R(AP))', 'resetup_numeric_ms', 'floor_us',
         (('cusparse_alg1', 5.0, '5x ALG1'), ('cusparse_reuse', 5.0, '5x SpGEMMreuse'))))):
    w = 0.25
    for i, (c, label, color) in enumerate(cands):
        ys = [1e3 * med([r for r in res[m] if r['candidate'] == c], key) for m in range(len(mats))]
        ax.bar([m + (i - 1) * w for m in range(len(mats))], ys, w, label=label, color=color)
    for m in range(len(mats)):
        fl = med([r for r in res[m] if r['candidate'] == 'esc'], fkey)
        ax.hlines(fl, m - 1.6 * w, m + 1.6 * w, colors='black', linewidth=2.5, label='byte floor' if m == 0 else None)
        for j, (c, x, tl) in enumerate(tgt):
            t = 1e3 * med([r for r in res[m] if r['candidate'] == c], key) / x
            ax.hlines(t, m - 1.6 * w, m + 1.6 * w, colors=('red', 'purple')[j], linestyles='--', linewidth=1.5,
                      label='target: %s' % tl if m == 0 else None)
    ax.set_yscale('log')
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 6)  # room above the bars for the legend
    ax.set_xticks(range(len(mats)))
    ax.set_xticklabels(mats)
    ax.set_ylabel('µs')
    ax.set_title(what, fontsize=10)
    ax.legend(fontsize=7, loc='upper right')
fig.suptitle(title, fontsize=10)
fig.tight_layout()
fig.savefig(out, dpi=110)
print('wrote', out)
