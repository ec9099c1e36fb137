#!/usr/bin/env bash
# Session 37 (runs 296, 297): kkperm_amg on the 3D 27-point Laplacian with nx = 100 (10^6 rows),
# ESC only, the default plan pool threshold ("def") against --pool-retain-mib MIB ("rMIB"),
# interleaved, ROUNDS_POOL rounds (default 2), none started after DL_POOL seconds of the calling
# script (ELAPSED_S: its seconds so far; default 520); into $OUT/TAG_pool.tgz.
# Usage (GPU host, repo root, from a run script): bash scripts/gpu/session37/amg_pool_rounds.sh TAG CARRY MIB
set -uo pipefail
TAG=$1 CARRY=$2 MIB=$3
R=$OUT/${TAG}_pool
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
for rep in $(seq 1 "${ROUNDS_POOL:-2}"); do
  for v in def "r$MIB"; do
    extra=""; [[ $v != def ]] && extra="--pool-retain-mib $MIB"
    ( [[ $((${ELAPSED_S:-0} + SECONDS)) -lt ${DL_POOL:-520} ]] || exit 0
      timeout 120 "$CARRY/new/kkperm_amg" --gen "laplace3d27:nx=100" --candidates esc --repeat 10 --warmup 2 \
        --trace-setup $extra --json "$R/amg_${v}_r$rep.json" > "$R/amg_${v}_r$rep.log" 2>&1
      echo "amg $v r$rep rc=$?" >> "$R/runs.txt" )
  done
done
tar -czf "$OUT/${TAG}_pool.tgz" -C "$OUT" "${TAG}_pool" && rm -rf "$R"
