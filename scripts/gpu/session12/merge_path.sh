#!/usr/bin/env bash
# Session 12 device call: the CTA-tiled merge-path SpMV (csr_merge_path).
#  1. kkperm_test_kernels_spmv_candidates with KKPERM_TEST_SPMV_CANDIDATES=csr_merge_path,...
#     (corner cases incl. merge_path_borders and every real matrix, float and double);
#  2. the 24-matrix generated set of bench_spmv.sh (gen1, gen2, gen3) with the unpermuted
#     candidates in CANDS (default below), f64, REPEAT/WARMUP as bench_spmv.sh;
#  3. cuobjdump -res-usage of the merge-path kernels; ncu of NCU_CANDS on each spec in NCU_GENS.
# Usage (GPU host, repo root): [S12_CARRY=.carry/s12] [DEADLINE_S=540] [PARTS="gen1 gen2 gen3"]
#   bash scripts/gpu/session12/merge_path.sh TAG -> $OUT/TAG.tgz (results, logs, summary inputs).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-mp12}
source scripts/gpu/session12/common.sh
s12_setup "$TAG"
res_usage merge_path $NEW/kkperm_spmv res_usage.txt
# SASS of the merge-path kernels (mangled names hold "csr_merge_path"): load/store order.
cuobjdump -sass $NEW/kkperm_spmv 2>/dev/null | awk '/Function :/ {p = /csr_merge_path/} p' \
  | gzip > "$R/merge_path_sass.txt.gz"
KKPERM_TEST_SPMV_CANDIDATES=${TEST_CANDS:-csr_merge_path,csr_merge,csr_scalar} \
  timeout 240 $NEW/kkperm_test_kernels_spmv_candidates --gtest_filter='SpmvCandidates*' \
  > "$R/test_spmv_candidates.log" 2>&1
echo "test spmv_candidates rc=$?" >> "$R/runs.txt"
CANDS=${CANDS:-csr_scalar,csr_vector,csr_merge,csr_merge_path,ell,coo,hyb,hyb_mu,sell_c_sigma,dcsr,kk_native,cusparse_csr_alg1,cusparse_csr_alg2}
for p in ${PARTS:-gen1 gen2 gen3}; do
  late "bench $p" && continue
  OUT=$R KKPERM_SPMV=$NEW/kkperm_spmv timeout $((DEADLINE_S - SECONDS + 5)) \
    bash scripts/gpu/bench_spmv.sh "$p" -- --candidates "$CANDS" > "$R/bench_$p.out" 2>&1
  echo "bench $p rc=$? at ${SECONDS}s" >> "$R/runs.txt"
done
# ncu: occupancy limits, achieved occupancy and DRAM/L2 throughput of every kernel of one
# repetition of NCU_CANDS on each generator spec in NCU_GENS (space-separated).
i=0
for g in ${NCU_GENS:-}; do
  i=$((i+1))
  late "ncu $g" && continue
  echo "$g" > "$R/ncu_$i.txt"
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__block_size,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__occupancy_limit_warps,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv $NEW/kkperm_spmv --gen "$g" --repeat 1 --warmup 0 --candidates "${NCU_CANDS:-csr_merge_path,ell}" \
    >> "$R/ncu_$i.txt" 2> "$R/ncu_$i.err"
  gzip -f "$R/ncu_$i.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
