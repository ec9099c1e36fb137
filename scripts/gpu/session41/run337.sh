#!/usr/bin/env bash
# Session 41, run 337 (ORDER a) and 338 (b), one lease: the carried SpGEMM tests of the new build
# (order a only), then its new defaults (the column-window sample's 32 lanes, the values band for
# register-sorted ranges only) against the same binary with both off (old: --esc-no-wide-window-lanes
# --esc-setup-warp-band-any-rows), interleaved, ROUNDS rounds (ORDER a: new first, b: old first).
# kkperm_spgemm on the products of runs 333-336 (the band's means 64-95; uniform 10^6 x 9 and x 10
# A², wide windows; controls: 3D 7-point A² (the sample runs, lanes unchanged), 2D 5-point A² (no
# sample)), cuSPARSE ALG1 beside the new variant on the uniform ones; kkperm_amg on the 2D 5-point,
# 3D 7-point and 3D 27-point (nx 64) Laplacians; one traced 2D 5-point R(AP) setup of new and old.
# Variant regall (below) on the kkperm_spgemm cases.
# Carry CARRY: bin.tar.xz (new/ with kkperm_spgemm, kkperm_amg, kkperm_test_kernels_spgemm_*) and
# matrices/real (shared/matrices/real).
# Usage (GPU host, repo root): [CARRY=.carry/s41b] bash scripts/gpu/session41/run337.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run337}
ORDER=${2:-a}
CARRY=${CARRY:-.carry/s41b}
ROUNDS=${ROUNDS:-2}
source scripts/gpu/lib/session_common.sh
# the binaries come xz-packed (bin.tar.xz) to fit the carry with the real matrices
if [[ ! -d $CARRY/new && -f $CARRY/bin.tar.xz ]]; then
  tar -xJf "$CARRY/bin.tar.xz" -C "$CARRY" 2>/dev/null ||
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$CARRY/bin.tar.xz" "$CARRY"
fi
carry_setup "$CARRY" "$TAG" 560
[[ $ORDER == a ]] && run_tests 200
if [[ $ORDER == a ]]; then VARS=(new old regall); else VARS=(regall old new); fi
OLD_ARGS="--esc-no-wide-window-lanes --esc-setup-warp-band-any-rows"
# regall (kkperm_spgemm only): the new defaults with the band widened to every mean, i.e. values in
# the count pass for every register-sorted warp-row range
REGALL_ARGS="--esc-setup-warp-band-from 1 --esc-setup-warp-band-below 1000000"
CASES=("spgemm|laplace2d5:nx=1000,ny=1000|A2,RAP|esc" "spgemm|laplace2d9:nx=1000,ny=1000|A2|esc"
       "spgemm|banded:n=1000000,lower=4,seed=8|A2|esc" "spgemm|banded:n=1000000,lower=4,fill=0.9,seed=8|A2|esc"
       "spgemm|uniform:rows=1000000,nnz=8,seed=1|A2|esc" "spgemm|uniform:rows=1000000,nnz=9,seed=2|A2|esc,cusparse_alg1"
       "spgemm|uniform:rows=1000000,nnz=10,seed=2|A2|esc,cusparse_alg1" "spgemm|laplace3d7:nx=100|A2|esc"
       "amg|laplace2d5:nx=1000,ny=1000||esc" "amg|laplace3d7:nx=100||esc" "amg|laplace3d27:nx=64||esc")
for r in $(seq 1 "$ROUNDS"); do
  for ci in "${!CASES[@]}"; do
    IFS='|' read -r tool gen prods cands <<< "${CASES[ci]}"
    for v in "${VARS[@]}"; do
      late "$v c$ci r$r" && continue
      args=""; c=$cands
      [[ $v == old ]] && { args=$OLD_ARGS; c=esc; }
      [[ $v == regall ]] && { [[ $tool == amg ]] && continue; args=$REGALL_ARGS; c=esc; }
      out="$R/${v}_c${ci}_r${r}"
      if [[ $tool == spgemm ]]; then
        timeout 90 "$NEW/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates "$c" --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      else
        timeout 90 "$NEW/kkperm_amg" --gen "$gen" --candidates "$c" --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      fi
      echo "$v c$ci r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
for v in new old; do
  args=""; [[ $v == old ]] && args=$OLD_ARGS
  timeout 60 "$NEW/kkperm_spgemm" --gen laplace2d5:nx=1000,ny=1000 --products RAP --candidates esc --repeat 3 \
    --warmup 1 --setup-repeat 3 --peak-gbs 4000 --trace-setup $args --json "$R/trace_$v.json" > "$R/trace_$v.log" 2>&1
  echo "trace $v rc=$?" >> "$R/runs.txt"
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
