#!/usr/bin/env bash
# Session 36, run 291: the defaults after runs 289-290 (staged products with a copy of the sums a
# lane where that fits; the warp-row range's values in the count pass for means in [64, 96) as well
# as from 128; the flat copy) against: no band (--esc-setup-warp-band-below 0); session 35's
# behaviour (no band, --esc-setup-two-walks, --esc-copy-row-warps); sums in scratch where a copy a
# lane does not fit (--esc-setup-scratch-sums); values in the count pass from a mean of 64
# (--esc-setup-warp-mean 64: the 3D 27-point AP too). Tests of the new build first. 4 rounds, both
# orders.
# Carry .carry/s36d: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session36/run291.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "${1:-run291}" "${CARRY:-.carry/s36d}" \
  "new@esc,cusparse_alg1" "new:--esc-setup-warp-band-below+0@esc" \
  "new:--esc-setup-warp-band-below+0+--esc-setup-two-walks+--esc-copy-row-warps@esc" \
  "new:--esc-setup-scratch-sums@esc" "new:--esc-setup-warp-mean+64@esc"
ls -la "$OUT"
