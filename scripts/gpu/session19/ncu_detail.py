#!/usr/bin/env python3
"""Per-kernel summary of ncu --csv section output (SpeedOfLight, Occupancy, SchedulerStats,
WarpStateStats, InstructionStats, LaunchStats) for the ESC kernels of one kkperm_spgemm run.

Usage: ncu_detail.py FILE.csv.gz [...]   (session 19, runs 122-125)
Prints, per profiled launch: the ESC function the kernel comes from, grid, duration (ns),
registers, achieved occupancy, issued warps per scheduler (1.0 = issue-bound), share of cycles
with no eligible warp, executed warp instructions.
"""
import collections
import csv
import gzip
import io
import re
import sys

WANT = ["Duration", "Registers Per Thread", "Achieved Occupancy", "Issued Warp Per Scheduler",
        "No Eligible", "Executed Instructions", "Dynamic Shared Memory Per Block"]

for path in sys.argv[1:]:
    text = gzip.open(path, "rt").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    by = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        k = r["ID"]
        by.setdefault(k, {"name": r["Kernel Name"], "grid": r.get("Grid Size")})
        by[k][r["Metric Name"]] = r["Metric Value"]
    print(f"== {path}: {len(by)} launches")
    for k, v in by.items():
        m = re.search(r"((?:symbolic|numeric|gather|build)_\w+)", v["name"])
        fn = m.group(1) if m else v["name"][:60]
        print(f"{k:>3} {fn} grid {v['grid']}: " + "; ".join(f"{w} {v[w]}" for w in WANT if w in v))
