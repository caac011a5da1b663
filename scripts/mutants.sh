#!/bin/sh
# Mutation testing (docs/testing.md, "Mutants"): each named mutant below is
# one small edit of a safety-relevant line of the Elector, the exec
# supervisor and its guard, a store's conditional write, join's event
# stream, the Kubernetes lease protocol's update, the Kubernetes run
# records' conditional writes, the scheduled runs' planner, the steering
# (the steering policy and the Elector's stand-by gate), or the listing an
# etcd store answers from its watch. For each, the
# script applies the edit to the source tree, builds, runs the tests that
# should notice
# (one at a time, in the order given, stopping at the first that fails),
# puts the line back, and reports the mutant killed (by that test) or
# survived. It exits non-zero when a mutant survives, when an edit no
# longer applies (the line it targets changed: update the mutant), or when
# a mutant does not build.
#
#   scripts/mutants.sh [BUILD_DIR] [NAME_REGEX]
#
# BUILD_DIR defaults to build/dev (configure it first: cmake --preset dev).
# NAME_REGEX picks mutants by name. Builds use -j${BATON_MUTANT_JOBS:-2}.
# The mutated file is copied first and copied back after each mutant, also
# when the run is interrupted (trap); do not edit the tree while it runs.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/dev}
only=${2:-.}
jobs=${BATON_MUTANT_JOBS:-2}

[ -f "$build/CMakeCache.txt" ] || { echo "mutants: $build is not a configured build folder" >&2; exit 2; }

elector=libcluster/src/core/elector.cpp
electorstop=libcluster/src/core/electorstop.cpp
electorhandover=libcluster/src/core/electorhandover.cpp
observed=libcluster/src/core/leasesighting.cpp
exec=headless/exec/execsupervisor.cpp
guard=headless/exec/execguardstart.cpp
memory=libcluster/src/stores/memorystore.cpp
file=libcluster/src/stores/filestore.cpp
folder=libcluster/src/stores/versionfolder.cpp
folderwriting=libcluster/src/stores/versionfolderwriting.cpp
etcd=libcluster/src/etcd/etcdupdatebatcher.cpp
txn=libcluster/src/etcd/etcdtxn.cpp
reads=libcluster/src/etcd/etcdrangebatcher.cpp
mirror=libcluster/src/etcd/etcdlistmirror.cpp
streamh=libcluster/src/etcd/etcdwatchstream.h
join=headless/joincommand.cpp
queue=headless/outputqueue.cpp
side=libcluster/src/stores/store.cpp
kube=libcluster/src/kube/kubernetesleaseprotocol.cpp
kubewire=libcluster/src/kube/kubeleasewire.cpp
kuberuns=libcluster/src/kube/kuberunrecords.cpp
planner=libcluster/src/stores/tickplanner.cpp
policy=libcluster/src/stores/steeringpolicy.cpp
observer=libcluster/src/observer/leaseobserverreading.cpp

elector_tests="tst_elector tst_simulation"
exec_tests="tst_execsupervisor tst_joinexec"
guard_tests="tst_execguardprotocol"
memory_tests="tst_store_memory"
file_tests="tst_store_file"
etcd_tests="tst_store_etcd"
# The refusals of a restricted role, answered by the test's own etcd-speaking server.
etcdwire_tests="tst_etcdwire"
followed_tests="tst_etcdfollowedlisting"
join_tests="tst_joinevents"
once_tests="tst_joinonce"
history_tests="tst_storehistory tst_store_file"
kube_tests="tst_kubeleasebackend"
runs_tests="tst_runledger"
observer_tests="tst_leaseobserver"
# The simulation first: these mutants are there to show that it kills them.
planner_tests="tst_simulation tst_tickplanner"
# The simulation first here too: preference and drain under every fault.
steering_tests="tst_simulation tst_steeringpolicy tst_elector"
# The back-off is the roster's, which the simulation does not drive.
backoff_tests="tst_steeringpolicy"

# name|file|exact line as it is|line as the mutant has it|tests
mutants() {
cat <<'EOF'
follower-expiry-at-half-lease|OBSERVED|    return now() - m_seenAt >= leaseDuration();|    return now() - m_seenAt >= leaseDuration() / 2;|ELECTOR_TESTS
follower-expiry-at-three-quarters|OBSERVED|    return now() - m_seenAt >= leaseDuration();|    return now() - m_seenAt >= leaseDuration() * 3 / 4;|ELECTOR_TESTS
leader-deadline-at-lease|ELECTOR|    return (m_params.leaseDurationMs + m_params.renewIntervalMs) / 2;|    return m_params.leaseDurationMs;|ELECTOR_TESTS
leader-deadline-half-renewal-late|ELECTOR|    return (m_params.leaseDurationMs + m_params.renewIntervalMs) / 2;|    return (m_params.leaseDurationMs + m_params.renewIntervalMs) / 2 + m_params.renewIntervalMs / 2;|ELECTOR_TESTS
isleader-ignores-deadline|ELECTOR|    return m_state == State::Leading && now() < m_validUntil;|    return m_state == State::Leading;|ELECTOR_TESTS
release-past-deadline|ELECTORSTOP|    if (now() >= m_validUntil) {|    if (false) {|ELECTOR_TESTS
follower-ignores-reservation|OBSERVED|            && r.successor != anySuccessor && r.successor != m_identity && !expired();|            && r.successor != anySuccessor && r.successor != m_identity && !expired() && false;|ELECTOR_TESTS
handover-past-deadline|ELECTORHANDOVER|    if (now() >= m_validUntil) {|    if (false) {|ELECTOR_TESTS
stopped-leading-over-reports-validuntil|ELECTOR|    out.push_back(action::StoppedLeading {reason, std::min(m_validUntil, now())});|    out.push_back(action::StoppedLeading {reason, m_validUntil + m_params.renewIntervalMs});|ELECTOR_TESTS
constant-fencing-token|ELECTOR|    m_token = state.record.transitions;|    m_token = state.record.transitions >= 0 ? 1 : 0;|ELECTOR_TESTS
incarnation-ignored|OBSERVED|            && record.holderIncarnation == m_incarnation;|            && true;|ELECTOR_TESTS
exec-no-sigkill-after-grace|EXEC|        m_graceTimer.start(int(m_graceMs));|        (void)m_graceMs;|EXEC_TESTS
exec-signals-the-shell-not-its-group|EXEC|        ::kill(-pid_t(m_pid), signalNumber);|        ::kill(pid_t(m_pid), signalNumber);|EXEC_TESTS
exec-release-before-the-command-exits|EXEC|    return m_exited->future();|    return QtFuture::makeReadyFuture();|EXEC_TESTS
exec-guard-no-prefork-deadline-check|GUARD|    if (tooLateToStart(m_deadline, m_graceMs)) {|    if (false) {|GUARD_TESTS
memorystore-update-ignores-version|MEMORY|    if (current.version != version)|    if (false)|MEMORY_TESTS
filestore-update-ignores-version|FILE|    if (head.result.entry.version != version)|    if (false)|FILE_TESTS
filestore-renewal-builds-on-a-late-file|FOLDER|    if (head.writer != writer)|    if (false)|FILE_TESTS
filestore-names-take-a-late-file-for-the-head|FOLDERWRITING|    return still.version == over.version && still.writer == over.writer;|    return still.version == over.version;|FILE_TESTS
history-write-unconditional|SIDE|    if (side.basedOn && now == *side.basedOn)|    if (true)|HISTORY_TESTS
etcd-update-compares-nothing|TXN|    body.append("{\"compare\":").append(m_compares).append("],\"success\":").append(m_puts)|    body.append("{\"compare\":[").append("],\"success\":").append(m_puts)|ETCD_TESTS
etcd-reads-answered-with-anothers-range|READS|                        reads.at(i).done(answers.at(i), std::nullopt);|                        reads.at(i).done(answers.at(reads.size() - 1 - i), std::nullopt);|ETCD_TESTS
etcd-refused-reads-never-halved|READS|    } else if (!apart) {|    } else if (false) {|ETCDWIRE_TESTS
listing-served-while-the-watch-is-broken|MIRROR|    return m_primed && m_watch->vouchesFor(m_primedAt);|    return m_primed;|FOLLOWED_TESTS
listing-keeps-what-compaction-lost|STREAMH|        return m_stream && m_confirmedAt > 0 && !m_widenTimer.isActive() && knownAt + 1 >= m_gaplessFrom|        return m_stream && m_confirmedAt > 0 && !m_widenTimer.isActive()|FOLLOWED_TESTS
listing-misses-its-own-writes|MIRROR|        take({ entry, revision, false });|        Q_UNUSED(entry);|FOLLOWED_TESTS
listing-own-write-undoes-a-later-removal|MIRROR|    if (revision > m_watch->newsRevision())|    if (revision > 0)|FOLLOWED_TESTS
once-leadership-lost-ignored|JOIN|                        if (!m_stopping && reason == ExecSupervisor::StopReason::Stopped)|                        if (false && reason == ExecSupervisor::StopReason::Stopped)|ONCE_TESTS
events-blocking-write|QUEUE|    state.items.push_back({std::move(line), 0});|    writeAll(state.fd, line);|JOIN_TESTS
kube-update-from-bare-object|KUBEWIRE|    const bool known = !last.isEmpty();|    const bool known = false;|KUBE_TESTS
kube-update-at-unseen-version-without-reading|KUBE|    if (seenAt(name, version).isEmpty()) {|    if (false) {|KUBE_TESTS
kube-run-claim-lost-taken-for-won|KUBERUNS|    if (result.ok()) {|    if (result.ok() or result.error.httpStatus == 409) {|RUNS_TESTS
kube-run-settle-ignores-version|KUBERUNS|    m_api->send("PUT", url(name), configMap(record, earlier.version),|    m_api->send("PUT", url(name), configMap(record, earlier.version.left(0)),|RUNS_TESTS
planner-rerun-while-a-run-goes|PLANNER|    if (m_policy.onInterrupted == OnInterrupted::Rerun && !m_current) {|    if (m_policy.onInterrupted == OnInterrupted::Rerun) {|PLANNER_TESTS
planner-catch-up-runs-an-older-tick|PLANNER|    const QDateTime latest = m_policy.schedule.latestAtOrBefore(now);|    const QDateTime latest = m_policy.schedule.latestAtOrBefore(now.addMSecs(-m_policy.schedule.periodMs()));|PLANNER_TESTS
follower-ignores-the-stand-by-gate|ELECTOR|    if (!m_standingBy)|    if (true)|STEERING_TESTS
leader-ignores-the-hysteresis|POLICY|            && nowMs - other.stableSinceMs >= m_self.preferAfterMs;|            && nowMs - other.stableSinceMs >= 0;|STEERING_TESTS
policy-moves-on-equal-priority|POLICY|        const bool preferred = other.record.priority > m_self.priority|        const bool preferred = other.record.priority >= m_self.priority|STEERING_TESTS
observer-keeps-a-lease-no-list-has|OBSERVER|        if (!listed.contains(it.key()) && !watched.contains(it.key()))|        if (false)|OBSERVER_TESTS
policy-forgets-a-missed-handover|POLICY|    sighting->stableSinceMs = nowMs + wait - m_self.preferAfterMs;|    Q_UNUSED(wait); Q_UNUSED(nowMs);|BACKOFF_TESTS
EOF
}

backup=$(mktemp -d)
current=""
restore() {
    if [ -n "$current" ]; then
        cp "$backup/original" "$current"
        current=""
    fi
}
trap 'restore; rm -rf "$backup"' EXIT INT TERM

# Replaces the one line of $1 equal to $2 by $3; fails unless exactly one matches.
apply() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
lines = open(path).read().split('\n')
hits = [i for i, l in enumerate(lines) if l == old]
if len(hits) != 1:
    sys.exit(f"{len(hits)} lines of {path} are the mutant's target")
lines[hits[0]] = new
open(path, 'w').write('\n'.join(lines))
PY
}

targets_of() {
    for t in $1; do printf '%s ' "$t"; done
}

killed=0
survived=0
broken=0
note() {
    echo "$1"
}

echo "mutants: $(git rev-parse --short HEAD) $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) cores, build $build"
mutants > "$backup/list"
while IFS='|' read -r name which old new tests; do
    echo "$name" | grep -Eq -- "$only" || continue
    case $which in
        ELECTOR) path=$elector ;; ELECTORSTOP) path=$electorstop ;; ELECTORHANDOVER) path=$electorhandover ;; OBSERVED) path=$observed ;;
        EXEC) path=$exec ;; GUARD) path=$guard ;; MEMORY) path=$memory ;;
        FILE) path=$file ;; FOLDER) path=$folder ;; FOLDERWRITING) path=$folderwriting ;; ETCD) path=$etcd ;; TXN) path=$txn ;; READS) path=$reads ;; MIRROR) path=$mirror ;; STREAMH) path=$streamh ;; JOIN) path=$join ;; QUEUE) path=$queue ;; SIDE) path=$side ;; KUBE) path=$kube ;; KUBEWIRE) path=$kubewire ;; KUBERUNS) path=$kuberuns ;;
        PLANNER) path=$planner ;; POLICY) path=$policy ;; OBSERVER) path=$observer ;;
    esac
    case $tests in
        ELECTOR_TESTS) tests=$elector_tests ;; EXEC_TESTS) tests=$exec_tests ;; GUARD_TESTS) tests=$guard_tests ;;
        MEMORY_TESTS) tests=$memory_tests ;; FILE_TESTS) tests=$file_tests ;;
        ETCD_TESTS) tests=$etcd_tests ;; ETCDWIRE_TESTS) tests=$etcdwire_tests ;; FOLLOWED_TESTS) tests=$followed_tests ;; JOIN_TESTS) tests=$join_tests ;; ONCE_TESTS) tests=$once_tests ;;
        HISTORY_TESTS) tests=$history_tests ;; KUBE_TESTS) tests=$kube_tests ;; RUNS_TESTS) tests=$runs_tests ;; PLANNER_TESTS) tests=$planner_tests ;;
        STEERING_TESTS) tests=$steering_tests ;; BACKOFF_TESTS) tests=$backoff_tests ;; OBSERVER_TESTS) tests=$observer_tests ;;
    esac
    cp "$path" "$backup/original"
    current=$path
    if ! err=$(apply "$path" "$old" "$new" 2>&1); then
        restore
        note "BROKEN   $name: $err"
        broken=$((broken + 1))
        continue
    fi
    if ! cmake --build "$build" --target baton $(targets_of "$tests") -j"$jobs" >"$backup/build.log" 2>&1; then
        restore
        note "BROKEN   $name: does not build ($(grep -m1 'error:' "$backup/build.log" || echo 'see the build'))"
        broken=$((broken + 1))
        continue
    fi
    killer=""
    for t in $tests; do
        if ! ctest --test-dir "$build" -R "^$t\$" --timeout 300 >"$backup/test.log" 2>&1; then
            killer=$t
            break
        fi
    done
    restore
    if [ -n "$killer" ]; then
        note "killed   $name (by $killer)"
        killed=$((killed + 1))
    else
        note "SURVIVED $name (ran: $tests)"
        survived=$((survived + 1))
    fi
done < "$backup/list"

# The tree is back as it was: rebuild it so the build folder matches it.
cmake --build "$build" --target baton $(targets_of "$elector_tests $exec_tests $guard_tests $memory_tests $file_tests $etcd_tests $etcdwire_tests $followed_tests $join_tests $once_tests $history_tests $kube_tests $planner_tests $steering_tests $backoff_tests") -j"$jobs" >"$backup/build.log" 2>&1 \
    || { echo "mutants: the restored tree does not build" >&2; exit 2; }

echo "mutants: $killed killed, $survived survived, $broken broken"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
