#!/usr/bin/env bash
# Builds scripts/gpu/session28/launch_cost.cpp against the CUDA Kokkos that
# scripts/configure_cuda.sh installs (default ~/.cache/kkperm/kokkos-3.4.01-cuda-sm90), sm_90.
# Usage: bash scripts/gpu/session28/build_launch_cost.sh OUT_BINARY
set -euo pipefail
K=${KKPERM_CUDA_KOKKOS:-$HOME/.cache/kkperm/kokkos-3.4.01-cuda-sm90}
out=${1:?output binary}
src="$(dirname "$0")/launch_cost.cpp"
"$K/bin/nvcc_wrapper" -O3 -DNDEBUG -expt-extended-lambda -arch=sm_90 -std=c++17 -isystem "$K/include" \
  -o "$out" "$src" "$K/lib/libkokkoscore.a" /usr/local/cuda/lib/stubs/libcuda.so -ldl
