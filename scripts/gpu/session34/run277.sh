#!/usr/bin/env bash
# Session 34, run 277: after run 276's ncu: the pair check's columns all loaded before use, and the
# count statistics' and analysis key kernels' per-bin numbers at constant indices (no local
# memory), against the final CI build of d5bcc42 (old); both orders, the new build's spgemm_esc,
# spgemm_candidates and crs_utils tests first; then the registers / stack / local memory of both
# builds' pair-check, statistics and key kernels. Carry .carry/s34f: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session34/run277.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run277}" "${CARRY:-.carry/s34f}" \
  "new@esc,cusparse_alg1" "old@esc"
for v in new old; do
  cuobjdump -res-usage "${CARRY:-.carry/s34f}/$v/kkperm_spgemm" 2>&1 | grep -E -A1 "count_stats|plan_keys|for_each_hashed" \
    | grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - > "$OUT/${1:-run277}_res_$v.txt"
done
ls -la "$OUT"
