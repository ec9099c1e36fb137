#!/usr/bin/env python3
"""Session 25: ESC setup, second and third numeric, and steady re-setup per variant (runs 159-160).

Usage: python3 scripts/gpu/session25/resetup_sequence.py RUN_DIR
RUN_DIR holds spgemm_v{0,1,2}_r1_{0,1,2}.json and amg_v*_r1_*.json from
scripts/gpu/session16/spgemm_profile.sh with VARIANTS="new new:--esc-gather-mib+0 new:--esc-eager-slots"
(matrices 0..2 = 2D 5-point 1000^2, 3D 7-point 100^3, 3D 27-point 64^3); variants that are absent
are skipped. Prints two Markdown tables (kkperm_spgemm products, kkperm_amg).
"""
import json,sys,os
d=sys.argv[1]
names={0:'lazy (default)',1:'lazy, --esc-gather-mib 0',2:'--esc-eager-slots'}
print('| matrix | product | variant | setup | numeric 2nd | numeric 3rd | steady re-setup |')
print('|---|---|---|---:|---:|---:|---:|')
for i,m in enumerate(['2D 5-pt','3D 7-pt','3D 27-pt']):
    for p in ('A2','AP','RAP'):
        for v in (0,1,2):
            f=os.path.join(d,'spgemm_v%d_r1_%d.json'%(v,i))
            if not os.path.exists(f): continue
            for r in json.load(open(f))['results']:
                if r.get('product')==p and r.get('candidate')=='esc':
                    print('| %s | %s | %s | %.3f | %.3f | %.3f | %.3f |'%(m,p,names[v],r['setup_ms'],r['numeric_2nd_ms'],r['numeric_3rd_ms'],r['numeric_reuse_ms']))
        f=os.path.join(d,'spgemm_v0_r1_%d.json'%i)
        for r in json.load(open(f))['results']:
            if r.get('product')==p and r.get('candidate')=='cusparse_reuse':
                print('| %s | %s | cuSPARSE SpGEMMreuse | %.3f | %.3f | %.3f | %.3f |'%(m,p,r['setup_ms'],r['numeric_2nd_ms'],r['numeric_3rd_ms'],r['numeric_reuse_ms']))
print()
print('| matrix | variant | AMG setup | re-setup 1st | re-setup 2nd | steady re-setup |')
print('|---|---|---:|---:|---:|---:|')
for i,m in enumerate(['2D 5-pt','3D 7-pt','3D 27-pt']):
    for v in (0,1,2):
        f=os.path.join(d,'amg_v%d_r1_%d.json'%(v,i))
        if not os.path.exists(f): continue
        for r in json.load(open(f))['results']:
            if r.get('candidate')=='esc':
                print('| %s | %s | %.3f | %.3f | %.3f | %.3f |'%(m,names[v],r['setup_ms'],r['resetup_first_ms'],r['resetup_second_ms'],r['resetup_numeric_ms']))
    for r in json.load(open(os.path.join(d,'amg_v0_r1_%d.json'%i)))['results']:
        if r.get('candidate')=='cusparse_reuse':
            print('| %s | cuSPARSE SpGEMMreuse | %.3f | %.3f | %.3f | %.3f |'%(m,r['setup_ms'],r['resetup_first_ms'],r['resetup_second_ms'],r['resetup_numeric_ms']))
