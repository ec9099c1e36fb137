#!/usr/bin/env python3
"""Tables of session 43's run tarballs (scripts/gpu/session43/run347.sh).

Usage: python3 scripts/gpu/session43/ab_tables.py RUN.tgz[:PART,PART...] [...]
(a `:` list keeps only those bench_spmm.sh parts of that tarball, e.g. run345.tgz:gen1,gen2)
- the ab part: per matrix and K, row_major_tiled's prep and median ms with the old (host-built,
  free greedy) and new (device-built, windowed) tiles, their tiles and reuse, and
  row_major_chunked's median in the same processes;
- the gen parts: per matrix and K, the best own and best cuSPARSE candidate per layout, their
  ratio, and the mean / geomean / min / max of the ratios.
"""
import gzip, io, json, math, re, sys, tarfile
from collections import defaultdict


def load(arg):
    tgz, _, parts = arg.partition(':')
    keep = set(parts.split(',')) if parts else None
    out = []
    with tarfile.open(tgz) as t:
        for m in t.getmembers():
            if not m.name.endswith('.json.gz'):
                continue
            data = json.load(io.TextIOWrapper(gzip.GzipFile(fileobj=t.extractfile(m))))
            base = m.name.split('/')[-1]
            if keep is not None and base.split('.')[0].replace('spmm_', '') not in keep:
                continue
            for r in data.get('results', []):
                r['_file'] = base
                out.append(r)
    return out


def detail(d, key):
    m = re.search(r'\b' + re.escape(key) + r'=([^ ]+)', d or '')
    return m.group(1) if m else ''


def ab_table(rows):
    ab = [r for r in rows if r['_file'].startswith('ab_') and r.get('status') == 'ok']
    if not ab:
        return
    key = defaultdict(dict)
    for r in ab:
        v = r['_file'].split('_')[1]
        key[(r['matrix'], r['K'])][(v, r['candidate'])] = r
    print('| matrix | K | tiled prep ms old → new | tiles old / new | reuse old / new | tiled ms old → new | chunked ms old / new |')
    print('|---|---:|---|---|---|---|---|')
    for (m, K), d in sorted(key.items()):
        to, tn = d.get(('old', 'row_major_tiled')), d.get(('new', 'row_major_tiled'))
        co, cn = d.get(('old', 'row_major_chunked')), d.get(('new', 'row_major_chunked'))
        f = lambda r, k: ('%.3f' % r[k]) if r else '–'
        print('| %s | %d | %s → %s | %s / %s | %s / %s | %s → %s | %s / %s |' % (
            m, K, f(to, 'prep_ms'), f(tn, 'prep_ms'),
            detail(to and to['details'], 'tiles'), detail(tn and tn['details'], 'tiles'),
            detail(to and to['details'], 'reuse')[:5], detail(tn and tn['details'], 'reuse')[:5],
            f(to, 'median_ms'), f(tn, 'median_ms'), f(co, 'median_ms'), f(cn, 'median_ms')))
    print()


def gen_table(rows):
    gen = [r for r in rows if r['_file'].startswith('spmm_') and r.get('status') == 'ok']
    if not gen:
        return
    best = defaultdict(dict)
    for r in gen:
        side = 'cusparse' if r['candidate'].startswith('cusparse') else 'own'
        k = (r['matrix'], r['K'], r['layout'])
        if side not in best[k] or r['median_ms'] < best[k][side]['median_ms']:
            best[k][side] = r
    for layout in ('right', 'left'):
        ratios = []
        lines = []
        for (m, K, lay), d in sorted(best.items()):
            if lay != layout or 'own' not in d or 'cusparse' not in d:
                continue
            q = d['cusparse']['median_ms'] / d['own']['median_ms']
            ratios.append(q)
            lines.append('| %s | %d | %s %.3f | %s %.3f | %.2f |' % (
                m[:60], K, d['own']['candidate'], d['own']['median_ms'], d['cusparse']['candidate'],
                d['cusparse']['median_ms'], q))
        if not ratios:
            continue
        print('Layout %s (B and Y %s):' % (layout, 'row-major' if layout == 'right' else 'column-major'))
        print()
        print('| matrix | K | best own (ms) | best cuSPARSE (ms) | cuSPARSE / own |')
        print('|---|---:|---|---|---:|')
        print('\n'.join(lines))
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print()
        print('%d cases: mean %.3f, geomean %.3f, min %.2f, max %.2f' % (
            len(ratios), sum(ratios) / len(ratios), g, min(ratios), max(ratios)))
        print()


def main():
    rows = []
    for a in sys.argv[1:]:
        rows += load(a)
    ab_table(rows)
    gen_table(rows)


if __name__ == '__main__':
    main()
