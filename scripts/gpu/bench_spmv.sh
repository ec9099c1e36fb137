#!/usr/bin/env bash
# GPU SpMV benchmark (issue 4): every SpMV candidate on a generated GPU-scale set (24 matrices,
# ~3e6..1e8 nnz, every generator family incl. Kronecker expansions of real patterns) and on the
# real matrices, one device, results as JSON + CSV + log under $OUT.
#
# Usage (GPU host, repo root, after scripts/gpu/pack_for_gpu.sh shipped .carry/kkperm-gpu):
#   bash scripts/gpu/bench_spmv.sh [PART] [-- extra kkperm_spmv flags]
#   PART: gen1 | gen2 | gen3 | real | all (default all), or the half parts gen1a gen1b gen2a
#   gen2b gen3a gen3b (4 matrices each). Each part is meant to finish under 10 minutes on an
#   H100/H200 (the half parts exist because the row-permuted candidates lengthen prep), so a
#   device tool with a per-command limit can run them one by one; results of each part go to
#   $OUT/spmv_<part>.{json,csv,log}; afterwards $OUT/spmv_summary.md + spmv_speedups.png
#   summarize every spmv_*.json in $OUT (tools/train/summarize_spmv.py).
# Environment: OUT (default ./gpu-out), KKPERM_SPMV (binary; default .carry/kkperm-gpu/perf/
#   kkperm_spmv, else build-cuda/perf_test/kkperm_spmv), KKPERM_MATRICES (folder holding real/),
#   REPEAT (default 20), WARMUP (default 5), PRECISION (f64|f32|both, default f64).
set -uo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib/bench_common.sh
source "$REPO_ROOT/scripts/gpu/lib/bench_common.sh"
OUT=${OUT:-$PWD/gpu-out}
PART=${1:-all}
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
EXTRA=("$@")
REPEAT=${REPEAT:-20}
WARMUP=${WARMUP:-5}
PRECISION=${PRECISION:-f64}

BIN=$(kkperm_find_bin kkperm_spmv "${KKPERM_SPMV:-}") || exit 2
kkperm_find_matrices
mkdir -p "$OUT"

# ---- generated set: 24 matrices, every family; nnz in comments (approximate) ---------------
GEN1=(
  "laplace2d5:nx=2000,ny=2000"                       # 4.0e6 rows, 2.0e7 nnz
  "laplace2d9:nx=1500,ny=1500"                       # 2.3e6 rows, 2.0e7 nnz
  "laplace3d7:nx=150"                                # 3.4e6 rows, 2.3e7 nnz
  "laplace3d27:nx=100"                               # 1.0e6 rows, 2.6e7 nnz
  "laplace3d27:nx=150"                               # 3.4e6 rows, 8.9e7 nnz
  "uniform:rows=1000000,nnz=16,seed=1"               # 1.6e7 nnz, uniform rows
  "uniform:rows=2000000,nnz_min=1,nnz_max=63,seed=2" # 6.4e7 nnz, varied rows
  "uniform:rows=4000000,nnz=4,seed=3"                # 1.6e7 nnz, short rows
)
GEN2=(
  "uniform:rows=200000,nnz=500,seed=4"               # 1.0e8 nnz, long rows
  "powerlaw:n=1000000,deg=16,gamma=2.1,seed=5"       # 1.6e7 nnz
  "powerlaw:n=4000000,deg=8,gamma=2.5,seed=6"        # 3.2e7 nnz
  "powerlaw:n=1000000,deg=64,gamma=1.8,seed=7"       # 6.4e7 nnz, heavy hubs
  "banded:n=2000000,lower=8,seed=8"                  # 3.4e7 nnz, full band
  "banded:n=1000000,lower=200,fill=0.05,seed=9"      # 2.1e7 nnz, sparse wide band
  "block:blocks=20000,size=32,seed=10"               # 2.0e7 nnz
  "block:blocks=50000,size_min=1,size_max=64,seed=11" # ~7e7 nnz, varied blocks
)
GEN3=(
  "arrow:n=2000000,dense_rows=2,dense_cols=2,seed=12" # 1.0e7 nnz, two dense rows
  "hypersparse:n=20000000,frac=0.01,nnz=16,seed=13"  # 3.2e6 nnz, 99% empty rows
  "hypersparse:n=4000000,frac=0.1,nnz=32,seed=14"    # 1.3e7 nnz
  "kron:file=$R/NotreDame_www.mtx.gz,nnz=3e7,seed=15"            # web graph pattern
  "kron:file=$R/4elt.mtx.gz,nnz=2e7,seed=16"                     # 2D FEM mesh pattern
  "kron:file=$R/PGPgiantcompo.mtx.gz,nnz=2e7,jitter=0.1,seed=17" # social graph, jittered
  "kron:file=$R/astro-ph.mtx.gz,nnz=5e7,seed=18"                 # collaboration graph
  "kron:file=$R/airfoil1.mtx.gz,nnz=1e7,block=4,density=0.3,seed=19" # airfoil mesh
)

run_part() {  # name, then --gen/--amtx arguments
  local name=$1; shift
  local cmd=("$BIN" "$@" --repeat "$REPEAT" --warmup "$WARMUP" --precision "$PRECISION"
             --json "$OUT/spmv_$name.json" --csv "$OUT/spmv_$name.csv" "${EXTRA[@]}")
  echo "== part $name: ${cmd[*]}" | tee "$OUT/spmv_$name.log"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv >> "$OUT/spmv_$name.log" 2>&1 || true
  "${cmd[@]}" >> "$OUT/spmv_$name.log" 2>&1
  local rc=$?
  echo "== part $name exit $rc" | tee -a "$OUT/spmv_$name.log"
  return $rc
}

gen_args() { local a=(); for s in "$@"; do a+=(--gen "$s"); done; printf '%s\0' "${a[@]}"; }
rc=0
# Half parts (4 matrices each) for when a whole part would not fit one device call: the 24
# row-permuted candidates add permutation builds (windowed Hamming greedies on the device,
# LPT/RCM partly on the host) to every matrix's prep.
PARTS=(gen1 gen2 gen3 real)
case "$PART" in all) ;; *) PARTS=("$PART") ;; esac
for p in "${PARTS[@]}"; do
  case $p in
    gen1) mapfile -d '' A < <(gen_args "${GEN1[@]}") ;;
    gen2) mapfile -d '' A < <(gen_args "${GEN2[@]}") ;;
    gen3) mapfile -d '' A < <(gen_args "${GEN3[@]}") ;;
    gen1a) mapfile -d '' A < <(gen_args "${GEN1[@]:0:4}") ;;
    gen1b) mapfile -d '' A < <(gen_args "${GEN1[@]:4:4}") ;;
    gen2a) mapfile -d '' A < <(gen_args "${GEN2[@]:0:4}") ;;
    gen2b) mapfile -d '' A < <(gen_args "${GEN2[@]:4:4}") ;;
    gen3a) mapfile -d '' A < <(gen_args "${GEN3[@]:0:4}") ;;
    gen3b) mapfile -d '' A < <(gen_args "${GEN3[@]:4:4}") ;;
    real) A=(--amtx "$R") ;;  # complex / unreadable files are recorded as errors, run goes on
    *) echo "ERROR: unknown part '$p' (gen1|gen2|gen3|gen1a..gen3b|real|all)" >&2; exit 2 ;;
  esac
  run_part "$p" "${A[@]}" || rc=1
done
# Tables + box plot over every part present so far (python3 + numpy + matplotlib).
PY=""
for c in /usr/bin/python3 python3; do
  [[ -z "$PY" ]] && "$c" -c 'import numpy, matplotlib' >/dev/null 2>&1 && PY=$c
done
if [[ -n "$PY" ]] && compgen -G "$OUT/spmv_*.json" >/dev/null; then
  "$PY" "$REPO_ROOT/tools/train/summarize_spmv.py" "$OUT"/spmv_*.json \
    --out-md "$OUT/spmv_summary.md" --out-png "$OUT/spmv_speedups.png" \
    --out-json "$OUT/summary_spmv_stats.json" || echo "WARNING: summarize_spmv.py failed" >&2
else
  echo "NOTE: no python3 with numpy+matplotlib here: run tools/train/summarize_spmv.py on the JSONs later"
fi
exit $rc
