#!/usr/bin/env bash
# GPU SpMM benchmark (issue 4): every SpMM candidate (both layouts) on a generated GPU-scale set
# (22 matrices, ~1e6..1e8 nnz, every generator family incl. Kronecker expansions of real
# patterns) and on the real matrices, K = 32 and 128, one device; JSON + CSV + log under $OUT,
# then the summary table + box plot (tools/train/summarize_spmm.py) when python3 is there.
#
# Usage (GPU host, repo root, after scripts/gpu/pack_for_gpu.sh shipped .carry/kkperm-gpu):
#   bash scripts/gpu/bench_spmm.sh [PART] [-- extra kkperm_spmm flags]
#   PART: gen1..gen5 | real1 | real2 | summary | all (default all). Each part is sized to finish
#   under 10 minutes on an H100/H200 (row counts are kept <= 4e6 so six n x K f64 dense
#   operands at K = 128 fit in 80 GB); results go to $OUT/spmm_<part>.{json,csv,log}.
# Environment: OUT (default ./gpu-out), KKPERM_SPMM (binary; default .carry/kkperm-gpu/perf/
#   kkperm_spmm, else build-cuda/perf_test/kkperm_spmm), KKPERM_MATRICES (folder holding real/),
#   REPEAT (default 20), WARMUP (default 5), PRECISION (f64|f32|both, default f64),
#   KS (comma list, default 32,128).
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
KS=${KS:-32,128}

BIN=$(kkperm_find_bin kkperm_spmm "${KKPERM_SPMM:-}") || exit 2
kkperm_find_matrices
mkdir -p "$OUT"

# ---- generated set: 22 matrices, every family; rows / nnz in comments (approximate) ---------
GEN1=(
  "laplace2d5:nx=1000,ny=1000"                       # 1.0e6 rows, 5.0e6 nnz
  "laplace2d9:nx=1000,ny=1000"                       # 1.0e6 rows, 9.0e6 nnz
  "laplace3d7:nx=100"                                # 1.0e6 rows, 6.9e6 nnz
  "laplace3d27:nx=100"                               # 1.0e6 rows, 2.6e7 nnz
  "uniform:rows=2000000,nnz=4,seed=3"                # 8.0e6 nnz, short rows
)
GEN2=(
  "uniform:rows=1000000,nnz=16,seed=1"               # 1.6e7 nnz, uniform rows
  "uniform:rows=1000000,nnz_min=1,nnz_max=63,seed=2" # 3.2e7 nnz, varied rows
  "uniform:rows=200000,nnz=500,seed=4"               # 1.0e8 nnz, long rows
  "powerlaw:n=1000000,deg=16,gamma=2.1,seed=5"       # 1.6e7 nnz
)
GEN3=(
  "powerlaw:n=2000000,deg=8,gamma=2.5,seed=6"        # 1.6e7 nnz
  "powerlaw:n=500000,deg=64,gamma=1.8,seed=7"        # 3.2e7 nnz, heavy hubs
  "banded:n=2000000,lower=8,seed=8"                  # 3.4e7 nnz, full band
  "banded:n=1000000,lower=200,fill=0.05,seed=9"      # 2.1e7 nnz, sparse wide band
)
GEN4=(
  "block:blocks=20000,size=32,seed=10"               # 6.4e5 rows, 2.0e7 nnz
  "block:blocks=30000,size_min=1,size_max=64,seed=11" # ~1e6 rows, ~4e7 nnz, varied blocks
  "arrow:n=1000000,dense_rows=2,dense_cols=2,seed=12" # ~5e6 nnz, two dense rows
  "hypersparse:n=4000000,frac=0.1,nnz=32,seed=14"    # 1.3e7 nnz, 90% empty rows
  "hypersparse:n=2000000,frac=0.01,nnz=64,seed=13"   # 1.3e6 nnz, 99% empty rows
)
GEN5=(
  "kron:file=$R/NotreDame_www.mtx.gz,nnz=3e7,seed=15"            # web graph pattern
  "kron:file=$R/4elt.mtx.gz,nnz=2e7,seed=16"                     # 2D FEM mesh pattern
  "kron:file=$R/PGPgiantcompo.mtx.gz,nnz=2e7,jitter=0.1,seed=17" # social graph, jittered
  "kron:file=$R/astro-ph.mtx.gz,nnz=5e7,seed=18"                 # collaboration graph
  "kron:file=$R/airfoil1.mtx.gz,nnz=1e7,block=4,density=0.3,seed=19" # airfoil mesh
)
# Real matrices in two halves (sorted file names) so each part stays under 10 minutes.
mapfile -t REAL_FILES < <(find "$R" -maxdepth 1 -name '*.mtx.gz' | sort)
HALF=$(( (${#REAL_FILES[@]} + 1) / 2 ))

run_part() {  # name, then --gen/--amtx arguments
  local name=$1; shift
  [[ -x "$BIN" ]] || { echo "ERROR: kkperm_spmm not found (set KKPERM_SPMM)" >&2; return 2; }
  local cmd=("$BIN" "$@" --K "$KS" --all-layouts --repeat "$REPEAT" --warmup "$WARMUP"
             --precision "$PRECISION" --json "$OUT/spmm_$name.json" --csv "$OUT/spmm_$name.csv"
             "${EXTRA[@]}")
  echo "== part $name: ${cmd[*]}" | tee "$OUT/spmm_$name.log"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv >> "$OUT/spmm_$name.log" 2>&1 || true
  "${cmd[@]}" >> "$OUT/spmm_$name.log" 2>&1
  local rc=$?
  echo "== part $name exit $rc" | tee -a "$OUT/spmm_$name.log"
  return $rc
}

gen_args() { local a=(); for s in "$@"; do a+=(--gen "$s"); done; printf '%s\0' "${a[@]}"; }
case "$PART" in
  gen1|gen2|gen3|gen4|gen5|real1|real2|summary|all) ;;
  *) echo "ERROR: unknown part '$PART' (gen1..gen5|real1|real2|summary|all)" >&2; exit 2 ;;
esac
rc=0
for p in gen1 gen2 gen3 gen4 gen5 real1 real2; do
  [[ "$PART" != all && "$PART" != "$p" ]] && continue
  case $p in
    gen1) mapfile -d '' A < <(gen_args "${GEN1[@]}") ;;
    gen2) mapfile -d '' A < <(gen_args "${GEN2[@]}") ;;
    gen3) mapfile -d '' A < <(gen_args "${GEN3[@]}") ;;
    gen4) mapfile -d '' A < <(gen_args "${GEN4[@]}") ;;
    gen5) mapfile -d '' A < <(gen_args "${GEN5[@]}") ;;
    # complex / unreadable files are recorded as errors, the run goes on
    real1) A=(); for f in "${REAL_FILES[@]:0:$HALF}"; do A+=(--amtx "$f"); done ;;
    real2) A=(); for f in "${REAL_FILES[@]:$HALF}"; do A+=(--amtx "$f"); done ;;
  esac
  run_part "$p" "${A[@]}" || rc=1
done
if [[ "$PART" == all || "$PART" == summary ]]; then
  shopt -s nullglob
  files=("$OUT"/spmm_gen*.json "$OUT"/spmm_real*.json)
  PY=${PYTHON:-python3}
  [[ -x /usr/bin/python3 && -z "${PYTHON:-}" ]] && PY=/usr/bin/python3  # Debian numpy/matplotlib
  if [[ ${#files[@]} -gt 0 ]] && command -v "$PY" >/dev/null 2>&1; then
    "$PY" "$REPO_ROOT/tools/train/summarize_spmm.py" "${files[@]}" \
      --out-md "$OUT/spmm_summary.md" --out-png "$OUT/spmm_speedups.png" \
      --out-json "$OUT/spmm_summary.json" ||
      echo "WARNING: summary failed (needs numpy + matplotlib); run tools/train/summarize_spmm.py on the JSON elsewhere" >&2
  fi
fi
exit $rc
