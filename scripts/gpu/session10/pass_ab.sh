#!/usr/bin/env bash
# Session 10 device call: the entry-parallel feature row pass (FeatureParams::RowPass::entries).
#  1. CUDA tests of the new binaries (every row pass against the serial twin);
#  2. on the 11-matrix generated set, old and new kkperm_features interleaved ROUNDS times
#     (default 2): `--perms none` (validate, set 1, set 2, sets 1+2 fused, one KK SpMV); new also
#     times sets 1+2 fused with `--row-pass PASSES` (default automatic,entries,rows; run 48's
#     build knew entries,rows only: rows = its thread-per-row pass with that build's team sizing);
#  3. ncu of one new feature pass on NCU_GENS (default: none): kernel times, plus the sections in
#     NCU_SECTIONS (default: SpeedOfLight MemoryWorkloadAnalysis) for the row-pass kernels.
# Usage (GPU host, repo root): [S10_CARRY=.carry/s10] [DEADLINE_S=480] [ROUNDS=2] [PASSES=..] [NCU_GENS=..]
#   bash scripts/gpu/session10/pass_ab.sh TAG -> $OUT/TAG.tgz. The carry's bin.tgz holds new/
#   (this build's kkperm_features and feature tests) and old/kkperm_features (the build compared
#   with; docs/gpu_test_runs.md names it per run).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-pass10}
S8_CARRY=${S10_CARRY:-.carry/s10}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
res_usage RowPassAcc
run_tests 240
feature_rounds --row-pass "${PASSES:-automatic,entries,rows}"
ncu_gens none
i=0
for g in ${NCU_GENS:-}; do
  i=$((i+1))
  late "ncu sections $g" && continue
  timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:RowPassAcc \
    $(for s in ${NCU_SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis}; do echo --section $s; done) \
    $NEW/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none --row-pass rows \
    > "$R/ncu_sections_$i.txt" 2> "$R/ncu_sections_$i.err"
  gzip -f "$R/ncu_sections_$i.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
