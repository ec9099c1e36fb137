#!/usr/bin/env python3
"""Tables of scripts/gpu/session45/ab358.sh runs: per tool, case and candidate the median time of
each carveout mode (KKPERM_TEAM_CARVEOUT) and the ratio fit / kokkos (below 1: fit is faster), with
a geometric mean per tool and candidate. SpMV / SpMM: median_ms (SpMV also % of the byte floor);
kkperm_amg: rap_setup_ms, ap_setup_ms, setup_ms and resetup_numeric_ms.
Usage: ab_table.py [--modes BASE,TEST] [--png OUT.png] RUN.tgz [RUN.tgz ...] > table.md
(--modes: the two names compared, default kokkos,fit; wd362.sh's runs are old,new)
(--png: a chart of the fit / kokkos ratios per candidate, one dot per case; needs matplotlib,
e.g. /usr/bin/python3 on Debian)
"""
import gzip, io, json, math, re, statistics, sys, tarfile
from collections import defaultdict

AMG = ('rap_setup_ms', 'ap_setup_ms', 'setup_ms', 'resetup_numeric_ms')
t = defaultdict(list)  # (tool, matrix, cand, K, metric, mode) -> [value]
pct = defaultdict(list)  # (tool, matrix, cand, mode) -> [% floor]
args = sys.argv[1:]
png = None
BASE, TEST = 'kokkos', 'fit'
while args[:1] in (['--png'], ['--modes']):
    if args[0] == '--png':
        png = args[1]
    else:
        BASE, TEST = args[1].split(',')
    args = args[2:]
for path in args:
    with tarfile.open(path) as tf:
        for m in tf.getmembers():
            mm = re.search(r'/(amg\d*|spmv|spmmL|spmmR|wd)_([a-z0-9]+)_(\d+)\.json\.gz$', m.name)
            if not mm:
                continue
            tool, mode = re.sub(r'\d+$', '', mm.group(1)), mm.group(2)
            d = json.load(io.TextIOWrapper(gzip.GzipFile(fileobj=tf.extractfile(m))))
            for r in d['results']:
                if r.get('status') != 'ok':
                    continue
                mat = r['matrix'].split('/')[-1][:34]
                K = r.get('K', 0)
                if tool == 'amg':
                    for k in AMG:
                        if k in r:
                            t[(tool, mat, r['candidate'], K, k, mode)].append(r[k])
                else:
                    t[(tool, mat, r['candidate'], K, 'median_ms', mode)].append(r['median_ms'])
                    for k in ('pct_peak',):
                        if k in r:
                            pct[(tool, mat, r['candidate'], mode)].append(r[k])
cases = sorted({k[:5] for k in t})
geo = defaultdict(list)
print('| tool | matrix | candidate | K | metric | %s | %s | %s / %s |' % (BASE, TEST, TEST, BASE))
print('|---|---|---|---:|---|---:|---:|---:|')
for c in cases:
    a, b = t.get(c + (BASE,)), t.get(c + (TEST,))
    if not a or not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    r = mb / ma
    geo[(c[0], c[2], c[4])].append(r)
    print('| %s | %s | %s | %s | %s | %.4f | %.4f | %.3f |' % (c[0], c[1], c[2], c[3] or '', c[4], ma, mb, r))
print()
print('| tool | candidate | metric | cases | geomean %s / %s | min | max |' % (TEST, BASE))
print('|---|---|---|---:|---:|---:|---:|')
for k in sorted(geo):
    v = geo[k]
    print('| %s | %s | %s | %d | %.3f | %.3f | %.3f |' % (k + (len(v), math.exp(sum(map(math.log, v)) / len(v)), min(v), max(v))))
if pct:
    print()
    print('SpMV % of the byte floor (median over the runs):')
    print()
    print('| matrix | candidate | %s | %s |' % (BASE, TEST))
    print('|---|---|---:|---:|')
    for k in sorted({k[:3] for k in pct}):
        a, b = pct.get(k + (BASE,)), pct.get(k + (TEST,))
        print('| %s | %s | %s | %s |' % (k[1], k[2], '%.1f' % statistics.median(a) if a else '—',
                                         '%.1f' % statistics.median(b) if b else '—'))

if png:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    keys = sorted(geo, key=lambda k: (k[0], k[1], k[2]))
    keys = [k for k in keys if not k[1].startswith('cusparse')] + [k for k in keys if k[1].startswith('cusparse')]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(keys) + 1.4))
    for i, k in enumerate(keys):
        v = geo[k]
        ax.scatter(v, [i] * len(v), s=22, color='tab:gray' if k[1].startswith('cusparse') else 'tab:blue', alpha=0.7)
        g = math.exp(sum(map(math.log, v)) / len(v))
        ax.plot([g, g], [i - 0.3, i + 0.3], color='black', lw=2)
    ax.axvline(1.0, color='red', lw=1, ls='--')
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(['%s %s%s' % (k[0], k[1], '' if k[2] == 'median_ms' else ' ' + k[2].replace('_ms', '')) for k in keys],
                       fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel('time with fitted carveout / time with Kokkos prefer-shared (dots: cases; bar: geomean)')
    ax.set_title('kkperm team kernels, KKPERM_TEAM_CARVEOUT=fit vs kokkos (H200, run 358, 2026-11-29)', fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
