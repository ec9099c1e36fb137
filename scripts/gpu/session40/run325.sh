#!/usr/bin/env bash
# Session 40, runs 325 (order a, after the carried tests) and 326 (order b), on one lease: the first
# numeric's lanes rule (at least 16 lanes from a mean of 32 products a row, the new default) against
# the rule before it (--esc-numeric-lanes16-from 0), cuSPARSE ALG1 and SpGEMMreuse alongside in the
# default's variant, one binary. Laplacian set (kkperm_spgemm A², AP, R(AP); kkperm_amg), 3 rounds,
# and the uniform / Kronecker 4elt / banded A² set, 2 rounds: session 39's run313.sh with these
# variants. The perf tools of this build record the byte floor and the measured copy rate, which
# tools/bench/spgemm_floor_table.py reads. Then a one-matrix kkperm_spmv run (its peak measurement
# moved into the shared CLI this session).
# Carry CARRY: bin.tgz (new/ with kkperm_spgemm, kkperm_amg, kkperm_spmv), t/ (bin.tgz with
# new/kkperm_test_*, matrices/real with 4elt).
# Usage (GPU host, repo root): [CARRY=.carry/s40a] bash scripts/gpu/session40/run325.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
CARRY=${CARRY:-.carry/s40a}
VARIANTS_AB="new@esc,cusparse_alg1,cusparse_reuse new:--esc-numeric-lanes16-from+0@esc" \
GENS_BROAD='A2:uniform:rows=1000000,nnz=8,seed=1 A2:uniform:rows=1000000,nnz=6,seed=3 A2:kron:file=$M/4elt.mtx.gz,nnz=4e6,seed=16 A2:banded:n=1000000,lower=4,seed=8' \
BROAD_DL=150 BROAD_HARD=190 CARRY=$CARRY bash scripts/gpu/session39/run313.sh "${1:-run325}" "${2:-a}"
if [[ ${2:-a} == a ]]; then
  mkdir -p "$OUT/${1:-run325}_spmv"
  timeout 120 "$CARRY/new/kkperm_spmv" --gen laplace2d5:nx=1000,ny=1000 --candidates csr_vector,cusparse_csr_alg1 \
    --repeat 20 --warmup 5 --json "$OUT/${1:-run325}_spmv/spmv.json" > "$OUT/${1:-run325}_spmv/spmv.log" 2>&1
  echo "kkperm_spmv rc=$?" >> "$OUT/${1:-run325}_spmv/spmv.log"
  tar -czf "$OUT/${1:-run325}_spmv.tgz" -C "$OUT" "${1:-run325}_spmv" && rm -rf "$OUT/${1:-run325}_spmv"
fi
