#!/usr/bin/env bash
# Session 29: row-major SpMM with long rows cut into shorter segments when their segments would
# not fill one wave (kernels::spmm::wave_segment_length), against the previous build, in one
# device call. For each matrix (real files by name from the carried matrices, then generator
# specs), each build of BINS (default "old new"; folders of C) runs
#   kkperm_spmm --candidates CANDS --K KS --all-layouts --repeat 10 --warmup 2 --budget-ms 200
# into R/<build>_<i>.json, ROUNDS times (default 1), builds interleaved.
# Usage (GPU host, repo root): S29_CARRY=.carry/s29c REALS="arrow__suitesparse ..." GENS="spec ..." \
#   bash scripts/gpu/session29/split_ab.sh TAG   -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-s29split}
carry_setup "${S29_CARRY:-.carry/s29c}" "$TAG" 540
run_tests "${TEST_TIMEOUT:-200}"
CANDS=${CANDS:-row_major,row_major_chunked,row_major_slab,row_major_lpt,row_major_dcsr,row_major_left,cusparse_csr_alg1_col,cusparse_csr_alg3_col,cusparse_csr_alg2_row,cusparse_csr_alg3_row}
KS=${KS:-32,128}
ARGS=()
for m in ${REALS:-}; do ARGS+=("--amtx $KKPERM_MATRICES/real/$m.mtx.gz"); done
for g in ${GENS:-}; do ARGS+=("--gen $g"); done
for ((round = 1; round <= ${ROUNDS:-1}; ++round)); do
  i=0
  for a in "${ARGS[@]}"; do
    for v in ${BINS:-old new}; do
      [[ -x $C/$v/kkperm_spmm ]] || continue
      late "$v $a" && continue
      # shellcheck disable=SC2086
      timeout "$(capped 240)" $C/$v/kkperm_spmm $a --candidates "$CANDS" --K "$KS" --all-layouts --repeat 10 \
        --warmup 2 --budget-ms 200 --precision f64 --json "$R/${v}_${round}_$i.json" > "$R/${v}_${round}_$i.log" 2>&1
      rc=$?
      echo "$v $round $i $a rc=$rc t=$SECONDS" >> "$R/runs.txt"
    done
    i=$((i + 1))
  done
done
gzip -q "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
