#!/usr/bin/env bash
# Session 34, run 272: the warp-row kernels' batched loads (the column window's three load levels
# for four entries a lane at a time; the product walk's next A column loaded ahead) against the
# build before them (cafa842, run 270's), both orders, the new build's spgemm_esc and
# spgemm_candidates tests first. Carry .carry/s34b: bin.tgz (new/ and old/: kkperm_spgemm,
# kkperm_amg), t/ (tests, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session34/run272.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
RES=warp_rows ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run272}" "${CARRY:-.carry/s34b}" \
  "new@esc,cusparse_alg1" "old@esc"
# registers of the warp-row kernels of both builds (kernel name line, then its resource line)
for v in new old; do
  cuobjdump -res-usage "${CARRY:-.carry/s34b}/$v/kkperm_spgemm" 2>&1 | grep -A1 "warp_rows" \
    | grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*" | paste - - - > "$OUT/${1:-run272}_res_$v.txt"
done
ls -la "$OUT"
