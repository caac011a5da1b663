#!/bin/sh
# Regenerates docs/screenshots/*.png: the dashboard rendered offscreen on a
# scripted demo election (baton-screenshots, never installed), in English and
# in French.
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default: the preset's build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-}
if [ -z "$build" ]; then
  scripts/build.sh >&2
  build="build/$(scripts/preset.sh)"
fi
out=docs/screenshots
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen QT_LOGGING_RULES='baton.*.info=false'
"$build/gui/screenshots/baton-screenshots" --lang en "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/gui/screenshots/baton-screenshots" --lang fr "$tmp" >/dev/null
cp "$tmp/dashboard.png" "$out/dashboard-fr.png"
echo "$out/dashboard-fr.png"
