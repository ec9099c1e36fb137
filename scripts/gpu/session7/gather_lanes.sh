#!/usr/bin/env bash
# Session 7: the ESC gather numeric with vector lanes per C entry (auto: largest power of two <=
# the mean products per entry) against one thread per entry (--esc-gather-lanes 1), kkperm_spgemm
# A2/AP/RAP (A2 only for matrices without a full diagonal), esc + cusparse_reuse in the same
# process, no structure check; kkperm_amg re-setup with and without the check; the CUDA SpGEMM
# tests. Binaries: .carry/s7/bin.tgz new/ (this session's build).
# LANES (default "0 1") lists the --esc-gather-lanes values; run 34 ran the first rule for 0
# (largest power of two <= the mean), run 35 the committed one (32 when the mean is >= 32, else 1)
# with LANES=0.
# Usage (GPU host, repo root): [LANES=...] [DEADLINE_S=480] bash scripts/gpu/session7/gather_lanes.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-lanes7}
LANES=${LANES:-0 1}
source scripts/gpu/session7/common.sh
s7_setup "$TAG"
SPECS=(  # products:spec
  "A2,AP,RAP:laplace2d5:nx=1000,ny=1000"
  "A2,AP,RAP:laplace3d7:nx=100"
  "A2,AP,RAP:laplace3d27:nx=64"
  "A2,AP,RAP:laplace2d9:nx=1000,ny=1000"
  "A2:kron:file=$M/4elt.mtx.gz,nnz=4e6,seed=16"
  "A2:kron:file=$M/PGPgiantcompo.mtx.gz,nnz=4e6,seed=17"
  "A2:powerlaw:n=200000,deg=16,gamma=2.1,seed=5"
)
j=0
for s in "${SPECS[@]}"; do
  prods=${s%%:*}; g=${s#*:}
  for lanes in $LANES; do
    late "spgemm $j" && continue
    timeout 150 $NEW/kkperm_spgemm --gen "$g" --products "$prods" --candidates esc,cusparse_reuse --no-reuse-check \
      --esc-gather-lanes $lanes --repeat 10 --warmup 2 --json "$R/spgemm_${j}.json" > "$R/spgemm_${j}.log" 2>&1
    echo "spgemm $j lanes=$lanes $g rc=$?" >> "$R/runs.txt"
    j=$((j + 1))
  done
done
i=0
for g in "laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64" "laplace2d9:nx=1000,ny=1000"; do
  for chk in "" "--no-reuse-check"; do
    late "amg $i" && continue
    timeout 120 $NEW/kkperm_amg --gen "$g" --candidates esc,cusparse_reuse $chk --repeat 10 --warmup 2 \
      --json "$R/amg_${i}.json" > "$R/amg_${i}.log" 2>&1
    echo "$i round=1 new $g ${chk:-check} rc=$?" >> "$R/runs.txt"
    i=$((i + 1))
  done
done
tests_and_pack "$TAG"
