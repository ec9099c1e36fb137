#!/usr/bin/env bash
# Session 7: ESC numeric re-setup (AMG: numeric AP + numeric R(AP) with new values of A), variants
# interleaved twice on one lease, each with and without the structure check, cusparse_reuse in the
# same processes; then kkperm_spgemm A2/AP/RAP (esc, cusparse_reuse) for old and new; ncu kernel
# times of the new ESC AMG run on the 2D Laplacian; the CUDA SpGEMM tests of the new build.
#   old        .carry/s7/old: kernels committed before session 7 (session-3 pack)
#   new        .carry/s7/new: this session's build (gather plan from the second numeric on)
#   new_slots  the same binary with --esc-gather-mib 0 (slot-map kernels: bin-0 arrays in team
#              scratch, several warp-bin rows per team) — only in builds that have the gather plan
# VARIANTS (default "old new new_slots") picks them; run 32 (first build of the session, without
# the gather plan: "new" there is the slot-map kernels) ran VARIANTS="old new".
# Usage (GPU host, repo root): [VARIANTS=...] [DEADLINE_S=480] bash scripts/gpu/session7/ab_resetup.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ab7}
VARIANTS=${VARIANTS:-old new new_slots}
source scripts/gpu/session7/common.sh
s7_setup "$TAG"
GENS=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64")
i=0
for round in 1 2; do
  for g in "${GENS[@]}"; do
    for bin in $VARIANTS; do
      b=$OLD; extra=""
      [[ $bin == new* ]] && b=$NEW
      [[ $bin == new_slots ]] && extra="--esc-gather-mib 0"
      for chk in "" "--no-reuse-check"; do
        late "amg $i" && continue
        timeout 120 $b/kkperm_amg --gen "$g" --candidates esc,cusparse_reuse $chk $extra --repeat 10 --warmup 2 \
          --json "$R/amg_${i}.json" > "$R/amg_${i}.log" 2>&1
        echo "$i round=$round $bin $g ${chk:-check} rc=$?" >> "$R/runs.txt"
        i=$((i + 1))
      done
    done
  done
done
j=0
for g in "${GENS[@]}"; do
  for bin in old new; do
    b=$OLD; [[ $bin == new ]] && b=$NEW
    late "spgemm $j" && continue
    timeout 120 $b/kkperm_spgemm --gen "$g" --candidates esc,cusparse_reuse --no-reuse-check --repeat 10 --warmup 2 \
      --json "$R/spgemm_${j}.json" > "$R/spgemm_${j}.log" 2>&1
    echo "spgemm $j $bin $g rc=$?" >> "$R/runs.txt"
    j=$((j + 1))
  done
done
late ncu || timeout 200 ncu --clock-control none --kernel-name-base mangled -k "regex:esc" --csv --print-units base \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,l1tex__t_bytes.sum \
  $NEW/kkperm_amg --gen "laplace2d5:nx=1000,ny=1000" --candidates esc --repeat 1 --warmup 0 \
  > "$R/ncu_2d5_new.csv" 2> "$R/ncu_2d5_new.err"
echo "ncu rc=$?" >> "$R/runs.txt"
tests_and_pack "$TAG"
