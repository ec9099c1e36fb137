#!/usr/bin/env python3
"""Device time of named kernels in the traced setups of a trace_ab.sh run (session 31).

Usage: kernel_times.py RUN_DIR [KERNEL_SUBSTRING ...]
For each variant (vN), tool, matrix and product: the median over the run's rounds of the summed
device duration (µs) of the traced setup's kernels whose name contains each substring (default:
work_bin_keys, check_crs, structure_hash), and of the traced setup's device span. Kernel device
times come from CUDA events around each launch (kkperm::detail::LaunchTrace), so they include the
launch's own start on the device; a kernel absent from a setup counts 0.
"""
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "session30"))
from trace_summary import short, traces  # noqa: E402


def main():
    run_dir = sys.argv[1]
    names = sys.argv[2:] or ["work_bin_keys", "check_crs", "structure_hash"]
    acc = defaultdict(lambda: defaultdict(list))
    for name, matrix, product, _setup_ms, tr in traces(run_dir):
        m = re.match(r"(\w+) v(\d+) r\d+ (\S+)", name)
        key = (m.group(1), int(m.group(2)), m.group(3), short(matrix), product)
        ev = [e for e in tr["events"] if e["kind"] != "region" and e["device_begin_us"] >= 0]
        for k in names:
            acc[key][k].append(sum(e["device_end_us"] - e["device_begin_us"] for e in ev if k in e["name"]))
        if ev:
            acc[key]["span"].append(max(e["device_end_us"] for e in ev) - min(e["device_begin_us"] for e in ev))
    cols = names + ["span"]
    print("| tool | variant | candidate | matrix | product | " + " | ".join(cols) + " |")
    print("|---|---|---|---|---|" + "---:|" * len(cols))
    for key in sorted(acc):
        vals = [f"{statistics.median(acc[key][c]):.1f}" if acc[key][c] else "–" for c in cols]
        print("| " + " | ".join(str(x) for x in key) + " | " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main()
