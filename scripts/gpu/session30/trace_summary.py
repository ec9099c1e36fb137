#!/usr/bin/env python3
"""Where the device waits in a traced SpGEMM setup (kkperm_spgemm / kkperm_amg --trace-setup).

Usage: trace_summary.py RUN_DIR [--events RUN MATRIX_SUBSTRING PRODUCT]

For every traced setup in RUN_DIR's spgemm_*.json / amg_*.json: the untimed-setup median
(setup_ms, or ap_/rap_setup_ms), the traced setup's host span, device span, busy and idle time,
and its five largest device gaps with the events on either side. Busy and idle are those of the
trace's kernels and Kokkos copies: work outside Kokkos (CUB sorts and scans, cudaMemsetAsync,
kkperm's read_back) counts as idle; regions mark host phases and are not device work. --events prints one setup's
whole timeline (device begin/end, host begin/end, µs from the trace's start).
"""
import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from run_json import load_results  # noqa: E402


def short(matrix):
    return {"laplace2d5:nx=1000,ny=1000": "2D 5-pt", "laplace3d7:nx=100": "3D 7-pt",
            "laplace3d27:nx=64": "3D 27-pt"}.get(matrix, matrix)


def traces(run_dir):
    for f in sorted(Path(run_dir).glob("*.json*")):
        tool = "amg" if f.name.startswith("amg") else "spgemm"
        m = re.search(r"_v(\d+)_r(\d+)_", f.name)
        tag = f"v{m.group(1)} r{m.group(2)}" if m else f.name
        for r in load_results(str(f)):
            if r.get("status") != "ok":
                continue
            name = f"{tool} {tag} {r.get('candidate', '')}"
            if tool == "spgemm" and "setup_trace" in r:
                yield name, r["matrix"], r["product"], r["setup_ms"], r["setup_trace"]
            for p in ("ap", "rap"):
                if f"{p}_setup_trace" in r:
                    yield name, r["matrix"], p.upper(), r[f"{p}_setup_ms"], r[f"{p}_setup_trace"]


def gaps(events):
    dev = sorted((e for e in events if e["kind"] != "region" and e["device_begin_us"] >= 0
                  and e["device_end_us"] >= e["device_begin_us"]),
                 key=lambda e: e["device_begin_us"])
    out, last = [], None
    for e in dev:
        if last is not None and e["device_begin_us"] > last["device_end_us"]:
            out.append((e["device_begin_us"] - last["device_end_us"], last, e))
        if last is None or e["device_end_us"] > last["device_end_us"]:
            last = e
    return sorted(out, key=lambda g: -g[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--events", nargs=3, metavar=("RUN", "MATRIX", "PRODUCT"),
                    help="RUN: a substring of the run column, e.g. 'spgemm v1 r2 esc'")
    a = ap.parse_args()
    rows = list(traces(a.run_dir))
    if a.events:
        for tool, m, p, _, t in rows:
            if a.events[0] in tool and a.events[1] in m and p == a.events[2]:
                print(f"| # | kind | name | bytes | device begin | device end | host begin | host end |")
                print("|---:|---|---|---:|---:|---:|---:|---:|")
                for i, e in enumerate(t["events"]):
                    print(f"| {i} | {e['kind']} | {e['name']} | {e['bytes']} | {e['device_begin_us']:.1f} | "
                          f"{e['device_end_us']:.1f} | {e['host_begin_us']:.1f} | {e['host_end_us']:.1f} |")
                return
        sys.exit("no such trace")
    print("| run | matrix | product | setup (untraced, ms) | traced host span | device span | busy | idle | "
          "kernels | copies | largest gaps (µs, after -> before) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for tool, m, p, setup, t in rows:
        g = "; ".join(f"{d:.0f} {x['name'].split('::')[-1]} -> {y['name'].split('::')[-1]}"
                      for d, x, y in gaps(t["events"])[:5])
        print(f"| {tool} | {short(m)} | {p} | {setup:.3f} | {t['host_span_us']:.0f} | {t['device_span_us']:.0f} | "
              f"{t['device_busy_us']:.0f} | {t['device_idle_us']:.0f} | {t['kernels']} | {t['copies']} | {g} |")


if __name__ == "__main__":
    main()
