#!/usr/bin/env bash
# Installs everything the CPU build, the tests and the Python tools need, from Debian (apt).
# Idempotent: when every package is already installed it does nothing (no apt-get update).
# Kokkos/KK 3.4.01 come from Debian's Trilinos 13.2 packages (Serial backend). Note that
# libtrilinos-kokkos-kernels-dev does not pull in libtrilinos-kokkos-dev, and
# find_package(KokkosKernels) fails without the latter, so both are listed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  libgtest-dev nlohmann-json3-dev zlib1g-dev
  python3 python3-numpy python3-matplotlib python3-sklearn
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
