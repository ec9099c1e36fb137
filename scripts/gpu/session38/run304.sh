#!/usr/bin/env bash
# Session 38, runs 304 (order a, after the carried tests) and 305 (order b): the cuSPARSE
# candidate's setup with its buffers and C from kkperm's plan pool and the guard's estimate
# without its per-row array (new/), against session 37's CI build (old/, Kokkos allocations),
# and every candidate with --plan-trusted --no-reuse-check (no validation, no guard, no
# structure hash: cuSPARSE timed as a direct call of its own API). 4 rounds over
# spgemm_profile.sh's Laplacian set, kkperm_spgemm and kkperm_amg, --trace-setup.
# Carry .carry/s38a: bin.tgz (new/, old/), t/ (bin.tgz with new/kkperm_test_*, matrices/).
# Usage (GPU host, repo root): [VARIANTS_AB=...] [CARRY=...] bash scripts/gpu/session38/run304.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run304} ORDER=${2:-a}
CARRY=${CARRY:-.carry/s38a}
# VARIANTS_AB (space-separated) replaces the variants (run 306: the CI build with SpGEMMreuse too)
if [[ -n ${VARIANTS_AB:-} ]]; then read -r -a VA <<< "$VARIANTS_AB"; else
  VA=("old@cusparse_alg1" "new@esc,cusparse_alg1" "new:--plan-trusted+--no-reuse-check@esc,cusparse_alg1"); fi
if [[ $ORDER == a ]]; then
  ( source scripts/gpu/lib/session_common.sh; HARD_S=90; carry_setup "$CARRY/t" "${TAG}_t" 85
    run_tests 85; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
  V=("${VA[@]}")
else
  V=()
  for ((k = ${#VA[@]} - 1; k >= 0; k--)); do V+=("${VA[$k]}"); done
fi
START=$SECONDS
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${V[*]}" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=$(( ${DL:-400} - START )) HARD_S=$(( ${HARD:-470} - START )) \
  bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_$ORDER"
ls -la "$OUT"
