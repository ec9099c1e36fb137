#!/usr/bin/env bash
# Sets up and runs kkperm's main job: analyse one matrix (validation, size, sparsity features,
# every SpMV candidate of this build timed, fastest named). Without arguments it uses the
# built-in default input (see perf_test/kkperm_analyze.cpp); any argument is passed on, e.g.
#   bash scripts/main.sh --amtx ../shared/matrices/real/bcsstk13.mtx.gz
#   bash scripts/main.sh --gen powerlaw:n=200000,deg=8,gamma=2.2,seed=1 --json out.json
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
cmake --build build -j "${KKPERM_JOBS:-$(nproc)}" --target kkperm_analyze >&2
exec build/perf_test/kkperm_analyze "$@"
