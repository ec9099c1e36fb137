#!/usr/bin/env bash
# Session 44 (H200): row-major SpMM build variants (scripts/gpu/session22/build_spmm_variants.sh)
# against the build as configured, one process per variant and matrix, the variants' order
# reversed on every other matrix. A variant named cN (N = -1 or 0..100, "cm1" for -1) with no
# folder of its own runs new/kkperm_spmm with KKPERM_SPMM_RM_CARVEOUT=N (the row kernels' carveout
# hint, read at run time). candidates CANDS (default the row-major kernels' candidates;
# `new` also runs cuSPARSE ALG2 row-major as the reference), K = KS (32,128), B and Y row-major,
# f64, --repeat 10 --warmup 2 --budget-ms 200 --prep-repeat 1.
#   BINS: the variants (default "new c0 m6 c0m6 c0m4"); REF: the one that also runs cuSPARSE;
#   GENS: the matrices (default: 2D/3D stencils, uniform, power law, banded, 4elt Kronecker);
#   NCU=1: afterwards, Nsight Compute of row_major on laplace3d7 K = 32 for each variant (the
#          second launch: the carveout hint is set after the first).
# Carry CARRY (default .carry/s44b): bin.tgz with the variant folders, and matrices/real.
# Usage (GPU host, repo root): bash scripts/gpu/session44/ab354.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-run354}
carry_setup "${CARRY:-.carry/s44b}" "$TAG" "${DEADLINE_S:-480}"
M=$KKPERM_MATRICES/real
BINS=${BINS:-"new c0 m6 c0m6 c0m4"}
CANDS=${CANDS:-row_major,row_major_chunked,row_major_lpt,row_major_dcsr}
GENS=${GENS:-"laplace3d7:nx=100 laplace2d5:nx=1000,ny=1000 laplace2d9:nx=1000,ny=1000 laplace3d27:nx=100 uniform:rows=1000000,nnz=16,seed=1 powerlaw:n=1000000,deg=16,gamma=2.1,seed=5 banded:n=2000000,lower=8,seed=8 kron:file=$M/4elt.mtx.gz,nnz=2e7,seed=16"}
# variant_bin V: bin = V's kkperm_spmm, or new's with env = (KKPERM_SPMM_RM_CARVEOUT=N) for cN / cmN
variant_bin() {
  bin=$C/$1/kkperm_spmm env=()
  if [[ ! -x $bin && $1 =~ ^c(m?)([0-9]+)$ ]]; then
    bin=$C/new/kkperm_spmm env=(KKPERM_SPMM_RM_CARVEOUT=${BASH_REMATCH[1]:+-}${BASH_REMATCH[2]})
  fi
}
i=0
for g in $GENS; do
  i=$((i+1))
  order=$BINS
  (( i % 2 == 0 )) && order=$(echo $BINS | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do
    late "$v $g" && continue
    c=$CANDS; [[ $v == ${REF:-new} ]] && c=$CANDS,cusparse_csr_alg2_row
    variant_bin "$v"
    env "${env[@]}" timeout "$(capped 90)" "$bin" --gen "$g" --candidates "$c" --K "${KS:-32,128}" --layout right \
      --repeat 10 --warmup 2 --budget-ms 200 --prep-repeat 1 --json "$R/${v}_$i.json" > "$R/${v}_$i.log" 2>&1
    echo "$v $i $g rc=$? t=$SECONDS" >> "$R/runs.txt"
  done
done
if [[ ${NCU:-0} == 1 ]]; then
  for v in $BINS; do
    late "ncu $v" && continue
    variant_bin "$v"
    env "${env[@]}" timeout "$(capped 90)" ncu --clock-control none --kernel-name-base demangled --kernel-name regex:row_major_run \
      --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
      --section WarpStateStats "$bin" --gen laplace3d7:nx=100 --candidates row_major --K 32 --layout right \
      --repeat 2 --warmup 0 --prep-repeat 1 > "$R/ncu_$v.txt" 2>&1
    echo "ncu $v rc=$? t=$SECONDS" >> "$R/runs.txt"
  done
fi
gzip -f "$R"/*.json "$R"/ncu_*.txt 2>/dev/null
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
