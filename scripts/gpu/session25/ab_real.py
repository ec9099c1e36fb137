#!/usr/bin/env python3
"""Session 25: old/new A/B of the own SpMM kernels on the real matrices (one device run).

Usage: python3 scripts/gpu/session25/ab_real.py RUN_DIR
RUN_DIR holds {new,old}_real{1,2}.json[.gz] from scripts/gpu/session25/small_ab.sh (new = every
candidate incl. cuSPARSE, old = OLD_CANDS). Prints, per own candidate, the old/new time ratio
(geomean, min, max, cases >5 % faster/slower), and for the six candidates both builds ran, the
best own time against cuSPARSE's best per caller layout (left: c_stationary*, row_major_left vs
cuSPARSE *_col; right: row_major* vs *_row; both: either), with the new run's cuSPARSE times.
"""
import collections, gzip, json, math, os, sys

SIX = ['c_stationary', 'c_stationary_dcsr', 'row_major', 'row_major_dcsr', 'row_major_slab', 'row_major_left']


def load(d, v):
    by, meta = collections.defaultdict(dict), {}
    for p in ('real1', 'real2'):
        f = os.path.join(d, '%s_%s.json' % (v, p))
        op = open if os.path.exists(f) else gzip.open
        f = f if os.path.exists(f) else f + '.gz'
        with op(f, 'rt') as fh:
            for r in json.load(fh)['results']:
                if r.get('median_ms') is None:
                    continue
                k = (r['matrix'], r['K'])
                by[k][r['candidate']] = r['median_ms']
                meta[k] = (r['rows'], r['nnz'], r['max_nnz_row'])
    return by, meta


def gm(s):
    return math.exp(sum(map(math.log, s)) / len(s))


def main():
    d = sys.argv[1]
    new, meta = load(d, 'new')
    old, _ = load(d, 'old')
    print('| candidate | cases | old/new geomean | min | max | new >5 % faster | new >5 % slower |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for c in SIX:
        s = [old[k][c] / new[k][c] for k in new if c in new[k] and c in old.get(k, {})]
        print('| %s | %d | %.3f | %.2f | %.2f | %d | %d |' % (c, len(s), gm(s), min(s), max(s),
                                                          sum(x > 1.05 for x in s), sum(x < 0.95 for x in s)))
    print()
    print('| build | layout | cases | own ahead | mean | geomean |')
    print('|---|---|---:|---:|---:|---:|')
    for lab, src in (('old', old), ('new', new)):
        for lay in ('left', 'right', 'both'):
            s = []
            for k in new:
                cs = {c: v for c, v in new[k].items() if c.startswith('cusparse')}
                if lay == 'left':
                    ref = min(v for c, v in cs.items() if c.endswith('_col'))
                    own = [src[k][c] for c in SIX if c in src.get(k, {}) and (c.startswith('c_stat') or c == 'row_major_left')]
                elif lay == 'right':
                    ref = min(v for c, v in cs.items() if c.endswith('_row'))
                    own = [src[k][c] for c in SIX if c in src.get(k, {}) and c.startswith('row_major') and c != 'row_major_left']
                else:
                    ref = min(cs.values())
                    own = [src[k][c] for c in SIX if c in src.get(k, {})]
                if own:
                    s.append(ref / min(own))
            print('| %s | %s | %d | %d | %.3f | %.3f |' % (lab, lay, len(s), sum(x > 1 for x in s), sum(s) / len(s), gm(s)))


if __name__ == '__main__':
    main()
