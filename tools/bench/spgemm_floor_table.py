#!/usr/bin/env python3
"""Issue 5's SpGEMM targets against the byte floor, from one spgemm_profile.sh run of a build whose
kkperm_spgemm / kkperm_amg record it (floor_mb, floor_us, *_pct_floor; session 40 on).

Usage: python3 tools/bench/spgemm_floor_table.py RUN_DIR [VARIANT]
RUN_DIR holds spgemm_v<i>_r<k>_<m>.json[.gz] and amg_v<i>_r<k>_<m>.json[.gz]; VARIANT (default 0)
is the index i whose results are read (every candidate it ran). Matrix labels: env MATS
("2D 5-pt,3D 7-pt,3D 27-pt" by default, the order of the run's GENS). Times are the median over
the rounds of each process's median.

The byte floor of C = A*B is A and B read once and C written once (kkperm::spgemm_byte_floor); a
numeric-only recomputation has the same floor (it reads C's structure and writes its values). The
AMG setup and re-setup (AP, then R(AP)) have the sum of the two products' floors. "floor" is that
many bytes at the run's measured device-to-device copy rate (meta peak_gbs).

Prints two Markdown tables: per product and candidate (kkperm_spgemm) and per AMG step
(kkperm_amg), each time with its % of the floor's rate; then, per matrix, the time each issue-5
target asks for beside the floor: "RAP >= 3x cuSPARSE" (ALG1's R(AP) setup / 3) and "numeric-only
re-setup >= 5x cuSPARSE" against ALG1's recompute and against SpGEMMreuse (their re-setup / 5). A
target below the floor cannot be met by any implementation that materializes AP.
"""
import glob, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'gpu', 'lib'))
from run_json import load_json, med  # noqa: E402

d = sys.argv[1]
variant = int(sys.argv[2]) if len(sys.argv) > 2 else 0
mats = os.environ.get('MATS', '2D 5-pt,3D 7-pt,3D 27-pt').split(',')


def runs(tool, m):
    """[(meta, results)] of every round of `variant` for matrix m."""
    out = []
    for f in sorted(glob.glob(os.path.join(d, '%s_v%d_r*_%d.json*' % (tool, variant, m)))):
        j = load_json(f)
        out.append((j['meta'], j['results']))
    return out


def pick(rs, cand, **kv):
    return [r for r in rs if r.get('candidate') == cand and r.get('status') == 'ok' and
            all(r.get(k) == v for k, v in kv.items())]


def fmt(x, f='%.3f'):
    return '–' if x is None or x != x else f % x


peaks = []
spg = [[] for _ in mats]
amg = [[] for _ in mats]
for m in range(len(mats)):
    for meta, rs in runs('spgemm', m):
        peaks.append(meta.get('peak_gbs'))
        spg[m].extend(rs)
    for meta, rs in runs('amg', m):
        peaks.append(meta.get('peak_gbs'))
        amg[m].extend(rs)
cands = ['esc', 'esc_permuted', 'kk_spgemm_kk', 'kk_spgemm_kk_memory', 'cusparse_alg1', 'cusparse_alg2', 'cusparse_alg3',
         'cusparse_reuse']
print('Measured copy rate (peak_gbs, median over processes): %s GB/s' % fmt(med(peaks), '%.0f'))
print()
print('| matrix | product | candidate | floor MB | floor µs | setup ms | % of floor | re-setup ms | % of floor |')
print('|---|---|---|---:|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    for p in ('A2', 'AP', 'RAP'):
        for c in cands:
            rs = pick(spg[m], c, product=p)
            if not rs:
                continue
            print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                mn, p, c, fmt(med([r.get('floor_mb') for r in rs]), '%.1f'),
                fmt(med([r.get('floor_us') for r in rs]), '%.1f'), fmt(med([r.get('setup_ms') for r in rs])),
                fmt(med([r.get('setup_pct_floor') for r in rs]), '%.1f'),
                fmt(med([r.get('numeric_reuse_ms') for r in rs])),
                fmt(med([r.get('numeric_reuse_pct_floor') for r in rs]), '%.1f')))
if not any(amg):  # an A²-only set: no kkperm_amg runs
    sys.exit(0)
print()
print('| matrix | candidate | R(AP) floor µs | R(AP) setup ms | % | AP + R(AP) floor µs | setup ms | % | '
      're-setup ms | % |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    for c in cands:
        rs = pick(amg[m], c)
        if not rs:
            continue
        g = lambda k, f='%.3f': fmt(med([r.get(k) for r in rs]), f)  # noqa: E731
        print('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            mn, c, g('rap_floor_us', '%.1f'), g('rap_setup_ms'), g('rap_setup_pct_floor', '%.1f'),
            g('floor_us', '%.1f'), g('setup_ms'), g('setup_pct_floor', '%.1f'), g('resetup_numeric_ms'),
            g('resetup_numeric_pct_floor', '%.1f')))
print()
print('| matrix | target | cuSPARSE time ms | the target asks for µs | floor µs | ESC now µs | target / floor |')
print('|---|---|---:|---:|---:|---:|---:|')
for m, mn in enumerate(mats):
    e = pick(amg[m], 'esc')
    if not e:
        continue
    em = lambda k: med([r.get(k) for r in e])  # noqa: E731
    for label, cand, key, fkey, x in (
            ('R(AP) setup >= 3x ALG1', 'cusparse_alg1', 'rap_setup_ms', 'rap_floor_us', 3.0),
            ('re-setup >= 5x ALG1 (recompute)', 'cusparse_alg1', 'resetup_numeric_ms', 'floor_us', 5.0),
            ('re-setup >= 5x SpGEMMreuse', 'cusparse_reuse', 'resetup_numeric_ms', 'floor_us', 5.0)):
        rs = pick(amg[m], cand)
        if not rs:
            continue
        t = med([r.get(key) for r in rs])
        ask = t / x * 1e3
        fl = em(fkey)
        print('| %s | %s | %s | %s | %s | %s | %s |' % (
            mn, label, fmt(t), fmt(ask, '%.1f'), fmt(fl, '%.1f'), fmt(em(key) * 1e3, '%.1f'),
            fmt(ask / fl if fl else None, '%.2f')))
