#!/usr/bin/env bash
# Session 6 device call: the feature row pass (run 27: entry-parallel detail::row_pass, reverted; run 30: staged columns, detail::reduce_rows_staged).
#  1. CUDA tests of the changed code (new binaries, .carry/s6/kkperm_test_*);
#  2. same-lease A/B of the feature sets, old binary (.carry/old/kkperm_features, a copy of .carry/s5/kkperm_features, commit 44fe6bf)
#     and new (.carry/s6/kkperm_features) interleaved twice on the 11-matrix generated set of
#     session 5 (`--perms none`: validate, set 1, set 2, sets 1+2 fused, one KK SpMV);
#  3. ncu kernel times of one new feature pass on the matrices where sets 1+2 cost > 3 SpMV-eq.
# Usage (GPU host, repo root): [DEADLINE_S=540] bash scripts/gpu/session6/ab_rowpass.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ab6}
source scripts/gpu/session5/setup.sh
s5_setup "$TAG"
OLD=.carry/old
NEW=.carry/s6
T0=$SECONDS
left() { echo $(( ${DEADLINE_S:-540} - (SECONDS - T0) )); }
cuobjdump -res-usage $NEW/kkperm_features 2>&1 | grep -A1 -E "row_pass|reduce_rows_staged" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*" \
  | paste - - - - > "$R/res_usage.txt" 2>&1
for t in $NEW/kkperm_test_*; do
  [[ -x $t ]] || continue
  timeout 120 $t > "$R/$(basename $t).log" 2>&1
  echo "$(basename $t) rc=$?" >> "$R/tests.txt"
done
for rep in 1 2; do
  i=0
  for g in "${S5_GENS[@]}"; do
    i=$((i+1))
    for v in old new; do
      [[ $(left) -gt 150 ]] || { echo "deadline: skipped $v $g rep $rep" >> "$R/runs.txt"; continue; }
      b=$OLD; [[ $v == new ]] && b=$NEW
      timeout 60 $b/kkperm_features --gen "$g" --repeat 10 --warmup 3 --perms none \
        --json "$R/${v}_${rep}_$i.json" > "$R/${v}_${rep}_$i.log" 2>&1
      echo "$v rep $rep $g rc=$?" >> "$R/runs.txt"
    done
  done
done
i=0
for g in "uniform:rows=1000000,nnz=8,seed=1" "hypersparse:n=4000000,frac=0.05,nnz=32,seed=14" \
         "kron:file=$M/4elt.mtx.gz,nnz=1e7,seed=16" "uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2" \
         "laplace3d27:nx=70" "block:blocks=10000,size=32,seed=10"; do
  i=$((i+1))
  [[ $(left) -gt 40 ]] || { echo "deadline: skipped ncu $g" >> "$R/runs.txt"; continue; }
  echo "$g" > "$R/ncu_$i.txt"
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
    --csv $NEW/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none >> "$R/ncu_$i.txt" 2> "$R/ncu_$i.err"
  gzip -f "$R/ncu_$i.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
