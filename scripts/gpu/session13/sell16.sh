#!/usr/bin/env bash
# Session 13 device call: the SELL16 SpMV candidate (sell_i16, 16-bit column offsets).
#  1. cuobjdump -res-usage of the sell16 kernels;
#  2. kkperm_test_kernels_spmv_candidates with KKPERM_TEST_SPMV_CANDIDATES=$TEST_CANDS (corner
#     cases incl. the sell16 ones and every real matrix, float and double; TEST_CANDS= empty:
#     every candidate) and
#     kkperm_test_kernels_spmv_formats_device (device builders = host twins, bit for bit);
#  3. bench_spmv.sh parts PARTS (default: gen1 gen2 gen3 = the 24-matrix generated set) with
#     every unpermuted candidate (CANDS), f64, then F32_PARTS (default none) in f32, then
#     F64_AGAIN (default none) in f64 once more (run-to-run spread);
#  4. ncu (DRAM/L2 throughput, occupancy) of NCU_CANDS on each spec in NCU_GENS.
# Usage (GPU host, repo root): [S12_CARRY=.carry/s13] [DEADLINE_S=540] [PARTS=...]
#   bash scripts/gpu/session13/sell16.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-sell16}
S12_CARRY=${S12_CARRY:-.carry/s13}
source scripts/gpu/session12/common.sh
s12_setup "$TAG"
res_usage sell16 $NEW/kkperm_spmv res_usage.txt
KKPERM_TEST_SPMV_CANDIDATES=${TEST_CANDS-sell_i16,sell_i16_wide,sell_c_sigma,csr_scalar} \
  timeout 240 $NEW/kkperm_test_kernels_spmv_candidates > "$R/test_spmv_candidates.log" 2>&1
echo "test spmv_candidates rc=$?" >> "$R/runs.txt"
timeout 240 $NEW/kkperm_test_kernels_spmv_formats_device > "$R/test_spmv_formats_device.log" 2>&1
echo "test spmv_formats_device rc=$?" >> "$R/runs.txt"
CANDS=${CANDS:-csr_scalar,csr_vector,csr_warp_dynamic,csr_warp_tiled,csr_merge,csr_merge_path,ell,coo,hyb,hyb_mu,sell_c_sigma,sell_i16,sell_i16_wide,dcsr,kk_native,cusparse_csr_alg1,cusparse_csr_alg2}
bench() {  # part, precision
  late "bench $1 $2" && return
  mkdir -p "$R/$2"
  OUT=$R/$2 KKPERM_SPMV=$NEW/kkperm_spmv PRECISION=${2%_again} timeout $((DEADLINE_S - SECONDS + 5)) \
    bash scripts/gpu/bench_spmv.sh "$1" -- --candidates "$CANDS" > "$R/bench_${1}_$2.out" 2>&1
  echo "bench $1 $2 rc=$? at ${SECONDS}s" >> "$R/runs.txt"
}
for p in ${PARTS:-gen1 gen2 gen3}; do bench "$p" f64; done
for p in ${F32_PARTS:-}; do bench "$p" f32; done
for p in ${F64_AGAIN:-}; do bench "$p" f64_again; done
i=0
for g in ${NCU_GENS:-}; do
  i=$((i+1))
  late "ncu $g" && continue
  echo "$g" > "$R/ncu_$i.txt"
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv $NEW/kkperm_spmv --gen "$g" --repeat 1 --warmup 0 --candidates "${NCU_CANDS:-sell_i16,ell}" \
    >> "$R/ncu_$i.txt" 2> "$R/ncu_$i.err"
  gzip -f "$R/ncu_$i.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
