#!/usr/bin/env python3
"""Session 32: ESC kernel durations of session 27's ncu_setup.sh output, variants side by side.

Usage: ncu_kernels.py RUN_DIR CASE [CASE ...] [--names NAME0,NAME1,...] [--min-us T]
RUN_DIR holds ncu_v<i>_<case>.csv.gz (ncu --csv --print-units base, gpu__time_duration.sum per
launch). For each case: one row per launch of a kkperm ESC kernel (esc_impl::*, EscSpgemm
lambdas, kkperm::detail checks), in launch order, with each variant's µs; launches are paired by
order, so the variants must launch the same kernels (a row whose names differ says so). Rows
where every variant is under --min-us (default 5) are left out. Markdown on stdout.
"""
import argparse
import csv
import glob
import gzip
import re


def load(path):
    rows = list(csv.reader(gzip.open(path, 'rt')))
    for i, r in enumerate(rows):
        if 'Kernel Name' in r:
            hdr, start = r, i + 1
            break
    else:
        return []
    ki, mi, vi = hdr.index('Kernel Name'), hdr.index('Metric Name'), hdr.index('Metric Value')
    out = []
    for r in rows[start:]:
        if len(r) <= vi or r[mi] != 'gpu__time_duration.sum':
            continue
        m = (re.search(r'esc_impl::(\w+)', r[ki]) or re.search(r'(EscSpgemm)', r[ki])
             or re.search(r'kkperm::detail::(\w+)', r[ki]))
        if m:
            out.append((m.group(1), float(r[vi].replace(',', '')) / 1000.0))
    return out


ap = argparse.ArgumentParser()
ap.add_argument('run_dir')
ap.add_argument('cases', nargs='+')
ap.add_argument('--names', default='')
ap.add_argument('--min-us', type=float, default=5.0)
a = ap.parse_args()
for case in a.cases:
    files = sorted(glob.glob(f'{a.run_dir}/ncu_v*_{case}.csv.gz'),
                   key=lambda f: int(re.search(r'ncu_v(\d+)_', f).group(1)))
    runs = [load(f) for f in files]
    names = a.names.split(',') if a.names else [f'v{i}' for i in range(len(runs))]
    print(f'\n**case {case}** (µs per launch)\n')
    print('| # | kernel | ' + ' | '.join(names[:len(runs)]) + ' |')
    print('|---:|---|' + '---:|' * len(runs))
    for k, launches in enumerate(zip(*runs)):
        if max(t for _, t in launches) < a.min_us:
            continue
        kname = launches[0][0] + ('' if all(n == launches[0][0] for n, _ in launches) else ' (names differ)')
        print(f'| {k} | {kname} | ' + ' | '.join(f'{t:.1f}' for _, t in launches) + ' |')
