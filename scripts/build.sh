#!/bin/sh
# Installs what is missing, then configures and builds with the CMake preset
# named by scripts/preset.sh.
set -eu
cd "$(dirname "$0")/.."
./setup.sh
preset=$(scripts/preset.sh)
cmake --preset "$preset"
cmake --build --preset "$preset"
