#!/usr/bin/env bash
# Session 33, run 260: the product walk's rounds past a chunk's products skipped on the whole lane
# group (new/, against old/ = e7a2118, session 32's final kernels), and two settings of the new
# build measured beside it: the searching numeric's places by rank in the row's column-window
# bitmap (--esc-numeric-bitmap 2 and 4) and the 2D R(AP)'s values in the count pass
# (--esc-setup-warp-mean 64), and 8 lanes a row for the symbolic passes too (--esc-warp-row-lanes
# 8; the numeric has 8 on the 2D R(AP) already). The spgemm_esc test first; then session 16's spgemm_profile.sh with
# --trace-setup (kkperm_spgemm A2/AP/RAP and kkperm_amg on the 2D 5-point, 3D 7-point and 3D
# 27-point Laplacians), the variants interleaved within each round, in one order (TAG_a) and
# then the reverse (TAG_b). Carry .carry/s33: bin.tgz (old/, new/: kkperm_spgemm, kkperm_amg),
# t/ (bin.tgz with new/kkperm_test_kernels_spgemm_esc, matrices/).
# (--esc-numeric-bitmap is a switch of that build, 15a9695, reverted in a96c9a3.)
# Usage (GPU host, repo root): bash scripts/gpu/session33/run260.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
RES=warp_rows ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run260}" "${CARRY:-.carry/s33}" \
  "old@esc" "new@esc,cusparse_alg1" "new:--esc-numeric-bitmap+2@esc" "new:--esc-numeric-bitmap+4@esc" "new:--esc-setup-warp-mean+64@esc" "new:--esc-warp-row-lanes+8@esc"
