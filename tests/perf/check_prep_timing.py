#!/usr/bin/env python3
"""CTest perf.<tool>_prep_timing: kkperm_spmv / kkperm_spmm prepare --prep-repeat fresh plans per
candidate and record prep_ms (their median), prep_first_ms (the first, which also pays the
process's one-time costs) and prep_samples_ms; --prep-budget-ms stops the repeats once the samples
add up to it (at least one); bad values of either flag exit with code 2 and name the flag.

Usage: check_prep_timing.py TOOL_BINARY WORK_DIR
"""
import json, os, statistics, subprocess, sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
name = os.path.basename(tool)
base = [tool, '--gen', 'laplace2d5:nx=20,ny=20', '--repeat', '2', '--warmup', '0']
if name == 'kkperm_spmm':
    base += ['--K', '3', '--layout', 'right', '--candidates', 'row_major,row_major_chunked,row_major_lpt']
else:
    base += ['--peak-gbs', '100', '--candidates', 'csr_scalar,csr_vector,ell']
failures = []


def run(extra, tag):
    out = os.path.join(work, '%s_%s.json' % (name, tag))
    args = base + extra + ['--json', out]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit('%s exited %d:\n%s%s' % (' '.join(args), p.returncode, p.stdout, p.stderr))
    recs = [r for r in json.load(open(out))['results'] if r.get('status') == 'ok']
    if len(recs) != 3:
        failures.append('%s: %d ok records, want 3' % (tag, len(recs)))
    return recs


def check(recs, tag, want_samples):
    for r in recs:
        s = r.get('prep_samples_ms')
        if not isinstance(s, list) or len(s) != want_samples:
            failures.append('%s %s: prep_samples_ms %s, want %d samples' % (tag, r['candidate'], s, want_samples))
            continue
        if any(not (x >= 0) for x in s):
            failures.append('%s %s: a negative or NaN sample %s' % (tag, r['candidate'], s))
        if r['prep_first_ms'] != s[0]:
            failures.append('%s %s: prep_first_ms %s is not the first sample %s' % (tag, r['candidate'], r['prep_first_ms'], s[0]))
        if abs(r['prep_ms'] - statistics.median(s)) > 1e-12:
            failures.append('%s %s: prep_ms %s is not the median of %s' % (tag, r['candidate'], r['prep_ms'], s))


check(run([], 'default'), 'default', 3)          # the default: 3 prepares (tiny matrix: far below the budget)
check(run(['--prep-repeat', '4'], 'four'), 'four', 4)
check(run(['--prep-repeat', '5', '--prep-budget-ms', '0'], 'budget0'), 'budget0', 1)

for bad, flag in ((['--prep-repeat', '0'], '--prep-repeat'), (['--prep-repeat', '1.5'], '--prep-repeat'),
                  (['--prep-repeat', 'many'], '--prep-repeat'), (['--prep-budget-ms', '-1'], '--prep-budget-ms'),
                  (['--prep-budget-ms', 'nan'], '--prep-budget-ms')):
    p = subprocess.run(base + bad, capture_output=True, text=True, timeout=120)
    if p.returncode != 2 or flag not in p.stderr:
        failures.append('%s: exit %d, stderr %r (want 2 and a message naming %s)' % (' '.join(bad), p.returncode, p.stderr, flag))

if failures:
    sys.exit('\n'.join(failures))
print('%s: prep timing records and flags checked' % name)
