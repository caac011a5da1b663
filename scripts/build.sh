#!/bin/sh
# Installs what is missing, then configures and builds with the CMake preset
# named by scripts/preset.sh: everything, or only the TARGETs named.
#
#   scripts/build.sh [TARGET...]
set -eu
cd "$(dirname "$0")/.."
./setup.sh
preset=$(scripts/preset.sh)
cmake --preset "$preset"
if [ "$#" -eq 0 ]; then
  cmake --build --preset "$preset"
else
  cmake --build --preset "$preset" --target "$@"
fi
