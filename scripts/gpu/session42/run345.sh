#!/usr/bin/env bash
# Session 42, runs 345-346 (H200): the row_major_tiled SpMM candidate.
#   PARTS=gen:  the 23 generated matrices of bench_spmm.sh (gen1..gen5), row-major B and Y, K = 32
#               and 128, f64: every own row-major candidate of the registry that serves row-major
#               callers with A's rows in order or by LPT (row_major, _dcsr, _lpt, _slab, _chunked,
#               _tiled) and cuSPARSE ALG1/2/3 row-major, one process per part;
#   PARTS=tests: the carried CUDA test executables (spmm kernels and candidates).
# GENS (default gen1..gen5) picks and orders the bench_spmm.sh parts; PARTS the order of gen/tests.
# Run 345: PARTS="gen tests" DEADLINE_S=470 HARD_S=575 (the deadline came before gen5 and the tests);
# run 346: CARRY=.carry/s42c PARTS="tests gen" GENS="gen4 gen3 gen1 gen5" (the direct tiles' rows
# through the row-major kernel, 64-column passes for K > 32).
# Carry CARRY (default .carry/s42b): bin.tgz (new/ with kkperm_spmm and the kkperm_test_* of the
# build) and matrices/real (the shared real matrices: the Kronecker patterns and the tests' files).
# Usage (GPU host, repo root): PARTS="gen tests" bash scripts/gpu/session42/run345.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run345}
carry_setup "${CARRY:-.carry/s42b}" "$TAG" "${DEADLINE_S:-540}"
CANDS=row_major,row_major_dcsr,row_major_lpt,row_major_slab,row_major_chunked,row_major_tiled,cusparse_csr_alg1_row,cusparse_csr_alg2_row,cusparse_csr_alg3_row
for part in ${PARTS:-gen tests}; do
  case $part in
    gen)
      for g in ${GENS:-gen1 gen2 gen3 gen4 gen5}; do
        late "$g" && continue
        REPEAT=10 WARMUP=2 KKPERM_SPMM=$NEW/kkperm_spmm OUT=$R timeout "$(capped 300)" \
          bash scripts/gpu/bench_spmm.sh "$g" -- --candidates "$CANDS" --budget-ms 200
        echo "$g rc=$?" >> "$R/runs.txt"
      done
      gzip -f "$R"/spmm_*.json "$R"/spmm_*.csv 2>/dev/null ;;
    tests) run_tests 240 ;;
  esac
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
