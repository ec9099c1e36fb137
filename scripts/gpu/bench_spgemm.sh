#!/usr/bin/env bash
# GPU SpGEMM benchmark (issue 5): every SpGEMM candidate on an ESC-paper-like set — A², AP and
# R(AP) with a smoothed-aggregation P (kkperm_spgemm), and the SA Galerkin setup / numeric
# re-setup (kkperm_amg) — one device, JSON + CSV + log under $OUT.
#
# Usage (GPU host, repo root, after scripts/gpu/pack_for_gpu.sh shipped .carry/kkperm-gpu):
#   bash scripts/gpu/bench_spgemm.sh [PART] [-- extra flags for both tools]
#   PART: stencil | mesh | graph | amg | all (default all). Each part is sized to stay under
#   10 minutes on an H100/H200 (guard skips runaway candidates with a reason; a power-law A² in
#   KK 3.4 is the known runaway). Results: $OUT/spgemm_<part>.{json,csv,log}.
# Environment: OUT (default ./gpu-out), KKPERM_SPGEMM / KKPERM_AMG (binaries; default
#   .carry/kkperm-gpu/perf/, else build-cuda/perf_test/), KKPERM_MATRICES (folder holding real/),
#   REPEAT (default 10), WARMUP (default 2).
set -uo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$PWD/gpu-out}
PART=${1:-all}
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
EXTRA=("$@")
REPEAT=${REPEAT:-10}
WARMUP=${WARMUP:-2}

find_bin() {  # tool name, env override
  local tool=$1 over=$2 b=""
  [[ -n "$over" ]] && b=$over
  for cand in "$REPO_ROOT/.carry/kkperm-gpu/perf/$tool" "$REPO_ROOT/build-cuda/perf_test/$tool"; do
    [[ -z "$b" && -x "$cand" ]] && b=$cand
  done
  if [[ -z "$b" && -x "$REPO_ROOT/.carry/kkperm-gpu/unpack.sh" ]]; then
    bash "$REPO_ROOT/.carry/kkperm-gpu/unpack.sh" >/dev/null && b="$REPO_ROOT/.carry/kkperm-gpu/perf/$tool"
  fi
  [[ -x "$b" ]] || { echo "ERROR: $tool not found" >&2; exit 2; }
  echo "$b"
}
SPGEMM=$(find_bin kkperm_spgemm "${KKPERM_SPGEMM:-}")
AMG=$(find_bin kkperm_amg "${KKPERM_AMG:-}")
MAT=${KKPERM_MATRICES:-}
for cand in "$REPO_ROOT/.carry/kkperm-gpu/matrices" "$REPO_ROOT/shared/matrices" "$REPO_ROOT/../shared/matrices"; do
  [[ -z "$MAT" && -d "$cand/real" ]] && MAT=$cand
done
[[ -d "$MAT/real" ]] || { echo "ERROR: matrices folder with real/ not found (set KKPERM_MATRICES)" >&2; exit 2; }
R=$MAT/real
mkdir -p "$OUT"

# ESC paper set (Dalton/Olson/Bell 2015): 2D FD 5-pt, FE 9-pt, 3D FD 7-pt, FE 27-pt (~1M rows),
# unstructured FE-like meshes (Kronecker expansions of real 2D/3D mesh patterns), graph-like.
STENCIL=(
  "laplace2d5:nx=1000,ny=1000"        # 1.0e6 rows, 5.0e6 nnz
  "laplace2d9:nx=1000,ny=1000"        # 1.0e6 rows, 9.0e6 nnz
  "laplace3d7:nx=100"                 # 1.0e6 rows, 6.9e6 nnz
  "laplace3d27:nx=100"                # 1.0e6 rows, 2.6e7 nnz
)
MESH=(
  "kron:file=$R/4elt.mtx.gz,nnz=8e6,seed=16"                      # 2D FEM mesh pattern
  "kron:file=$R/airfoil1.mtx.gz,nnz=8e6,block=4,density=0.3,seed=19" # airfoil mesh
  "banded:n=1000000,lower=40,fill=0.2,seed=9"                     # irregular banded, mesh-like
)
GRAPH=(
  "powerlaw:n=1000000,deg=8,gamma=2.5,seed=6"   # graph-like; KK A² is the known runaway (guard)
  "powerlaw:n=200000,deg=16,gamma=2.1,seed=5"
  "kron:file=$R/PGPgiantcompo.mtx.gz,nnz=4e6,seed=17"
)

run_tool() {  # part name, binary, then args
  local name=$1 bin=$2; shift 2
  local cmd=("$bin" "$@" --repeat "$REPEAT" --warmup "$WARMUP"
             --json "$OUT/spgemm_$name.json" --csv "$OUT/spgemm_$name.csv" "${EXTRA[@]}")
  echo "== part $name: ${cmd[*]}" | tee "$OUT/spgemm_$name.log"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv >> "$OUT/spgemm_$name.log" 2>&1 || true
  timeout 590 "${cmd[@]}" >> "$OUT/spgemm_$name.log" 2>&1
  local rc=$?
  echo "== part $name exit $rc" | tee -a "$OUT/spgemm_$name.log"
  return $rc
}
gen_args() { local a=(); for s in "$@"; do a+=(--gen "$s"); done; printf '%s\0' "${a[@]}"; }

rc=0
for p in stencil mesh graph amg; do
  [[ "$PART" != all && "$PART" != "$p" ]] && continue
  case $p in
    stencil) mapfile -d '' A < <(gen_args "${STENCIL[@]}"); run_tool "$p" "$SPGEMM" "${A[@]}" || rc=1 ;;
    mesh)    mapfile -d '' A < <(gen_args "${MESH[@]}");    run_tool "$p" "$SPGEMM" "${A[@]}" || rc=1 ;;
    graph)   mapfile -d '' A < <(gen_args "${GRAPH[@]}");   run_tool "$p" "$SPGEMM" --products A2 "${A[@]}" || rc=1 ;;
    amg)     mapfile -d '' A < <(gen_args "${STENCIL[@]}" "${MESH[@]}"); run_tool "$p" "$AMG" "${A[@]}" || rc=1 ;;
  esac
done
exit $rc
