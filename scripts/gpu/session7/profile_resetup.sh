#!/usr/bin/env bash
# Session 7: where the ESC numeric re-setup time goes (AMG AP + R(AP), value-only re-setup).
#  1. kkperm_amg, event timings: esc (reuse check on / off) and cusparse_reuse on the 2D 5-point
#     and 3D 7-point Laplacians (the session-3 AMG set), --repeat 10 --warmup 2.
#  2. ncu, one metric set per ESC kernel launch (duration, DRAM/L2 bytes, occupancy, registers)
#     on the 2D 5-point case, --repeat 1 --warmup 0.
# Usage (GPU host, repo root): bash scripts/gpu/session7/profile_resetup.sh TAG [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-prof7}
B=${2:-.carry/kkperm-gpu/perf}
[[ -x $B/kkperm_amg ]] || bash .carry/kkperm-gpu/unpack.sh
R=$OUT/$TAG; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
date -u +%FT%TZ > "$R/date.txt"
GENS=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100")
i=0
for g in "${GENS[@]}"; do
  for v in "esc" "esc --no-reuse-check" "cusparse_reuse"; do
    set -- $v
    c=$1; shift
    timeout 120 $B/kkperm_amg --gen "$g" --candidates "$c" "$@" --repeat 10 --warmup 2 \
      --json "$R/amg_${i}.json" > "$R/amg_${i}.log" 2>&1
    echo "$i $g $v rc=$?" >> "$R/runs.txt"
    i=$((i + 1))
  done
done
timeout 240 ncu --clock-control none --kernel-name-base mangled -k "regex:esc" --csv --print-units base \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,l1tex__t_bytes.sum \
  $B/kkperm_amg --gen "laplace2d5:nx=1000,ny=1000" --candidates esc --no-reuse-check --repeat 1 --warmup 0 \
  > "$R/ncu_2d5.csv" 2> "$R/ncu_2d5.err"
echo "ncu rc=$?" >> "$R/runs.txt"
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG"
