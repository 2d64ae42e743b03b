#!/usr/bin/env bash
# scripts/gpu_run.sh: everything the CUDA backend needs from a lent GPU, in one call (issue 4, and
# issue 7's GPU part): build (sm_90, --fmad=false), the CUDA tests, compute-sanitizer (memcheck,
# racecheck, initcheck, synccheck) on the quick test set, and the benchmark table.
# Usage: scripts/gpu_run.sh [all|test|san|bench|prof|prof2|prof3|r2|r3|final|exp|r5|r5c|prof5|r6|r7|r7s|r8|r9|r10] [bench args...]; logs go to
# $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

# Other engineers' uncommitted (maybe half-done) edits travel with the tree: the caller may carry their
# committed versions in .devcarry/head/<path> (git show HEAD:<path>), put back here before any build
# (the device's .git is stale, so git cannot do it there).
if [ -d .devcarry/head ]; then
  (cd .devcarry/head && find . -type f | sed 's|^\./||') | while read -r f; do cp ".devcarry/head/$f" "$f" && echo "reset to HEAD: $f"; done
fi
log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/machine.txt"
nvcc --version | tail -1 | tee -a "$OUT/machine.txt"
git rev-parse HEAD 2>/dev/null | tee -a "$OUT/machine.txt"

log "build"
try_variants() {
  declare -A VAR=([B]="-DMS_CU_K4_NO_GHIST" [C]="-DMS_CU_K4_NO_GHIST -DMS_CU_K4_OLD_DRAW -DMS_CU_K4_OLD_HIST"
                  [D]="-DMS_CU_K4_GATHER")
  for v in B C D; do
    (cmake -S . -B build-gpu$v -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
       -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${VAR[$v]}" >"$OUT/build$v.log" 2>&1 &&
     cmake --build build-gpu$v -j4 --target ms_cuda_tests ms_bench_cuda >>"$OUT/build$v.log" 2>&1) &
  done
}
[ "$what" = r3 ] && [ -z "${NOVAR:-}" ] && try_variants # NOVAR=1: only the main build
T0=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - T0) )); } # seconds left of this call's budget
# The CPU-only build for issue 5's host numbers (r4a/r4c), beside the CUDA build
host_build() {
  # the GPU machine has no libcjson (msample needs it): carry .devcarry/cjson (header + .so copied from a dev box)
  local cj=()
  [ -f .devcarry/cjson/include/cjson/cJSON.h ] && cj=(-DMS_CJSON_INCLUDE_DIR=$PWD/.devcarry/cjson/include
    -DMS_CJSON_LIBRARY=$PWD/.devcarry/cjson/lib/libcjson.so) && export LD_LIBRARY_PATH=$PWD/.devcarry/cjson/lib
  (timeout 200 cmake -S . -B build-host -DMSAMPLER_CUDA=OFF -DCMAKE_BUILD_TYPE=Release "${cj[@]}" >"$OUT/cpu_build.log" 2>&1 &&
   timeout 200 cmake --build build-host -j8 >>"$OUT/cpu_build.log" 2>&1; echo "host build exit $?" >>"$OUT/cpu_build.log") &
}
# The CPU backend's levels on this host (issue 5 has no AVX-512 machine): the bench per level, pinned
cpu_bench() {
  { log "host CPU"; lscpu | grep -E 'Model name'; echo "avx512 flags: $(lscpu | grep Flags | tr ' ' '\n' | grep avx512 | tr '\n' ' ')"
    echo "cores: $(nproc); date: $(date -u)"; } >>"$OUT/cpu.txt"
  tail -2 "$OUT/cpu_build.log" >>"$OUT/cpu.txt"
  if lscpu | grep -q avx512f && lscpu | grep -q avx512bw && lscpu | grep -q avx512dq && lscpu | grep -q avx512vl; then
    for L in avx2 avx512; do
      log "msample bench, MSAMPLER_CPU_LEVEL=$L" >>"$OUT/cpu.txt"
      MSAMPLER_CPU_LEVEL=$L timeout ${CPU_T:-$(( $(left) / 3 > 20 ? $(left) / 3 : 20 ))} taskset -c 2 build-host/programs/msample bench \
        --vocab 151936,262144 --batch 1,64 --threads 1 --setting both --shape both --reps 15 >>"$OUT/cpu.txt" 2>&1
      echo "   exit $?" >>"$OUT/cpu.txt"
    done
  else
    echo "no AVX-512F/BW/DQ/VL here: bench skipped" >>"$OUT/cpu.txt"
  fi
}
case "$what" in r4a|r4b|r4c) [ -z "${NOCPU:-}" ] && host_build ;; esac
if { [ "$what" = r4c ] || [ "$what" = r5c ]; } && [ -f third_party/flashinfer/include/flashinfer/sampling.cuh ]; then # FlashInfer's bench build, beside
  (timeout 300 cmake -S . -B build-gpu-fi -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DMSAMPLER_PROGRAMS=OFF -DMSAMPLER_TESTS=OFF -DMSAMPLER_FLASHINFER_INCLUDE=$PWD/third_party/flashinfer/include \
     >/tmp/build_fi0.log 2>&1 && timeout 300 cmake --build build-gpu-fi -j6 --target ms_bench_cuda >>/tmp/build_fi0.log 2>&1) &
fi
if [ "$what" = r4b ] && [ -z "${NOVAR:-}" ]; then # variant N: the BAND path off (round 3's FULL path), for the A/B
  (cmake -S . -B build-gpuN -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF -DMSAMPLER_TESTS=OFF \
     -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${R4VAR:--DMS_CU_NO_BAND}" >"$OUT/buildN.log" 2>&1 &&
   cmake --build build-gpuN -j4 --target ms_bench_cuda >>"$OUT/buildN.log" 2>&1) &
fi
# r8 (round 8: K1's pass fused into K2 for lite rows, -DMS_CU_FUSE12, off by default): builds main
# (MAIN_CUDA_FLAGS, default -DMS_CU_FUSE12), N (the default code) and S (-DMS_CU_STAMPS -DMS_CU_FUSE12, the
# stamps timeline); "F" is main's bench with MS_BENCH_FUSE_MIN=1 (every lite row of the default order fused,
# at every B). The binaries may be carried prebuilt in .devcarry/r8bin/{main,N,S} (nvcc on the dev box; the
# device's build time is most of a cold call): used when they run here, else built here. The CPU-only tree
# (host_build) builds beside them for the CPU engineer's tests (ctest -R '^cpu_', to cpu_tests.txt).
R8_PIDS=""
if [ "$what" = r8 ]; then
  [ -z "${NOCPU:-}" ] && { host_build; R8_HOST_PID=$!; }
  MAIN_CUDA_FLAGS=${MAIN_CUDA_FLAGS--DMS_CU_FUSE12}
  declare -A R8F=([N]="-DMS_CU_R8_BASE" [F]="main's, MS_BENCH_FUSE_MIN=1" [S]="-DMS_CU_STAMPS -DMS_CU_FUSE12")
  for v in main N S; do
    src=.devcarry/r8bin/$v; dst=build-gpu; [ $v = main ] || dst=build-gpu$v
    if [ -x $src/ms_bench_cuda ] && { $src/ms_bench_cuda --help 2>&1 || true; } | grep -q usage; then
      mkdir -p $dst/tests/cuda && cp $src/ms_bench_cuda $dst/ && { [ ! -x $src/ms_cuda_tests ] || cp $src/ms_cuda_tests $dst/tests/cuda/; }
      echo "variant $v: carried binaries ($(ls $src | tr '\n' ' '))" | tee -a "$OUT/build.log"
    elif [ $v != main ]; then
      echo "variant $v: building here (${R8F[$v]})" | tee -a "$OUT/build.log"
      (cmake -S . -B $dst -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
         -DMSAMPLER_TESTS=$([ $v = N ] && echo ON || echo OFF) -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${R8F[$v]}" >/tmp/build$v.log 2>&1 &&
       cmake --build $dst -j6 --target ms_bench_cuda $([ $v = N ] && echo ms_cuda_tests) >>/tmp/build$v.log 2>&1; echo "variant $v build exit $?" >>"$OUT/build.log") &
      R8_PIDS="$R8_PIDS $!"
    fi
  done
  [ -x build-gpu/tests/cuda/ms_cuda_tests ] && build-gpu/tests/cuda/ms_cuda_tests --list >/dev/null 2>&1 && SKIP_BUILD=1
fi
# r9 (round 9): binaries carried prebuilt in .devcarry/r9bin/<variant>/ (ms_bench_cuda, and ms_cuda_tests where
# tests run on it; each variant's flags in R9F below, a variant without binaries is skipped), then the steps of
# R9_STEPS in order, each bounded by what is left of BUDGET_S: tests:V (every test of V's runner, or R9_TESTS),
# san:V (memcheck and racecheck on the quick set), ab (the full setting at V=151936, B in R9_B, both shapes,
# for each variant of R9_AB (default "D F FF"), R9_AB_N times; a name ending in F other than "F" that is not itself
# a carried variant = that variant's bench with MS_BENCH_FUSE_MIN=1, every lite row of the default order fused
# (r9_fz_name; round 10's "DEF" was read as "DE, fused" before that rule); the first run of each
# checks its tokens against the CPU reference), stamps:V (V's timeline at B in R7S_B, both shapes, and flat with
# every row fused), ncu (kernel times, flat, of R9_NCU "variant:B ..."). No build of the main tree. Call 1 of
# round 9 ran R9_STEPS="tests:D ab stamps:S san:D tests:F san:F ncu" (D: the default code, F: -DMS_CU_FUSE12,
# S: -DMS_CU_STAMPS -DMS_CU_FUSE12 at that commit).
# r10 (round 10): r9's steps on the binaries of .devcarry/r10bin/<variant>/ (FIN: round 9's final default, K:
# -DMS_CU_K4_SPREAD, KL: + -DMS_CU_K4_LISTPRE, KLG: + -DMS_CU_K2_GRP, S: KLG + -DMS_CU_STAMPS).
# Call 2 ran R9_BIN=.devcarry/r10bin-call2 (FIN, DEF, S2) for the stamps and the A/B, then the tests and the
# sanitizers of DEF side by side as two r9 runs with R9_BIN=/none (no copies: the binaries were in place).
[ "$what" = r10 ] && { what=r9; R9_BIN=${R9_BIN:-.devcarry/r10bin}; }
if [ "$what" = r9 ]; then
  R9_BIN=${R9_BIN:-.devcarry/r9bin}
  declare -A R9F=([D]="the default code of 27d4fe9 (-DMS_CU_R9_BASE)" [F]="-DMS_CU_FUSE12" [S]="-DMS_CU_STAMPS"
                  [N]="the new default (-DMS_CU_R9_BASE)" [W]="-DMS_CU_K4_WARM" [U]="-DMS_CU_K4W_UNROLL"
                  [O]="the default code of 27d4fe9" [R]="round 9's default (-DMS_CU_R9_BASE)"
                  [R8]="-DMS_CU_K4W_UNROLL=8" [RF]="-DMS_CU_K4W_UNROLL=32" [FZ]="-DMS_CU_FUSE12"
                  [P]="-DMS_CU_K4W_PAIR" [SP]="-DMS_CU_STAMPS -DMS_CU_K4W_PAIR" [FIN]="round 9's final default"
                  [X]="${R9_XFLAGS:-}" [K]="-DMS_CU_K4_SPREAD" [KL]="-DMS_CU_K4_SPREAD -DMS_CU_K4_LISTPRE"
                  [KLG]="-DMS_CU_K4_SPREAD -DMS_CU_K4_LISTPRE -DMS_CU_K2_GRP"
                  [L]="-DMS_CU_K4_LISTPRE" [G]="-DMS_CU_K2_GRP" [DEF]="round 10's default (the spread finish)"
                  [S2]="round 10's default, -DMS_CU_STAMPS -DMS_CU_STAMPS_LIST")
  [ "$R9_BIN" = .devcarry/r10bin ] && R9F[S]="-DMS_CU_STAMPS -DMS_CU_K4_SPREAD -DMS_CU_K4_LISTPRE -DMS_CU_K2_GRP"
  for v in $(ls $R9_BIN 2>/dev/null); do
    src=$R9_BIN/$v; dst=build-gpu$v
    if [ -x $src/ms_bench_cuda ] && { $src/ms_bench_cuda --help 2>&1 || true; } | grep -q usage; then
      mkdir -p $dst/tests/cuda && cp $src/ms_bench_cuda $dst/ && { [ ! -x $src/ms_cuda_tests ] || cp $src/ms_cuda_tests $dst/tests/cuda/; }
      echo "$v (${R9F[$v]:-}): carried binaries ($(ls $src | tr '\n' ' '))" | tee -a "$OUT/build.log"
    else
      echo "$v: binaries do not run here" | tee -a "$OUT/build.log"
    fi
  done
  r9_tests() { # binary, then test names in order (default: all of the binary's tests)
    local tb=$1; shift
    [ -x $tb ] || { echo "   $tb missing" | tee -a "$OUT/tests.log"; return; }
    for t in ${@:-$($tb --list)}; do
      [ $(left) -gt 8 ] || { echo "   $t: no time left" | tee -a "$OUT/tests.log"; continue; }
      s=$(date +%s)
      timeout $(( $(left) < 90 ? $(left) : 90 )) $tb $t 2>&1 | tail -8 | grep -v "^1 passed, 0 failed" | tee -a "$OUT/tests.log"
      echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
    done
  }
  r9_san() { # variant, tool, then test names (the quick set, one host thread)
    local v=$1 tool=$2; shift 2
    local tb=build-gpu$v/tests/cuda/ms_cuda_tests tl=$(( $(left) - 5 ))
    [ $tl -gt 150 ] && tl=150
    log "compute-sanitizer $tool on $v (${R9F[$v]:-})" | tee -a "$OUT/san.log"
    [ $tl -lt 15 ] && { echo "   no time left" | tee -a "$OUT/san.log"; return; }
    s=$(date +%s)
    MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool $tool --error-exitcode 9 $tb "$@" >/tmp/san.log 2>&1
    echo "   exit $? in $(( $(date +%s) - s )) s (timeout $tl s; $*)" | tee -a "$OUT/san.log"
    grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror" /tmp/san.log | head -24 | tee -a "$OUT/san.log"
  }
  SANSET="cuda_bad_inputs cuda_identity_fused cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band"
  RACESET="cuda_graph_replay_equals_eager cuda_identity_lite_bins cuda_identity_fused"
  # a variant name V -> b (whose binaries) and fm (1: every lite row fused): "XF" is X fused unless XF is carried
  r9_fz_name() {
    b=$1; fm=""
    if [ ! -d "build-gpu$1" ] && [ "$1" != F ] && [ "${1%F}" != "$1" ]; then b=${1%F}; fm=1; fi
  }
  for step in ${R9_STEPS:-tests:N ab stamps:S san:N}; do
    v=${step#*:}
    case $step in
      tests:*)
        log "tests on $v (${R9F[$v]:-})" | tee -a "$OUT/tests.log"
        r9_tests build-gpu$v/tests/cuda/ms_cuda_tests ${R9_TESTS:-} ;;
      san:*)
        r9_san $v memcheck $SANSET
        r9_san $v racecheck $RACESET ;;
      ab)
        for i in $(seq 1 ${R9_AB_N:-3}); do
          for v in ${R9_AB:-D F FF}; do
            [ $(left) -gt 25 ] || break
            r9_fz_name $v
            [ -x build-gpu$b/ms_bench_cuda ] || continue
            log "bench full, V=151936, $v (${R9F[$b]:-}${fm:+, MS_BENCH_FUSE_MIN=1})" | tee -a "$OUT/bench.txt"
            MS_BENCH_FUSE_MIN=$fm timeout 40 build-gpu$b/ms_bench_cuda --setting full --vocab 151936 --batch ${R9_B:-1,16,32,64} \
              --reps 3 $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
          done
        done ;;
      stamps:*)
        for sf in "flat:" "peaked:" "flat:1"; do
          shape=${sf%%:*}; fm=${sf##*:}
          [ $(left) -gt 25 ] || break
          log "stamps, full $shape V=151936 ($v: ${R9F[$v]:-}${fm:+, MS_BENCH_FUSE_MIN=1})" | tee -a "$OUT/stamps.txt"
          MS_BENCH_FUSE_MIN=$fm MS_BENCH_STAMPS=1 timeout 30 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch ${R7S_B:-1,64} \
            --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#" | tee -a "$OUT/stamps.txt"
        done ;;
      ncu)
        for vb in ${R9_NCU:-D:1 D:64 F:64 FF:1 FF:16}; do
          v=${vb%%:*}; r9_fz_name $v; bv=$b; b=${vb##*:}
          log "ncu full flat B=$b $v" | tee -a "$OUT/ncu.txt"
          [ $(left) -gt 45 ] || { echo "   no time left" | tee -a "$OUT/ncu.txt"; continue; }
          MS_BENCH_FUSE_MIN=$fm timeout 40 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 \
            --metrics gpu__time_duration.sum build-gpu$bv/ms_bench_cuda --batch $b --vocab 151936 --shape flat --setting full \
            --no-baseline --reps 3 >/tmp/ncu.log 2>&1
          grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
        done ;;
    esac
  done
  log "done ($(( $(date +%s) - T0 )) s)"
  exit 0
fi
# r7 (round 7): r6's steps with the main build MAIN_CUDA_FLAGS (default -DMS_CU_K2_FINISH: K4's lean steps in
# K2's last block, measured slower and removed; the define does something only with
# bench/results/cuda_h200_2026-11-30-round7-k2finish.patch applied), variant N built with R6VAR (default
# -DMS_CU_R7_BASE, a no-op define: the default code), ncu at B 1 and 64 (R6_NCU_B), and R6_NTESTS (default
# cuda_identity_lite_bins cuda_identity_lite) run on variant N too, after the bench
if [ "$what" = r7 ]; then
  MAIN_CUDA_FLAGS=${MAIN_CUDA_FLAGS--DMS_CU_K2_FINISH}
  R6VAR=${R6VAR:--DMS_CU_R7_BASE}
  R6_NCU_B=${R6_NCU_B:-1 64}
  R6_NTESTS=${R6_NTESTS-cuda_identity_lite_bins cuda_identity_lite}
  what=r6
fi
# r7s (round 7, diagnostics): the main build with MAIN_CUDA_FLAGS (default -DMS_CU_STAMPS) and the bench with
# MS_BENCH_STAMPS=1 (full setting, V=151936, B in R7S_B, default 1,64, both shapes): each kernel's earliest and
# latest block at fixed points of one graph step, from %globaltimer (no nsys on the lent machine)
[ "$what" = r7s ] && MAIN_CUDA_FLAGS=${MAIN_CUDA_FLAGS--DMS_CU_STAMPS}
# r6: the main build (tests, bench) had K4's lean path by -DMS_CU_K4_LEAN; since round 7 it is the default (the define is a no-op)
[ "$what" = r6 ] && MAIN_CUDA_FLAGS=${MAIN_CUDA_FLAGS--DMS_CU_K4_LEAN}
# (braces: without them "a && b || c && d" ran the second cmake even when the build was skipped)
[ -n "${SKIP_BUILD:-}" ] && [ -x build-gpu/ms_bench_cuda ] || { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo ${MAIN_CUDA_FLAGS:-}" >>"$OUT/build.log" 2>&1 &&
  cmake --build build-gpu -j16 --target ms_cuda_tests ms_bench_cuda >>"$OUT/build.log" 2>&1; }
rc=$?
[ -n "${SKIP_BUILD:-}" ] || tail -3 "$OUT/build.log"
if [ $rc -ne 0 ]; then grep -iE "error" "$OUT/build.log" | head -30; exit 1; fi
T=build-gpu/tests/cuda/ms_cuda_tests

# r4 (round 4): the six CUDA tests (+ the new BAND test when built), compute-sanitizer memcheck and racecheck
# on the quick set, each step bounded by what is left of BUDGET_S (default 570 s)
r4_tests() {
  log "tests" | tee -a "$OUT/tests.log"
  for t in $($T --list 2>/dev/null || echo cuda_bad_inputs cuda_graph_replay_equals_eager cuda_identity_many_steps \
             cuda_identity_matrix cuda_identity_lite cuda_identity_top_p_alone); do
    s=$(date +%s)
    timeout 60 $T $t 2>&1 | tail -4 | tee -a "$OUT/tests.log"
    echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
  done
}
r4_san() {
  for tool in ${SAN_TOOLS:-memcheck racecheck}; do
    log "compute-sanitizer $tool" | tee -a "$OUT/san.log"
    extra=""
    [ $tool = memcheck ] && extra="--leak-check full"
    tl=$(( $(left) - ${SAN_RESERVE:-0} ))
    [ $tool = memcheck ] && [ $tl -gt 120 ] && tl=120
    [ $tl -lt 10 ] && { echo "   no time left" | tee -a "$OUT/san.log"; continue; }
    s=$(date +%s)
    MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool $tool $extra --error-exitcode 9 \
      $T ${SAN_TESTS:-cuda_bad_inputs cuda_identity_top_p_alone cuda_identity_lite cuda_graph_replay_equals_eager} >/tmp/san_$tool.log 2>&1
    echo "   exit $? in $(( $(date +%s) - s )) s (timeout $tl s)" | tee -a "$OUT/san.log"
    grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror" /tmp/san_$tool.log | head -20 | tee -a "$OUT/san.log"
  done
}
# r4b (round 4: the BAND path): the tests (the new one first), the top-p table, the full setting's flat rows,
# variant N (-DMS_CU_NO_BAND: round 3's whole-row path) for the A/B, the CPU bench of the device host
if [ "$what" = r4b ]; then
  wait # variant N's build
  T2=$T
  log "tests" | tee -a "$OUT/tests.log"
  for t in cuda_identity_band cuda_identity_top_p_alone cuda_identity_matrix cuda_identity_lite cuda_identity_many_steps \
           cuda_graph_replay_equals_eager cuda_bad_inputs; do
    s=$(date +%s)
    timeout 90 $T2 $t 2>&1 | tail -4 | tee -a "$OUT/tests.log"
    echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
  done
  log "bench top-p" | tee -a "$OUT/bench.txt"
  timeout 100 build-gpu/ms_bench_cuda --setting top-p --vocab 151936,262144 --batch 1,16,64,256 --reps 3 2>&1 | tee -a "$OUT/bench.txt"
  log "bench full, flat" | tee -a "$OUT/bench.txt"
  timeout 25 build-gpu/ms_bench_cuda --setting full --shape flat --vocab 151936 --batch 1,64 --reps 3 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
  if [ -x build-gpuN/ms_bench_cuda ]; then
    log "bench top-p flat, variant N (${R4VAR:--DMS_CU_NO_BAND})" | tee -a "$OUT/bench.txt"
    timeout 30 build-gpuN/ms_bench_cuda --setting top-p --shape flat --vocab 151936 --batch 1,64 --reps 3 --no-baseline 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
  fi
  [ -z "${NOCPU:-}" ] && cpu_bench
  log "done"
  exit 0
fi
# prof4: kernel durations (ncu) of top-p alone (flat) at B 1 / 64 and the full setting at B 1, then where
# K2/K3/K4 stall at B=64 top-p (source lines: -lineinfo)
if [ "$what" = prof4 ]; then
  for cfg in "top-p 1" "top-p 64" "full 1" "full 64"; do
    set -- $cfg
    log "ncu $1 B=$2" | tee -a "$OUT/ncu.txt"
    timeout 60 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
      build-gpu/ms_bench_cuda --batch $2 --vocab 151936 --shape flat --setting $1 --no-baseline --reps 3 >/tmp/ncu.log 2>&1
    grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
  done
  [ -n "${NOSEC:-}" ] && exit 0
  log "ncu sections top-p B=64" | tee -a "$OUT/ncu.txt"
  timeout $(( $(left) > 30 ? $(left) - 20 : 10 )) ncu --clock-control none -k regex:ms_cu_k[234] --launch-skip 40 --launch-count 3 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    build-gpu/ms_bench_cuda --batch 64 --vocab 151936 --shape flat --setting top-p --no-baseline --reps 3 >/tmp/ncu_src.log 2>&1
  grep -E "ms_cu_k|Duration|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued|ms_cuda.cu:" /tmp/ncu_src.log | head -90 | tee -a "$OUT/ncu.txt"
  log "done"
  exit 0
fi
# r5 (round 5): the tests, the full setting's table (V=151936, B 1/16/64, both shapes), the same from a
# variant built beside (R5VAR, default -DMS_CU_NO_PDL) for the A/B, then prof5's ncu kernel times and
# K4's source counters (P5_K)
if [ "$what" = r5 ]; then
  (cmake -S . -B build-gpuN -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF -DMSAMPLER_TESTS=OFF \
     -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${R5VAR:--DMS_CU_NO_PDL}" >/tmp/buildN.log 2>&1 &&
   cmake --build build-gpuN -j8 --target ms_bench_cuda >>/tmp/buildN.log 2>&1) &
  r4_tests
  wait
  for v in "" N ""; do
    log "bench full, V=151936 ${v:+variant $v (${R5VAR:--DMS_CU_NO_PDL})}" | tee -a "$OUT/bench.txt"
    [ -x build-gpu$v/ms_bench_cuda ] && timeout 40 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch ${R5_B:-1,16,64} --reps 3 \
      ${v:+--no-baseline} 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
  done
  SKIP_BUILD=1 NONSYS=1 BUDGET_S=$(left) "$0" prof5
  exit 0
fi
# r5c (round 5's last run): the eight tests, our bench and FlashInfer's side by side (gpu_flashinfer.sh),
# ncu kernel times of the full setting (flat, B 1 / 64), compute-sanitizer memcheck + racecheck on the
# quick set (the new bins test included); at most 8 files back
if [ "$what" = r5c ]; then
  r4_tests
  wait # FlashInfer's build
  tail -3 /tmp/build_fi0.log >"$OUT/misc.txt" 2>&1
  BENCH_T=$(( $(left) - ${SAN_S:-130} )) scripts/gpu_flashinfer.sh 2>&1 | grep -v "^\[" | tail -45 >>"$OUT/misc.txt"
  { cat "$OUT/flashinfer_version.txt"; tail -3 "$OUT/build_fi.log"; head -20 "$OUT/bench_fi.err"; } >>"$OUT/misc.txt" 2>/dev/null
  rm -f "$OUT/flashinfer_version.txt" "$OUT/build_fi.log" "$OUT/bench_fi.err"
  SKIP_BUILD=1 NONSYS=1 NOSEC=1 BUDGET_S=60 "$0" prof5 >/dev/null 2>&1
  SAN_TESTS="cuda_bad_inputs cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band" \
    SAN_RESERVE=3 r4_san
  log "done"
  exit 0
fi
# r6 (round 6: K4's lean path for lite rows, -DMS_CU_K4_LEAN, off by default): the main build with
# MAIN_CUDA_FLAGS (in this mode -DMS_CU_K4_LEAN unless set), the eight tests on it, the full setting's table
# (V=151936, B 1/16/64, both shapes) alternating with variant N (R6VAR, default -DMS_CU_R6_BASE: a no-op
# define, i.e. the default code) built beside,
# ncu kernel times (flat, B in R6_NCU_B, default 1; R6_NCU_B=none: none) of both builds, memcheck on the quick
# set, racecheck if time is left (each step bounded by what is left of BUDGET_S). R6_FIRST / R6_THEN: test
# names run before / after the bench (default: all eight before)
if [ "$what" = r6 ]; then
  (cmake -S . -B build-gpuN -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
     -DMSAMPLER_TESTS=$([ -n "${R6_NTESTS:-}" ] && echo ON || echo OFF) \
     -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${R6VAR:--DMS_CU_R6_BASE}" >/tmp/buildN.log 2>&1 &&
   cmake --build build-gpuN -j8 --target ms_bench_cuda ${R6_NTESTS:+ms_cuda_tests} >>/tmp/buildN.log 2>&1; echo "variant N build exit $?" >>"$OUT/bench.txt") &
  r6_tests() { # the named tests, in this order, each bounded by what is left
    for t in "$@"; do
      [ $(left) -gt 8 ] || { echo "   $t: no time left" | tee -a "$OUT/tests.log"; continue; }
      s=$(date +%s)
      timeout $(( $(left) < 60 ? $(left) : 60 )) $T $t 2>&1 | tail -4 | tee -a "$OUT/tests.log"
      echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
    done
  }
  log "tests" | tee -a "$OUT/tests.log"
  if [ -n "${R6_FIRST:-}" ]; then r6_tests $R6_FIRST; else r4_tests; fi
  wait
  for v in "" N ""; do
    log "bench full, V=151936 ${MAIN_CUDA_FLAGS:-} ${v:+variant $v (${R6VAR:--DMS_CU_R6_BASE})}" | tee -a "$OUT/bench.txt"
    [ -x build-gpu$v/ms_bench_cuda ] && timeout 40 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch ${R6_B:-1,16,64} --reps 3 \
      ${v:+--no-baseline} 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
  done
  [ -n "${R6_THEN:-}" ] && r6_tests $R6_THEN
  if [ -n "${R6_NTESTS:-}" ]; then # the tests on variant N's build too
    log "tests on variant N (${R6VAR:-})" | tee -a "$OUT/tests.log"
    T_MAIN=$T; T=build-gpuN/tests/cuda/ms_cuda_tests; r6_tests $R6_NTESTS; T=$T_MAIN
  fi
  for v in "" N; do
    for b in ${R6_NCU_B:-1}; do
      [ "$b" = none ] && continue
      log "ncu full flat B=$b ${v:+variant $v}" | tee -a "$OUT/ncu.txt"
      [ $(left) -gt 40 ] || { echo "   no time left" | tee -a "$OUT/ncu.txt"; continue; }
      timeout 40 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
        build-gpu$v/ms_bench_cuda --batch $b --vocab 151936 --shape flat --setting full --no-baseline --reps 3 >/tmp/ncu.log 2>&1
      grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
    done
  done
  SAN_TESTS="cuda_bad_inputs cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band" \
    SAN_RESERVE=${R6_SAN_RESERVE:-5} r4_san
  log "done"
  exit 0
fi
# r8 (round 8), after the main build: the nine tests on main (the quick ones first), the A/B of the full
# setting (V=151936, B 1/16/32/64, both shapes) as main / N / F three times (main and F's first run with the
# baseline, which checks their tokens), the CPU host tests, ncu kernel
# times (main B 1 and 64, N B 64, F B 1), the bins / lite / fused tests on N, memcheck on the quick set,
# the stamps timeline (variant S), racecheck; each step bounded by what is left of BUDGET_S
if [ "$what" = r8 ]; then
  r8_tests() { # binary, then test names in order
    local tb=$1; shift
    for t in "$@"; do
      [ $(left) -gt 8 ] || { echo "   $t: no time left" | tee -a "$OUT/tests.log"; continue; }
      s=$(date +%s)
      timeout $(( $(left) < 60 ? $(left) : 60 )) $tb $t 2>&1 | tail -4 | tee -a "$OUT/tests.log"
      echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
    done
  }
  log "tests ${MAIN_CUDA_FLAGS:-}" | tee -a "$OUT/tests.log"
  r8_tests $T cuda_bad_inputs cuda_graph_replay_equals_eager cuda_identity_fused cuda_identity_lite_bins cuda_identity_lite \
    cuda_identity_many_steps cuda_identity_top_p_alone cuda_identity_band cuda_identity_matrix
  [ -n "$R8_PIDS" ] && wait $R8_PIDS
  for i in 1 2 3; do
    for v in "" N F; do
      [ $(left) -gt 20 ] || break
      if [ -n "$v" ]; then fl=${R8F[$v]}; else fl=${MAIN_CUDA_FLAGS:-}; fi
      log "bench full, V=151936, ${v:-main} ($fl)" | tee -a "$OUT/bench.txt"
      bd=build-gpu${v/F/}; fm=""; [ "$v" = F ] && fm=1
      [ -x $bd/ms_bench_cuda ] && MS_BENCH_FUSE_MIN=$fm timeout 40 $bd/ms_bench_cuda --setting full --vocab 151936 --batch ${R8_B:-1,16,32,64} \
        --reps 3 $([ -z "$v" ] || [ "$v$i" = F1 ] || echo --no-baseline) 2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
    done
  done
  if [ -n "${R8_HOST_PID:-}" ]; then
    while kill -0 $R8_HOST_PID 2>/dev/null && [ $(left) -gt 60 ]; do sleep 1; done # bounded: the GPU steps come after
    { log "host: $(lscpu | grep 'Model name' | sed 's/  */ /g'); $(nproc) cores"; tail -2 "$OUT/cpu_build.log"
      log "ctest --test-dir build-host -R '^cpu_' -j8"
      timeout $(( $(left) > 90 ? 90 : $(left) > 15 ? $(left) - 5 : 10 )) ctest --test-dir build-host -R '^cpu_' -j8 2>&1 | tail -60; } >>"$OUT/cpu_tests.txt" 2>&1
    rm -f "$OUT/cpu_build.log"
    tail -4 "$OUT/cpu_tests.txt"
  fi
  for vb in ":1" ":64" "N:64" "F:1" "F:64"; do
    v=${vb%%:*}; b=${vb##*:}
    log "ncu full flat B=$b ${v:-main}" | tee -a "$OUT/ncu.txt"
    [ $(left) -gt 60 ] || { echo "   no time left" | tee -a "$OUT/ncu.txt"; continue; }
    bd=build-gpu${v/F/}; fm=""; [ "$v" = F ] && fm=1
    MS_BENCH_FUSE_MIN=$fm timeout 40 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum \
      $bd/ms_bench_cuda --batch $b --vocab 151936 --shape flat --setting full --no-baseline --reps 3 >/tmp/ncu.log 2>&1
    # kernel, us, DRAM bytes read (does the fused K2 read the logits from DRAM once?)
    r8n=$(awk '/ms_cu_k[1-4]/{k=$1} /dram__bytes_read.sum/{d=$NF" "$(NF-1)} /gpu__time_duration.sum/{print k, $NF, "us; dram read", d}' /tmp/ncu.log)
    if [ -n "$r8n" ]; then echo "$r8n" | tee -a "$OUT/ncu.txt"
    else grep -E "ms_cu_k|gpu__time_duration|dram__bytes|rror" /tmp/ncu.log | head -60 | tee -a "$OUT/ncu.txt"; fi
  done
  log "tests on N (${R8F[N]})" | tee -a "$OUT/tests.log"
  [ -x build-gpuN/tests/cuda/ms_cuda_tests ] && r8_tests build-gpuN/tests/cuda/ms_cuda_tests cuda_identity_fused cuda_identity_lite_bins cuda_identity_lite
  SAN_TOOLS=memcheck SAN_TESTS="cuda_bad_inputs cuda_identity_fused cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band" \
    SAN_RESERVE=5 r4_san
  if [ -x build-gpuS/ms_bench_cuda ] && [ $(left) -gt 40 ]; then
    for shape in flat peaked; do
      log "stamps, full $shape V=151936 (${R8F[S]})" | tee -a "$OUT/stamps.txt"
      MS_BENCH_STAMPS=1 timeout 30 build-gpuS/ms_bench_cuda --setting full --vocab 151936 --batch ${R7S_B:-1,64} --shape $shape \
        --reps 3 --no-baseline 2>&1 | grep -v "^#" | tee -a "$OUT/stamps.txt"
    done
  fi
  SAN_TOOLS=racecheck SAN_TESTS="cuda_graph_replay_equals_eager cuda_identity_lite_bins cuda_identity_fused" SAN_RESERVE=3 r4_san
  log "done"
  exit 0
fi
if [ "$what" = r7s ]; then
  for shape in flat peaked; do
    log "stamps, full $shape V=151936 ${MAIN_CUDA_FLAGS:-}" | tee -a "$OUT/stamps.txt"
    MS_BENCH_STAMPS=1 timeout 60 build-gpu/ms_bench_cuda --setting full --vocab 151936 --batch ${R7S_B:-1,64} --shape $shape \
      --reps 3 --no-baseline 2>&1 | grep -v "^#" | tee -a "$OUT/stamps.txt"
  done
  log "done"
  exit 0
fi
# prof5 (round 5, the full setting's fixed costs): ncu kernel times (full, flat, B 1 / 64), ncu --set full
# with source of K4 and K2 at B=1 (per-line table of K4 as CSV), an nsys node-level timeline of graph steps
# at B=1 (the gaps between the memset and the four launches)
if [ "$what" = prof5 ]; then
  for b in ${P5_B:-1 64}; do
    [ -n "${P5_NOTIME:-}" ] && break
    log "ncu full B=$b" | tee -a "$OUT/ncu.txt"
    timeout 60 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
      build-gpu/ms_bench_cuda --batch $b --vocab 151936 --shape ${P5_SHAPE:-flat} --setting full --no-baseline --reps 3 >/tmp/ncu.log 2>&1
    grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
  done
  if [ -z "${NONSYS:-}" ] && command -v nsys >/dev/null; then
    log "nsys B=1 full flat" | tee -a "$OUT/ncu.txt"
    timeout 90 nsys profile -t cuda --cuda-graph-trace=node -o /tmp/tl -f true build-gpu/ms_bench_cuda --batch 1 --vocab 151936 \
      --shape flat --setting full --no-baseline --reps 3 >/tmp/nsys.log 2>&1
    timeout 60 nsys stats -r cuda_gpu_trace -f csv -o /tmp/tr /tmp/tl.nsys-rep >/dev/null 2>&1
    python3 scripts/gpu_gaps.py /tmp/tr_cuda_gpu_trace.csv 2>&1 | tee -a "$OUT/ncu.txt"
  else echo "no nsys" | tee -a "$OUT/ncu.txt"; fi
  [ -n "${NOSEC:-}" ] && { log done; exit 0; }
  for kb in ${P5_K:-ms_cu_k4:1 ms_cu_k2:64}; do # kernel:batch
    k=${kb%%:*}; P5_SB=${kb##*:}
    log "ncu --set full $k B=${P5_SB:-1}" | tee -a "$OUT/ncu.txt"
    timeout $(( $(left) > 60 ? 90 : 20 )) ncu --clock-control none -k $k --launch-skip 60 --launch-count 1 --set full --import-source yes \
      -o /tmp/rep_$k -f build-gpu/ms_bench_cuda --batch ${P5_SB:-1} --vocab 151936 --shape flat --setting full --no-baseline --reps 3 >/tmp/ncu_$k.log 2>&1
    tail -2 /tmp/ncu_$k.log
    ncu -i /tmp/rep_$k.ncu-rep --page details --print-details all 2>&1 | grep -iE "Duration|Registers Per|Achieved Occ|Warp Cycles Per Issued|Executed Ipc|Stall|stall" | head -40 | tee -a "$OUT/ncu.txt"
    ncu -i /tmp/rep_$k.ncu-rep --page source --print-source cuda,sass --csv >/tmp/src_$k.csv 2>&1
    python3 scripts/gpu_ncu_lines.py /tmp/src_$k.csv 35 2>&1 | tee -a "$OUT/ncu.txt"
    gzip -c /tmp/src_$k.csv >"$OUT/src_$k.csv.gz"
  done
  log "done"
  exit 0
fi
# r4c (round 4's last run): the seven tests, our bench and FlashInfer's side by side (gpu_flashinfer.sh), the
# CPU bench of the device host, compute-sanitizer memcheck + racecheck on the quick set (BAND included);
# logs trimmed to at most 8 files
if [ "$what" = r4c ]; then
  r4_tests
  wait # FlashInfer's and the host's builds
  tail -3 /tmp/build_fi0.log >"$OUT/misc.txt" 2>&1
  BENCH_T=$(( $(left) - ${CPU_SAN_S:-270} )) scripts/gpu_flashinfer.sh 2>&1 | grep -v "^\[" | tail -45 >>"$OUT/misc.txt"
  { cat "$OUT/flashinfer_version.txt"; tail -3 "$OUT/build_fi.log"; head -20 "$OUT/bench_fi.err"; } >>"$OUT/misc.txt" 2>/dev/null
  rm -f "$OUT/flashinfer_version.txt" "$OUT/build_fi.log" "$OUT/bench_fi.err" "$OUT/buildN.log"
  [ -z "${NOCPU:-}" ] && CPU_T=${CPU_T:-70} cpu_bench
  tail -2 "$OUT/cpu_build.log" >>"$OUT/misc.txt" 2>/dev/null; rm -f "$OUT/cpu_build.log"
  SAN_TESTS="cuda_bad_inputs cuda_identity_band cuda_identity_top_p_alone cuda_identity_lite cuda_graph_replay_equals_eager" \
    SAN_RESERVE=5 r4_san
  log "done"
  exit 0
fi
if [ "$what" = r4a ]; then
  r4_tests
  wait # the host build
  log "host ctest (cpu|oracle|reference)" | tee -a "$OUT/cpu.txt"
  timeout 120 ctest --test-dir build-host -R 'cpu|oracle|reference' 2>&1 | tail -25 >>"$OUT/cpu.txt"
  cpu_bench
  SAN_RESERVE=5 r4_san
  log "done"
  exit 0
fi

# r2 (round 2 of issue 4): the tests, the full-setting table, then ncu kernel times, in one call
if [ "$what" = r2 ]; then
  for w in test bench prof; do
    SKIP_BUILD=1 "$0" $w "$@" || true
  done
  exit 0
fi

# final: the tests, the full-setting table, then compute-sanitizer (quick set, one host thread), in one call
# (and, built beside it with -DMS_CU_PLAIN_GROUPS, the per-token K1/K2 paths: bench A B A)
if [ "$what" = final ]; then
  (cmake -S . -B build-gpuP -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
     -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo -DMS_CU_PLAIN_GROUPS" >"$OUT/buildP.log" 2>&1 &&
   cmake --build build-gpuP -j8 --target ms_bench_cuda >>"$OUT/buildP.log" 2>&1) &
  SKIP_BUILD=1 "$0" test || true
  wait
  SKIP_BUILD=1 "$0" bench "$@" || true
  log "bench, per-token paths (-DMS_CU_PLAIN_GROUPS)"
  timeout 120 build-gpuP/ms_bench_cuda "$@" 2>&1 | tee "$OUT/bench_plain.txt" | grep -v "^#"
  log "bench again"
  timeout 120 build-gpu/ms_bench_cuda "$@" 2>&1 | tee "$OUT/bench2.txt" | grep -v "^#"
  SKIP_BUILD=1 "$0" prof >/dev/null 2>&1 || true
  cat "$OUT/ncu.txt" 2>/dev/null
  SKIP_BUILD=1 SAN_TOOLS="${SAN_TOOLS:-memcheck racecheck}" "$0" san || true
  exit 0
fi

# exp: compile-time variants of the kernels side by side (build-gpu is the default), quick tests on each,
# then the full-setting table of each, alternating (A B C A), in one call
if [ "$what" = exp ]; then
  declare -A VAR=([B]="-DMS_CU_T4=256" [C]="-DMS_CU_K2L_MERGED")
  for v in B C; do
    (cmake -S . -B build-gpu$v -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
       -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo ${VAR[$v]}" >"$OUT/build$v.log" 2>&1 &&
     cmake --build build-gpu$v -j8 --target ms_cuda_tests ms_bench_cuda >>"$OUT/build$v.log" 2>&1) &
  done
  wait
  for v in "" B C; do
    log "variant ${v:-A} ${VAR[$v]:-}"
    MS_CUDA_TEST_QUICK=1 timeout 120 build-gpu$v/tests/cuda/ms_cuda_tests cuda_identity_lite cuda_identity_matrix \
      cuda_graph_replay_equals_eager 2>&1 | grep -E "^ok|^not ok|differ|compared|FAIL" | tr '\n' ' '; echo
  done
  for v in "" B C ""; do
    log "bench variant ${v:-A}"
    timeout 120 build-gpu$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" | tee -a "$OUT/bench_exp.txt"
  done
  exit 0
fi

# r3 (round 3: K4's whole-row path): the tests (the new one first), the top-p table, the full setting's
# flat rows; built beside it: variant B (no start from K2's buckets), C (round 2's atomics, draw and
# descent), which run the new test only if A fails it, and B's top-p cells at V=151936 B=1,64 for the A/B;
# D (the bucket gather, -DMS_CU_K4_GATHER, never run yet): three identity tests and its top-p cells
if [ "$what" = r3 ]; then
  wait # the variants' builds (started before the main build by the caller)
  log "tests"
  for t in cuda_identity_top_p_alone cuda_bad_inputs cuda_graph_replay_equals_eager cuda_identity_many_steps \
           cuda_identity_lite cuda_identity_matrix; do
    s=$(date +%s)
    timeout 45 $T $t 2>&1 | tail -6 | tee -a "$OUT/tests.log"
    echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
  done
  if [ -z "${NOVAR:-}" ] && grep -q "^not ok\|FAIL" "$OUT/tests.log"; then
    for v in B C; do
      log "variant $v: cuda_identity_top_p_alone"
      timeout 25 build-gpu$v/tests/cuda/ms_cuda_tests cuda_identity_top_p_alone 2>&1 | tail -4 | tee -a "$OUT/tests.log"
    done
  fi
  log "bench top-p"
  timeout 90 build-gpu/ms_bench_cuda --setting top-p --vocab 151936,262144 --batch 1,16,64,256 --reps 3 2>&1 | tee "$OUT/bench.txt"
  log "bench full, flat"
  timeout 25 build-gpu/ms_bench_cuda --setting full --shape flat --vocab 151936 --batch 1,64 --reps 3 2>&1 | tee -a "$OUT/bench.txt"
  [ -x build-gpuB/ms_bench_cuda ] && log "bench top-p flat, variant B (no start from K2's buckets)" &&
  timeout 15 build-gpuB/ms_bench_cuda --setting top-p --shape flat --vocab 151936 --batch 1,64 --reps 3 --no-baseline 2>&1 | tee -a "$OUT/bench.txt"
  if [ -x build-gpuD/ms_bench_cuda ]; then # the bucket gather (-DMS_CU_K4_GATHER), not yet run: check, then time
    log "variant D (-DMS_CU_K4_GATHER): tests"
    for t in cuda_identity_top_p_alone cuda_identity_matrix cuda_identity_lite; do
      timeout 45 build-gpuD/tests/cuda/ms_cuda_tests $t 2>&1 | tail -3 | tee -a "$OUT/tests.log"
    done
    log "bench top-p flat, variant D"
    timeout 20 build-gpuD/ms_bench_cuda --setting top-p --shape flat --vocab 151936,262144 --batch 1,64,256 --reps 3 2>&1 | tee -a "$OUT/bench.txt"
  fi
  log "done"
  exit 0
fi

if [ "$what" = all ] || [ "$what" = test ]; then
  log "tests"
  for t in cuda_bad_inputs cuda_graph_replay_equals_eager cuda_identity_many_steps cuda_identity_matrix cuda_identity_lite; do
    s=$(date +%s)
    timeout 300 $T $t 2>&1 | tail -25 | tee -a "$OUT/tests.log"
    echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
  done
fi

if [ "$what" = all ] || [ "$what" = san ]; then
  for tool in ${SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
    log "compute-sanitizer $tool"
    extra=""
    [ $tool = memcheck ] && extra="--leak-check full"
    s=$(date +%s)
    MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout ${SAN_T:-240} compute-sanitizer --tool $tool $extra --error-exitcode 9 \
      $T ${SAN_TESTS:-cuda_bad_inputs cuda_identity_lite cuda_identity_matrix cuda_graph_replay_equals_eager} >"$OUT/san_$tool.log" 2>&1
    echo "   exit $? in $(( $(date +%s) - s )) s" | tee -a "$OUT/san_summary.log"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|Invalid|Race|hazard" "$OUT/san_$tool.log" | head -8 | tee -a "$OUT/san_summary.log"
  done
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  log "bench"
  timeout 300 build-gpu/ms_bench_cuda "$@" 2>&1 | tee "$OUT/bench.txt"
fi
if [ "$what" = prof ]; then
  # kernel durations of two steps (ncu reads the counters on Firecracker; clocks left alone)
  for b in 1 64; do
    log "ncu B=$b"
    timeout 120 ncu --clock-control none --launch-skip $((b + 100)) --launch-count 10 --metrics gpu__time_duration.sum \
      build-gpu/ms_bench_cuda --batch $b --vocab 151936 --shape flat --setting full --no-baseline --reps 5 \
      >"$OUT/ncu_b$b.log" 2>&1
    grep -E "ms_cu_k|gpu__time_duration" "$OUT/ncu_b$b.log" | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
  done
fi
if [ "$what" = prof2 ]; then
  # where K1 / K2 spend their time at B=64 (throughput, occupancy, warp stalls)
  timeout 200 ncu --clock-control none -k regex:ms_cu_k[12] --launch-skip 40 --launch-count 2 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    build-gpu/ms_bench_cuda --batch 64 --vocab 151936 --shape flat --setting full --no-baseline --reps 5 \
    >"$OUT/ncu_sections.log" 2>&1
  grep -E "ms_cu_k|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers|Waves|Stall|stall|cycles being stalled" \
    "$OUT/ncu_sections.log" | head -60
fi
if [ "$what" = prof3 ]; then
  # where each kernel's warps stall (source lines: the build has -lineinfo), B=1 and B=64
  for b in 1 64; do
    log "ncu sections B=$b"
    timeout 200 ncu --clock-control none -k regex:ms_cu_k[124] --launch-skip $((b == 1 ? 300 : 40)) --launch-count 3 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SourceCounters \
      build-gpu/ms_bench_cuda --batch $b --vocab 151936 --shape flat --setting full --no-baseline --reps 5 \
      >"$OUT/ncu_src_b$b.log" 2>&1
    grep -E "ms_cu_k|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Waves Per|Warp Cycles Per Issued|ms_cuda.cu:" \
      "$OUT/ncu_src_b$b.log" | head -70
  done
fi
log "done"
