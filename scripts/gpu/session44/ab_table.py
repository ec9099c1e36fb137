#!/usr/bin/env python3
"""Tables of scripts/gpu/session44/ab354.sh runs: per matrix, K and candidate the median ms of each
build variant (ratio to `new`), and per variant the best own row-major candidate against cuSPARSE
ALG2 row-major (run by `new` in the same round).
Usage: ab_table.py [--ref VARIANT] RUN.tgz [RUN.tgz ...] > table.md
(the ratios are to VARIANT, default `new`, else the first variant found)
"""
import gzip, io, json, re, sys, tarfile, statistics
from collections import defaultdict

times = defaultdict(list)   # (matrix, K, cand, variant) -> [ms]
cus = defaultdict(list)     # (matrix, K) -> [ms]
variants = []
args = sys.argv[1:]
ref = None
if args[:1] == ['--ref']:
    ref, args = args[1], args[2:]
for path in args:
    with tarfile.open(path) as tf:
        for m in tf.getmembers():
            mm = re.search(r'/([A-Za-z0-9]+)_(\d+)\.json\.gz$', m.name)
            if not mm:
                continue
            v = mm.group(1)
            if v not in variants:
                variants.append(v)
            d = json.load(io.TextIOWrapper(gzip.GzipFile(fileobj=tf.extractfile(m))))
            for r in d['results']:
                if r.get('status') != 'ok':
                    continue
                key = (r['matrix'][:40], r['K'])
                if r['candidate'].startswith('cusparse'):
                    cus[key].append(r['median_ms'])
                else:
                    times[key + (r['candidate'], v)].append(r['median_ms'])
if ref is None:
    ref = 'new' if 'new' in variants else variants[0]
order = [ref] + [v for v in variants if v != ref]
keys = sorted({k[:3] for k in times})
print('| matrix | K | candidate | ' + ' | '.join(order) + ' |')
print('|---|---:|---|' + '---:|' * len(order))
for k in keys:
    base = times.get(k + (ref,))
    cells = []
    for v in order:
        t = times.get(k + (v,))
        if not t:
            cells.append('—')
            continue
        ms = statistics.median(t)
        cells.append('%.4f' % ms if v == ref or not base else '%.4f (%.3f)' % (ms, ms / statistics.median(base)))
    print('| %s | %d | %s | %s |' % (k[0], k[1], k[2], ' | '.join(cells)))
print()
print('Best own row-major candidate against cuSPARSE ALG2 row-major (cuSPARSE ms / own ms):')
print()
print('| matrix | K | cuSPARSE ms | ' + ' | '.join(order) + ' |')
print('|---|---:|---:|' + '---:|' * len(order))
ratios = defaultdict(list)
for mk in sorted(cus):
    c = statistics.median(cus[mk])
    cells = []
    for v in order:
        best = [statistics.median(t) for (m, K, cand, vv), t in times.items() if (m, K) == mk and vv == v]
        if not best:
            cells.append('—')
            continue
        b = min(best)
        ratios[v].append(c / b)
        cells.append('%.4f (%.2f)' % (b, c / b))
    print('| %s | %d | %.4f | %s |' % (mk[0], mk[1], c, ' | '.join(cells)))
print('| **mean** | | | ' + ' | '.join('**%.3f**' % statistics.mean(ratios[v]) if ratios[v] else '—' for v in order) + ' |')
