#!/usr/bin/env python3
"""CTest perf.<tool>_byte_floor: kkperm_spgemm / kkperm_amg record each product's byte floor (A and
B read once, C written once: row offsets, columns, values) and the setup's and re-setup's % of the
floor's rate at --peak-gbs; a --peak-gbs that is not a positive number is refused with exit code 2.

Usage: check_byte_floor.py TOOL_BINARY WORK_DIR
The floors are recomputed here from the sizes each record reports (double values, int columns,
offsets of offset_bits), so a floor that leaves a matrix out, counts one twice or uses the wrong
widths fails, and so does a % that is not floor time over measured time.
"""
import json, os, subprocess, sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
name = os.path.basename(tool)
peak = 100.0  # GB/s: any positive rate; the check is the arithmetic
out = os.path.join(work, name + '_floor.json')
args = [tool, '--gen', 'laplace2d5:nx=12,ny=12', '--candidates', 'esc', '--repeat', '2', '--warmup', '0',
        '--peak-gbs', str(peak), '--json', out]
p = subprocess.run(args, capture_output=True, text=True, timeout=300)
if p.returncode != 0:
    sys.exit('%s exited %d:\n%s%s' % (' '.join(args), p.returncode, p.stdout, p.stderr))
doc = json.load(open(out))
assert doc['meta']['peak_gbs'] == peak and doc['meta']['peak_gbs_source'] == '--peak-gbs', doc['meta']
failures = []


def crs(rows, nnz, off):
    return (rows + 1) * off + nnz * (8 + 4)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def expect_floor(r, prefix, want_bytes, timed):
    got = r.get(prefix + 'floor_mb')
    if got is None or not close(got * 1e6, want_bytes):
        failures.append('%s %s%s floor_mb %s, want %s bytes' % (r.get('product', 'amg'), prefix, r['candidate'], got, want_bytes))
        return
    floor_ms = want_bytes / (peak * 1e9) * 1e3
    if not close(r[prefix + 'floor_us'], floor_ms * 1e3):
        failures.append('%s floor_us %s, want %s' % (prefix, r[prefix + 'floor_us'], floor_ms * 1e3))
    for k in timed:
        pct = r.get(k[:-3] + '_pct_floor')
        if pct is None or not close(pct, 100.0 * floor_ms / r[k]):
            failures.append('%s: %s_pct_floor %s, want %s' % (r.get('product', 'amg'), k[:-3], pct, 100.0 * floor_ms / r[k]))


checked = 0
for r in doc['results']:
    if r.get('status') != 'ok' or r.get('candidate') != 'esc':
        continue
    if name == 'kkperm_spgemm':
        off = r['offset_bits'] // 8
        want = crs(r['rows'], r['nnz_a'], off) + crs(r['inner'], r['nnz_b'], off) + crs(r['rows'], r['nnz_c'], off)
        expect_floor(r, '', want, ['setup_ms', 'numeric_reuse_ms'])
    else:
        n, nc = r['rows'], r['aggregates']
        rap = crs(nc, r['nnz_p'], 4) + crs(n, r['nnz_ap'], 4) + crs(nc, r['nnz_rap'], 4)
        ap = crs(n, r['nnz_a'], 4) + crs(n, r['nnz_p'], 4) + crs(n, r['nnz_ap'], 4)
        expect_floor(r, 'rap_', rap, ['rap_setup_ms'])
        expect_floor(r, '', ap + rap, ['setup_ms', 'resetup_numeric_ms'])
    checked += 1
want_checked = 3 if name == 'kkperm_spgemm' else 1  # A², AP, R(AP) / one AMG setup
if checked != want_checked:
    failures.append('checked %d ESC records, want %d' % (checked, want_checked))
for bad in ('0', '-3', 'fast'):
    p = subprocess.run([tool, '--gen', 'laplace2d5:nx=4,ny=4', '--peak-gbs', bad], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 2 or '--peak-gbs' not in p.stderr:
        failures.append('--peak-gbs %s: exit %d, stderr %r (want 2 and a message naming --peak-gbs)' %
                        (bad, p.returncode, p.stderr[-300:]))
if failures:
    sys.exit('\n'.join(failures))
print('%s: %d byte floors and their %% checked' % (name, checked))
