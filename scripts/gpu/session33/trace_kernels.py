"""Median device time (µs) of each ESC kernel in the traced setups (--trace-setup) of one run folder,
per variant of the spgemm_profile.sh run (session 33).

Usage: trace_kernels.py RUN_DIR NAME0,NAME1,... [MATRIX_SUBSTRING [PRODUCTS]]
  NAMEk names variant vk (the order of VARIANTS in that run); MATRIX_SUBSTRING defaults to
  laplace2d5, PRODUCTS (comma-separated) to RAP. Reads kkperm_spgemm's spgemm_v*_r*.json(.gz).
"""
import sys, glob, re, statistics, collections
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from run_json import load_results
d, names = sys.argv[1], sys.argv[2].split(',')
want = sys.argv[3] if len(sys.argv) > 3 else 'laplace2d5'
prods = sys.argv[4].split(',') if len(sys.argv) > 4 else ['RAP']
for prod in prods:
  print('==', want, prod)
  per = collections.defaultdict(lambda: collections.defaultdict(list))
  for f in sorted(glob.glob(d + '/spgemm_v*_r*.json*')):
    v = int(re.search(r'_v(\d+)_', f).group(1))
    for r in load_results(f):
        if r.get('status') != 'ok' or r.get('candidate') != 'esc' or r.get('product') != prod or want not in r['matrix']: continue
        tr = r.get('setup_trace')
        if not tr: continue
        ev = tr['events'] if isinstance(tr, dict) else tr
        for e in ev:
            if e['kind'] == 'kernel':
                per[names[v]][e['name'].split('::')[-1]].append(e['device_end_us'] - e['device_begin_us'])
  ks = []
  for v in per:
    for k in per[v]:
        if k not in ks: ks.append(k)
  print('kernel'.ljust(40), ' '.join(n.rjust(8) for n in names))
  for k in ks:
    print(k.ljust(40), ' '.join(('%8.1f' % statistics.median(per[n][k])) if per[n][k] else '       -' for n in names))
