#!/bin/sh
# The election benchmarks of docs/benchmarks.md (issue #8), in one run:
# builds Release (preset bench), starts a private etcd, runs every section
# of bench_election against its peer, profiles a steady-state baton join
# with callgrind, and rewrites the "Election" section of docs/benchmarks.md.
#
#   tests/bench/run-benchmarks.sh            the documented run (10-minute footprint and scale)
#   tests/bench/run-benchmarks.sh --quick    short windows, to try it (the docs say so)
#   tests/bench/run-benchmarks.sh --no-docs  print the section instead of writing the docs
#
# The footprint and the 1,000-election runs go side by side (each measures
# its own processes), so the full run takes about 15 minutes.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

long=600        # footprint and 1,000 elections, seconds
short=60        # 10 and 100 elections, callgrind window
reps=15         # handover and failover repetitions
mode=full
write_docs=1
for arg in "$@"; do
    case $arg in
        --quick) long=60; short=20; reps=10; mode=quick ;;
        --no-docs) write_docs=0 ;;
        *) echo "usage: $0 [--quick] [--no-docs]" >&2; exit 2 ;;
    esac
done

./setup.sh bench
cmake --preset bench >/dev/null
cmake --build build/bench -j"$(nproc)" --target baton bench_election >/dev/null

bench=build/bench/tests/bench/bench_election
export BATON_BINARY="$root/build/bench/app/baton"
[ -x "$BATON_BINARY" ] || BATON_BINARY=$(find "$root/build/bench" -name baton -type f -perm -u+x | head -1)
work=$(mktemp -d)
etcd_dir="$work/etcd"
cleanup() {
    jobs -p | xargs -r kill 2>/dev/null || true
    sh tests/etcd/etcd-fixture.sh stop "$etcd_dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
sh tests/etcd/etcd-fixture.sh start "$etcd_dir" 1 >/dev/null
endpoint=$(cut -d, -f1 "$etcd_dir/endpoints")
started=$(date +%s)

echo "bench: etcd at $endpoint; footprint and 1,000 elections for ${long} s, side by side" >&2
"$bench" footprint "$endpoint" "$long" >"$work/footprint.md" &
footprint_pid=$!
"$bench" scale "$endpoint" 1000 "$long" >"$work/scale-1000.md" &
scale_pid=$!
wait "$footprint_pid" "$scale_pid"

echo "bench: growth curve, handover, failover, requests" >&2
"$bench" scale "$endpoint" 10 "$short" >"$work/scale-10.md"
"$bench" scale "$endpoint" 100 "$short" >"$work/scale-100.md"
"$bench" handover "$endpoint" "$reps" >"$work/handover.md"
"$bench" failover "$endpoint" "$reps" >"$work/failover.md"
"$bench" requests "$endpoint" >"$work/requests.md"

# Under valgrind a process runs some 50 times slower: 10 elections keep up
# with a 1 s renewInterval there, 100 do not (their renewals time out).
echo "bench: callgrind, 10 elections for ${short} s" >&2
"$bench" scale "$endpoint" 10 "$short" --callgrind "$work/callgrind.out" \
    >"$work/callgrind-row.md" 2>"$work/callgrind.log" || true
renewals=$(sed -n 's/^callgrind-renewals //p' "$work/callgrind.log")
dump=$(ls "$work"/callgrind.out.* 2>/dev/null | head -1)
ir=""
[ -n "$dump" ] && ir=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
elapsed=$(( $(date +%s) - started ))

qt=$(pkg-config --modversion Qt6Core 2>/dev/null || dpkg-query -W -f='${Version}' qt6-base-dev)
section="$work/section.md"
{
    echo "## Election benchmarks (issue #8)"
    echo
    echo "Written by \`tests/bench/run-benchmarks.sh\` ($mode run) on $(date -u +%Y-%m-%d) at $(date -u +%H:%M) UTC;"
    echo "reproduce with \`tests/bench/run-benchmarks.sh\` (Release build, preset \`bench\`; a private"
    echo "single-member etcd from \`tests/etcd/etcd-fixture.sh\`). Every figure is beside its target and,"
    echo "where there is one, the peer's figure from the same run: the machines are shared, so ratios"
    echo "count, not absolute times."
    echo
    echo "| machine | |"
    echo "|---|---|"
    echo "| CPU | $(nproc) × $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) |"
    echo "| RAM | $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) |"
    echo "| kernel | $(uname -r) |"
    echo "| compiler | $(c++ --version | head -1) |"
    echo "| Qt | $qt |"
    echo "| etcd | $(etcd --version | head -1 | sed 's/etcd Version: //') |"
    echo "| etcdctl | $(etcdctl version | head -1 | sed 's/etcdctl version: //') |"
    echo "| load at the end | $(cut -d' ' -f1-3 /proc/loadavg) |"
    echo "| duration of the run | $(( elapsed / 60 )) min |"
    echo
    cat "$work/handover.md" "$work/failover.md" "$work/requests.md" "$work/footprint.md"
    echo "### Scale: one process, many elections"
    echo
    echo "One \`baton join --events json\` with N cluster services on one etcd Registry"
    echo "(renewInterval 1000 ms, leaseDuration 10000 ms), measured after all N lead."
    echo "Renewals counted from the \`attempt\` records; the worst gap is the longest time"
    echo "between two renewals of one lease (1000 ms is on time); latency is the"
    echo "attempt's \`latencyMs\`. Target at 1,000: no step-down, CPU < 25 % of a core,"
    echo "RSS < 64 MB."
    echo
    echo "| elections | window (s) | renewals / expected | step-downs | latency median (p99) ms | worst gap (ms) | CPU % of a core | RSS MB median (max) | target |"
    echo "|---|---|---|---|---|---|---|---|---|"
    cat "$work/scale-10.md" "$work/scale-100.md" "$work/scale-1000.md"
    echo
    echo "### Profile"
    echo
    echo "callgrind on a steady-state \`baton join --events json\` with 10 elections (instrumentation"
    echo "switched on once all lead, for ${short} s, renewInterval 1000 ms): ${ir:-?} instructions for"
    if [ -n "${ir:-}" ] && [ -n "${renewals:-}" ] && [ "$renewals" -gt 0 ]; then
        echo "${renewals} renewals, **$(( ir / renewals )) instructions per renewal** (everything the"
        echo "process did in the window: the renewal, its watch event, the event line)."
    else
        echo "${renewals:-?} renewals: per renewal not measured."
    fi
    echo
    if [ -n "$dump" ]; then
        echo "Self cost, top 12:"
        echo
        echo '```'
        callgrind_annotate "$dump" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | grep -v 'PROGRAM TOTALS' \
            | head -12 | sed -E 's/ \[[^]]*\]$//; s/\?\?\?://' | cut -c1-120
        echo '```'
        echo
        echo "Inclusive cost of Baton's functions and of Qt's per-request string connects, top 14:"
        echo
        echo '```'
        callgrind_annotate --inclusive=yes "$dump" 2>/dev/null | grep -E '^ *[0-9,]+ \(' \
            | grep -E 'baton::|QObject::connect\(QObject const\*, char const\*' | head -14 \
            | sed -E 's/ \[[^]]*\]$//; s/\?\?\?://' | cut -c1-120
        echo '```'
    fi
} >"$section"

if [ "$write_docs" = 0 ]; then
    cat "$section"
    exit 0
fi
# Replace the generated section (from its heading to the hand-written
# "## Election: what changed" part, which is kept).
docs=docs/benchmarks.md
awk '/^## Election benchmarks/ { exit } { print }' "$docs" >"$work/docs.md"
cat "$section" >>"$work/docs.md"
if grep -q '^## Election benchmarks' "$docs"; then
    echo >>"$work/docs.md"
    awk 'p && /^## Election: what changed/ { q = 1 } q { print } /^## Election benchmarks/ { p = 1 }' "$docs" >>"$work/docs.md"
fi
cp "$work/docs.md" "$docs"
echo "bench: wrote $docs ($(( elapsed / 60 )) min)" >&2
