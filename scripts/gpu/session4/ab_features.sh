#!/usr/bin/env bash
# Session 4 A/B (one device call): kkperm_features of the committed code ("final", from the
# packed build) against the binary of run 18 ("variant": two-pass feature reduction and a
# warp-parallel windowed Hamming greedy), interleaved twice on the same GPU, so the two can be
# compared within one run. The binaries travel as .carry/variant/kkperm_features{_final,,_team};
# Test executables .carry/variant/kkperm_test_* (when present) run first.
# A third binary, .carry/variant/kkperm_features_team (TeamPolicy feature reduction), joins the
# rotation when present; ncu then times every kernel of one features pass of "final" and "team".
# Usage (GPU host, repo root): bash scripts/gpu/session4/ab_features.sh   (results: $OUT/ab.tgz)
set -uo pipefail
cd "$(dirname "$0")/../../.."
C=.carry/kkperm-gpu
bash $C/unpack.sh
R=$OUT/r; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
export KKPERM_MATRICES_DIR=$PWD/$C/matrices
for t in .carry/variant/kkperm_test_*; do
  [[ -x $t ]] || continue
  for rep in 1 2 3; do  # fresh seeds each time
    timeout 200 $t > "$R/$(basename $t)_$rep.log" 2>&1
    echo "$(basename $t) #$rep rc=$?" >> "$R/parts.txt"
  done
done
VARIANTS=(final variant); [[ -x .carry/variant/kkperm_features_team ]] && VARIANTS+=(team)
bin_of() { case $1 in final) echo .carry/variant/kkperm_features_final ;; variant) echo .carry/variant/kkperm_features ;;
  team) echo .carry/variant/kkperm_features_team ;; esac; }
for round in 1 2; do
  for v in "${VARIANTS[@]}"; do
    bin=$(bin_of $v)
    timeout 120 $bin --gen laplace2d5:nx=1414,ny=1414 --repeat 10 --warmup 3 \
      --perms identity,plain_sort,lpt,dcsr,cta_aware,warp_aware --json "$R/lap_${v}_$round.json" \
      > "$R/lap_${v}_$round.log" 2>&1
    timeout 120 $bin --gen powerlaw:n=1250000,deg=8,gamma=2.2,seed=1 --repeat 10 --warmup 3 \
      --perms identity,plain_sort,lpt,dcsr --json "$R/pl_${v}_$round.json" > "$R/pl_${v}_$round.log" 2>&1
  done
done
for v in final team; do
  [[ " ${VARIANTS[*]} " == *" $v "* ]] || continue
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv $(bin_of $v) \
    --gen laplace2d5:nx=1414,ny=1414 --repeat 2 --warmup 0 --perms none > "$R/ncu_$v.csv" 2> "$R/ncu_$v.err"
  gzip "$R/ncu_$v.csv"
done
tar -czf "$OUT/ab.tgz" -C "$OUT" r && rm -rf "$R"
