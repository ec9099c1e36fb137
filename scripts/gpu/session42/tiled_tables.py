#!/usr/bin/env python3
"""Session 42 tables for row_major_tiled (runs 345-346): per case (matrix, K) of each run's
kkperm_spmm JSON, row-major layout: row_major_tiled, the best other own row-major candidate,
cuSPARSE's best row-major algorithm, and the best own over cuSPARSE without and with the tiled
candidate; then the mean / geomean / min of those two ratios over the cases, the candidates' wins,
and the tiled candidate's prep time and details.  Every ratio is taken inside one process (one
part of one run).  A case present in several runs is taken from the last run given.

Usage: python3 scripts/gpu/session42/tiled_tables.py RUN.tgz [RUN.tgz ...] > table.md
"""
import gzip
import io
import json
import math
import sys
import tarfile


def records(path):
    with tarfile.open(path) as tf:
        for m in tf.getmembers():
            if m.name.endswith('.json.gz') and '/spmm_' in m.name:
                d = json.load(gzip.open(io.BytesIO(tf.extractfile(m).read())))
                yield m.name, d['results']


def main(paths):
    cases = {}  # (matrix, K) -> (run, {candidate: record})
    for p in paths:
        for name, recs in records(p):
            by = {}
            for r in recs:
                if r.get('status') == 'ok' and r.get('layout') == 'right' and r.get('median_ms'):
                    by.setdefault((r['matrix'], r['K']), {})[r['candidate']] = r
            for k, v in by.items():
                cases[k] = (p.split('/')[-1].replace('.tgz', '') + ':' + name.split('/')[-1].replace('.json.gz', ''), v)
    print('| matrix | K | run:part | tiled ms | reuse | best other own (ms) | cuSPARSE best (ms) | own/cuSPARSE without tiled | with tiled |')
    print('|---|---:|---|---:|---:|---|---|---:|---:|')
    without, with_t, wins = [], [], {}
    for (mat, K) in sorted(cases):
        run, v = cases[(mat, K)]
        own = {c: r['median_ms'] for c, r in v.items() if c.startswith('row_major')}
        cus = {c: r['median_ms'] for c, r in v.items() if c.startswith('cusparse')}
        if not own or not cus or 'row_major_tiled' not in own:
            continue
        other = {c: t for c, t in own.items() if c != 'row_major_tiled'}
        bo = min(other, key=other.get)
        bc = min(cus, key=cus.get)
        best = min(own, key=own.get)
        wins[best] = wins.get(best, 0) + 1
        r0, r1 = cus[bc] / other[bo], cus[bc] / own[best]
        without.append(r0)
        with_t.append(r1)
        det = v['row_major_tiled'].get('details', '')
        reuse = det.split('reuse=')[1].split()[0] if 'reuse=' in det else '?'
        short = mat.split('/')[-1] if 'file=' not in mat else 'kron:' + mat.split('file=')[1].split('/')[-1].split('.mtx')[0] + ',' + mat.split('.mtx.gz,')[1]
        print(f"| {short} | {K} | {run} | {own['row_major_tiled']:.3f} | {float(reuse):.2f} | {bo} {other[bo]:.3f} | "
              f"{bc.replace('cusparse_csr_', '')} {cus[bc]:.3f} | {r0:.2f} | {r1:.2f} |" if reuse != '?' else
              f"| {short} | {K} | {run} | {own['row_major_tiled']:.3f} | ? | {bo} {other[bo]:.3f} | "
              f"{bc.replace('cusparse_csr_', '')} {cus[bc]:.3f} | {r0:.2f} | {r1:.2f} |")
    def stats(x):
        return (f"{len(x)} cases: mean {sum(x) / len(x):.3f}, geomean {math.exp(sum(map(math.log, x)) / len(x)):.3f}, "
                f"min {min(x):.2f}, max {max(x):.2f}") if x else 'no cases'
    print()
    print('Best own over cuSPARSE best (row-major), without the tiled candidate: ' + stats(without))
    print()
    print('With it: ' + stats(with_t))
    print()
    print('Fastest own candidate per case: ' + ', '.join(f'{c} {n}' for c, n in sorted(wins.items(), key=lambda x: -x[1])))


if __name__ == '__main__':
    main(sys.argv[1:])
