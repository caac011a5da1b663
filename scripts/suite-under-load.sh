#!/bin/sh
# Runs the suite N times in a row while two CPU hogs compete for the cores,
# to show that a green run on a busy machine means what it says
# (docs/testing.md, "Time on a busy machine"). Stops at the first run that
# fails. Prints the machine first, then one line per run: the run, the
# tests passed out of those run, and the seconds it took.
#
#   scripts/suite-under-load.sh [PRESET] [N] [CTEST_ARGUMENTS...]
#
# PRESET is a CTest preset (default dev), already built; N defaults to 10.
# Further arguments go to ctest as they are, for example `-R '^tst_store'`
# to try the script on a few tests. The hogs are stress-ng's CPU workers when
# stress-ng is installed (setup.sh installs it), busy shell loops otherwise;
# they are the only processes this script stops. Each run's whole ctest
# output is kept in a folder named at the end.
set -eu
cd "$(dirname "$0")/.."
preset=${1:-dev}
runs=${2:-10}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift

case $runs in
    '' | *[!0-9]* | 0) echo "suite-under-load: N must be a positive number of runs, not '$runs'" >&2; exit 2 ;;
esac

logs=$(mktemp -d "${TMPDIR:-/tmp}/suite-under-load.XXXXXX")
hogs=""
stop_hogs() {
    for pid in $hogs; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in $hogs; do
        wait "$pid" 2>/dev/null || true
    done
    hogs=""
}
trap 'stop_hogs' EXIT
trap 'stop_hogs; exit 130' INT TERM

if command -v stress-ng >/dev/null 2>&1; then
    stress-ng --cpu 2 --quiet &
    hogs=$!
    hog_kind="stress-ng --cpu 2"
else
    for _ in 1 2; do
        sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
    hog_kind="two busy shell loops (stress-ng is not installed)"
fi

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "machine: $(nproc) cores, ${model:-unknown CPU}, load $(cut -d' ' -f1-3 /proc/loadavg) before the hogs"
echo "suite:   ctest --preset $preset $*, $runs runs, hogs: $hog_kind"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%MZ)"

run=1
while [ "$run" -le "$runs" ]; do
    log="$logs/run-$run.log"
    start=$(date +%s)
    status=0
    ctest --preset "$preset" "$@" >"$log" 2>&1 || status=$?
    seconds=$(( $(date +%s) - start ))
    # "100% tests passed, 0 tests failed out of 57"
    summary=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
    total=$(echo "$summary" | sed -n 's/.* out of \([0-9]*\).*/\1/p')
    failed=$(echo "$summary" | sed -n 's/.*passed, \([0-9]*\) tests\{0,1\} failed.*/\1/p')
    if [ -z "$total" ]; then
        echo "run $run/$runs: ctest gave no summary (exit $status), ${seconds} s; see $log"
        exit 1
    fi
    echo "run $run/$runs: $((total - failed))/$total passed, ${seconds} s, load $(cut -d' ' -f1 /proc/loadavg)"
    if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
        sed -n '/The following tests FAILED/,$p' "$log"
        echo "suite-under-load: run $run failed; its output is in $log"
        exit 1
    fi
    run=$((run + 1))
done
echo "suite-under-load: $runs of $runs runs passed; outputs in $logs"
