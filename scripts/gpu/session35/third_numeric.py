#!/usr/bin/env python3
"""Session 35: per product and variant, the medians over rounds of kkperm_spgemm's third numeric
(the one that builds the gather plan: numeric_3rd_ms) and its steady re-setup (numeric_reuse_ms),
ESC rows only, from one spgemm_profile.sh run folder.
Usage: third_numeric.py RUN_DIR NAME0,NAME1,...   (NAMEk labels variant vk)"""
import glob, os, re, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import load_results  # noqa: E402
d, names = sys.argv[1], sys.argv[2].split(',')
mats = ['2D 5-pt', '3D 7-pt', '3D 27-pt']
rows = {}
for f in sorted(glob.glob(os.path.join(d, 'spgemm_v*_r*_*.json*'))):
    v = int(re.search(r'_v(\d+)_', f).group(1))
    m = int(re.search(r'_(\d+)\.json', f).group(1))
    for r in load_results(f):
        if r.get('candidate') != 'esc' or r.get('status') != 'ok':
            continue
        rows.setdefault((m, r['product'], v), []).append((r['numeric_3rd_ms'], r['numeric_reuse_ms']))
print('| matrix | product | variant | third numeric (builds the plan) | steady re-setup |')
print('|---|---|---|---:|---:|')
for (m, p, v) in sorted(rows):
    x = rows[(m, p, v)]
    print('| %s | %s | %s | %.3f | %.3f |' % (mats[m], p, names[v], statistics.median(a for a, _ in x),
                                          statistics.median(b for _, b in x)))
