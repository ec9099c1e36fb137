#!/usr/bin/env bash
# GPU SpGEMM benchmark (issue 5): every SpGEMM candidate on an ESC-paper-like set — A², AP and
# R(AP) with a smoothed-aggregation P (kkperm_spgemm), and the SA Galerkin setup / numeric
# re-setup (kkperm_amg) — one device, JSON + CSV + log under $OUT.
#
# Pack (CPU machine), e.g. from the SpGEMM-only CUDA build:
#   scripts/configure_cuda.sh --no-deps --build-dir build-cuda-spgemm --jobs 1 -- \
#     kkperm_test_kernels_spgemm_esc kkperm_test_kernels_spgemm_candidates \
#     kkperm_test_kernels_spgemm_amg kkperm_test_unit_spgemm_features kkperm_spgemm kkperm_amg
#   scripts/gpu/pack_for_gpu.sh --build-dir build-cuda-spgemm --no-build --tests spgemm \
#     --perf 'spgemm|amg'
# GPU host, tests first: bash .carry/kkperm-gpu/run_tests_gpu.sh --filter spgemm
# Usage (GPU host, repo root, after scripts/gpu/pack_for_gpu.sh shipped .carry/kkperm-gpu):
#   bash scripts/gpu/bench_spgemm.sh [PART] [-- extra flags for the tools]
#   PART: smoke | stencil | mesh | graph | amg | tune | ab | all (default all; `all` does NOT fit one
#   10-min device command — run the parts as separate commands).
#
# Time per part. Every tool run (one matrix) has its own hard timeout PER_RUN (default 150 s), so
# a runaway candidate costs at most that run, never the part; a part has at most 3 runs, so its
# hard cap is 3 x 150 s + start-up < 8 min. Expected times below are ESTIMATES from the sizes
# (products Σ F_i, nnz(C)) at REPEAT=5/WARMUP=1 — not yet measured on an H100/H200:
#   smoke    ~1 min   small 2D/3D stencils + one real graph (A² only): every candidate runs;
#            compare abs_sum_c / nnz_c across candidates (CPU Serial: 8 s at REPEAT=1)
#   stencil  ~3-5 min laplace2d5 1000², laplace3d7 100³ (1M rows), laplace3d27 64³ (2.6e5 rows)
#   mesh     ~2-4 min FE-like: Kronecker expansions of 4elt / airfoil1 to 4e6 nnz (A² only: no
#            diagonal, so no SA prolongator), FE 9-point 1000² (A², AP, RAP)
#   graph    ~3-6 min A² only: power-law 200k, Kronecker of PGPgiantcompo, power-law 1M last
#            (the 1M power-law A² is the known KK 3.4 runaway: the guard should skip KK with a
#            reason; if it does not, PER_RUN ends that run and the log says "timeout")
#   amg      ~3-5 min kkperm_amg (SA setup + RAP setup + numeric re-setup): 2D 5-pt 1000²,
#            3D 7-pt 100³, 3D 27-pt 64³
#   tune     ~1-2 min ESC only, A² of 3D 27-pt 64³ and power-law 200k under 4 bin-threshold /
#            team-size settings (issue 5: thresholds to be tuned on H100 with the measurement
#            recorded); 4 runs with PER_RUN_TUNE (default 100 s) each, hard cap < 7 min
#   ab       ~3-5 min A/B of the ESC numeric slot map and the symbolic scratch hash (issue 5,
#            2026-11-21): esc + cusparse_reuse on A² of the 4elt Kronecker mesh and on
#            laplace3d7 100³ (A², AP, RAP), and kkperm_amg on laplace3d7 100³, each under
#            new (defaults) / search (--esc-slot-map-mib 0: no slot map, every numeric by
#            binary search, the old path) / sort (--esc-team-sort: symbolic warp/block bins by
#            bitonic sort, the old path); 9 runs, PER_RUN_AB (default 60 s) each. Compare
#            numeric_reuse_ms / resetup_numeric_ms (slot map; numeric_ms is the first numeric,
#            which searches and records the slots) and symbolic_ms / setup_ms (hash) across
#            labels and against cusparse_reuse.
#   The graph part runs the power-law A² (nnz(C) > 2^31) through the ESC with 64-bit offsets
#   (kkperm_spgemm --offsets auto, the default); offset_bits and details (peak_bytes,
#   memory_limit, slot_bytes) are in each record. Sizes computed on the CPU from the generated
#   matrices (not yet run on a GPU): power-law 1M: Σ F_i = 2.44e9, nnz(C) = 2.34e9, C with
#   64-bit offsets ≈ 28.1 GB, 4-byte slot map ≈ 9.8 GB; power-law 200k: Σ F_i = 1.13e10,
#   nnz(C) = 7.39e9, C ≈ 88.7 GB (fits 0.8 x an H200, not an H100: skipped there with the
#   estimate), slot map ≈ 45 GB does not fit beside C (numeric by binary search). These runs
#   may need PER_RUN=300.
# Results: $OUT/spgemm_<part>_<k>.{json,csv,log} (k = run index in the part) and
#   $OUT/spgemm_<part>.log (part log with nvidia-smi and each run's exit status / elapsed s).
# Environment: OUT (default ./gpu-out), KKPERM_SPGEMM / KKPERM_AMG (binaries; default
#   .carry/kkperm-gpu/perf/, else build-cuda/perf_test/), KKPERM_MATRICES (folder holding real/),
#   REPEAT (default 5), WARMUP (default 1), PER_RUN (seconds, default 150).
# Exit status: 0 when every run of the part exited 0; 1 otherwise (timeouts, errors).
set -uo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib/bench_common.sh
source "$REPO_ROOT/scripts/gpu/lib/bench_common.sh"
OUT=${OUT:-$PWD/gpu-out}
PART=${1:-all}
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
EXTRA=("$@")
REPEAT=${REPEAT:-5}
WARMUP=${WARMUP:-1}
PER_RUN=${PER_RUN:-150}
case "$PART" in smoke|stencil|mesh|graph|amg|tune|ab|all) ;; -h|--help) sed -n '2,50p' "$0"; exit 0 ;;
  *) echo "ERROR: unknown part '$PART' (smoke|stencil|mesh|graph|amg|tune|ab|all)" >&2; exit 2 ;; esac

# CUDA runtime libraries (libcusparse, libcudart) of the GPU image.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/targets/sbsa-linux/lib; do
  [[ -d "$d" ]] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH

SPGEMM=$(kkperm_find_bin kkperm_spgemm "${KKPERM_SPGEMM:-}") || exit 2
AMG=$(kkperm_find_bin kkperm_amg "${KKPERM_AMG:-}") || exit 2
kkperm_find_matrices
mkdir -p "$OUT"

# ESC paper set (Dalton/Olson/Bell 2015): 2D FD 5-pt, 3D FD 7-pt (~1M rows), 3D FE 27-pt (reduced
# to 2.6e5 rows so A² — 729 products/row — stays within the part's time), unstructured FE-like
# meshes (Kronecker expansions of real 2D mesh patterns), graph-like.
SMOKE=(
  "laplace2d5:nx=200,ny=200"
  "laplace3d27:nx=20"
  "A2:file:$R/PGPgiantcompo.mtx.gz"   # no diagonal: A² only
)
STENCIL=(
  "laplace2d5:nx=1000,ny=1000"        # 1.0e6 rows, 5.0e6 nnz
  "laplace3d7:nx=100"                 # 1.0e6 rows, 6.9e6 nnz
  "laplace3d27:nx=64"                 # 2.6e5 rows, 6.9e6 nnz; A²: 1.9e8 products
)
MESH=(  # the Kronecker meshes have no full diagonal (no SA prolongator): A² only
  "A2:kron:file=$R/4elt.mtx.gz,nnz=4e6,seed=16"                        # 2D FEM mesh pattern
  "A2:kron:file=$R/airfoil1.mtx.gz,nnz=4e6,block=4,density=0.3,seed=19" # airfoil mesh
  "laplace2d9:nx=1000,ny=1000"                                         # FE 9-pt, 1M rows: A2/AP/RAP
)
GRAPH=(
  "powerlaw:n=200000,deg=16,gamma=2.1,seed=5"
  "kron:file=$R/PGPgiantcompo.mtx.gz,nnz=4e6,seed=17"
  "powerlaw:n=1000000,deg=8,gamma=2.5,seed=6"   # last: KK A² is the known runaway (guard)
)
AMGSET=(
  "laplace2d5:nx=1000,ny=1000"
  "laplace3d7:nx=100"
  "laplace3d27:nx=64"
)

PART_RC=0
run_one() {  # part, index, binary, then tool args (one matrix)
  local part=$1 k=$2 bin=$3; shift 3
  local base="$OUT/spgemm_${part}_$k"
  local cmd=("$bin" "$@" --repeat "$REPEAT" --warmup "$WARMUP"
             --json "$base.json" --csv "$base.csv" "${EXTRA[@]}")
  echo "== $part/$k: timeout $PER_RUN ${cmd[*]}" | tee -a "$OUT/spgemm_$part.log" > "$base.log"
  local t0=$SECONDS
  timeout --kill-after=10 "$PER_RUN" "${cmd[@]}" >> "$base.log" 2>&1
  local rc=$?
  local what="exit $rc"
  [[ $rc -eq 124 || $rc -eq 137 ]] && what="TIMEOUT after ${PER_RUN}s (rc $rc)"
  echo "== $part/$k: $what, $((SECONDS - t0)) s" | tee -a "$OUT/spgemm_$part.log" >> "$base.log"
  [[ $rc -eq 0 ]] || PART_RC=1
}
part_log_start() {  # part, its time-limit setting: truncates the part log, writes its header
  : > "$OUT/spgemm_$1.log"
  echo "== part $1: $(date -u +%FT%TZ), REPEAT=$REPEAT WARMUP=$WARMUP $2" >> "$OUT/spgemm_$1.log"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv >> "$OUT/spgemm_$1.log" 2>&1 || true
}
run_part() {  # part, binary, extra tool flags..., '--', gen specs...
  local part=$1 bin=$2; shift 2
  local flags=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do flags+=("$1"); shift; done
  shift
  part_log_start "$part" "PER_RUN=$PER_RUN"
  local t0=$SECONDS k=0 s
  for s in "$@"; do
    local f=("${flags[@]}")
    # "A2:" prefix: A² only (matrices without a full diagonal have no SA prolongator)
    if [[ "$s" == A2:* ]]; then f+=(--products A2); s=${s#A2:}; fi
    if [[ "$s" == file:* ]]; then run_one "$part" "$k" "$bin" "${f[@]}" --amtx "${s#file:}"
    else run_one "$part" "$k" "$bin" "${f[@]}" --gen "$s"; fi
    k=$((k + 1))
  done
  echo "== part $part done in $((SECONDS - t0)) s, rc $PART_RC" | tee -a "$OUT/spgemm_$part.log"
}

TUNE_MATS=("laplace3d27:nx=64" "powerlaw:n=200000,deg=16,gamma=2.1,seed=5")
TUNE_CFGS=(  # label | ESC flags
  "default|--esc-warp 736 --esc-team 6144 --esc-block-threads 256 --esc-global-threads 512"
  "half|--esc-warp 368 --esc-team 3072 --esc-block-threads 128 --esc-global-threads 256"
  "double|--esc-warp 1472 --esc-team 12288 --esc-block-threads 512 --esc-global-threads 1024"
  "bigblock|--esc-warp 736 --esc-team 6144 --esc-block-threads 512 --esc-global-threads 256"
)
run_tune() {
  part_log_start tune "PER_RUN_TUNE=${PER_RUN_TUNE:-100}"
  local t0=$SECONDS c label flags gens=() m
  for m in "${TUNE_MATS[@]}"; do gens+=(--gen "$m"); done
  local save=$PER_RUN
  PER_RUN=${PER_RUN_TUNE:-100}
  for c in "${TUNE_CFGS[@]}"; do
    label=${c%%|*}
    read -r -a flags <<< "${c#*|}"
    run_one tune "$label" "$SPGEMM" --candidates esc --products A2 "${flags[@]}" "${gens[@]}"
  done
  PER_RUN=$save
  echo "== part tune done in $((SECONDS - t0)) s, rc $PART_RC" | tee -a "$OUT/spgemm_tune.log"
}

AB_CFGS=(  # label | ESC flags
  "new|"
  "search|--esc-slot-map-mib 0"
  "sort|--esc-team-sort"
)
run_ab() {
  part_log_start ab "PER_RUN_AB=${PER_RUN_AB:-60}"
  local t0=$SECONDS c label flags=()
  local save=$PER_RUN
  PER_RUN=${PER_RUN_AB:-60}
  for c in "${AB_CFGS[@]}"; do
    label=${c%%|*}
    flags=()
    read -r -a flags <<< "${c#*|}"
    run_one ab "mesh_$label" "$SPGEMM" --candidates esc,cusparse_reuse "${flags[@]}" \
      --products A2 --gen "kron:file=$R/4elt.mtx.gz,nnz=4e6,seed=16"
    run_one ab "stencil_$label" "$SPGEMM" --candidates esc,cusparse_reuse "${flags[@]}" \
      --gen "laplace3d7:nx=100"
    run_one ab "amg_$label" "$AMG" --candidates esc,cusparse_reuse "${flags[@]}" --gen "laplace3d7:nx=100"
  done
  PER_RUN=$save
  echo "== part ab done in $((SECONDS - t0)) s, rc $PART_RC" | tee -a "$OUT/spgemm_ab.log"
}

for p in smoke stencil mesh graph amg tune ab; do
  [[ "$PART" != all && "$PART" != "$p" ]] && continue
  case $p in
    smoke)   run_part "$p" "$SPGEMM" -- "${SMOKE[@]}" ;;
    stencil) run_part "$p" "$SPGEMM" -- "${STENCIL[@]}" ;;
    mesh)    run_part "$p" "$SPGEMM" -- "${MESH[@]}" ;;
    graph)   run_part "$p" "$SPGEMM" --products A2 -- "${GRAPH[@]}" ;;
    amg)     run_part "$p" "$AMG" -- "${AMGSET[@]}" ;;
    tune)    run_tune ;;
    ab)      run_ab ;;
  esac
done
exit $PART_RC
