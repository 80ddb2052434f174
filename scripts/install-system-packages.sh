#!/bin/sh
# Installs the optional system packages the native addon can use (MPI, BLAS, LAPACKE).
# Idempotent: does nothing when every package is already installed. Without root or apt-get it
# only explains, because the addon still builds (single rank, no BLAS kernels) without them.
set -eu

PACKAGES="libopenmpi-dev openmpi-bin libopenblas-dev liblapacke-dev"

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-packages: apt-get not found; skipping."
  echo "  The ttg addon will build without MPI/BLAS (install $PACKAGES or equivalents by hand)."
  exit 0
fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "install-system-packages: all present ($PACKAGES)."
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-system-packages: not root; missing:$missing"
  echo "  The ttg addon will build without MPI/BLAS. To enable them run as root:"
  echo "    apt-get update && apt-get install -y$missing"
  exit 0
fi

echo "install-system-packages: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# Installing the whole list (not just the missing ones) keeps versions consistent.
# shellcheck disable=SC2086
apt-get install -y $PACKAGES
echo "install-system-packages: done."
