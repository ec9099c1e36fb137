#!/usr/bin/env bash
# Session 13 device call: SELL16 inner-loop variants of an experiment build ($S13D_CARRY exp/,
# reads KKPERM_EXP_SELL16_MODE: cur = 4 slots per step + single-slot remainder; pN = N slots
# per step, predicated, no remainder loop; not committed) on GENS, candidates sell_i16 and
# sell_i16_wide (+ ell, cusparse_csr_alg1 in the first mode), PRECISIONS, ROUNDS rounds,
# modes interleaved, --repeat 10 --warmup 3. GENS_OVERRIDE (space-separated specs) replaces
# the default matrices.
# Usage (GPU host, repo root): [DEADLINE_S=540] bash scripts/gpu/session13/sell16_modes.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/session13/common.sh
TAG=${1:-sell16m}
s13_exp_setup "$TAG" .carry/s13c "${S13D_CARRY:-.carry/s13d}"
B=$EXP
if [[ -n ${GENS_OVERRIDE:-} ]]; then
  read -r -a GENS <<< "$GENS_OVERRIDE"  # space-separated specs (run 74)
else
  GENS=(laplace2d5:nx=2000,ny=2000 laplace3d7:nx=150 laplace3d27:nx=100 block:blocks=20000,size=32,seed=10
    "kron:file=$M/airfoil1.mtx.gz,nnz=1e7,block=4,density=0.3,seed=19" "kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16"
    banded:n=1000000,lower=200,fill=0.05,seed=9)
fi
GA=(); for g in "${GENS[@]}"; do GA+=(--gen "$g"); done
for round in $(seq 1 ${ROUNDS:-2}); do
  for prec in ${PRECISIONS:-f32 f64}; do
    first=1
    for mode in ${MODES:-cur p4 p8 p16}; do
      late "round $round $prec $mode" && continue
      cands=sell_i16,sell_i16_wide; [[ $first == 1 ]] && cands=$cands,ell,cusparse_csr_alg1; first=0
      KKPERM_EXP_SELL16_MODE=$mode timeout $((DEADLINE_S - SECONDS + 5)) $B/exp/kkperm_spmv "${GA[@]}" \
        --candidates $cands --repeat 10 --warmup 3 --precision $prec \
        --json "$R/r${round}_${prec}_${mode}.json" > "$R/r${round}_${prec}_${mode}.log" 2>&1
      echo "round $round $prec $mode rc=$? at ${SECONDS}s" >> "$R/runs.txt"
    done
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
