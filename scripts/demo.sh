#!/usr/bin/env bash
# The README's main job: set-up, build, then `msample` (the simulated serving loop).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
exec ./build/programs/msample "$@"
