#!/bin/sh
# Installs the Debian 12 packages that building, running and testing Baton
# need, and only those that are missing. Safe to run again: a machine that has
# everything is left alone and nothing is fetched.
set -eu

# prometheus brings promtool and the server that tst_prometheus runs on
# loopback against real `baton join --listen` processes; man-db renders
# baton(1) in baton_manual; systemd brings systemd-analyze for systemd_units;
# faketime and libfaketime run tst_clockdrift's participants at skewed clock rates.
# stress-ng is the CPU hog of scripts/suite-under-load.sh.
# gdb prints the stacks tst_etcdrenewalpath counts the renewal's functions on.
packages="
  ca-certificates
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools libgl-dev
  qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  qtkeychain-qt6-dev libyaml-cpp-dev
  qt6-svg-dev fonts-dejavu-core
  etcd-server etcd-client
  prometheus
  dbus gnome-keyring
  procps
  openssl
  doxygen
  dpkg-dev file
  libsystemd-dev
  lintian
  man-db
  systemd
  faketime libfaketime
  stress-ng
  gdb
"

# clang and its runtimes (libFuzzer, ASan, UBSan) are for scripts/fuzz.sh and
# the fuzz preset only (`./setup.sh fuzz`); GCC builds everything else.
# valgrind (callgrind) is for tests/bench/run-benchmarks.sh only (`./setup.sh bench`).
if [ "${1:-}" = fuzz ]; then
  packages="$packages clang libclang-rt-14-dev"
fi
if [ "${1:-}" = bench ]; then
  packages="$packages valgrind"
fi
# kubectl (its `kustomize` renders resources/kubernetes in a test): Debian's
# kubernetes-client, unless a kubectl from elsewhere is already installed.
if ! command -v kubectl >/dev/null 2>&1; then
  packages="$packages kubernetes-client"
fi
missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  echo "setup: these packages are missing and I am not root (no sudo either):$missing" >&2
  exit 1
fi

echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -qq
# shellcheck disable=SC2086
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
