#!/usr/bin/env bash
# Session 11 device call: ncu of the thread-per-row feature kernel (`--row-pass rows`, sets 1+2
# fused), old and new binaries, on the generator specs in GENS (default: 1-63 random columns per
# row and the Kronecker mesh), sections in SECTIONS; also prints cuobjdump -res-usage of both.
# PASS (default rows) picks the --row-pass of the extra fused run.
# Usage (GPU host, repo root): [S11_CARRY=.carry/s11] [GENS="..."] bash scripts/gpu/session11/ncu_rows.sh TAG
#   -> $OUT/TAG.tgz. The carry's bin.tgz holds new/ and old/kkperm_features.
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncu11}
S8_CARRY=${S11_CARRY:-.carry/s11}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
DEFAULT_GENS="uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2 kron:file=$M/4elt.mtx.gz,nnz=1e7,seed=16"
cuobjdump -res-usage $OLD/kkperm_features 2>&1 | grep -A1 RowPassAcc > "$R/res_usage_old.txt"
cuobjdump -res-usage $NEW/kkperm_features 2>&1 | grep -A1 RowPassAcc > "$R/res_usage_new.txt"
i=0
for g in ${GENS:-$DEFAULT_GENS}; do
  i=$((i+1))
  for v in old new; do
    late "ncu $v $g" && continue
    b=$OLD; [[ $v == new ]] && b=$NEW
    timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:reduce_rows_staged \
      $(for s in ${SECTIONS:-SpeedOfLight WarpStateStats InstructionStats Occupancy LaunchStats SourceCounters}; do echo --section $s; done) \
      $b/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none --row-pass ${PASS:-rows} \
      > "$R/ncu_${v}_$i.txt" 2> "$R/ncu_${v}_$i.err"
    echo "ncu $v $g rc=$?" >> "$R/runs.txt"
    gzip -f "$R/ncu_${v}_$i.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
