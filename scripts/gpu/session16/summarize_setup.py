#!/usr/bin/env python3
"""Markdown tables from an extracted spgemm_profile.sh result directory: per matrix and product,
setup (symbolic + first numeric), re-setup, and setup / cuSPARSE's best setup for every variant
(esc rows) and cuSPARSE candidate (from the first variant's run), medians over rounds; then the
AMG table (AP + RAP setup and re-setup); then the ESC phase split when the details carry it.
Usage: summarize_setup.py DIR [VARIANT NAMES...] (names default to v0, v1, ...)

cuSPARSE ALG1-3 have no values-only phase: their plan's symbolic() runs the whole
workEstimation/compute/copy pipeline, values included, and a numeric() runs it again. A one-shot
product is that single pipeline, so their setup here is the symbolic call alone. Files written
before session 23 (no split_setup_ms field) timed setup as symbolic + numeric, two pipelines for
ALG1-3; for those rows the symbolic time is taken instead (a correction of runs <= 135; from
session 23 on, setup_ms is plan->setup(), which already runs one pipeline)."""
import collections
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools" / "train"))
from perf_json import amg_setups_ms, spgemm_setup_ms  # noqa: E402

d = Path(sys.argv[1])
names = sys.argv[2:]
vname = lambda vi: names[vi] if vi < len(names) else f"v{vi}"
cells = collections.defaultdict(list)   # (matrix, product, candidate) -> [(setup, resetup)]
phases = collections.defaultdict(list)
calloc = collections.defaultdict(list)  # host ms of allocating C (builds that report it)
lanes = {}  # (matrix, product, candidate) -> "symbolic/numeric" lanes a row (builds that report it)
amg = collections.defaultdict(list)
def ok_results(tool):
    """(result, candidate name) of every ok row of TOOL's files: ESC rows of every variant, named
    esc[variant]; the other candidates from the first variant's runs only."""
    for p in sorted(d.glob(f"{tool}_v*_r*_*.json")):
        vi = int(re.match(rf"{tool}_v(\d+)_", p.name).group(1))
        for r in json.loads(p.read_text())["results"]:
            c = r.get("candidate")
            if r.get("status") != "ok" or c is None:  # also the SA-setup rows
                continue
            if c.startswith("esc"):
                yield r, f"{c}[{vname(vi)}]"
            elif vi == 0:
                yield r, c


for r, c in ok_results("spgemm"):
    if "symbolic_ms" not in r:
        continue
    key = (r["matrix"], r["product"], c)
    cells[key].append((spgemm_setup_ms(r), r["numeric_reuse_ms"], r["symbolic_ms"], r["numeric_ms"]))
    m = re.search(r"phases_ms=([\d./e+-]+)", r.get("details", ""))
    if m:
        phases[key].append([float(x) for x in m.group(1).split("/")])
    m = re.search(r"warp_row_lanes=(\d+)/(\d+)", r.get("details", ""))
    if m:
        lanes[key] = f"{m.group(1)}/{m.group(2)}"
    m = re.search(r"c_alloc_ms=([\d.e+-]+)", r.get("details", ""))
    if m:
        calloc[key].append(float(m.group(1)))
for r, c in ok_results("amg"):
    total, rap = amg_setups_ms(r)
    amg[(r["matrix"], c)].append((total, r["resetup_numeric_ms"], rap))

med = lambda xs, k: statistics.median(x[k] for x in xs)
print("| matrix | product | candidate | runs | symbolic ms | numeric ms | setup ms | re-setup ms | cuSPARSE best setup / this |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
groups = collections.defaultdict(dict)
for (m, prod, c), xs in cells.items():
    groups[(m, prod)][c] = xs
for (m, prod) in sorted(groups):
    g = groups[(m, prod)]
    cus = [med(xs, 0) for c, xs in g.items() if c.startswith("cusparse")]
    best = min(cus) if cus else float("nan")
    for c in sorted(g, key=lambda c: med(g[c], 0)):
        xs = g[c]
        print(f"| {m} | {prod} | {c} | {len(xs)} | {med(xs, 2):.3f} | {med(xs, 3):.3f} | {med(xs, 0):.3f} | "
              f"{med(xs, 1):.3f} | {best / med(xs, 0):.2f} |")
print()
print("| matrix | candidate | runs | AMG setup ms (SA products AP + RAP) | RAP setup ms | re-setup ms | cuSPARSE best RAP setup / this |")
print("|---|---|---:|---:|---:|---:|---:|")
ag = collections.defaultdict(dict)
for (m, c), xs in amg.items():
    ag[m][c] = xs
for m in sorted(ag):
    g = ag[m]
    cus = [med(xs, 2) for c, xs in g.items() if c.startswith("cusparse")]
    best = min(cus) if cus else float("nan")
    for c in sorted(g, key=lambda c: med(g[c], 0)):
        xs = g[c]
        print(f"| {m} | {c} | {len(xs)} | {med(xs, 0):.3f} | {med(xs, 2):.3f} | {med(xs, 1):.3f} | {best / med(xs, 2):.2f} |")
if phases:
    print()
    print("ESC phases (ms; up to session 16 host-timed and fenced, from session 17 device-event spans "
          "on CUDA): analysis / reorder / count / fill / slot map / the last numeric (a re-setup); "
          "lanes a row of the warp-row kernels (symbolic / first numeric) where reported")
    print()
    print("| matrix | product | candidate | analysis | reorder | count | fill | slot map | last numeric | lanes | C alloc (host) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for (m, prod, c) in sorted(phases):
        xs = phases[(m, prod, c)]
        v = [statistics.median(x[k] for x in xs) for k in range(len(xs[0]))]
        ca = calloc.get((m, prod, c))
        print(f"| {m} | {prod} | {c} | " + " | ".join(f"{x:.3f}" for x in v) + f" | {lanes.get((m, prod, c), '')} | "
              + (f"{statistics.median(ca):.3f}" if ca else "") + " |")
