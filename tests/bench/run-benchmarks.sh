#!/bin/sh
# Writes docs/benchmarks.md, the whole page: nothing else writes it. Builds
# Release (preset bench), starts a private etcd, runs every benchmark
# (bench_election's sections, bench_dashboard, bench_history), profiles a
# steady-state baton join with callgrind, and puts one table per benchmark
# on the page, each stamped with the commit, the date, the machine, the
# build type and the command; benchmarks-bounds.md, beside this script,
# follows the tables as it is.
#
#   tests/bench/run-benchmarks.sh            the documented run (10-minute footprint and scale)
#   tests/bench/run-benchmarks.sh --quick    short windows, to try it (the page says so)
#   tests/bench/run-benchmarks.sh --no-docs  print the page instead of writing it
#
# BATON_BENCH_PRESET names another CMake preset to build and measure (to try
# the script on a build that exists); the page says the build type it had.
#
# The footprint and the 1,000-election runs go side by side (each measures
# its own processes), so the full run takes about 30 minutes.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

long=600        # footprint and 1,000 elections, seconds
short=60        # 10 and 100 elections, callgrind window
reps=15         # handover and failover repetitions
dashboard=30    # dashboard renewal window, seconds
renewals=50     # bench_history
mode=full
write_docs=1
for arg in "$@"; do
    case $arg in
        --quick) long=60; short=20; reps=10; dashboard=10; renewals=20; mode=quick ;;
        --no-docs) write_docs=0 ;;
        *) echo "usage: $0 [--quick] [--no-docs]" >&2; exit 2 ;;
    esac
done

preset=${BATON_BENCH_PRESET:-bench}
./setup.sh bench
cmake --preset "$preset" >/dev/null
cmake --build "build/$preset" -j"$(nproc)" --target baton bench_election bench_dashboard bench_history >/dev/null

bin=build/$preset/tests/bench
export BATON_BINARY="$root/build/$preset/app/baton"
[ -x "$BATON_BINARY" ] || BATON_BINARY=$(find "$root/build/$preset" -name baton -type f -perm -u+x | head -1)
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
BATON_BENCH_ETCD_PID=$(cat "$etcd_dir"/member-*/pid | head -1)
export BATON_BENCH_ETCD_PID
started=$(date +%s)

# What every table is stamped with. A tree with changes not committed says
# so: such figures are not the commit's.
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':(exclude)docs/benchmarks.md' || commit="$commit with changes not committed"
machine="$(nproc) × $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "build/$preset/CMakeCache.txt")

# run NAME COMMAND...: runs COMMAND, its stdout to $work/NAME.md, and keeps
# its stamp in $work/NAME.stamp (the etcd endpoint shown as $ETCD).
run() {
    name=$1
    shift
    shown=$(echo "$*" | sed "s|$endpoint|\$ETCD|g; s|$root/||g; s|$work/||g")
    echo "$(date -u '+%Y-%m-%d %H:%M') UTC|\`$shown\`" >>"$work/$name.stamp"
    "$@" >>"$work/$name.md"
}
stamp() {
    while IFS='|' read -r when command; do
        echo "Measured on commit \`$commit\`, $when, $machine, $build_type build ($mode run): $command"
        echo
    done <"$work/$1.stamp"
}

echo "bench: etcd at $endpoint; footprint and 1,000 elections for ${long} s, side by side" >&2
run footprint "$bin/bench_election" footprint "$endpoint" "$long" &
footprint_pid=$!
run scale-1000 "$bin/bench_election" scale "$endpoint" 1000 "$long" &
scale_pid=$!
wait "$footprint_pid" "$scale_pid"

echo "bench: growth curve, handover, failover, requests" >&2
run scale "$bin/bench_election" scale "$endpoint" 10 "$short"
run scale "$bin/bench_election" scale "$endpoint" 100 "$short"
cat "$work/scale-1000.md" >>"$work/scale.md"
cat "$work/scale-1000.stamp" >>"$work/scale.stamp"
echo "bench: 10,000 elections for ${long} s" >&2
run scale "$bin/bench_election" scale "$endpoint" 10000 "$long" 5000 15000 || true
echo "bench: 5,000 elections on one file store folder for ${short} s" >&2
filestore=$(mktemp -d /dev/shm/baton-bench-XXXXXX 2>/dev/null || mktemp -d "$work/filestore-XXXXXX")
run scale-file "$bin/bench_election" scale-file "$filestore" 5000 "$short" 10000 || true
rm -rf "$filestore"
echo "bench: 1,000 elections on Kubernetes Leases for ${short} s" >&2
run scale-kube "$bin/bench_election" scale-kube 1000 "$short" || true
run handover "$bin/bench_election" handover "$endpoint" "$reps"
run handover-to "$bin/bench_election" handover-to "$endpoint" "$reps"
run failover "$bin/bench_election" failover "$endpoint" "$reps"
run requests "$bin/bench_election" requests "$endpoint"

# Under valgrind a process runs some 50 times slower: 10 elections keep up
# with a 1 s renewInterval there, 100 do not (their renewals time out).
echo "bench: callgrind, 10 elections for ${short} s" >&2
run callgrind "$bin/bench_election" scale "$endpoint" 10 "$short" --callgrind "$work/callgrind.out" \
    2>"$work/callgrind.log" || true
renewed=$(sed -n 's/^callgrind-renewals //p' "$work/callgrind.log")
dump=$(ls "$work"/callgrind.out.* 2>/dev/null | head -1)
ir=""
[ -n "$dump" ] && ir=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')

echo "bench: dashboard, 5,000 and 20,000 leases, without and with the stored history" >&2
run dashboard "$bin/bench_dashboard" 5000 "$dashboard" 10000
run dashboard "$bin/bench_dashboard" --history 5000 "$dashboard" 10000
run dashboard "$bin/bench_dashboard" 20000 "$dashboard" 10000
run dashboard "$bin/bench_dashboard" --history 20000 "$dashboard" 10000

echo "bench: stored history, $renewals renewals" >&2
run history "$bin/bench_history" "$renewals"
elapsed=$(( $(date +%s) - started ))

# One row of the dashboard table from one run's output ($1: its label).
dashboard_row() {
    awk -v label="$1" '
        /^setup:/ { for (i = 1; i <= NF; ++i) { if ($i == "after") full = $(i + 1); if ($i == "meanwhile") fill = $(i + 1) } }
        /^select:/ { select = $(NF - 1) }
        /^leases / { for (i = 1; i <= NF; ++i) if ($i == "writes,") writes = $(i - 1) }
        /^cpu per renewal/ { for (i = 1; i <= NF; ++i) if ($i == "ms;") cpu = $(i - 1) }
        /^heartbeat/ { stall = $(NF - 1) }
        /^target: first full table/ { t1 = $0; sub(/.*: /, "", t1) }
        /^target: stall while filling/ { t3 = $0; sub(/.*: /, "", t3) }
        /^target: longest stall/ { t2 = $0; sub(/.*: /, "", t2) }
        END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, full, fill, select, writes, cpu, stall, t1, t3, t2 }'
}

qt=$(pkg-config --modversion Qt6Core 2>/dev/null || dpkg-query -W -f='${Version}' qt6-base-dev)
page="$work/page.md"
{
    echo "# Benchmarks"
    echo
    echo "Written by \`tests/bench/run-benchmarks.sh\` and nothing else; run it again rather than edit"
    echo "this page. Each table says the commit, the date, the machine, the build type and the command"
    echo "that measured it (\`\$ETCD\`: a private single-member etcd that the script starts with"
    echo "\`tests/etcd/etcd-fixture.sh\`; binaries of the \`$preset\` preset, \`$bin\`)."
    if [ "$mode" = quick ]; then
        echo "This is a **quick run** (\`--quick\`): short windows and few repetitions, to try the"
        echo "script; the documented run has none of that."
    fi
    echo "The machines are shared: ratios to a peer measured in the same run count, not absolute"
    echo "times. What bounds each figure is said below the tables."
    echo
    echo "| machine | |"
    echo "|---|---|"
    echo "| CPU | $machine |"
    echo "| RAM | $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) |"
    echo "| kernel | $(uname -r) |"
    echo "| compiler | $(c++ --version | head -1) |"
    echo "| Qt | $qt |"
    echo "| etcd, etcdctl | $(etcd --version | head -1 | sed 's/etcd Version: //'), $(etcdctl version | head -1 | sed 's/etcdctl version: //') |"
    echo "| load average at the end | $(cut -d' ' -f1-3 /proc/loadavg) |"
    echo "| duration of the run | $(( elapsed / 60 )) min |"
    echo
    echo "## Election"
    echo
    echo "### Scale: one process, many elections"
    echo
    echo "One \`baton join --events json\` with N cluster services on one etcd Registry"
    echo "(renewInterval 1000 ms, leaseDuration 10000 ms), measured after all N lead;"
    echo "the 1,000-election run goes beside the footprint run. Renewals counted from the"
    echo "\`attempt\` records; the worst gap is the longest time between two renewals of one"
    echo "lease (1000 ms is on time); latency is the attempt's \`latencyMs\`. Targets at 1,000:"
    echo "renewals at least 99.9 % of those due, worst gap under 1.2 × renewInterval, no step-down,"
    echo "CPU < 10 % of a core, RSS < 64 MB. The 10,000 elections renew every 5000 ms on leases"
    echo "of 15000 ms (2,000 renewals a second); targets: no step-down, CPU under a core, RSS < 256 MB."
    echo "etcd's CPU is the private etcd's, over the same window."
    echo
    echo "| elections | window (s) | renewals / expected | step-downs | latency median (p99) ms | worst gap (ms) | CPU % of a core | etcd CPU % of a core | RSS MB median (max) | target |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$work/scale.md"
    echo
    stamp scale
    echo "### Scale on the file store: one folder, many leases"
    echo
    echo "The same \`baton join\` with 5,000 cluster services on one \`Webda/FileStore\` folder"
    echo "(on tmpfs when \`/dev/shm\` is there: a disk's sync rate would bound it instead),"
    echo "renewInterval 10000 ms, leaseDuration 100000 ms: 500 renewals a second, beside the"
    echo "candidate records of 5,000 elections (a write and a listing of the folder each per"
    echo "lease duration). Target (issue #26): every renewal on time, no step-down."
    echo
    echo "| elections | window (s) | renewals / expected | step-downs | latency median (p99) ms | worst gap (ms) | CPU % of a core | etcd CPU % of a core | RSS MB median (max) | target |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$work/scale-file.md"
    echo
    stamp scale-file
    echo "### Scale on Kubernetes Leases"
    echo
    echo "The same \`baton join\` with 1,000 cluster services on Kubernetes Leases (renewInterval"
    echo "1000 ms, leaseDuration 10000 ms), against the test Lease API server (\`tests/kube/leaseapiserver.h\`,"
    echo "the one stand-in of the test tree) in the benchmark's own process, over TLS with a token"
    echo "whose account may use Leases but not the candidates' ConfigMaps. Targets (issue #26):"
    echo "requests per renewal ≤ 1, every renewal on time, no step-down; etcd's CPU column does not apply."
    echo
    echo "| elections | window (s) | renewals / expected | step-downs | latency median (p99) ms | worst gap (ms) | CPU % of a core | etcd CPU % of a core | RSS MB median (max) | target |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$work/scale-kube.md"
    echo
    stamp scale-kube
    for section in handover handover-to failover requests footprint; do
        cat "$work/$section.md"
        stamp "$section"
    done
    echo "### Profile"
    echo
    echo "callgrind on a steady-state \`baton join --events json\` with 10 elections (instrumentation"
    echo "switched on once all lead, for ${short} s, renewInterval 1000 ms): ${ir:-?} instructions for"
    if [ -n "${ir:-}" ] && [ -n "${renewed:-}" ] && [ "$renewed" -gt 0 ]; then
        echo "${renewed} renewals, **$(( ir / renewed )) instructions per renewal** (everything the"
        echo "process did in the window: the renewal, its watch event, the event line)."
    else
        echo "${renewed:-?} renewals: per renewal not measured."
    fi
    echo
    stamp callgrind
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
        echo
    fi
    echo "## Dashboard"
    echo
    echo "\`bench_dashboard\`: 5,000 and 20,000 leases on an in-process MemoryStore, each renewed every"
    echo "10 s (a write every 20 ms for 10 or 40 leases), through a LeaseObserver into the lease table"
    echo "(sorted by freshness: every tick changes every row's key) and one lease's timeline, in"
    echo "a shown window (offscreen platform). A 5 ms heartbeat timer measures the longest"
    echo "event-loop stall; the CPU per renewal is the process's CPU time over the renewals"
    echo "written, everything included (the store write and its watch, the observer, the models,"
    echo "the painting). With \`--history\` every lease has 20 stored changes (100,000 or 400,000"
    echo "rows) that the first list reads. Targets (issue #26): the table (and the history) full"
    echo "within 2 s; no stall above 16 ms, one frame at 60 Hz, while it fills nor while the"
    echo "leases renew."
    echo
    echo "| run | first full table (ms) | longest stall while it filled (ms) | selecting a lease (ms) | writes | CPU per renewal (ms) | longest stall while renewing (ms) | full table ≤ 2 s | stall ≤ 16 ms filling | stall ≤ 16 ms renewing |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    awk '/^setup:/ { n++ } n == 1' "$work/dashboard.md" | dashboard_row "5,000, no history"
    awk '/^setup:/ { n++ } n == 2' "$work/dashboard.md" | dashboard_row "5,000, \`--history\`"
    awk '/^setup:/ { n++ } n == 3' "$work/dashboard.md" | dashboard_row "20,000, no history"
    awk '/^setup:/ { n++ } n == 4' "$work/dashboard.md" | dashboard_row "20,000, \`--history\`"
    echo
    stamp dashboard
    echo "## Stored history: what it writes"
    echo
    echo "\`bench_history\`: one Registry election (leaseDuration 600 ms, renewInterval 100 ms) on"
    echo "a MemoryStore behind a store that counts every call of the Store interface and the"
    echo "compact JSON bytes of every document written. A request is one call, as a network store"
    echo "sends it (\`createWith\`/\`updateWith\`: one request, on etcd one txn, carrying the lease"
    echo "record and the history). \`historyLength 0\` writes what an election wrote before the"
    echo "history existed."
    echo
    cat "$work/history.md"
    echo
    stamp history
    cat tests/bench/benchmarks-bounds.md
} >"$page"

if [ "$write_docs" = 0 ]; then
    cat "$page"
    exit 0
fi
cp "$page" docs/benchmarks.md
echo "bench: wrote docs/benchmarks.md ($(( elapsed / 60 )) min)" >&2
