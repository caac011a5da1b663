#!/bin/sh
# Builds the asan preset (GCC, ASan + UBSan, tests on, build/asan) and runs
# the default suite under it. The first sanitizer report ends the test that
# made it (see the asan test preset in CMakePresets.json).
set -eu
cd "$(dirname "$0")/.."
./setup.sh
cmake --preset asan
cmake --build --preset asan
exec ctest --preset asan
