#!/usr/bin/env bash
# Session 12 device call: every SpMV candidate of the registry (all row permutations included:
# the Hamming orders build in <= 50 SpMV-eq since session 9) through bench_spmv.sh, one part
# after the other while DEADLINE_S (default 540) allows; f64, REPEAT (default 10) / WARMUP
# (default 3) timed calls; BENCH_FLAGS (e.g. "--budget-ms 100") go to kkperm_spmv.
# Usage (GPU host, repo root): [S12_CARRY=.carry/s12] [PARTS="gen1a gen1b ... gen3b"] [DEADLINE_S=540]
#   bash scripts/gpu/session12/all_candidates.sh TAG -> $OUT/TAG.tgz (JSON/CSV/log per part).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-all12}
source scripts/gpu/session12/common.sh
s12_setup "$TAG"
for p in ${PARTS:-gen1a gen1b gen2a gen2b gen3a gen3b}; do
  late "bench $p" && continue
  OUT=$R KKPERM_SPMV=$NEW/kkperm_spmv REPEAT=${REPEAT:-10} WARMUP=${WARMUP:-3} \
    timeout $((DEADLINE_S - SECONDS + 5)) bash scripts/gpu/bench_spmv.sh "$p" ${BENCH_FLAGS:+-- $BENCH_FLAGS} \
    > "$R/bench_$p.out" 2>&1
  echo "bench $p rc=$? at ${SECONDS}s" >> "$R/runs.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
