#!/usr/bin/env bash
# Session 39, run 316 (and its reverse order): the lanes rule (twice the lanes when every warp-row
# row then fits the registers) at the default, against MID and mode 0, cuSPARSE ALG1 alongside;
# the carried tests first in order a. Laplacian set (3 rounds) and the uniform / Kronecker /
# banded A² set (2 rounds), one binary: run313.sh with these variants and this broad set.
# Carry CARRY: bin.tgz (new/ with kkperm_spgemm, kkperm_amg), t/ (bin.tgz with new/kkperm_test_*,
# matrices/real with 4elt).
# Usage (GPU host, repo root): [CARRY=.carry/s39d] [MID=VARIANT] bash scripts/gpu/session39/run316.sh TAG a|b
# MID: the middle variant (runs 316-317: mode 3; runs 318-319, default mode 3: "new:--esc-register-sort+2@esc")
set -uo pipefail
cd "$(dirname "$0")/../../.."
VARIANTS_AB="new@esc,cusparse_alg1 ${MID:-new:--esc-register-sort+3@esc} new:--esc-register-sort+0@esc" \
GENS_BROAD='A2:uniform:rows=1000000,nnz=8,seed=1 A2:uniform:rows=1000000,nnz=6,seed=3 A2:kron:file=$M/4elt.mtx.gz,nnz=4e6,seed=16 A2:banded:n=1000000,lower=4,seed=8' \
BROAD_DL=150 BROAD_HARD=190 CARRY=${CARRY:-.carry/s39d} exec bash scripts/gpu/session39/run313.sh "${1:-run316}" "${2:-a}"
