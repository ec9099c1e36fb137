#!/usr/bin/env python3
"""Session 26: ESC A/B runs 163, 165, 167, 169, 171, 173-176 (gather-plan build, numeric fold):
setup, symbolic, first/second/third numeric, gather build time and its byte floor, steady
re-setup per variant, each the median over rounds.

Usage: python3 scripts/gpu/session26/gather_ab.py RUN_DIR NAME0 NAME1 ...
RUN_DIR holds spgemm_v<i>_r<k>_<m>.json[.gz] and amg_v<i>_r<k>_<m>.json[.gz] from
scripts/gpu/session16/spgemm_profile.sh (matrices 0..2 = 2D 5-point 1000^2, 3D 7-point 100^3,
3D 27-point 64^3); NAMEi labels variant i. cuSPARSE SpGEMMreuse rows come from variant 0.
Prints two Markdown tables (kkperm_spgemm products, kkperm_amg).
"""
import glob, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from run_json import detail, load_results, med  # noqa: E402

d, names = sys.argv[1], sys.argv[2:]
mats = ['2D 5-pt', '3D 7-pt', '3D 27-pt']


def results(tool, v, m):
    out = []
    for f in sorted(glob.glob(os.path.join(d, '%s_v%d_r*_%d.json*' % (tool, v, m)))):
        out.append(load_results(f))
    return out


def floor_ms(r):
    """Bytes the build must move at 3.35 TB/s (H100 HBM3): the list (8 per product) and the row
    pointers (4 per C entry) written, the slot map (2 or 4 per product) read by both walks, A's
    column and B's row offsets (4 + 8 per A entry) read by both walks, and 5 ints a row (perm,
    A's row offsets, F, C's row offsets, the row's first product)."""
    f, c, a, n = r['sum_work'], r['nnz_c'], r['nnz_a'], r['rows']
    w = detail(r, 'slot_width') or 2
    return (8 * f + 4 * (c + 1) + 2 * w * f + 2 * 12 * a + 20 * n) / 3.35e12 * 1e3


print('| matrix | product | variant | setup | symbolic | numeric 1st | numeric 2nd | numeric 3rd | gather build | build floor | build lanes | steady re-setup |')
print('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    for p in ('A2', 'AP', 'RAP'):
        for v, name in enumerate(names):
            for cand in (['esc', 'cusparse_reuse'] if v == 0 else ['esc']):
                rs = [r for rr in results('spgemm', v, m) for r in rr
                      if r.get('product') == p and r.get('candidate') == cand]
                if not rs:
                    continue
                label = name if cand == 'esc' else 'cuSPARSE SpGEMMreuse'
                gb = med([detail(r, 'gather_build_ms') for r in rs]) if cand == 'esc' else float('nan')
                bl = rs[0].get('details', '')
                bl = re.search(r'gather_build_lanes=(\d+)', bl)
                fl = '%.3f' % floor_ms(rs[0]) if cand == 'esc' else '–'
                print('| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %.3f |' % (
                    mn, p, label, med([r['setup_ms'] for r in rs]), med([r['symbolic_ms'] for r in rs]),
                    med([r['numeric_ms'] for r in rs]), med([r['numeric_2nd_ms'] for r in rs]),
                    med([r['numeric_3rd_ms'] for r in rs]), '%.3f' % gb if gb == gb else '–', fl,
                    bl.group(1) if bl else '–', med([r['numeric_reuse_ms'] for r in rs])))
print()
print('| matrix | variant | AMG setup | re-setup 1st | re-setup 2nd | steady re-setup |')
print('|---|---|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    for v, name in enumerate(names):
        for cand in (['esc', 'cusparse_reuse'] if v == 0 else ['esc']):
            rs = [r for rr in results('amg', v, m) for r in rr if r.get('candidate') == cand]
            if not rs:
                continue
            label = name if cand == 'esc' else 'cuSPARSE SpGEMMreuse'
            print('| %s | %s | %.3f | %.3f | %.3f | %.3f |' % (
                mn, label, med([r['setup_ms'] for r in rs]), med([r['resetup_first_ms'] for r in rs]),
                med([r['resetup_second_ms'] for r in rs]), med([r['resetup_numeric_ms'] for r in rs])))
