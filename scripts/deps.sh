#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build, test and benchmark ferry.
# Does nothing (and asks no registry) when everything is already there.
set -euo pipefail

debs=(build-essential cmake ninja-build pkg-config
      libopenmpi-dev openmpi-bin libmpich-dev mpich
      libhdf5-openmpi-dev libhdf5-mpich-dev
      valgrind cppcheck clang libclang-rt-14-dev clang-format
      python3 python3-matplotlib python3-numpy python3-pip
      libsimgrid-dev libjansson-dev
      glusterfs-server glusterfs-client iproute2 util-linux iperf3)

missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# MPICH 5.0.2 for the emulated cluster (scripts/mpich-runtime.sh says why),
# through Debian's python3 and pip
# shellcheck source=scripts/mpich-runtime.sh
. "$(dirname "$0")/mpich-runtime.sh"
if ! mpich_rt_present; then
  echo "deps: installing MPICH $MPICH_RT_VERSION (PyPI's mpich wheel) into $MPICH_RT"
  mpich_rt_install /usr/bin/python3 || { echo "deps: cannot install MPICH $MPICH_RT_VERSION into $MPICH_RT" >&2; exit 1; }
fi
