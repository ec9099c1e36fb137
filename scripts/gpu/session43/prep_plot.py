#!/usr/bin/env python3
"""Bar chart of row_major_tiled's prep time, host-built tiles (session 42's build) against
device-built ones, per matrix at K = 32, from the ab part of a run347.sh tarball.

Usage: /usr/bin/python3 scripts/gpu/session43/prep_plot.py RUN.tgz OUT.png TITLE
"""
import sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
sys.path.insert(0, __file__.rsplit('/', 1)[0])
from ab_tables import load  # noqa: E402


def main():
    tgz, png, title = sys.argv[1:4]
    rows = [r for r in load(tgz) if r['_file'].startswith('ab_') and r.get('status') == 'ok'
            and r['candidate'] == 'row_major_tiled' and r['K'] == 32]
    prep = {}
    for r in rows:
        prep.setdefault(r['matrix'], {})[r['_file'].split('_')[1]] = r['prep_ms']
    names = sorted(prep)
    short = [n.split(':')[0] + ('\n' + n.split(':')[1][:22] if ':' in n else '') for n in names]
    x = range(len(names))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.bar([i - 0.2 for i in x], [prep[n].get('old', 0) for n in names], 0.4, label='host-built (session 42)')
    ax.bar([i + 0.2 for i in x], [prep[n].get('new', 0) for n in names], 0.4, label='device-built (session 43)')
    for i, n in enumerate(names):
        for dx, v in ((-0.2, prep[n].get('old')), (0.2, prep[n].get('new'))):
            if v:
                ax.text(i + dx, v * 1.08, '%.0f' % v if v >= 10 else '%.1f' % v, ha='center', fontsize=8)
    ax.set_yscale('log')
    ax.set_ylabel('prep ms (log scale)')
    ax.set_xticks(list(x))
    ax.set_xticklabels(short, fontsize=7)
    ax.set_title(title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == '__main__':
    main()
