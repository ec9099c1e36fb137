#!/usr/bin/env bash
# Session 3 device calls: runs benchmark parts one after another under one deadline so a device
# command (600 s cap) always returns its results. Each part's output goes to $OUT/r/<part>/, and
# everything is tarred into $OUT/<tag>.tgz (the device tool returns at most a few files).
# Usage (GPU host, repo root): DEADLINE_S=560 bash scripts/gpu/session3/bench_parts.sh TAG \
#   "spmm:gen1" "spmm:gen2" "spgemm:amg" "features" "featham" "tests:REGEX" ... [-- extra flags]
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=$1; shift
PARTS=()
while [[ $# -gt 0 && "$1" != "--" ]]; do PARTS+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
EXTRA=("$@")
C=.carry/kkperm-gpu
bash $C/unpack.sh
export KKPERM_MATRICES_DIR=$PWD/$C/matrices KKPERM_MATRICES=$PWD/$C/matrices
export KKPERM_SPMM=$PWD/$C/perf/kkperm_spmm KKPERM_SPMV=$PWD/$C/perf/kkperm_spmv
export KKPERM_SPGEMM=$PWD/$C/perf/kkperm_spgemm KKPERM_AMG=$PWD/$C/perf/kkperm_amg
START=$(date +%s); DEADLINE_S=${DEADLINE_S:-560}
R=$OUT/r; mkdir -p "$R"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for part in "${PARTS[@]}"; do
  left=$(( DEADLINE_S - ($(date +%s) - START) ))
  if (( left < 20 )); then echo "$part NOT RUN (deadline)" >> "$R/parts.txt"; continue; fi
  tool=${part%%:*}; sub=${part#*:}
  d="$R/${tool}_${sub:0:40}"; d=${d//[^A-Za-z0-9_\/.-]/_}; mkdir -p "$d"
  t0=$(date +%s)
  case $tool in
    spmm) OUT=$d timeout "$left" bash scripts/gpu/bench_spmm.sh "$sub" -- "${EXTRA[@]}" > "$d/stdout.log" 2>&1 ;;
    spmmgens)  # sub = generator specs joined by '+': one kkperm_spmm run, same flags as bench_spmm.sh
      IFS='+' read -r -a specs <<< "$sub"; ga=(); for g in "${specs[@]}"; do ga+=(--gen "$g"); done
      d="$R/spmmgens_$(date +%s)"; mkdir -p "$d"
      timeout "$left" $C/perf/kkperm_spmm "${ga[@]}" --K ${KS:-32,128} --all-layouts --repeat ${REPEAT:-10} \
        --warmup ${WARMUP:-2} --precision f64 --json "$d/spmm.json" --csv "$d/spmm.csv" "${EXTRA[@]}" \
        > "$d/spmm.log" 2>&1 ;;
    spmv) OUT=$d timeout "$left" bash scripts/gpu/bench_spmv.sh "$sub" -- "${EXTRA[@]}" > "$d/stdout.log" 2>&1 ;;
    spgemm) OUT=$d timeout "$left" bash scripts/gpu/bench_spgemm.sh "$sub" > "$d/stdout.log" 2>&1 ;;
    features)
      for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"; do
        timeout 100 $C/perf/kkperm_features --gen "$g" --repeat 10 --warmup 3 \
          --perms identity,plain_sort,flipped_sort,lpt,dcsr --json "$d/feat_${g%%:*}.json" > "$d/feat_${g%%:*}.log" 2>&1
      done ;;
    featham)  # every permutation incl. the Hamming orders (10^7 nnz), with their quality; exact
              # greedy quality on 10^4-row matrices
      for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1" \
               "laplace2d5:nx=100,ny=100" "powerlaw:n=10000,deg=8,gamma=2.2,seed=2"; do
        t=$(echo "${g%%,seed*}" | tr -c 'A-Za-z0-9\n' '_')
        timeout 150 $C/perf/kkperm_features --gen "$g" --repeat 8 --warmup 2 --budget-ms 2000 \
          --exact-max-rows 20000 --perms all --json "$d/feat_$t.json" > "$d/feat_$t.log" 2>&1
      done ;;
    tests) OUT=$d timeout "$left" bash $C/run_tests_gpu.sh --budget $(( left - 10 )) --timeout 240 ${sub:+--filter "$sub"} > "$d/stdout.log" 2>&1 ;;
    *) echo "unknown part $part" >> "$R/parts.txt"; continue ;;
  esac
  echo "$part rc=$? $(( $(date +%s) - t0 ))s" >> "$R/parts.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" r && rm -rf "$R"
