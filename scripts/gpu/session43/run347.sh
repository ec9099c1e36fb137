#!/usr/bin/env bash
# Session 43 (H200): row_major_tiled's tiles built on the device (build_row_tiles, a warp per
# window of 32 rows) against the host builder of session 42.
#   PARTS=tests: the carried CUDA test executables (spmm kernels and candidates);
#   PARTS=ab:    old (session 42's run-346 build: host-built tiles, free greedy; the direct rows'
#                split from their own mean) and new kkperm_spmm, alternating per matrix, on the
#                matrices where tiles matter (AB_GENS), candidates row_major_tiled and
#                row_major_chunked, row-major B and Y, K = 32 and 128: prep_ms and median ms;
#   PARTS=gen:   bench_spmm.sh parts GENS (default gen5) with CANDS (default: the row-major
#                candidates and cuSPARSE ALG1/2/3 row-major; LEFT=1 adds the column-major ones).
# Carry CARRY (default .carry/s43a): bin.tgz (new/ = this build's kkperm_spmm and the two SpMM test
# executables, old/ = run 346's kkperm_spmm) and matrices/real.
# Usage (GPU host, repo root): PARTS="tests ab gen" bash scripts/gpu/session43/run347.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run347}
carry_setup "${CARRY:-.carry/s43a}" "$TAG" "${DEADLINE_S:-540}"
ROW=row_major,row_major_dcsr,row_major_lpt,row_major_slab,row_major_chunked,row_major_tiled,cusparse_csr_alg1_row,cusparse_csr_alg2_row,cusparse_csr_alg3_row
COL=c_stationary,row_major_left,cusparse_csr_alg1_col,cusparse_csr_alg2_col,cusparse_csr_alg3_col
CANDS=${CANDS:-$ROW}
[[ ${LEFT:-0} == 1 ]] && CANDS=$CANDS,$COL
AB_GENS=${AB_GENS:-"banded:n=2000000,lower=8,seed=8 block:blocks=20000,size=32,seed=10 block:blocks=30000,size_min=1,size_max=64,seed=11 laplace2d9:nx=1000,ny=1000 laplace3d27:nx=100 arrow:n=1000000,dense_rows=2,dense_cols=2,seed=12 uniform:rows=1000000,nnz=16,seed=1"}
for part in ${PARTS:-tests ab gen}; do
  case $part in
    tests) run_tests 240 ;;
    ab)
      i=0
      for g in $AB_GENS; do
        i=$((i+1))
        for v in old new; do
          late "ab $v $g" && continue
          timeout "$(capped 90)" "$C/$v/kkperm_spmm" --gen "$g" --candidates row_major_tiled,row_major_chunked \
            --K 32,128 --layout right --repeat 10 --warmup 2 --budget-ms 200 \
            --json "$R/ab_${v}_$i.json" > "$R/ab_${v}_$i.log" 2>&1
          echo "ab $v $g rc=$?" >> "$R/runs.txt"
        done
      done ;;
    gen)
      for g in ${GENS:-gen5}; do
        late "$g" && continue
        REPEAT=10 WARMUP=2 KKPERM_SPMM=$NEW/kkperm_spmm OUT=$R timeout "$(capped 300)" \
          bash scripts/gpu/bench_spmm.sh "$g" -- --candidates "$CANDS" --budget-ms 200
        echo "$g rc=$?" >> "$R/runs.txt"
      done ;;
  esac
done
gzip -f "$R"/*.json "$R"/*.csv 2>/dev/null
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
