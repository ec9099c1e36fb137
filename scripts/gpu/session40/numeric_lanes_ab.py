#!/usr/bin/env python3
"""Session 40, runs 325/326: the first numeric's lanes rule (variant 0 of order a, 1 of order b:
the new default) against the rule before it (the other variant), per ESC product: the mean work a
row and products per C entry (sum_work / nnz_c), the lanes (warp_row_lanes=symbolic/numeric) each
variant took, and the medians over the rounds of each process's split numeric (numeric_ms) and
setup (setup_ms), ms, in both orders.

Usage: python3 scripts/gpu/session40/numeric_lanes_ab.py A_DIR[,A_DIR2] B_DIR[,B_DIR2]
(order a's folders list the new rule first, order b's last; raw JSON, gzipped or not.)
"""
import glob, os, re, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import load_results  # noqa: E402

rows = {}
for arg, order in ((sys.argv[1], 'a'), (sys.argv[2], 'b')):
    for d in arg.split(','):
        for f in glob.glob(os.path.join(d, 'spgemm_v*_r*_*.json*')):
            v = int(re.search(r'_v(\d+)_', os.path.basename(f)).group(1))
            new = (v == 0) if order == 'a' else (v == 1)
            for r in load_results(f):
                if r.get('candidate') != 'esc' or r.get('status') != 'ok':
                    continue
                rows.setdefault((r['matrix'], r['product']), {}).setdefault((new, order), []).append(r)


def lanes(rs):
    return next((x.split('=')[1] for x in rs[0]['details'].split() if x.startswith('warp_row_lanes=')), '?')


def med(rs, k):
    return statistics.median(r[k] for r in rs) if rs else float('nan')


print('| matrix | product | mean work | products / C entry | lanes new / old | numeric ms new / old (a; b) | '
      'setup ms new / old (a; b) |')
print('|---|---|---:|---:|---|---|---|')
for (m, p), vv in sorted(rows.items()):
    r0 = next(iter(vv.values()))[0]
    g = lambda new, o, k: med(vv.get((new, o), []), k)  # noqa: E731
    print('| %s | %s | %.0f | %.2f | %s / %s | %.3f / %.3f; %.3f / %.3f | %.3f / %.3f; %.3f / %.3f |' % (
        m.split(',')[0][:24], p, r0['sum_work'] / max(r0['rows'], 1), r0['sum_work'] / max(r0['nnz_c'], 1),
        lanes(vv.get((True, 'a'), [r0])), lanes(vv.get((False, 'a'), [r0])),
        g(True, 'a', 'numeric_ms'), g(False, 'a', 'numeric_ms'), g(True, 'b', 'numeric_ms'), g(False, 'b', 'numeric_ms'),
        g(True, 'a', 'setup_ms'), g(False, 'a', 'setup_ms'), g(True, 'b', 'setup_ms'), g(False, 'b', 'setup_ms')))
