#!/bin/sh
# The README's examples run as written (its ```json blocks, with the commands
# beside them): a README whose example no longer works fails the suite.
# Usage: run-readme-examples.sh README BATON POLLER_EXAMPLE
set -eu
readme=$1 baton=$2 poller=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BATON_DATA_DIR="$work/data"

# Each ```json block of the README, in order, as block-1.json, block-2.json...
awk -v dir="$work" '
  /^```json$/ { n++; file = dir "/block-" n ".json"; inside = 1; next }
  /^```$/     { inside = 0; next }
  inside      { print > file }
' "$readme"

cluster=$(grep -l '"nightly-report"' "$work"/block-*.json)
poller_config=$(grep -l '"Example/Poller"' "$work"/block-*.json)
[ -n "$cluster" ] && [ -n "$poller_config" ] || { echo "README: a json example is missing" >&2; exit 1; }

# "Run a command on one server at a time": the configuration loads and its
# timings are explained (nothing runs with --explain).
"$baton" join --config "$cluster" --exec "exec /usr/local/bin/nightly-report" --explain
# One participant, run once, then the status of what it left: a look never
# creates the Registry, so the participant comes first.
"$baton" join --config "$cluster" --exec "exit 0" --once --try 0
"$baton" status --config "$cluster"

# "Use it in your Qt program": the services the README shows, with the
# example's Poller type, poll on the leader.
"$poller" --config "$poller_config" --polls 1
echo "the README's examples run"
