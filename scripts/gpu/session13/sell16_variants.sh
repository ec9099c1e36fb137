#!/usr/bin/env bash
# Session 13 device call: SELL16 variants and the full SpMV candidate test.
#  1. (unless RUN_TEST=0) kkperm_test_kernels_spmv_candidates of the committed build (.carry/s13
#     new/), every candidate, every corner case and real matrix, float and double;
#  2. for each sigma in SIGMAS and unroll in UNROLLS: the experiment build's kkperm_spmv
#     ($S13B_CARRY exp/, which reads KKPERM_EXP_SELL16_SIGMA / KKPERM_EXP_SELL16_UNROLL; not
#     committed) on the specs in GENS, candidate sell_i16 (+ cusparse_csr_alg1 in the first
#     variant), f64, --repeat 10 --warmup 3; ROUNDS rounds, variants interleaved.
# Usage (GPU host, repo root): [DEADLINE_S=540] bash scripts/gpu/session13/sell16_variants.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/session13/common.sh
TAG=${1:-sell16v}
s13_exp_setup "$TAG" .carry/s13 "${S13B_CARRY:-.carry/s13b}"
B=$EXP
if [[ ${RUN_TEST:-1} == 1 ]]; then
  timeout 300 $NEW/kkperm_test_kernels_spmv_candidates > "$R/test_spmv_candidates_all.log" 2>&1
  echo "test spmv_candidates (all candidates) rc=$? at ${SECONDS}s" >> "$R/runs.txt"
fi
GENS=(${GENS:-"kron:file=$M/airfoil1.mtx.gz,nnz=1e7,block=4,density=0.3,seed=19" \
  "kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16" "kron:file=$M/NotreDame_www.mtx.gz,nnz=3e7,seed=15" \
  "banded:n=1000000,lower=200,fill=0.05,seed=9" "laplace3d7:nx=150" \
  "block:blocks=50000,size_min=1,size_max=64,seed=11"})
GA=(); for g in "${GENS[@]}"; do GA+=(--gen "$g"); done
for round in $(seq 1 ${ROUNDS:-2}); do
  first=1
  for sg in ${SIGMAS:-256 1 1024}; do
    for u in ${UNROLLS:-4 8}; do
      late "round $round sigma $sg unroll $u" && continue
      cands=sell_i16; [[ $first == 1 ]] && cands=sell_i16,cusparse_csr_alg1; first=0
      KKPERM_EXP_SELL16_SIGMA=$sg KKPERM_EXP_SELL16_UNROLL=$u timeout $((DEADLINE_S - SECONDS + 5)) \
        $B/exp/kkperm_spmv "${GA[@]}" --candidates $cands --repeat 10 --warmup 3 --precision f64 \
        --json "$R/r${round}_s${sg}_u${u}.json" > "$R/r${round}_s${sg}_u${u}.log" 2>&1
      echo "round $round sigma $sg unroll $u rc=$? at ${SECONDS}s" >> "$R/runs.txt"
    done
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
