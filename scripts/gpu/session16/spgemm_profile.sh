#!/usr/bin/env bash
# Session 16: ESC SpGEMM *setup* (symbolic + first numeric) against cuSPARSE, and where its time
# goes. Runs 96 (before) and 97+ (A/B of the setup rework).
#  0. the carried test executables (C/new/kkperm_test_*), when there are any;
#  1. for ROUNDS rounds: kkperm_spgemm (A2, AP, RAP) and kkperm_amg on the 2D 5-point, 3D 7-point
#     and 3D 27-point Laplacians (GENS overrides; an "A2:" prefix times A² only and skips
#     kkperm_amg, for matrices without a full diagonal), --repeat 10 --warmup 2, every variant of
#     VARIANTS interleaved; a variant is FOLDER[:EXTRA ARGS] ("new:--esc-team-rows": the new
#     binaries with that flag; '+' stands for a space: "new:--esc-stash-mib+0"; a trailing
#     "@CANDS" runs only those candidates for that variant: "new:--esc-warp-row-lanes+8@esc"),
#     its files named by its index in VARIANTS; EXTRA: arguments for every run (session 30:
#     "--trace-setup"); a tool the variant's folder does not carry is skipped;
#  2. ncu kernel durations (all launches) of one RAP product (2D 5-point), for each candidate of
#     NCU_CANDS and each variant (or the variant indices in NCU_VARIANTS; NCU= to skip).
# Usage (GPU host, repo root):
#   S16_CARRY=.carry/s16b VARIANTS="old new new:--esc-team-rows" [ROUNDS=1] [CANDS=...]
#   bash scripts/gpu/session16/spgemm_profile.sh TAG   -> $OUT/TAG.tgz
# Carry: S16_CARRY/bin.tgz with new/ (and old/) holding kkperm_spgemm, kkperm_amg [, tests],
# and matrices/ when tests are carried.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-prof16}
carry_setup "${S16_CARRY:-.carry/s16}" "$TAG" 540
run_tests 240
# registers/stack/shared/local of the kernels matching RES (cuobjdump), e.g. RES=warp_rows
[[ -n ${RES:-} ]] && res_usage "$RES" "$NEW/kkperm_spgemm" res_usage.txt
if [[ -n ${GENS:-} ]]; then read -r -a G <<< "$GENS"; else
  G=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64"); fi
CANDS=${CANDS:-esc,cusparse_alg1,cusparse_alg2,cusparse_alg3,cusparse_reuse}
read -r -a V <<< "${VARIANTS:-new}"
for rep in $(seq 1 ${ROUNDS:-1}); do
  i=0
  for g in "${G[@]}"; do
    for vi in "${!V[@]}"; do
      v=${V[$vi]}; cands=$CANDS; [[ $v == *@* ]] && cands=${v#*@} && v=${v%@*}
      d=${v%%:*}; extra=""; [[ $v == *:* ]] && extra=${v#*:}; extra=${extra//+/ }
      for tool in spgemm amg; do
        [[ -x $C/$d/kkperm_$tool ]] || continue
        late "$tool $v $g rep $rep" && continue
        gen=$g; prod=""
        if [[ $g == A2:* ]]; then  # no SA prolongator (no full diagonal): A² only, no AMG
          [[ $tool == amg ]] && continue
          gen=${g#A2:}; prod="--products A2"
        fi
        timeout "$(capped 150)" $C/$d/kkperm_$tool --gen "$gen" $prod --candidates "$cands" --repeat 10 --warmup 2 ${EXTRA:-} $extra \
          --json "$R/${tool}_v${vi}_r${rep}_$i.json" > "$R/${tool}_v${vi}_r${rep}_$i.log" 2>&1
        echo "$tool v$vi=$v r$rep $i $g rc=$?" >> "$R/runs.txt"
      done
    done
    i=$((i + 1))
  done
done
if [[ -n ${NCU-1} ]]; then
  for c in ${NCU_CANDS:-esc}; do
    for vi in "${!V[@]}"; do
      v=${V[$vi]%@*}; d=${v%%:*}; extra=""; [[ $v == *:* ]] && extra=${v#*:}; extra=${extra//+/ }
      [[ -n ${NCU_VARIANTS:-} && " $NCU_VARIANTS " != *" $vi "* ]] && continue
      late "ncu $v $c" && continue
      timeout 150 ncu --clock-control none --csv --print-units base \
        --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active \
        $C/$d/kkperm_spgemm --gen "laplace2d5:nx=1000,ny=1000" --products RAP --candidates "$c" --repeat 1 --warmup 0 $extra \
        2> "$R/ncu_v${vi}_$c.err" | gzip > "$R/ncu_v${vi}_$c.csv.gz"
      echo "ncu v$vi=$v $c rc=${PIPESTATUS[0]}" >> "$R/runs.txt"
    done
  done
fi
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
