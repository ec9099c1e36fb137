# Sourced by scripts/gpu/bench_*.sh (needs REPO_ROOT). Locates perf_test binaries and the
# matrices folder the same way for every benchmark script.

# kkperm_find_bin TOOL [OVERRIDE]: prints the path of perf_test TOOL: OVERRIDE if given, else the
# packed .carry copy (unpacking bin.tar.gz when needed), else build-cuda/. Exits 2 if none.
kkperm_find_bin() {
  local tool=$1 b=${2:-}
  for cand in "$REPO_ROOT/.carry/kkperm-gpu/perf/$tool" "$REPO_ROOT/build-cuda/perf_test/$tool"; do
    [[ -z "$b" && -x "$cand" ]] && b=$cand
  done
  if [[ -z "$b" && -x "$REPO_ROOT/.carry/kkperm-gpu/unpack.sh" ]]; then
    bash "$REPO_ROOT/.carry/kkperm-gpu/unpack.sh" >/dev/null && b="$REPO_ROOT/.carry/kkperm-gpu/perf/$tool"
  fi
  [[ -x "$b" ]] || { echo "ERROR: $tool not found (set its KKPERM_* variable)" >&2; exit 2; }
  echo "$b"
}

# kkperm_find_matrices: sets MAT (folder holding real/) and R=$MAT/real from KKPERM_MATRICES, the
# carried copy, shared/ in the repo or ../shared beside it. Exits 2 if none.
kkperm_find_matrices() {
  MAT=${KKPERM_MATRICES:-}
  for cand in "$REPO_ROOT/.carry/kkperm-gpu/matrices" "$REPO_ROOT/shared/matrices" \
              "$REPO_ROOT/../shared/matrices"; do
    [[ -z "$MAT" && -d "$cand/real" ]] && MAT=$cand
  done
  [[ -d "$MAT/real" ]] || {
    echo "ERROR: matrices folder with real/ not found (set KKPERM_MATRICES)" >&2; exit 2; }
  R=$MAT/real
}
