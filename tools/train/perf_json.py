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
