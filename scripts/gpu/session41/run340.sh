#!/usr/bin/env bash
# Session 41, runs 340 (ORDER a) and 341 (b), one lease: issue 5's R(AP) setup and re-setup targets
# with the final build's defaults, ESC and cuSPARSE ALG1 and SpGEMMreuse in the same kkperm_amg
# process (order a: esc first in the list, b: cuSPARSE first), on the 2D 5-point (1000²), 3D
# 7-point (100³) and 3D 27-point (64³) Laplacians, ROUNDS rounds.
# Carry CARRY: bin.tar.xz (new/ with kkperm_amg, kkperm_spgemm of the final build).
# Usage (GPU host, repo root): [CARRY=.carry/s41d] bash scripts/gpu/session41/run340.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run340}
ORDER=${2:-a}
CARRY=${CARRY:-.carry/s41d}
ROUNDS=${ROUNDS:-2}
if [[ ! -d $CARRY/new && -f $CARRY/bin.tar.xz ]]; then
  tar -xJf "$CARRY/bin.tar.xz" -C "$CARRY" 2>/dev/null ||
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$CARRY/bin.tar.xz" "$CARRY"
fi
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
if [[ $ORDER == a ]]; then CANDS=esc,cusparse_alg1,cusparse_reuse; else CANDS=cusparse_reuse,cusparse_alg1,esc; fi
GENS=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64")
for r in $(seq 1 "$ROUNDS"); do
  for gi in "${!GENS[@]}"; do
    out="$R/new_c${gi}_r${r}"
    timeout 120 "$CARRY/new/kkperm_amg" --gen "${GENS[gi]}" --candidates "$CANDS" --repeat 10 --warmup 2 \
      --setup-repeat 7 --json "$out.json" > "$out.log" 2>&1
    echo "new c$gi r$r rc=$?" >> "$R/runs.txt"
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
