#!/usr/bin/env bash
# Session 21: the reworked row-major SpMM kernel (entries shuffled to the lane group, U*R loads
# of B in flight, long rows split into atomically summed segments) against the previous build,
# cuSPARSE and KK on the generated SpMM set of scripts/gpu/bench_spmm.sh, one device call.
#  0. the carried test executables (C/new/kkperm_test_*), when there are any (TEST_TIMEOUT each);
#  1. per matrix of GENS (default: the 22-matrix generated set, parts PARTS of bench_spmm.sh):
#     new/kkperm_spmm with CANDS (both layouts), then each other folder of BINS (default "new
#     old") with OLD_CANDS (when it exists), K = KS, --repeat 10 --warmup 2 --budget-ms 200, f64; JSON per matrix and binary.
#  Each command's timeout is capped so that the script ends by HARD_S (default 570 s) and packs
#  its files even when a command started just before DEADLINE_S runs long.
# Usage (GPU host, repo root): S21_CARRY=.carry/s21 PARTS="gen1 gen2" bash scripts/gpu/session21/spmm_ab.sh TAG
#   -> $OUT/TAG.tgz (R/new_<i>.json, R/old_<i>.json, logs, runs.txt)
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-s21spmm}
carry_setup "${S21_CARRY:-.carry/s21}" "$TAG" 540
run_tests "${TEST_TIMEOUT:-200}"
M=$KKPERM_MATRICES/real
declare -A P
P[gen1]="laplace2d5:nx=1000,ny=1000 laplace2d9:nx=1000,ny=1000 laplace3d7:nx=100 laplace3d27:nx=100 uniform:rows=2000000,nnz=4,seed=3"
P[gen2]="uniform:rows=1000000,nnz=16,seed=1 uniform:rows=1000000,nnz_min=1,nnz_max=63,seed=2 uniform:rows=200000,nnz=500,seed=4 powerlaw:n=1000000,deg=16,gamma=2.1,seed=5"
P[gen3]="powerlaw:n=2000000,deg=8,gamma=2.5,seed=6 powerlaw:n=500000,deg=64,gamma=1.8,seed=7 banded:n=2000000,lower=8,seed=8 banded:n=1000000,lower=200,fill=0.05,seed=9"
P[gen4]="block:blocks=20000,size=32,seed=10 block:blocks=30000,size_min=1,size_max=64,seed=11 arrow:n=1000000,dense_rows=2,dense_cols=2,seed=12 hypersparse:n=4000000,frac=0.1,nnz=32,seed=14 hypersparse:n=2000000,frac=0.01,nnz=64,seed=13"
P[gen5]="kron:file=$M/NotreDame_www.mtx.gz,nnz=3e7,seed=15 kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16 kron:file=$M/PGPgiantcompo.mtx.gz,nnz=2e7,jitter=0.1,seed=17 kron:file=$M/astro-ph.mtx.gz,nnz=5e7,seed=18 kron:file=$M/airfoil1.mtx.gz,nnz=1e7,block=4,density=0.3,seed=19"
if [[ -n ${GENS:-} ]]; then read -r -a G <<< "$GENS"; else
  G=(); for p in ${PARTS:-gen1 gen2 gen3 gen4 gen5}; do read -r -a x <<< "${P[$p]}"; G+=("${x[@]}"); done; fi
CANDS=${CANDS:-c_stationary,row_major,row_major_dcsr,row_major_lpt,row_major_slab,kk_native_left,kk_native_right,cusparse_csr_alg1_col,cusparse_csr_alg1_row,cusparse_csr_alg2_col,cusparse_csr_alg2_row,cusparse_csr_alg3_col,cusparse_csr_alg3_row}
OLD_CANDS=${OLD_CANDS:-row_major,row_major_lpt}
KS=${KS:-32,128}
i=0
for g in "${G[@]}"; do
  for v in ${BINS:-new old}; do
    [[ -x $C/$v/kkperm_spmm ]] || continue
    late "$v $g" && continue
    c=$CANDS; [[ $v != new ]] && c=$OLD_CANDS
    timeout "$(capped 240)" $C/$v/kkperm_spmm --gen "$g" --candidates "$c" --K "$KS" --all-layouts --repeat 10 --warmup 2 \
      --budget-ms 200 --precision f64 --json "$R/${v}_$i.json" > "$R/${v}_$i.log" 2>&1
    echo "$v $i $g rc=$? t=$SECONDS" >> "$R/runs.txt"
  done
  i=$((i + 1))
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
