#!/usr/bin/env python3
"""Session 38: setup times per variant and candidate from one spgemm_profile.sh run whose variants
each ran their own cuSPARSE ALG1 (runs 304/305), and the ESC-over-ALG1 ratios within a variant and
across the named pairs.

Usage: python3 scripts/gpu/session38/fair_ab.py RUN_DIR NAME0 NAME1 ... [--pairs ESCV:ALGV[:CAND],...]
       [--cands esc,cusparse_alg1,...]
NAMEi labels variant i (the order of VARIANTS in that run). Every time is the median over the
rounds of each process's reported median (ms): kkperm_spgemm's setup_ms per product (A2, AP, RAP),
kkperm_amg's rap_setup_ms (R(AP) setup), setup_ms (AP + R(AP)) and resetup_numeric_ms (steady
numeric-only AMG re-setup). `--pairs 1:0,2:2` adds the ratio ALG1 of variant b over ESC of
variant a for each pair a:b (a:b:cusparse_reuse: that candidate instead of ALG1). `--cands`: the
candidates whose times are shown per variant (default esc,cusparse_alg1).
"""
import glob, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import load_results, med  # noqa: E402

args = sys.argv[1:]
pairs, cands = [], ['esc', 'cusparse_alg1']
if '--pairs' in args:
    i = args.index('--pairs')
    for p in args[i + 1].split(','):
        f = p.split(':')
        pairs.append((int(f[0]), int(f[1]), f[2] if len(f) > 2 else 'cusparse_alg1'))
    args = args[:i] + args[i + 2:]
if '--cands' in args:
    i = args.index('--cands')
    cands = args[i + 1].split(',')
    args = args[:i] + args[i + 2:]
short = {'esc': 'ESC', 'cusparse_alg1': 'ALG1', 'cusparse_reuse': 'reuse', 'cusparse_alg2': 'ALG2',
         'cusparse_alg3': 'ALG3'}
d, names = args[0], args[1:]
mats = os.environ.get('MATS', '2D 5-pt,3D 7-pt,3D 27-pt').split(',')


def collect(tool, m):
    """{(variant, candidate, key): [per-process value, ...]}"""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, '%s_v*_r*_%d.json*' % (tool, m)))):
        v = int(re.search(r'_v(\d+)_', os.path.basename(f)).group(1))
        for r in load_results(f):
            c = r.get('candidate')
            if c is None or r.get('status') != 'ok':
                continue
            if tool == 'spgemm':
                out.setdefault((v, c, r['product']), []).append(r.get('setup_ms'))
            else:
                for k in ('rap_setup_ms', 'setup_ms', 'resetup_numeric_ms'):
                    out.setdefault((v, c, k), []).append(r.get(k))
    return out


keys = {'spgemm': ['A2', 'AP', 'RAP'], 'amg': ['rap_setup_ms', 'setup_ms', 'resetup_numeric_ms']}
label = {'A2': 'A² setup', 'AP': 'AP setup', 'RAP': 'R(AP) setup', 'rap_setup_ms': 'R(AP) setup',
         'setup_ms': 'AP + R(AP) setup', 'resetup_numeric_ms': 'numeric re-setup'}
head = '| matrix | tool | what | ' + ' | '.join('%s %s' % (short.get(c, c), n) for n in names for c in cands)
head += ' | ' + ' | '.join('ESC %s × %s %s' % (names[a], short.get(c, c), names[b]) for a, b, c in pairs) + ' |'
print(head)
print('|---|---|---|' + '---:|' * (len(cands) * len(names) + len(pairs)))
for m, mn in enumerate(mats):
    for tool in ('spgemm', 'amg'):
        res = collect(tool, m)
        for k in keys[tool]:
            cells = []
            for v in range(len(names)):
                for c in cands:
                    x = med(res.get((v, c, k), []))
                    cells.append('%.3f' % x if x == x else '')
            for a, b, c in pairs:
                e, g = med(res.get((a, 'esc', k), [])), med(res.get((b, c, k), []))
                cells.append('%.2f' % (g / e) if e == e and g == g else '')
            print('| %s | %s | %s | %s |' % (mn, 'kkperm_' + tool, label[k], ' | '.join(cells)))
