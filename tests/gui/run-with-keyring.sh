#!/bin/sh
# Runs a test inside its own D-Bus session with an unlocked gnome-keyring
# (a real Secret Service), in a temporary HOME and XDG folders, so that the
# keychain test touches nothing of the user's. Fails, never skips, when the
# Secret Service cannot be started.
set -eu
test_binary=$1
shift
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run-with-keyring: $tool is missing (packages dbus, gnome-keyring: see setup.sh)" >&2
    exit 1
  fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home"
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" XDG_CACHE_HOME="$scratch/cache"
export XDG_RUNTIME_DIR="$scratch/runtime"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export BATON_KEYRING_SESSION=1
exec dbus-run-session -- sh -c '
  printf %s baton-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null || {
    echo "run-with-keyring: gnome-keyring-daemon did not start" >&2; exit 1; }
  exec "$0" "$@"' "$test_binary" "$@"
