#!/usr/bin/env python3
"""CTest perf.kkperm_spmm_carveout_env: the row-major SpMM kernels' carveout hint
(RowMajorConfig::carveout, 14 unless built otherwise) is named in the plans' details as ",C<N>";
the environment variable KKPERM_SPMM_RM_CARVEOUT overrides it (-1: Kokkos' own preference, no
",C"), and a value that is not an integer in [-1, 100] makes the candidate fail with a message
naming the variable instead of being ignored.
The team kernels' carveout mode (KKPERM_TEAM_CARVEOUT: fit, kokkos or a percent; default fit) is
recorded in the JSON meta as team_carveout, and a bad value makes the tool exit 2 with a message
naming the variable before any matrix is read.

Usage: check_carveout_env.py KKPERM_SPMM_BINARY WORK_DIR
"""
import json, os, re, subprocess, sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []


def run(env_value, tag, var='KKPERM_SPMM_RM_CARVEOUT', whole=False):
    out = os.path.join(work, 'carveout_%s.json' % tag)
    env = dict(os.environ)
    env.pop('KKPERM_SPMM_RM_CARVEOUT', None)
    env.pop('KKPERM_TEAM_CARVEOUT', None)
    if env_value is not None:
        env[var] = env_value
    args = [tool, '--gen', 'laplace2d5:nx=10,ny=10', '--K', '4', '--layout', 'right', '--candidates',
            'row_major', '--repeat', '1', '--warmup', '0', '--prep-repeat', '1', '--json', out]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    if whole:
        return p, (json.load(open(out)) if p.returncode == 0 else None)
    if p.returncode != 0:
        failures.append('%s: exit %d\n%s%s' % (tag, p.returncode, p.stdout, p.stderr))
        return []
    return json.load(open(out))['results']


for value, want in ((None, r',C14\b'), ('22', r',C22\b'), ('0', r',C0\b')):
    recs = run(value, 'v%s' % value)
    if len(recs) != 1 or recs[0].get('status') != 'ok' or not re.search(want, recs[0].get('details', '')):
        failures.append('KKPERM_SPMM_RM_CARVEOUT=%s: want details matching %s, got %s' % (value, want, recs))
recs = run('-1', 'off')
if len(recs) != 1 or recs[0].get('status') != 'ok' or ',C' in recs[0].get('details', ''):
    failures.append('KKPERM_SPMM_RM_CARVEOUT=-1: want an ok record without ",C", got %s' % recs)
for bad in ('101', '-2', '1x', ''):
    recs = run(bad, 'bad')
    if len(recs) != 1 or recs[0].get('status') != 'error' or 'KKPERM_SPMM_RM_CARVEOUT' not in recs[0].get('reason', ''):
        failures.append('KKPERM_SPMM_RM_CARVEOUT=%r: want an error record naming the variable, got %s' % (bad, recs))

for value, want in ((None, 'fit'), ('kokkos', 'kokkos'), ('fit', 'fit'), ('30', '30'), ('0', '0')):
    p, doc = run(value, 'team_%s' % value, 'KKPERM_TEAM_CARVEOUT', True)
    if p.returncode != 0 or doc['meta'].get('team_carveout') != want or \
            [r.get('status') for r in doc['results']] != ['ok']:
        failures.append('KKPERM_TEAM_CARVEOUT=%s: want exit 0, meta team_carveout %r and one ok record; got exit %d, %s'
                        % (value, want, p.returncode, doc and (doc['meta'].get('team_carveout'), doc['results'])))
for bad in ('101', '-1', 'Fit', '12%', ''):
    p, _ = run(bad, 'team_bad', 'KKPERM_TEAM_CARVEOUT', True)
    if p.returncode != 2 or 'KKPERM_TEAM_CARVEOUT' not in p.stderr or "'%s'" % bad not in p.stderr:
        failures.append('KKPERM_TEAM_CARVEOUT=%r: want exit 2 and a message naming the variable and the value; '
                        'got exit %d, stderr %r' % (bad, p.returncode, p.stderr))

if failures:
    sys.exit('\n'.join(failures))
print('carveout hints and their environment overrides checked')
