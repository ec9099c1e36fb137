#!/usr/bin/env bash
# Session 39, run 316 (and its reverse order): the lanes rule (twice the lanes when every warp-row
# row then fits the registers) at the default mode 2, against mode 3 and mode 0, cuSPARSE ALG1
# alongside; the carried tests first in order a. Laplacian set (3 rounds) and the uniform /
# Kronecker / banded A² set (2 rounds), one binary.
# Carry CARRY: bin.tgz (new/ with kkperm_spgemm, kkperm_amg), t/ (bin.tgz with new/kkperm_test_*,
# matrices/real with 4elt).
# Usage (GPU host, repo root): [CARRY=.carry/s39d] [MID=VARIANT] bash scripts/gpu/session39/run316.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run316} ORDER=${2:-a}
CARRY=${CARRY:-.carry/s39d}
M=$PWD/$CARRY/t/matrices/real
# MID: the middle variant (runs 318-319, default mode 3: "new:--esc-register-sort+2@esc")
VA=("new@esc,cusparse_alg1" "${MID:-new:--esc-register-sort+3@esc}" "new:--esc-register-sort+0@esc")
if [[ $ORDER == a ]]; then
  ( source scripts/gpu/lib/session_common.sh; HARD_S=90; carry_setup "$CARRY/t" "${TAG}_t" 85
    run_tests 85; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
  V=("${VA[@]}")
else
  V=("${VA[2]}" "${VA[1]}" "${VA[0]}")
fi
# deadlines are the child's own seconds (its SECONDS starts at 0)
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${V[*]}" ROUNDS=3 DEADLINE_S=200 HARD_S=240 \
  bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_$ORDER"
GENS="A2:uniform:rows=1000000,nnz=8,seed=1 A2:uniform:rows=1000000,nnz=6,seed=3 \
A2:kron:file=$M/4elt.mtx.gz,nnz=4e6,seed=16 A2:banded:n=1000000,lower=4,seed=8" \
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${V[*]}" ROUNDS=2 DEADLINE_S=150 HARD_S=190 \
  bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_${ORDER}_broad"
ls -la "$OUT"
