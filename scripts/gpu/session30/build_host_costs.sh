#!/usr/bin/env bash
# Builds scripts/gpu/session30/host_costs.cpp against the CUDA Kokkos that
# scripts/configure_cuda.sh installs (default ~/.cache/kkperm/kokkos-3.4.01-cuda-sm90), sm_90.
# Usage: bash scripts/gpu/session30/build_host_costs.sh OUT_BINARY
set -euo pipefail
K=${KKPERM_CUDA_KOKKOS:-$HOME/.cache/kkperm/kokkos-3.4.01-cuda-sm90}
out=${1:?output binary}
here="$(dirname "$0")"
"$K/bin/nvcc_wrapper" -O3 -DNDEBUG -expt-extended-lambda -arch=sm_90 -std=c++17 -isystem "$K/include" \
  -I"$here/../../../src" -o "$out" "$here/host_costs.cpp" "$K/lib/libkokkoscore.a" \
  /usr/local/cuda/lib/stubs/libcuda.so -ldl
