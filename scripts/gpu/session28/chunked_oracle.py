#!/usr/bin/env python3
"""Session 28: what row_major_chunked adds to the row-major oracle, from kkperm_spmm JSON files
of one device run per case (runs 195-198).

Usage: python3 scripts/gpu/session28/chunked_oracle.py FILE.json[.gz] ...
Per case (matrix, K; row-major B/Y only): cuSPARSE's best row-major algorithm, row_major,
row_major_chunked, the best own candidate without and with row_major_chunked (ms), then the
oracle over cuSPARSE's best without and with it; a last line gives mean and geomean of both.
"""
import os, re, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import load_results  # noqa: E402

cases = {}
for f in sys.argv[1:]:
    for r in load_results(f):
        if r.get('status') == 'ok' and r.get('layout') == 'right':
            cases.setdefault((r['matrix'], r['K']), {})[r['candidate']] = r['median_ms']
print('| matrix | K | cuSPARSE best | row_major | row_major_chunked | own best without | own best with | x cuSPARSE without | x cuSPARSE with |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
wo, w = [], []
for (m, k), t in sorted(cases.items()):
    cus = min(v for c, v in t.items() if c.startswith('cusparse'))
    own = min(v for c, v in t.items() if not c.startswith('cusparse'))
    own_wo = min(v for c, v in t.items() if not c.startswith('cusparse') and c != 'row_major_chunked')
    wo.append(cus / own_wo)
    w.append(cus / own)
    name = re.sub(r'file=[^,]*/', 'file=', m)
    print('| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |' % (
        name, k, cus, t.get('row_major', float('nan')), t.get('row_major_chunked', float('nan')),
        own_wo, own, cus / own_wo, cus / own))
print('| **%d cases: mean / geomean** | | | | | | | **%.3f / %.3f** | **%.3f / %.3f** |' % (
    len(w), statistics.mean(wo), statistics.geometric_mean(wo), statistics.mean(w), statistics.geometric_mean(w)))
