#!/usr/bin/env python3
"""Markdown tables from an extracted ab_resetup.sh result directory (runs.txt + amg_*.json +
spgemm_*.json): AMG setup / re-setup per matrix, variant and check, medians over the rounds, and
kkperm_spgemm per product. Usage: summarize_resetup.py DIR"""
import collections
import json
import statistics
import sys
from pathlib import Path

d = Path(sys.argv[1])
runs = {}
for line in (d / "runs.txt").read_text().splitlines():
    f = line.split()
    if f[0].isdigit() and f[1].startswith("round="):
        runs[int(f[0])] = (f[2], f[3], f[4])  # variant, matrix, check
cells = collections.defaultdict(list)
for i, (var, mat, chk) in runs.items():
    p = d / f"amg_{i}.json"
    if not p.exists():
        continue
    for r in json.loads(p.read_text())["results"]:
        if r.get("status") != "ok":
            continue
        c = r["candidate"]
        name = var if c == "esc" else c
        cells[(mat, name, chk)].append((r["setup_ms"], r["resetup_numeric_ms"]))

print("| matrix | candidate | check | runs | setup ms | re-setup ms | re-setup / cusparse_reuse (same check) |")
print("|---|---|---|---:|---:|---:|---:|")
mats = sorted({k[0] for k in cells}, key=lambda m: list(runs.values()).index(next(v for v in runs.values() if v[1] == m)))
for m in mats:
    for chk in ("check", "--no-reuse-check"):
        cu = cells.get((m, "cusparse_reuse", chk))
        cu_med = statistics.median(x[1] for x in cu) if cu else float("nan")
        for name in ("old", "new_slots", "new", "cusparse_reuse"):
            v = cells.get((m, name, chk))
            if not v:
                continue
            s = statistics.median(x[0] for x in v)
            rs = statistics.median(x[1] for x in v)
            print(f"| {m} | {name if name != 'cusparse_reuse' else 'cusparse_reuse'} | {'on' if chk == 'check' else 'off'} | {len(v)} | {s:.3f} | {rs:.3f} | {rs / cu_med:.2f} |")

sp = sorted(d.glob("spgemm_*.json"), key=lambda p: int(p.stem.split("_")[1]))
if sp:
    print()
    print("| matrix | binary | product | candidate | symbolic ms | numeric ms | numeric re-setup ms |")
    print("|---|---|---|---|---:|---:|---:|")
    labels = {}
    for line in (d / "runs.txt").read_text().splitlines():
        f = line.split()
        if f[0] == "spgemm":
            labels[int(f[1])] = (f[2], f[3])
    for p in sp:
        j = int(p.stem.split("_")[1])
        binary, mat = labels.get(j, ("?", "?"))
        for r in json.loads(p.read_text())["results"]:
            if r.get("status") != "ok" or "candidate" not in r:
                continue
            keys = {k: r.get(k) for k in ("symbolic_ms", "numeric_ms", "numeric_reuse_ms")}
            fmt = lambda x: f"{x:.3f}" if isinstance(x, (int, float)) else str(x)
            print(f"| {mat} | {binary} | {r.get('product')} | {r['candidate']} | {fmt(keys['symbolic_ms'])} | {fmt(keys['numeric_ms'])} | {fmt(keys['numeric_reuse_ms'])} |")
