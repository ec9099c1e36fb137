"""Reading the per-process JSON of kkperm's perf tools in a device run's folder (gzipped or not),
for the A/B summary scripts of scripts/gpu/session*/."""
import gzip, json, re, statistics


def load_json(path):
    """One perf-tool JSON file (.json or .json.gz): its 'meta' and 'results'."""
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        return json.load(f)


def load_results(path):
    """The 'results' list of one perf-tool JSON file (.json or .json.gz)."""
    return load_json(path)['results']


def med(xs):
    """Median of the values that are not None; NaN when there is none."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float('nan')


def detail(r, key):
    """The number after 'key=' in a result's 'details' string, or None."""
    m = re.search(r'\b%s=([0-9.eE+-]+)' % key, r.get('details', ''))
    return float(m.group(1)) if m else None
