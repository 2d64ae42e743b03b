#!/bin/bash
# In-process A/B harnesses of CPU round 9 (bench/results/cpu-2026-11-30-round9.md), built against a
# CPU-only build of this tree. Usage (from the repository root):
#   bash bench/inprocess/build.sh BUILD_DIR [OLD_REV]   -> $OUT_DIR/dab, and with OLD_REV $OUT_DIR/rowab
#   dab   V shape(0 flat, 1 peaked) batches setting(0 top-p alone, 1 no filter) [B]
#         the tree's fast row with its direct exp pass on and off (ms__fast_set_direct), same cold rows
#   rowab V shape batches setting(0 top-p alone, 1 full)
#         OLD_REV's fast row (its ms_cpu_fast*.c, every defined global renamed A_*) against the tree's
# BUILD_DIR holds libmsampler.a, built with the same -O3 -DNDEBUG as the old side here (cmake -S . -B BUILD_DIR -DMSAMPLER_CUDA=OFF -DCMAKE_BUILD_TYPE=Release).
# The old side's calls into the rest of the library (the worker pool, ms_math.h's inline code) go to
# the tree's: valid while those did not change between OLD_REV and the tree (true for 27d4fe9).
set -eu
B=$1; OLD=${2:-}; O=${OUT_DIR:-/tmp/inprocess}
mkdir -p "$O"
CF=(-O3 -DNDEBUG -std=c11 -ffp-contract=off -fno-fast-math -Isrc -Iinclude -Itests)
gcc "${CF[@]}" bench/inprocess/dab.c "$B/libmsampler.a" -lm -lpthread -o "$O/dab"
[ -n "$OLD" ] || exit 0
W=$O/old; rm -rf "$W"; mkdir -p "$W/src"
for f in ms_cpu_fast.c ms_cpu_fast_simd.c ms_cpu_fast_w16.c ms_cpu_fast_avx2.c ms_cpu_fast_avx512.c ms_cpu.h; do
  git show "$OLD:src/$f" >"$W/src/$f"
done
gcc "${CF[@]}" -DMS_CPU_FAST_X86=1 -I"$W/src" -c "$W/src/ms_cpu_fast.c" -o "$W/fast.o"
gcc "${CF[@]}" -I"$W/src" -c "$W/src/ms_cpu_fast_simd.c" -o "$W/simd.o"
gcc "${CF[@]}" -Wno-psabi -I"$W/src" -c "$W/src/ms_cpu_fast_w16.c" -o "$W/w16.o"
gcc "${CF[@]}" -mavx2 -I"$W/src" -c "$W/src/ms_cpu_fast_avx2.c" -o "$W/avx2.o"
gcc "${CF[@]}" -mavx512f -mavx512bw -mavx512dq -mavx512vl -I"$W/src" -c "$W/src/ms_cpu_fast_avx512.c" -o "$W/avx512.o"
objs=("$W"/fast.o "$W"/simd.o "$W"/w16.o "$W"/avx2.o "$W"/avx512.o)
# every global the old objects define gets an A_ name, in definitions and references alike
nm --defined-only -g "${objs[@]}" | awk 'NF == 3 {print $3}' | sort -u |
  awk '{n = $1; if (n == "ms__fast_row") a = "A_fast_row"; else if (n == "ms__fast_scratch_init") a = "A_scratch_init"; else a = "A_" n; print n, a}' >"$W/map"
for o in "${objs[@]}"; do objcopy --redefine-syms="$W/map" "$o"; done
gcc "${CF[@]}" bench/inprocess/rowab.c "${objs[@]}" "$B/libmsampler.a" -lm -lpthread -o "$O/rowab"
