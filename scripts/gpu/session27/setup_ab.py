#!/usr/bin/env python3
"""Session 27: ESC setup with values in the count pass against the split setup (symbolic, then a
searching numeric) and cuSPARSE, from one scripts/gpu/session16/spgemm_profile.sh run.

Usage: python3 scripts/gpu/session27/setup_ab.py RUN_DIR NAME0 NAME1 ...
RUN_DIR holds spgemm_v<i>_r<k>_<m>.json[.gz] and amg_v<i>_r<k>_<m>.json[.gz] (matrices 0..2 =
2D 5-point 1000^2, 3D 7-point 100^3, 3D 27-point 64^3, or as MATS names them); NAMEi labels
variant i, whose ESC rows are shown; cuSPARSE rows (ALG1, SpGEMMreuse) come from whichever variant ran them. Every number is the
median over the rounds of that variant's per-process medians (ms). "x ALG1" = cuSPARSE ALG1's
setup (its one workEstimation/compute/copy pipeline) over the row's setup.
Prints two Markdown tables: kkperm_spgemm products, and kkperm_amg's AP + R(AP) setups.
"""
import glob, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import detail, load_results, med  # noqa: E402

d, names = sys.argv[1], sys.argv[2:]
# matrix labels in the run's GENS order (env MATS="label,label,..." when GENS was not the default)
mats = os.environ.get('MATS', '2D 5-pt,3D 7-pt,3D 27-pt').split(',')


def results(tool, m):
    """{variant index: [result, ...]} over all rounds for matrix m."""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, '%s_v*_r*_%d.json*' % (tool, m)))):
        v = int(re.search(r'_v(\d+)_', os.path.basename(f)).group(1))
        out.setdefault(v, []).extend(load_results(f))
    return out


def rows_of(res, cand, key='product', val=None):
    return [r for r in res if r.get('candidate') == cand and (val is None or r.get(key) == val)]


print('| matrix | product | variant | setup | x ALG1 | symbolic | numeric 1st | valued rows | steady re-setup |')
print('|---|---|---|---:|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    res = results('spgemm', m)
    allr = [r for v in res for r in res[v]]
    for p in ('A2', 'AP', 'RAP'):
        alg1 = med([r.get('setup_ms') for r in rows_of(allr, 'cusparse_alg1', val=p)])
        lines = []
        for v, name in enumerate(names):
            rs = rows_of(res.get(v, []), 'esc', val=p)
            if rs:
                lines.append((name, rs))
        for cand, label in (('cusparse_alg1', 'cuSPARSE ALG1'), ('cusparse_reuse', 'cuSPARSE SpGEMMreuse')):
            rs = rows_of(allr, cand, val=p)
            if rs:
                lines.append((label, rs))
        for label, rs in lines:
            s = med([r.get('setup_ms') for r in rs])
            vr = med([detail(r, 'setup_valued_rows') for r in rs])
            print('| %s | %s | %s | %.3f | %.2f | %.3f | %.3f | %s | %.3f |' % (
                mn, p, label, s, alg1 / s, med([r.get('symbolic_ms') for r in rs]),
                med([r.get('numeric_ms') for r in rs]), '–' if vr != vr else '%d' % vr,
                med([r.get('numeric_reuse_ms') for r in rs])))

print()
print('| matrix | variant | AP setup | R(AP) setup | R(AP) x ALG1 | AMG setup | AMG x ALG1 | steady re-setup |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    res = results('amg', m)
    allr = [r for v in res for r in res[v]]
    a1 = rows_of(allr, 'cusparse_alg1')
    a1_rap, a1_setup = med([r.get('rap_setup_ms') for r in a1]), med([r.get('setup_ms') for r in a1])
    lines = [(name, rows_of(res.get(v, []), 'esc')) for v, name in enumerate(names)]
    lines += [('cuSPARSE ALG1', a1), ('cuSPARSE SpGEMMreuse', rows_of(allr, 'cusparse_reuse'))]
    for label, rs in lines:
        if not rs:
            continue
        rap, st = med([r.get('rap_setup_ms') for r in rs]), med([r.get('setup_ms') for r in rs])
        print('| %s | %s | %.3f | %.3f | %.2f | %.3f | %.2f | %.3f |' % (
            mn, label, med([r.get('ap_setup_ms') for r in rs]), rap, a1_rap / rap, st, a1_setup / st,
            med([r.get('resetup_numeric_ms') for r in rs])))
