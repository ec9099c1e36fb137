#!/usr/bin/env python3
"""Session 41: tables of per-process median setup times (ESC and others) by variant from the
run tarballs of scripts/gpu/session41/*.sh. Each JSON is VARIANT_CASE_ROUND.json.gz inside the tgz.

Usage: ab_tables.py BASE_VARIANT RUN.tgz [RUN.tgz ...]
Prints a markdown table: per (matrix, product, candidate) and variant, the median over the
processes of their setup medians (setup_ms; kkperm_amg: R(AP) setup rap_setup_ms, re-setup
resetup_numeric_ms), min-max, the ratio to BASE_VARIANT, the symbolic/numeric lanes and the
warp-row rows whose values setup() summed in its count pass.
"""
import collections
import gzip
import io
import json
import statistics as st
import sys
import tarfile


def records(paths):
    for path in paths:
        with tarfile.open(path) as tf:
            for m in tf.getmembers():
                name = m.name.rsplit("/", 1)[-1]
                if not name.endswith(".json.gz"):
                    continue
                variant = name.split("_")[0]
                if variant == "trace":
                    continue
                data = json.load(gzip.open(io.BytesIO(tf.extractfile(m).read())))
                for r in data["results"]:
                    yield variant, r


def detail(r, key):
    d = r.get("details", "")
    at = d.find(key + "=")
    return d[at + len(key) + 1:].split(" ")[0] if at >= 0 else ""


def main():
    base, paths = sys.argv[1], sys.argv[2:]
    d = collections.defaultdict(list)
    info = {}
    for v, r in records(paths):
        cand = r.get("candidate")
        if cand is None:
            continue
        prod = r.get("product") or "amg"
        keys = [("setup_ms", prod)]
        if prod == "amg":
            keys = [("rap_setup_ms", "amg R(AP)"), ("setup_ms", "amg AP+R(AP)"), ("resetup_numeric_ms", "amg re-setup")]
        for k, label in keys:
            if k in r:
                key = (r["matrix"], label, cand)
                d[key + (v,)].append(r[k])
                info[key + (v,)] = (detail(r, "warp_row_lanes"), detail(r, "setup_valued_rows"),
                                    detail(r, "window_sample"))
    variants = sorted({k[3] for k in d}, key=lambda x: (x != base, x))
    print("| matrix | product | candidate | " + " | ".join(f"{v} ms (min-max)" for v in variants) +
          " | " + " | ".join(f"{v} / {base}" for v in variants if v != base) + " | lanes | valued rows | wide/sampled |")
    print("|---|---|---|" + "---:|" * len(variants) + "---:|" * (len(variants) - 1) + "---|---|---|")
    for key in sorted({k[:3] for k in d}):
        meds = {v: st.median(d[key + (v,)]) for v in variants if d.get(key + (v,))}
        cells = [f"{meds[v]:.3f} ({min(d[key + (v,)]):.3f}-{max(d[key + (v,)]):.3f})" if v in meds else "" for v in variants]
        ratios = [f"{meds[v] / meds[base]:.3f}" if v in meds and base in meds else "" for v in variants if v != base]
        lanes = " / ".join(f"{v}: {info[key + (v,)][0]}" for v in variants if key + (v,) in info and info[key + (v,)][0])
        valued = " / ".join(f"{v}: {info[key + (v,)][1]}" for v in variants if key + (v,) in info and info[key + (v,)][1])
        wide = " / ".join(f"{v}: {info[key + (v,)][2]}" for v in variants if key + (v,) in info and info[key + (v,)][2])
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " | " + " | ".join(ratios) +
              f" | {lanes} | {valued} | {wide} |")


if __name__ == "__main__":
    main()
