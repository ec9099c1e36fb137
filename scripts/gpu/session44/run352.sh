#!/usr/bin/env bash
# Session 44 (H200).
#   PARTS=tests: the carried CUDA test executables (spmm kernels and candidates, spmv candidates)
#                of HEAD's build (session 43's review mend had not run on a GPU);
#   PARTS=prep:  kkperm_spmm with --prep-repeat 3 (the default) on PREP_GENS, row-major candidates,
#                K = 32 and 128: prep_first_ms against the median of fresh prepares; once more on
#                the first matrix with CUDA_MODULE_LOADING=EAGER (is the first prepare's extra time
#                the lazy loading of kernels?);
#   PARTS=ncu:   Nsight Compute (--clock-control none) of the row-major SpMM kernels on NCU_GENS at
#                K = 32, f64: own row_major and row_major_chunked, and cuSPARSE CSR ALG2 row-major:
#                speed of light, memory workload, occupancy, warp states.
# Carry CARRY (default .carry/s44a): bin.tgz with new/ (kkperm_spmm and the test executables) and
# matrices/real.
# Usage (GPU host, repo root): PARTS="prep ncu" bash scripts/gpu/session44/run352.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run352}
carry_setup "${CARRY:-.carry/s44a}" "$TAG" "${DEADLINE_S:-500}"
ROW=row_major,row_major_dcsr,row_major_lpt,row_major_slab,row_major_chunked,row_major_tiled,cusparse_csr_alg2_row
PREP_GENS=${PREP_GENS:-"laplace2d9:nx=1000,ny=1000 uniform:rows=1000000,nnz=16,seed=1"}
NCU_GENS=${NCU_GENS:-"laplace3d7:nx=100 laplace2d5:nx=1000,ny=1000"}
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section LaunchStats --section WarpStateStats"
for part in ${PARTS:-tests}; do
  case $part in
    tests) run_tests 240 ;;
    prep)
      i=0
      for g in $PREP_GENS; do
        i=$((i+1))
        late "prep $g" && continue
        timeout "$(capped 120)" "$NEW/kkperm_spmm" --gen "$g" --candidates "$ROW" --K 32,128 --layout right \
          --repeat 10 --warmup 2 --budget-ms 200 --json "$R/prep_$i.json" > "$R/prep_$i.log" 2>&1
        echo "prep $g rc=$?" >> "$R/runs.txt"
      done
      g=${PREP_GENS%% *}
      late "prep eager $g" || {
        CUDA_MODULE_LOADING=EAGER timeout "$(capped 120)" "$NEW/kkperm_spmm" --gen "$g" --candidates "$ROW" \
          --K 32,128 --layout right --repeat 10 --warmup 2 --budget-ms 200 --json "$R/prep_eager.json" > "$R/prep_eager.log" 2>&1
        echo "prep eager $g rc=$?" >> "$R/runs.txt"; } ;;
    ncu)
      ncu --version > "$R/ncu_version.txt" 2>&1
      i=0
      for g in $NCU_GENS; do
        i=$((i+1))
        for c in row_major row_major_chunked cusparse_csr_alg2_row; do
          late "ncu $c $g" && continue
          if [[ $c == cusparse* ]]; then filt='regex:(?i)cusparse|csrmm|spmm'; else filt='regex:kernels::spmm'; fi
          timeout "$(capped 150)" ncu --clock-control none --kernel-name-base demangled --kernel-name "$filt" \
            --launch-count 3 $SECTIONS "$NEW/kkperm_spmm" --gen "$g" --candidates "$c" --K 32 --layout right \
            --repeat 2 --warmup 0 --prep-repeat 1 > "$R/ncu_${i}_$c.txt" 2>&1
          echo "ncu $c $g rc=$?" >> "$R/runs.txt"
        done
      done ;;
  esac
done
gzip -f "$R"/*.json "$R"/ncu_*.txt 2>/dev/null
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
