#!/bin/sh
# Installs the system packages the native addon uses (MPI, BLAS, LAPACKE) and Chromium, which
# only the tests use (test/mpi/dashboard-browser.test.ts drives the dashboard and the report in
# it; no browser is ever downloaded). Idempotent: does nothing when every package is already
# installed. Without root or apt-get it stops (exit 1) with the packages to install: the addon
# would still build without them, but one rank only and with far slower kernels, which a first
# run must not find out by itself.
set -eu

PACKAGES="libopenmpi-dev openmpi-bin libopenblas-dev liblapacke-dev chromium"

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-packages: apt-get not found. Install $PACKAGES (or your system's" >&2
  echo "  equivalents of Open MPI, OpenBLAS, LAPACKE and Chromium) by hand, then run npm ci." >&2
  exit 1
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
  echo "install-system-packages: not root; missing:$missing. Run as root:" >&2
  echo "    apt-get update && apt-get install -y$missing" >&2
  exit 1
fi

echo "install-system-packages: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# Installing the whole list (not just the missing ones) keeps versions consistent.
# shellcheck disable=SC2086
apt-get install -y $PACKAGES
echo "install-system-packages: done."
