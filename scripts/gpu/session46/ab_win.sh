#!/usr/bin/env bash
# Session 46 (H200): the warp-row count pass's column windows from a kernel of their own
# (EscConfig::window_kernel, --esc-window-kernel: v1) against the count pass computing them
# itself (the default: v0). One binary, one process per variant and case, the variants' order
# reversed on every other case and round (alternate_order).
#   PARTS (default "tests spgemm amg trace"):
#   tests:  the carried test executables (new/kkperm_test_*), default configuration;
#   spgemm: kkperm_spgemm, ESC only, --repeat 5 --warmup 1 --setup-repeat 7, on the Laplacians'
#           A², AP and R(AP), the banded and uniform A², ROUNDS (3) rounds;
#   amg:    kkperm_amg, ESC and cuSPARSE ALG1, 2D 5-point (1000²), 3D 7-point (100³) and 3D 27-point
#           (64³), --repeat 10 --warmup 2 --setup-repeat 7, ROUNDS rounds;
#   trace:  one kkperm_amg --trace-setup a variant on the 2D 5-point and 3D 7-point Laplacians.
# JSON files are VARIANT_CASE_ROUND.json (scripts/gpu/session41/ab_tables.py reads them).
# Carry CARRY (default .carry/s46a): bin.tgz (new/ = kkperm_spgemm, kkperm_amg and the test
# executables of this build) and matrices/real.
# VARIANTS (default "v0 v1:--esc-window-kernel"): NAME[@DIR][:ARGS] each, '+' for spaces in ARGS;
# DIR: another folder of carried binaries (default NEW).
# Usage (GPU host, repo root): DEADLINE_S=400 HARD_S=560 bash scripts/gpu/session46/ab_win.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run363}
carry_setup "${CARRY:-.carry/s46a}" "$TAG" "${DEADLINE_S:-400}"
VARIANTS=${VARIANTS:-"v0 v1:--esc-window-kernel"}
SPGEMM_CASES=${SPGEMM_CASES:-"laplace2d5:nx=1000,ny=1000|A2,AP,RAP laplace2d9:nx=1000,ny=1000|A2,AP,RAP
  laplace3d7:nx=100|A2,AP,RAP laplace3d27:nx=64|AP,RAP banded:n=1000000,lower=4,seed=8|A2
  uniform:rows=1000000,nnz=8,seed=1|A2"}
AMG_GENS=${AMG_GENS:-"laplace2d5:nx=1000,ny=1000 laplace3d7:nx=100 laplace3d27:nx=64"}
# one SPEC TAG TIMEOUT TOOL TOOL_ARGS...: one process of variant SPEC = NAME[@DIR][:ARGS] ('+' for
# spaces in ARGS): DIR/TOOL (default NEW/TOOL) with TOOL_ARGS and ARGS
one() {
  local spec=$1 tag=$2 t=$3 tool=$4 name args dir=$NEW
  shift 4
  name=${spec%%:*}; args=""; [[ $spec == *:* ]] && args=${spec#*:}
  [[ $name == *@* ]] && { dir=${name#*@}; name=${name%%@*}; }
  late "$name $tag" && return
  timeout "$(capped "$t")" "$dir/$tool" "$@" ${args//+/ } --json "$R/${name}_$tag.json" > "$R/${name}_$tag.log" 2>&1
  echo "$name $tag rc=$? t=$SECONDS" >> "$R/runs.txt"
}
for part in ${PARTS:-tests spgemm amg trace}; do
  case $part in
    tests) run_tests 240 ;;
    spgemm)
      for r in $(seq 1 "${ROUNDS:-3}"); do
        i=0
        for c in $SPGEMM_CASES; do
          i=$((i+1))
          for v in $(alternate_order $((i + r)) $VARIANTS); do
            one "$v" "c${i}_r$r" 60 kkperm_spgemm --gen "${c%%|*}" --products "${c#*|}" --candidates esc \
              --repeat 5 --warmup 1 --setup-repeat 7 --peak-gbs 4000
          done
        done
      done ;;
    amg)
      for r in $(seq 1 "${ROUNDS:-3}"); do
        i=0
        for g in $AMG_GENS; do
          i=$((i+1))
          for v in $(alternate_order $((i + r)) $VARIANTS); do
            one "$v" "a${i}_r$r" 90 kkperm_amg --gen "$g" --candidates esc,cusparse_alg1 --repeat 10 \
              --warmup 2 --setup-repeat 7 --peak-gbs 4000
          done
        done
      done ;;
    trace)
      i=0
      for g in laplace2d5:nx=1000,ny=1000 laplace3d7:nx=100; do
        i=$((i+1))
        for v in $VARIANTS; do
          one "trace_$v" "t$i" 60 kkperm_amg --gen "$g" --candidates esc --repeat 3 --warmup 1 \
            --setup-repeat 3 --trace-setup --peak-gbs 4000
        done
      done ;;
  esac
done
gzip -f "$R"/*.json 2>/dev/null
pack_run "$TAG"
