#!/usr/bin/env bash
# Session 30: SpGEMM setup A/B with launch traces (kkperm_spgemm --trace-setup) of carried
# builds, interleaved per matrix, ROUNDS rounds; kkperm_amg only for the variants that carry it.
#  0. the carried test executables of new/ (kkperm_test_*), when there are any;
#  1. for each round, matrix (GENS; default the 2D 5-point, 3D 7-point and 3D 27-point
#     Laplacians) and variant (VARIANTS, FOLDER[:EXTRA ARGS][@CANDS] as in
#     scripts/gpu/session16/spgemm_profile.sh, '+' for a space): kkperm_spgemm (A2, AP, RAP)
#     --repeat 10 --warmup 2 --trace-setup, then kkperm_amg when FOLDER has it.
# Usage (GPU host, repo root):
#   S30_CARRY=.carry/s30b VARIANTS="old@esc,cusparse_alg1 new@esc,cusparse_alg1" ROUNDS=3 \
#     bash scripts/gpu/session30/trace_ab.sh TAG   -> $OUT/TAG.tgz
# Summaries: python3 scripts/gpu/session30/trace_summary.py DIR; setup_ab.py of session 27.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-s30ab}
carry_setup "${S30_CARRY:-.carry/s30b}" "$TAG" "${DEADLINE_S:-480}"
run_tests 240
if [[ -n ${GENS:-} ]]; then read -r -a G <<< "$GENS"; else
  G=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64"); fi
read -r -a V <<< "${VARIANTS:-new}"
for rep in $(seq 1 ${ROUNDS:-1}); do
  i=0
  for g in "${G[@]}"; do
    for vi in "${!V[@]}"; do
      v=${V[$vi]}; cands=${CANDS:-esc,cusparse_alg1}; [[ $v == *@* ]] && cands=${v#*@} && v=${v%@*}
      d=${v%%:*}; extra=""; [[ $v == *:* ]] && extra=${v#*:}; extra=${extra//+/ }
      for tool in spgemm amg; do
        [[ -x $C/$d/kkperm_$tool ]] || continue
        late "$tool $v $g rep $rep" && continue
        timeout "$(capped 150)" $C/$d/kkperm_$tool --gen "$g" --candidates "$cands" --repeat 10 --warmup 2 \
          --trace-setup $extra --json "$R/${tool}_v${vi}_r${rep}_$i.json" > "$R/${tool}_v${vi}_r${rep}_$i.log" 2>&1
        echo "$tool v$vi=$v r$rep $i $g rc=$?" >> "$R/runs.txt"
      done
    done
    i=$((i + 1))
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
