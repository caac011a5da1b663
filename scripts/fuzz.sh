#!/bin/sh
# Builds the fuzz preset (clang, libFuzzer, ASan, UBSan) and runs every fuzz
# target for SECONDS (default 60) on its seed corpus (tests/fuzz/corpus/NAME).
# What a run discovers goes to build/fuzz/corpus/NAME, not into the sources;
# a crash, leak or timeout is saved under build/fuzz/artifacts/NAME/: copy it
# into tests/fuzz/corpus/NAME once fixed, and the replay test keeps it.
# Prints per target: runs, corpus size, crashes. Exits 1 if any target crashed.
set -eu

seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/fuzz"
targets="config leasecodec etcd kubelease kubeconfig"

cd "$root"
./setup.sh fuzz
cmake --preset fuzz >/dev/null
# Only the targets: the rest of the tree gains nothing from the sanitizers here.
# The build is quiet unless it fails; then its errors are what CI must show.
mkdir -p "$build"
if ! cmake --build "$build" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) \
    >"$build/build.log" 2>&1; then
  grep -E 'error|FAILED' "$build/build.log" | head -n 40 >&2
  echo "fuzz: the fuzz targets did not build (clang); the whole log is $build/build.log" >&2
  exit 1
fi

failed=0
printf '%-12s %12s %8s %8s\n' target runs corpus crashes
for t in $targets; do
  work="$build/corpus/$t"
  artifacts="$build/artifacts/$t"
  log="$build/fuzz_$t.log"
  mkdir -p "$work" "$artifacts"
  # -rss_limit_mb: Qt and ASan together stay far below it; a parser that
  # does not is a finding. stdin is closed so that no input can wait on it.
  status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$work" "tests/fuzz/corpus/$t" </dev/null >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(find "$work" -type f | wc -l)
  crashes=$(find "$artifacts" -type f | wc -l)
  printf '%-12s %12s %8s %8s\n' "$t" "${runs:-?}" "$corpus" "$crashes"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "  fuzz_$t: exit $status, see $log and $artifacts" >&2
  fi
done
exit $failed
