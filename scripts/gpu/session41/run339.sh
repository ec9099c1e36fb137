#!/usr/bin/env bash
# Session 41, run 339: the carried SpGEMM test executables of the final build (window_sample's
# window starts at Kokkos::Experimental::finite_max), and the uniform 10^6 x 9 A² and 2D 5-point
# R(AP) setups with its kkperm_spgemm (new defaults, one process each) as a check that the final
# build behaves as run 337's.
# Carry CARRY: bin.tar.xz (new/ as run337.sh's) and matrices/real.
# Usage (GPU host, repo root): [CARRY=.carry/s41c] bash scripts/gpu/session41/run339.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run339}
CARRY=${CARRY:-.carry/s41c}
source scripts/gpu/lib/session_common.sh
if [[ ! -d $CARRY/new && -f $CARRY/bin.tar.xz ]]; then
  tar -xJf "$CARRY/bin.tar.xz" -C "$CARRY" 2>/dev/null ||
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$CARRY/bin.tar.xz" "$CARRY"
fi
carry_setup "$CARRY" "$TAG" 500
run_tests 200
i=0
for g in "uniform:rows=1000000,nnz=9,seed=2|A2" "laplace2d5:nx=1000,ny=1000|RAP"; do
  i=$((i+1))
  IFS='|' read -r gen prods <<< "$g"
  timeout 90 "$NEW/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc --repeat 5 --warmup 1 \
    --setup-repeat 7 --peak-gbs 4000 --json "$R/new_c${i}_r1.json" > "$R/new_c${i}_r1.log" 2>&1
  echo "new c$i rc=$?" >> "$R/runs.txt"
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
