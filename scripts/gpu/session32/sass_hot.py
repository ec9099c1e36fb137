import csv, gzip, sys, collections
f = sys.argv[1]
rows = list(csv.reader(gzip.open(f, 'rt')))
hdr = rows[1]
si = hdr.index('Source'); wi = hdr.index('Warp Stall Sampling (All Samples)'); ni = hdr.index('Warp Stall Sampling (Not-issued Samples)')
ei = hdr.index('Instructions Executed')
data = []
for r in rows[2:]:
    if len(r) <= ei: continue
    try: w = int(r[wi]); e = int(r[ei]); n = int(r[ni])
    except: continue
    data.append((r[0], r[si].strip(), w, n, e))
tot = sum(d[2] for d in data); te = sum(d[4] for d in data)
print('instructions', len(data), 'samples', tot, 'executed warp inst', te)
op = collections.Counter(); ope = collections.Counter()
for a, s, w, n, e in data:
    o = s.split()[0] if not s.startswith('@') else s.split()[1]
    o = o.split('.')[0]
    op[o] += w; ope[o] += e
print('by opcode (samples %, executed %):')
for o, w in op.most_common(18): print(f'  {o:10s} {100*w/tot:5.1f} {100*ope[o]/te:5.1f}')
print('hottest instructions:')
idx = sorted(range(len(data)), key=lambda i: -data[i][2])[:int(sys.argv[2]) if len(sys.argv)>2 else 25]
for i in sorted(idx):
    a, s, w, n, e = data[i]
    print(f'{i:5d} {100*w/tot:5.2f}% exec {e:9d}  {s[:90]}')
