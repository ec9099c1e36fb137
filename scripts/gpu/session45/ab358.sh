#!/usr/bin/env bash
# Session 45 (H200): kkperm's team kernels with the fitted shared-memory carveout (the default,
# KKPERM_TEAM_CARVEOUT=fit: the least shared memory that keeps each launch's occupancy) against
# Kokkos 3.4's prefer-shared (KKPERM_TEAM_CARVEOUT=kokkos), one binary, one process per mode and
# case, the modes' order reversed on every other case.
#   PARTS (default "tests amg spmv spmm"):
#   tests: the carried test executables (new/kkperm_test_*), default mode;
#   amg:   kkperm_amg, ESC and cuSPARSE ALG1, on the 2D 5-point (1000²), 3D 7-point (100³) and
#          3D 27-point (64³) Laplacians, --repeat 10 --warmup 2 --setup-repeat 7, ROUNDS (2);
#   spmv:  kkperm_spmv, the team-kernel candidates and cuSPARSE ALG1, f64, on SPMV_GENS;
#   spmm:  kkperm_spmm, c_stationary (B column-major) and row_major_tiled (row-major), K = 32, 128,
#          on SPMM_GENS;
#   gen:   bench_spmm.sh parts GENS (default gen1..gen5) in the default mode, the row-major
#          candidates and cuSPARSE ALG1/2/3 row-major (issue 4's 46 row-major cases).
# Carry CARRY (default .carry/s45a): bin.tgz (new/ = kkperm_amg, kkperm_spmv, kkperm_spmm and test
# executables of this build) and matrices/real.
# Usage (GPU host, repo root): PARTS="amg spmv" bash scripts/gpu/session45/ab358.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run358}
carry_setup "${CARRY:-.carry/s45a}" "$TAG" "${DEADLINE_S:-480}"
M=$KKPERM_MATRICES/real
MODES=${MODES:-"kokkos fit"}
SPMV_CANDS=${SPMV_CANDS:-csr_vector,csr_warp_dynamic,csr_warp_tiled,csr_merge,csr_merge_path,ell,sell_c_sigma,sell_i16,dcsr,cusparse_csr_alg1}
SPMV_GENS=${SPMV_GENS:-"laplace2d5:nx=2000,ny=2000 laplace3d27:nx=100 uniform:rows=1000000,nnz=16,seed=1 powerlaw:n=1000000,deg=16,gamma=2.1,seed=5 banded:n=2000000,lower=8,seed=8 kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16"}
SPMM_GENS=${SPMM_GENS:-"laplace3d7:nx=100 laplace2d9:nx=1000,ny=1000 uniform:rows=1000000,nnz=16,seed=1 block:blocks=20000,size=32,seed=10 banded:n=2000000,lower=8,seed=8"}
AMG_GENS=${AMG_GENS:-"laplace2d5:nx=1000,ny=1000 laplace3d7:nx=100 laplace3d27:nx=64"}
# ab NAME TIMEOUT GENS CMD...: for each case of GENS, each mode of MODES (reversed every other case)
ab() {
  local name=$1 t=$2 gens=$3 i=0 g v order
  shift 3
  for g in $gens; do
    i=$((i+1))
    order=$MODES
    (( i % 2 == 0 )) && order=$(echo $MODES | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do
      late "$name $v $g" && continue
      KKPERM_TEAM_CARVEOUT=$v timeout "$(capped "$t")" "$@" --gen "$g" --json "$R/${name}_${v}_$i.json" \
        > "$R/${name}_${v}_$i.log" 2>&1
      echo "$name $v $i $g rc=$? t=$SECONDS" >> "$R/runs.txt"
    done
  done
}
for part in ${PARTS:-tests amg spmv spmm}; do
  case $part in
    tests) run_tests 240 ;;
    amg)
      for r in $(seq 1 "${ROUNDS:-2}"); do
        ab amg$r 90 "$AMG_GENS" "$NEW/kkperm_amg" --candidates esc,cusparse_alg1 --repeat 10 --warmup 2 --setup-repeat 7
      done ;;
    spmv) ab spmv 90 "$SPMV_GENS" "$NEW/kkperm_spmv" --candidates "$SPMV_CANDS" --repeat 20 --warmup 5 \
            --budget-ms 200 --prep-repeat 1 ;;
    spmm)
      ab spmmL 90 "$SPMM_GENS" "$NEW/kkperm_spmm" --candidates c_stationary --K 32,128 --layout left --repeat 10 \
        --warmup 2 --budget-ms 200 --prep-repeat 1
      ab spmmR 90 "$SPMM_GENS" "$NEW/kkperm_spmm" --candidates row_major_tiled --K 32,128 --layout right --repeat 10 \
        --warmup 2 --budget-ms 200 --prep-repeat 1 ;;
    gen)
      ROW=row_major,row_major_dcsr,row_major_lpt,row_major_slab,row_major_chunked,row_major_tiled,cusparse_csr_alg1_row,cusparse_csr_alg2_row,cusparse_csr_alg3_row
      for g in ${GENS:-gen1 gen2 gen3 gen4 gen5}; do
        late "$g" && continue
        REPEAT=10 WARMUP=2 KKPERM_SPMM=$NEW/kkperm_spmm OUT=$R KS=32,128 timeout "$(capped 300)" \
          bash scripts/gpu/bench_spmm.sh "$g" -- --candidates "$ROW" --budget-ms 200
        echo "$g rc=$? t=$SECONDS" >> "$R/runs.txt"
      done ;;
  esac
done
gzip -f "$R"/*.json "$R"/*.csv 2>/dev/null
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
