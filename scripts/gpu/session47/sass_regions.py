#!/usr/bin/env python3
"""Where a kernel's executed instructions and stall samples sit, from an ncu source-page CSV.

Input: the gzipped CSV that `ncu --import REP --page source --csv --print-source sass` writes
(scripts/gpu/session46/ncu_count.sh saves it as *_sass.csv.gz); it may hold several profiled
launches, each starting with a "Kernel Name" row. Output, for launch K (default 0):
  - warp instructions executed and warp-stall samples in all;
  - the opcode mix (share of executed warp instructions per opcode, predicates and suffixes
    stripped);
  - the executed code as regions: runs of SASS lines that executed, split where more than GAP
    unexecuted lines lie between them, each with its share of instructions and of stall samples
    and the notable opcodes in it (shuffles, shared/global loads and stores, atomics, bit scans);
  - with --per N, every region's instructions divided by N (rows, products: what the caller
    counts), and the hottest straight-line segments (same execution count on consecutive lines)
    with their execution counts divided by N.
Usage: sass_regions.py FILE.csv.gz [--launch K] [--gap G] [--min-share F] [--per N --per-name NAME]
"""
import argparse
import collections
import csv
import gzip
import sys

NOTABLE = ("SHFL", "MATCH", "ATOMS", "ATOM", "RED", "LDG", "STG", "LDS", "STS", "BREV", "FLO", "POPC",
           "BAR", "VOTE")


def launches(src):
    """The launches of a gzipped source-page CSV: `src` a path or a binary file object."""
    with gzip.open(src, "rt", newline="") as f:
        rows = list(csv.reader(f))
    out, cur = [], None
    for r in rows:
        if r and r[0] == "Kernel Name":
            cur = {"name": r[1] if len(r) > 1 else "", "hdr": None, "rows": []}
            out.append(cur)
        elif r and r[0] == "Address" and cur is not None:
            cur["hdr"] = r
        elif cur is not None and cur["hdr"] is not None and len(r) >= len(cur["hdr"]):
            cur["rows"].append(r)
    return out


def line_counts(launch):
    """[(SASS line index, warp instructions executed, warp-stall samples, source)] of one launch;
    ValueError naming the column when one is missing."""
    h = launch["hdr"]
    i_src, i_ex = h.index("Source"), h.index("Instructions Executed")
    i_st = h.index("Warp Stall Sampling (All Samples)")
    return [(k, int(r[i_ex] or 0), int(r[i_st] or 0), r[i_src].strip()) for k, r in enumerate(launch["rows"])]


def opcode(src):
    t = src.split()
    if not t:
        return ""
    op = t[1] if t[0].startswith("@") and len(t) > 1 else t[0]
    return op.split(".")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--launch", type=int, default=0)
    ap.add_argument("--gap", type=int, default=4)
    ap.add_argument("--min-share", type=float, default=0.01)
    ap.add_argument("--per", type=float, default=0.0)
    ap.add_argument("--per-name", default="unit")
    ap.add_argument("--segments", type=int, default=12)
    a = ap.parse_args()
    ls = launches(a.file)
    if not ls:
        sys.exit(f"{a.file}: no 'Kernel Name' row (not an ncu source-page CSV?)")
    if not 0 <= a.launch < len(ls):
        sys.exit(f"{a.file}: launch {a.launch} outside [0, {len(ls)})")
    L = ls[a.launch]
    try:
        lines = line_counts(L)
    except ValueError as e:
        sys.exit(f"{a.file}: missing column ({e})")
    tot = sum(x[1] for x in lines)
    stalls = sum(x[2] for x in lines)
    if tot == 0:
        sys.exit(f"{a.file}: launch {a.launch} executed no instructions")
    print(f"launch {a.launch} of {len(ls)}: {L['name'][:160]}")
    print(f"warp instructions executed: {tot}; warp-stall samples: {stalls}")
    if a.per > 0:
        print(f"per {a.per_name} ({a.per:g}): {tot / a.per:.1f} warp instructions")
    mix = collections.Counter()
    for _, e, _, s in lines:
        mix[opcode(s)] += e
    print("opcode mix: " + ", ".join(f"{k} {100 * v / tot:.1f}%" for k, v in mix.most_common(16)))
    regions, cur = [], None
    for k, e, st, s in lines:
        if e == 0 and st == 0:
            continue
        if cur is not None and k - cur["last"] <= a.gap + 1:
            cur["last"] = k
        else:
            cur = {"first": k, "last": k, "ex": 0, "st": 0, "ops": set()}
            regions.append(cur)
        cur["ex"] += e
        cur["st"] += st
        cur["ops"].add(opcode(s))
    print(f"\nregions (SASS line ranges; share of instructions / of stall samples; >= {100 * a.min_share:g}% shown):")
    shown = 0.0
    for r in regions:
        if r["ex"] / tot < a.min_share:
            continue
        shown += r["ex"] / tot
        notable = " ".join(o for o in NOTABLE if o in r["ops"])
        per = f"  {r['ex'] / a.per:8.1f} / {a.per_name}" if a.per > 0 else ""
        print(f"  [{r['first']:5d}, {r['last']:5d}]  instr {100 * r['ex'] / tot:5.1f}%  stalls "
              f"{100 * r['st'] / max(stalls, 1):5.1f}%{per}  {notable}")
    print(f"  (shown: {100 * shown:.1f}% of the instructions)")
    segs, prev = [], None
    for k, e, st, s in lines:
        if e == 0:
            prev = None
            continue
        if prev is not None and e == prev[1] and k == prev[0] + 1:
            segs[-1][2] += 1
            segs[-1][3] += st
        else:
            segs.append([k, e, 1, st, s])
        prev = (k, e)
    print("\nhottest straight-line segments (same execution count on consecutive lines):")
    for k, e, n, st, s in sorted(segs, key=lambda x: -x[1] * x[2])[: a.segments]:
        per = f"  executions / {a.per_name} {e / a.per:6.2f}" if a.per > 0 else ""
        print(f"  line {k:5d}  {n:3d} lines x {e:9d}  instr {100 * e * n / tot:5.1f}%{per}  first: {s[:48]}")


if __name__ == "__main__":
    main()
