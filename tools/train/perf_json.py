"""Reading the JSON files kkperm's perf_tests write ({"meta": {...}, "results": [...]})."""
import json


def load_results(paths, ok_only=True):
    """Returns (records, metas): every result record of every file (only status == "ok" ones
    when ok_only), and each file's meta object (device, date, command, ...), in file order."""
    recs, metas = [], []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        metas.append(d.get("meta", {}))
        recs.extend(r for r in d.get("results", []) if not ok_only or r.get("status") == "ok")
    return recs, metas
