#!/bin/sh
# A longer chaos run than the suite's: builds what it needs in the dev build
# and runs tests/chaos/tst_chaos for MINUTES (default 10) on etcd (an etcd of
# its own, started and stopped through tests/etcd/etcd-fixture.sh) or on the
# file store. The summary is printed at the end; BATON_CHAOS_SEED replays a
# run's faults.
#
#   tests/chaos/run-chaos.sh [MINUTES] [etcd|file]
set -eu

minutes=${1:-10}
store=${2:-etcd}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BATON_BUILD_DIR:-$root/build/dev}

case "$store" in etcd|file) ;; *) echo "usage: run-chaos.sh [MINUTES] [etcd|file]" >&2; exit 2 ;; esac

[ -f "$build/CMakeCache.txt" ] || cmake --preset dev -S "$root"
cmake --build "$build" -j2 --target baton chaos_worker tst_chaos

BATON_BINARY="$build/app/baton" \
BATON_ETCD_FIXTURE="$root/tests/etcd/etcd-fixture.sh" \
BATON_CHAOS_STORE="$store" \
BATON_CHAOS_SECONDS=$((minutes * 60)) \
QT_LOGGING_RULES="baton.*.debug=false" \
exec "$build/tests/chaos/tst_chaos" -maxwarnings 0
