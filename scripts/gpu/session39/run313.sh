#!/usr/bin/env bash
# Session 39, runs 313 (order a, after the carried tests) and 314 (order b): the warp-row register
# sort at its default against 0 (the hash table and bitmap as before), cuSPARSE ALG1 alongside,
# one binary:
#  1. the Laplacian set of spgemm_profile.sh (kkperm_spgemm A², AP, R(AP); kkperm_amg), 3 rounds;
#  2. a broader A² set, 2 rounds: Kronecker-expanded meshes (4elt, airfoil1), power law, uniform
#     rows, banded, and the 2D 9-point Laplacian (its AP and R(AP) and kkperm_amg too).
# Overrides (run316.sh sets them): VARIANTS_AB (space-separated variants, order a), GENS_BROAD (the
# broad set; $M is the carried real matrices), BROAD_DL / BROAD_HARD (its deadlines, seconds).
# Carry CARRY: bin.tgz (new/ with kkperm_spgemm, kkperm_amg), t/ (bin.tgz with new/kkperm_test_*,
# matrices/real with 4elt and airfoil1).
# Usage (GPU host, repo root): [CARRY=.carry/s39c] bash scripts/gpu/session39/run313.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run313} ORDER=${2:-a}
CARRY=${CARRY:-.carry/s39c}
M=$PWD/$CARRY/t/matrices/real
read -r -a VA <<< "${VARIANTS_AB:-new@esc,cusparse_alg1 new:--esc-register-sort+0@esc}"
GB=${GENS_BROAD:-"A2:kron:file=$M/4elt.mtx.gz,nnz=4e6,seed=16 A2:kron:file=$M/airfoil1.mtx.gz,nnz=4e6,block=4,density=0.3,seed=19 \
A2:powerlaw:n=1250000,deg=8,gamma=2.2,seed=1 A2:uniform:rows=1000000,nnz=8,seed=1 A2:banded:n=1000000,lower=4,seed=8 \
laplace2d9:nx=1000,ny=1000"}
GB=${GB//\$M/$M}
if [[ $ORDER == a ]]; then
  ( source scripts/gpu/lib/session_common.sh; HARD_S=90; carry_setup "$CARRY/t" "${TAG}_t" 85
    run_tests 85; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
  V=("${VA[@]}")
else
  V=()
  for ((k = ${#VA[@]} - 1; k >= 0; k--)); do V+=("${VA[$k]}"); done
fi
# deadlines are the child's own seconds (its SECONDS starts at 0)
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${V[*]}" ROUNDS=3 DEADLINE_S=200 HARD_S=240 \
  bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_$ORDER"
GENS="$GB" S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${V[*]}" ROUNDS=2 \
  DEADLINE_S=${BROAD_DL:-180} HARD_S=${BROAD_HARD:-220} \
  bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_${ORDER}_broad"
ls -la "$OUT"
