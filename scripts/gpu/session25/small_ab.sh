#!/usr/bin/env bash
# Session 25: SpMM kernels that fill one wave on small matrices (c_stationary: fewer rows a warp;
# row_major: shorter batches, the walk, a 64-entry split floor) against the previous build, on
# every real matrix, one device call:
#  0. the carried test executables (C/new/kkperm_test_*; TEST_TIMEOUT each, capped);
#  1. new/kkperm_spmm, every candidate, both layouts, K = 32,128, the real matrices in two halves
#     (as scripts/gpu/bench_spmm.sh real1/real2: --repeat 10 --warmup 2 --budget-ms 100, f64);
#  2. old/kkperm_spmm (when carried), OLD_CANDS only, same matrices and settings;
#  3. per generator spec of GENS (default none; space-separated), new then old with GEN_CANDS
#     (large matrices, whose kernels the small-matrix rules must leave as they were).
# Every command's timeout is capped so the script ends by HARD_S (570 s) and packs its files.
# Usage (GPU host, repo root): S25_CARRY=.carry/s25b bash scripts/gpu/session25/small_ab.sh TAG
#   -> $OUT/TAG.tgz (R/{new,old}_real{1,2}.{json,log}, test logs, runs.txt)
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-s25small}
carry_setup "${S25_CARRY:-.carry/s25b}" "$TAG" 540
run_tests "${TEST_TIMEOUT:-200}"
mapfile -t F < <(find "$KKPERM_MATRICES/real" -maxdepth 1 -name '*.mtx.gz' | sort)
HALF=$(( (${#F[@]} + 1) / 2 ))
OLD_CANDS=${OLD_CANDS:-c_stationary,row_major,row_major_dcsr,row_major_slab,row_major_left,c_stationary_dcsr}
for v in new old; do
  [[ -x $C/$v/kkperm_spmm ]] || continue
  c=all; [[ $v == old ]] && c=$OLD_CANDS
  for part in real1 real2; do
    late "$v $part" && continue
    A=()
    if [[ $part == real1 ]]; then for f in "${F[@]:0:$HALF}"; do A+=(--amtx "$f"); done
    else for f in "${F[@]:$HALF}"; do A+=(--amtx "$f"); done; fi
    timeout "$(capped 240)" $C/$v/kkperm_spmm "${A[@]}" --candidates "$c" --K 32,128 --all-layouts \
      --repeat 10 --warmup 2 --budget-ms 100 --precision f64 --json "$R/${v}_$part.json" > "$R/${v}_$part.log" 2>&1
    echo "$v $part rc=$? t=$SECONDS" >> "$R/runs.txt"
  done
done
GEN_CANDS=${GEN_CANDS:-c_stationary,row_major,row_major_left}
i=0
for g in ${GENS:-}; do
  for v in new old; do
    [[ -x $C/$v/kkperm_spmm ]] || continue
    late "$v $g" && continue
    timeout "$(capped 120)" $C/$v/kkperm_spmm --gen "$g" --candidates "$GEN_CANDS" --K 32,128 --all-layouts \
      --repeat 10 --warmup 2 --budget-ms 200 --precision f64 --json "$R/${v}_gen$i.json" > "$R/${v}_gen$i.log" 2>&1
    echo "$v gen$i $g rc=$? t=$SECONDS" >> "$R/runs.txt"
  done
  i=$((i + 1))
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
