#!/usr/bin/env python3
"""Session 28: row-major SpMM per-row walk with a team chunk of consecutive rows (walk_rows rows a
lane group) against a row a group, from one scripts/gpu/session21/spmm_ab.sh run whose BINS were
variant builds of kkperm_spmm (scripts/gpu/session22/build_spmm_variants.sh).

Usage: python3 scripts/gpu/session28/walk_ab.py RUN_DIR BIN0 BIN1 ...
RUN_DIR holds <bin>_<i>.json[.gz]; BIN0's file also holds cuSPARSE's row-major algorithms.
Prints a Markdown table: per matrix and K (row-major B/Y only), cuSPARSE's best, then each
build's row_major and row_major_lpt medians (ms), and BIN0's and the best build's best own
candidate over cuSPARSE's best.
"""
import glob, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import load_results  # noqa: E402

d, bins = sys.argv[1], sys.argv[2:]
cases = {}
for f in glob.glob(os.path.join(d, '*_*.json*')):
    m = re.match(r'(.+)_(\d+)\.json', os.path.basename(f))
    if not m or m.group(1) not in bins:
        continue
    for r in load_results(f):
        if r.get('status') != 'ok' or r.get('layout') != 'right':
            continue
        cases.setdefault((int(m.group(2)), r['matrix'], r['K']), {})[(m.group(1), r['candidate'])] = r['median_ms']
hdr = '| matrix | K | cuSPARSE best | ' + ' | '.join('%s row_major / _lpt' % b for b in bins) + \
      ' | %s x cuSPARSE | best build x cuSPARSE |' % bins[0]
print(hdr)
print('|' + '---|---:|---:|' + '---:|' * len(bins) + '---:|---:|')
for key in sorted(cases):
    t = cases[key]
    cus = [v for (b, c), v in t.items() if c.startswith('cusparse')]
    if not cus:
        continue
    cus = min(cus)
    cells = []
    for b in bins:
        a, l = t.get((b, 'row_major')), t.get((b, 'row_major_lpt'))
        cells.append('%.3f / %.3f' % (a, l) if a and l else '–')
    own0 = [v for (b, c), v in t.items() if b == bins[0] and not c.startswith('cusparse')]
    own = [v for (b, c), v in t.items() if not c.startswith('cusparse')]
    name = re.sub(r'file=[^,]*/', 'file=', key[1])
    print('| %s | %d | %.3f | %s | %.2f | %.2f |' % (name, key[2], cus, ' | '.join(cells), cus / min(own0), cus / min(own)))
