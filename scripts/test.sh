#!/usr/bin/env bash
# The README's test command: set-up, build (Release), every test through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

# Reliability (issue 7, docs/reliability.md). MS_SKIP_SANITIZERS=1 skips this part.
# 1. Every C test again under AddressSanitizer + UndefinedBehaviorSanitizer (clang), with the
#    libFuzzer targets and a short run of each (MS_FUZZ_SECONDS, default 15). The Python package
#    and the oracle load the library into python3, which an ASan library cannot join: not run here.
#    install_find_package links an installed copy into an uninstrumented program: not run here either.
# 2. The thread tests, and the tests that drive the CPU worker pool, under ThreadSanitizer.
if [ "${MS_SKIP_SANITIZERS:-0}" != 1 ]; then
  CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMSAMPLER_CUDA=OFF \
    -DMSAMPLER_SANITIZE=ON -DMSAMPLER_FUZZ=ON >/dev/null
  cmake --build build-asan -j"$(nproc)"
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" \
    -E '^(python_package|python_pip_install|oracle_explain_vs_reference|install_find_package)$'
  CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMSAMPLER_CUDA=OFF \
    -DMSAMPLER_TSAN=ON -DMSAMPLER_PROGRAMS=OFF >/dev/null
  cmake --build build-tsan -j"$(nproc)"
  ctest --test-dir build-tsan --output-on-failure -j"$(nproc)" \
    -R '^(threads_.*|soak_model_rich_spec_threads|cpu_threads_match_reference|cpu_pool_many_calls|cpu_split_rows_match|cpu_split_rows_stalled|determinism_threads_and_backends)$'
fi
