#!/usr/bin/env python3
"""Session 25: old/new A/B of the ESC gather-plan allocation (runs 161-162).

Usage: python3 scripts/gpu/session25/pool_ab.py RUN_DIR
RUN_DIR holds spgemm_v{0,1}_r{1..R}_{0,1,2}.json and amg_v*_r*_*.json from
scripts/gpu/session16/spgemm_profile.sh with VARIANTS="old new" (matrices 0..2 = 2D 5-point 1000^2,
3D 7-point 100^3, 3D 27-point 64^3). Prints the ESC third numeric (the one that builds the gather
plan), its gather_build_ms detail and the steady re-setup, medians over the rounds, the AMG
re-setups, and the spread of the C checksums (abs_sum_c) per product.
"""
import json,glob,statistics,sys,os
d=sys.argv[1]
mats=['2D 5-pt','3D 7-pt','3D 27-pt']
rows={};chk={}
for v in (0,1):
    for f in glob.glob(os.path.join(d,'spgemm_v%d_r*_*.json'%v)):
        i=int(f.split('_')[-1].split('.')[0])
        for r in json.load(open(f))['results']:
            if r.get('candidate') in ('esc','cusparse_reuse') and 'product' in r:
                chk.setdefault((i,r['product']),set()).add(('%s v%d'%(r['candidate'],v), round(r['abs_sum_c'],3)))
            if r.get('candidate')=='esc':
                det=dict(x.split('=',1) for x in r.get('details','').split() if '=' in x)
                rows.setdefault((i,r['product'],v),[]).append((r['numeric_3rd_ms'],float(det.get('gather_build_ms',0)),r['numeric_reuse_ms'],r['setup_ms'],float(det.get('gather_bytes',0))/1e6))
med=lambda L,j: statistics.median(x[j] for x in L)
print('| matrix | product | gather plan MB | numeric 3rd, old → new | gather build, old → new | steady re-setup, old → new |')
print('|---|---|---:|---|---|---|')
for i in range(3):
    for p in ('A2','AP','RAP'):
        o=rows[(i,p,0)]; n=rows[(i,p,1)]
        print('| %s | %s | %.0f | %.3f → %.3f | %.3f → %.3f | %.3f → %.3f |'%(mats[i],p,med(n,4),med(o,0),med(n,0),med(o,1),med(n,1),med(o,2),med(n,2)))
am={}
for v in (0,1):
    for f in glob.glob(os.path.join(d,'amg_v%d_r*_*.json'%v)):
        i=int(f.split('_')[-1].split('.')[0])
        for r in json.load(open(f))['results']:
            if r.get('candidate')=='esc':
                am.setdefault((i,v),[]).append((r['resetup_first_ms'],r['resetup_second_ms'],r['resetup_numeric_ms'],r['setup_ms']))
print()
print('| matrix | AMG re-setup 1st, old → new | 2nd, old → new | steady, old → new |')
print('|---|---|---|---|')
for i in range(3):
    o=am[(i,0)]; n=am[(i,1)]
    print('| %s | %.3f → %.3f | %.3f → %.3f | %.3f → %.3f |'%(mats[i],med(o,0),med(n,0),med(o,1),med(n,1),med(o,2),med(n,2)))
print()
print('medians of %d rounds; Σ|c| per product and candidate (old/new, cuSPARSE reuse):'%len(rows[(0,'A2',0)]))
for k,v in sorted(chk.items()):
    vals=sorted(set(x[1] for x in v)); print(' ',mats[k[0]],k[1],'distinct checksums:',vals[:4], 'rel spread %.1e'%((max(vals)-min(vals))/max(vals)))
