"""Reading the JSON files kkperm's perf_tests write ({"meta": {...}, "results": [...]})."""
import gzip
import json


def load_results(paths, ok_only=True):
    """Returns (records, metas): every result record of every file (only status == "ok" ones
    when ok_only), and each file's meta object (device, date, command, ...), in file order.
    Files ending in .gz are read through gzip (the committed raw data is stored so)."""
    recs, metas = [], []
    for p in paths:
        with (gzip.open(p, "rt") if str(p).endswith(".gz") else open(p)) as f:
            d = json.load(f)
        metas.append(d.get("meta", {}))
        recs.extend(r for r in d.get("results", []) if not ok_only or r.get("status") == "ok")
    return recs, metas


# cuSPARSE's non-reuse SpGEMM algorithms: their plan's symbolic() runs the whole
# workEstimation/compute/copy pipeline, values included, and a numeric() runs it again, so their
# one-shot product (setup) is the symbolic call alone.
SPGEMM_ONE_PIPELINE = ("cusparse_alg1", "cusparse_alg2", "cusparse_alg3")


def spgemm_setup_ms(r):
    """One-shot setup of a kkperm_spgemm record. From session 23 on it is setup_ms
    (plan->setup()); older files (no split_setup_ms field) timed symbolic + numeric, two
    pipelines for cuSPARSE ALG1-3, whose setup is then their symbolic call alone."""
    if "split_setup_ms" in r:
        return r["setup_ms"]
    if r.get("candidate") in SPGEMM_ONE_PIPELINE:
        return r["symbolic_ms"]
    return r.get("setup_ms", r["symbolic_ms"] + r["numeric_ms"])


def amg_setups_ms(r):
    """(AMG setup, R(AP) setup) of a kkperm_amg record, with the same correction as
    spgemm_setup_ms for files written before session 23."""
    if "split_setup_ms" not in r and r.get("candidate") in SPGEMM_ONE_PIPELINE:
        return r["ap_symbolic_ms"] + r["rap_symbolic_ms"], r["rap_symbolic_ms"]
    return r["setup_ms"], r.get("rap_setup_ms", r["rap_symbolic_ms"] + r["rap_numeric_ms"])
