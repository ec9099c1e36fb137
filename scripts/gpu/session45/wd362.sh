#!/usr/bin/env bash
# Session 45 (H200): csr_warp_dynamic with one fetch per warp sized to ~512 entries (new) against
# one fetch of 4 rows per team thread (old = run 358's kkperm_spmv), one process per binary and
# matrix, the order reversed on every other matrix; candidates csr_warp_dynamic, its RCM variant,
# csr_vector and cuSPARSE ALG1 (reference), f64, --repeat 20 --warmup 5 --budget-ms 200.
#   PARTS (default "tests ab"): tests = new/kkperm_test_*; ab = the comparison on GENS.
# Carry CARRY (default .carry/s45c): bin.tgz (old/, new/) and matrices/real.
# Usage (GPU host, repo root): bash scripts/gpu/session45/wd362.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run362}
carry_setup "${CARRY:-.carry/s45c}" "$TAG" "${DEADLINE_S:-200}"
M=$KKPERM_MATRICES/real
GENS=${GENS:-"laplace2d5:nx=2000,ny=2000 laplace3d27:nx=100 uniform:rows=1000000,nnz=16,seed=1 banded:n=2000000,lower=8,seed=8 kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16 powerlaw:n=1000000,deg=16,gamma=2.1,seed=5"}
CANDS=${CANDS:-csr_warp_dynamic,csr_warp_dynamic@rcm,csr_vector,cusparse_csr_alg1}
for part in ${PARTS:-tests ab}; do
  case $part in
    tests) run_tests 120 ;;
    ab)
      i=0
      for g in $GENS; do
        i=$((i+1))
        order="old new"; (( i % 2 == 0 )) && order="new old"
        for v in $order; do
          late "$v $g" && continue
          timeout "$(capped 60)" "$C/$v/kkperm_spmv" --gen "$g" --candidates "$CANDS" --repeat 20 --warmup 5 \
            --budget-ms 200 --prep-repeat 1 --json "$R/wd_${v}_$i.json" > "$R/wd_${v}_$i.log" 2>&1
          echo "$v $i $g rc=$? t=$SECONDS" >> "$R/runs.txt"
        done
      done ;;
  esac
done
gzip -f "$R"/*.json 2>/dev/null
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
