#!/usr/bin/env bash
# Session 37, run 298: the first of kkperm_amg's five timed R(AP) setups took 0.35-0.7 ms more
# than the others in run 295, after a warm-up pair that ran symbolic() and numeric() only. Here
# run 297's kkperm_amg (old/) with CUDA's lazy module loading (the default) and with
# CUDA_MODULE_LOADING=EAGER, against this session's final kkperm_amg (new/: the warm-up also runs
# setup() on fresh plans), ESC only, on the 3D 27-point (nx = 64) and 3D 7-point (nx = 100)
# Laplacians, interleaved, ROUNDS rounds (default 2); the samples are rap_setup_samples_ms.
# Carry .carry/s37d: bin.tgz (new/, old/).
# Usage (GPU host, repo root): bash scripts/gpu/session37/run298.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run298}
C=${CARRY:-.carry/s37d}
[[ -d $C/new ]] || tar -xzf "$C/bin.tgz" -C "$C"
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for rep in $(seq 1 "${ROUNDS:-2}"); do
  for v in old old_eager new; do
    d=${v%%_*}; loading=LAZY; [[ $v == *_eager ]] && loading=EAGER
    [[ $SECONDS -lt ${DL:-480} ]] || continue
    CUDA_MODULE_LOADING=$loading timeout 120 "$C/$d/kkperm_amg" --gen "laplace3d27:nx=64" --gen "laplace3d7:nx=100" \
      --candidates esc --repeat 10 --warmup 2 --json "$R/amg_${v}_r$rep.json" > "$R/amg_${v}_r$rep.log" 2>&1
    echo "amg $v r$rep rc=$?" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
