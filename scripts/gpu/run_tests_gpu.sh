#!/usr/bin/env bash
# Runs kkperm's CUDA test executables on the GPU host. scripts/gpu/pack_for_gpu.sh copies this
# script next to the binaries it packs (.carry/kkperm-gpu/); run it from there:
#   bash .carry/kkperm-gpu/run_tests_gpu.sh [--filter REGEX] [--timeout SECONDS] [--budget SECONDS]
#                                           [--gtest-filter F]
#   --timeout  per executable (default 240 s); --budget  for the whole run (default 540 s, below
#   the device tool's 600 s per command): executables not started in time are listed as NOT RUN.
# Layout expected next to this script: tests/kkperm_test_* , perf/kkperm_* , matrices/{real,malformed},
# MANIFEST.txt. Results go to $OUT (the device tool's output folder; default ./gpu-out):
#   $OUT/summary.md         GPU (nvidia-smi), date, host, command, commit, pass/fail per test
#   $OUT/logs/<test>.log    full output of each executable
#   $OUT/xml/<test>.xml     GoogleTest XML
#   $OUT/env.txt            nvidia-smi, ldd of one binary, loader path
# Exit status: 0 when every executable passed, 1 otherwise.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-$PWD/gpu-out}
FILTER=""
TIMEOUT=${KKPERM_TEST_TIMEOUT:-240}
BUDGET=${KKPERM_TEST_BUDGET:-540}   # the device tool stops a command at 600 s: stay below it
GTEST_FILTER=""
CMDLINE="$0 $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --filter) FILTER=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --gtest-filter) GTEST_FILTER=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "ERROR: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT/logs" "$OUT/xml"
# Binaries may have been compressed to fit the carry limit (pack_for_gpu.sh).
if [[ -x "$HERE/unpack.sh" ]]; then bash "$HERE/unpack.sh" || { echo "ERROR: unpack failed" >&2; exit 1; }; fi

# CUDA 13 runtime libraries (libcusparse, libcudart) of the GPU image.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/targets/sbsa-linux/lib; do
  [[ -d "$d" ]] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH
export KKPERM_MATRICES_DIR="$HERE/matrices"
# Kokkos 3.4: pick the first GPU and do not warn about the Serial host backend.
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}

shopt -s nullglob
tests=("$HERE"/tests/kkperm_test_*)
[[ ${#tests[@]} -gt 0 ]] || { echo "ERROR: no test executables in $HERE/tests" >&2; exit 1; }

gpu_name=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
{
  echo "== nvidia-smi =="; nvidia-smi 2>&1
  echo "== uname / os =="; uname -a; cat /etc/os-release 2>/dev/null | head -3
  echo "== LD_LIBRARY_PATH =="; echo "$LD_LIBRARY_PATH"
  echo "== ldd ${tests[0]##*/} =="; ldd "${tests[0]}" 2>&1
} >"$OUT/env.txt"
missing=$(ldd "${tests[0]}" 2>&1 | grep 'not found' || true)

summary="$OUT/summary.md"
{
  echo "# kkperm CUDA test run"
  echo
  echo "- GPU: ${gpu_name:-unknown (nvidia-smi failed)}"
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- Host: $(hostname)"
  echo "- Command: \`$CMDLINE\`"
  echo "- KKPERM_MATRICES_DIR: $KKPERM_MATRICES_DIR"
  [[ -f "$HERE/MANIFEST.txt" ]] && sed "s/^/- Build: /" "$HERE/MANIFEST.txt" | head -4
  [[ -n "$missing" ]] && echo "- MISSING LIBRARIES: $(echo "$missing" | tr '\n' ' ')"
  echo
  echo "Per-executable timeout ${TIMEOUT}s, total budget ${BUDGET}s."
  echo
  echo "| test executable | result | gtest cases passed/failed/skipped | seconds |"
  echo "|---|---|---|---|"
} >"$summary"

n_pass=0; n_fail=0; n_skip=0
T_START=$SECONDS
for exe in "${tests[@]}"; do
  name=${exe##*/}
  [[ -n "$FILTER" && ! "$name" =~ $FILTER ]] && continue
  log="$OUT/logs/$name.log"
  left=$((BUDGET - (SECONDS - T_START)))
  if [[ $left -le 5 ]]; then
    echo "| $name | NOT RUN (budget ${BUDGET}s used) | - | - |" >>"$summary"; n_skip=$((n_skip+1)); continue
  fi
  this_timeout=$TIMEOUT; [[ $left -lt $this_timeout ]] && this_timeout=$left
  args=(--gtest_output="xml:$OUT/xml/$name.xml" --gtest_color=no)
  [[ -n "$GTEST_FILTER" ]] && args+=(--gtest_filter="$GTEST_FILTER")
  echo ">>> $name" >&2
  t0=$(date +%s.%N)
  timeout --kill-after=5 "$this_timeout" "$exe" "${args[@]}" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  passed=$(grep -c '^\[       OK \]' "$log" || true)
  failed=$(grep -c '^\[  FAILED  \] [A-Za-z_0-9/.]*\.[A-Za-z_0-9/]* (' "$log" || true)
  skipped=$(grep -c '^\[  SKIPPED \]' "$log" || true)
  if [[ $rc -eq 0 ]]; then result=PASS; n_pass=$((n_pass+1))
  elif [[ $rc -eq 124 || $rc -eq 137 ]]; then result="TIMEOUT (${this_timeout}s)"; n_fail=$((n_fail+1))
  else result="FAIL (rc=$rc)"; n_fail=$((n_fail+1)); fi
  echo "| $name | $result | $passed/$failed/$skipped | $secs |" >>"$summary"
  echo "    $result in ${secs}s" >&2
done
{
  echo
  echo "**Executables passed: $n_pass, failed: $n_fail, not run: $n_skip.**"
  if [[ $n_fail -gt 0 ]]; then
    echo; echo "## Failures"
    for log in "$OUT"/logs/*.log; do
      grep -q '^\[  FAILED  \]\|^\[  PASSED  \]' "$log" && ! grep -q '^\[  FAILED  \]' "$log" && continue
      echo; echo "### ${log##*/}"; echo '```'; grep -E '^\[  FAILED  \]|Failure|error|what\(\)' "$log" | head -20; tail -5 "$log"; echo '```'
    done
  fi
} >>"$summary"
cat "$summary"
[[ $n_fail -eq 0 && $n_skip -eq 0 ]]
