#!/usr/bin/env bash
# scripts/cpu_host_run.sh: the CPU backend's SIMD levels on the GPU machine's host (issue 5, round 6).
#
# That host (a 16-core AVX-512 Xeon VM, not the issue's 2-core machine) is the only AVX-512 machine
# we can reach. Run there through the device tool, from the repository root:
#   run(command="bash scripts/cpu_host_run.sh", carry=[".devcarry/cjson", ".devcarry/cpu6"], timeout_s=120)
# It prints the CPU model and AVX-512 flags, builds the CPU-only library with msample (libcjson carried
# in .devcarry/cjson: the host has none), runs the CPU tests (every SIMD level the host offers), then
# msample bench pinned to one core (taskset -c 2, 1 thread) and two (taskset -c 2,3, 2 threads) at
# MSAMPLER_CPU_LEVEL=avx2 and avx512, each configuration's JSON line labelled with its variant and
# level. Variants (each built only when asked for):
#   new    the working tree as it is
#   base   the working tree with the files under .devcarry/cpu6/base/ laid over it (e.g. the committed
#          src/ms_cpu_fast_simd.c before a change: the "before" of an A/B in the same call)
#   other  the working tree built with the C flags in $FLAGS_<name> (u4: -DMS_FAST_U16=4 by default)
# Round 7: BASEDIR names the overlay of variant base (default .devcarry/cpu6/base; .devcarry/cpu7/base holds
# f4a63fc's fast row), ROWAB=1 the in-process A/B of whole rows below (.devcarry/cpu7).
# Environment: JOBS (build, default 16), TARGETS (new's build targets, default all), CTEST_R (ctest -R
# pattern instead of the default -E 'python|cli|oracle'), VARIANTS (default "new"), VOCABS (default
# 151936; VOCABS2 for the two-thread runs, default VOCABS), REPS (default 15), ROUNDS (how many
# times the single-thread runs alternate, default 2), TESTS=0 to skip ctest, BASELINE=1 for the
# reference's column in one extra run. Files under $OUT: cpu6.log (everything) and cpu6_bench.jsonl.
# Round 9: TABLE9=1 runs the issue's table instead (everything above and below is skipped):
#   run(command="TABLE9=1 bash scripts/cpu_host_run.sh", carry=[".devcarry/cjson"], timeout_s=150)
# builds msample and ms_tests_cpu (build-c9), then at once `ctest -R '^cpu_'` pinned to cores 4-15 (every
# level the host offers, avx512 included) and the avx2 table without the reference (cores 0,1), then the
# issue's command itself on cores 0,1 at the host's best level (avx512): `taskset -c 0,1 msample bench
# --vocab 32000,151936,262144 --batch 1,64 --threads 1,2 --setting both --shape both --json`. Each
# step has a time limit inside the call's (T9_AVX2, T9_TABLE; line-buffered, so a cut run keeps its
# lines; T9_END, default 140: the table's limit is what is left of that many seconds). JOBS9 (build jobs)
# and C9T (ctest's cores) let a small machine try it. Before the issue's command, the same cells at the
# best level and at avx2 without the reference (--no-baseline: ~10 s each). Files under $OUT: c9.log,
# c9_ctest.log, c9_best_nb.jsonl, c9_avx2.jsonl, c9_table.jsonl.
set -u
if [ "${TABLE9:-0}" = 1 ]; then
  OUT=${OUT:-/tmp/c9_out}
  mkdir -p "$OUT"
  L9=$OUT/c9.log
  t9=$(date +%s)
  s9() { echo "[$(($(date +%s) - t9))s] $*" | tee -a "$L9"; }
  s9 "host: $(lscpu | grep -E 'Model name' | sed 's/  */ /g'); cores $(nproc); $(date -u); load $(cut -d' ' -f1-3 /proc/loadavg)"
  s9 "avx512 flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep avx512 | tr '\n' ' ')"
  lscpu | grep -E 'L1d|L2|L3|NUMA node\(s\)' | sed 's/  */ /g' >>"$L9"
  cj=()
  if [ -f .devcarry/cjson/include/cjson/cJSON.h ]; then
    cj=(-DMS_CJSON_INCLUDE_DIR=$PWD/.devcarry/cjson/include -DMS_CJSON_LIBRARY=$PWD/.devcarry/cjson/lib/libcjson.so)
    export LD_LIBRARY_PATH=$PWD/.devcarry/cjson/lib
  fi
  timeout 40 cmake -S . -B build-c9 -DMSAMPLER_CUDA=OFF -DCMAKE_BUILD_TYPE=Release "${cj[@]}" >/tmp/c9_build.log 2>&1 &&
    timeout 70 cmake --build build-c9 -j"${JOBS9:-16}" --target msample ms_tests_cpu >>/tmp/c9_build.log 2>&1
  rc=$?
  s9 "build (msample, ms_tests_cpu): exit $rc; $(git log -1 --format=%h 2>/dev/null || echo '?')"
  [ $rc -eq 0 ] || { tail -30 /tmp/c9_build.log | tee -a "$L9"; exit 1; }
  (cd build-c9 && timeout 60 taskset -c "${C9T:-4-15}" ctest -R '^cpu_' -j8 --output-on-failure >"$OUT/c9_ctest.log" 2>&1
   echo "ctest exit $?" >>"$OUT/c9_ctest.log"; ./tests/cpu/ms_tests_cpu cpu_fast_levels_offered >>"$OUT/c9_ctest.log" 2>&1) &
  cpid=$!
  B9=(build-c9/programs/msample bench --vocab 32000,151936,262144 --batch 1,64 --threads 1,2 --setting both --shape both --json)
  SB=()
  command -v stdbuf >/dev/null && SB=(stdbuf -oL)
  # the best level's cells first without the reference (seconds: whatever happens to the long run below,
  # every cell has a time), then avx2's for the ratio
  timeout "${T9_AVX2:-30}" taskset -c 0,1 "${SB[@]}" "${B9[@]}" --no-baseline >"$OUT/c9_best_nb.jsonl" 2>>"$L9"
  s9 "best level's table (no reference): exit $?, $(wc -l <"$OUT/c9_best_nb.jsonl") lines"
  MSAMPLER_CPU_LEVEL=avx2 timeout "${T9_AVX2:-30}" taskset -c 0,1 "${SB[@]}" "${B9[@]}" --no-baseline >"$OUT/c9_avx2.jsonl" 2>>"$L9"
  s9 "avx2 table (no reference): exit $?, $(wc -l <"$OUT/c9_avx2.jsonl") lines"
  wait $cpid
  s9 "$(grep -E 'tests passed|tests failed|ctest exit' "$OUT/c9_ctest.log" | tr '\n' ' ')"
  s9 "level now: $(MSAMPLER_CPU_LEVEL= build-c9/tests/cpu/ms_tests_cpu cpu_fast_levels_offered 2>&1 | grep '^#' | tr '\n' ' ')"
  s9 "table (the issue's command, best level), load $(cut -d' ' -f1-3 /proc/loadavg)"
  left=$((${T9_END:-140} - ($(date +%s) - t9)))
  [ "$left" -lt 20 ] && left=20
  s9 "table's limit: ${T9_TABLE:-$left} s"
  timeout "${T9_TABLE:-$left}" taskset -c 0,1 "${SB[@]}" "${B9[@]}" >"$OUT/c9_table.jsonl" 2>>"$L9"
  s9 "table: exit $?, $(wc -l <"$OUT/c9_table.jsonl") lines; load $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
OUT=${OUT:-/tmp/cpu6_out}
mkdir -p "$OUT"
LOG=$OUT/cpu6.log
JS=$OUT/cpu6_bench.jsonl
: >"$LOG"
: >"$JS"
VARIANTS=${VARIANTS:-new}
BASEDIR=${BASEDIR:-.devcarry/cpu6/base} # round 7: .devcarry/cpu7/base (f4a63fc's fast row)
VOCABS=${VOCABS:-151936}
REPS=${REPS:-15}
ROUNDS=${ROUNDS:-2}
C1=${C1:-2}   # the core of the one-thread runs
C2=${C2:-2,3} # the cores of the two-thread runs
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$LOG"; }

say "host: $(lscpu | grep -E 'Model name' | sed 's/  */ /g'); cores $(nproc); $(date -u)"
say "avx512 flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep avx512 | tr '\n' ' ')"
uptime | tee -a "$LOG"
lscpu | grep -E 'Thread|Core|Socket|NUMA node\(s\)|L2|L3' | sed 's/  */ /g' | tee -a "$LOG"
lscpu -e=CPU,CORE,SOCKET 2>/dev/null | head -5 | tee -a "$LOG"

cj=()
if [ -f .devcarry/cjson/include/cjson/cJSON.h ]; then
  cj=(-DMS_CJSON_INCLUDE_DIR=$PWD/.devcarry/cjson/include -DMS_CJSON_LIBRARY=$PWD/.devcarry/cjson/lib/libcjson.so)
  export LD_LIBRARY_PATH=$PWD/.devcarry/cjson/lib
fi

build() { # build <dir> <src root> <tests ON|OFF> [extra cmake args | --target T...]
  local dir=$1 src=$2 tests=$3 tg=()
  shift 3
  [ "${1:-}" = --target ] && tg=("$@") && set --
  timeout 60 cmake -S "$src" -B "$dir" -DMSAMPLER_CUDA=OFF -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_TESTS="$tests" \
    "${cj[@]}" "$@" >"/tmp/$(basename "$dir").log" 2>&1 &&
    timeout 90 cmake --build "$dir" -j"${JOBS:-16}" "${tg[@]}" >>"/tmp/$(basename "$dir").log" 2>&1
  local rc=$?
  say "build $dir: exit $rc"
  [ $rc -eq 0 ] || tail -20 "/tmp/$(basename "$dir").log" | tee -a "$LOG"
  return $rc
}

declare -A BIN
for v in $VARIANTS; do
  case $v in
  new) build build-c6 . ON ${TARGETS:+--target $TARGETS} && BIN[new]=build-c6/programs/msample ;;
  base)
    if [ -d "$BASEDIR" ]; then
      rm -rf /tmp/c6base && mkdir -p /tmp/c6base &&
        tar --exclude='./build*' --exclude=./.git --exclude=./.devcarry -cf - . | tar -xf - -C /tmp/c6base &&
        cp -r "$BASEDIR"/. /tmp/c6base/ && build /tmp/c6base/b /tmp/c6base OFF --target msample && BIN[base]=/tmp/c6base/b/programs/msample
    else
      say "no $BASEDIR: variant base skipped"
    fi ;;
  *) # any other name: the working tree built with the C flags in FLAGS_<name> (u4: -DMS_FAST_U16=4)
    fl=FLAGS_$v
    f=${!fl:-}
    [ "$v" = u4 ] && f=${f:--DMS_FAST_U16=4}
    build build-c6$v . OFF "-DCMAKE_C_FLAGS=$f" && BIN[$v]=build-c6$v/programs/msample ;;
  esac
done

if [ "${TESTS:-1}" = 1 ] && [ -d build-c6 ]; then
  sel=(-E 'python|cli|oracle')
  [ -n "${CTEST_R:-}" ] && sel=(-R "$CTEST_R")
  say "ctest ${sel[*]} -j8"
  (cd build-c6 && timeout 60 ctest "${sel[@]}" -j8 --output-on-failure >"$OUT/cpu6_ctest.log" 2>&1)
  say "ctest exit $?: $(grep -E 'tests passed|tests failed' "$OUT/cpu6_ctest.log")"
  build-c6/tests/cpu/ms_tests_cpu cpu_fast_levels_offered 2>&1 | grep '^#' | tee -a "$LOG"
fi

# per-kernel times from cache (the throwaway harness .devcarry/cpu6/kbench.c, when carried; its source
# is printed in bench/results/cpu-devicehost-2026-11-30.md), per variant
if [ "${KBENCH:-0}" = 1 ] && [ -f .devcarry/cpu6/kbench.c ]; then
  for v in $VARIANTS; do
    [ -n "${BIN[$v]:-}" ] && [ "$v" != base ] || continue # (base's header may lack the harness's accessor)
    lib=$(dirname "$(dirname "${BIN[$v]}")")/libmsampler.a
    gcc -O2 -std=c11 -Isrc -Iinclude .devcarry/cpu6/kbench.c "$lib" -lm -lpthread -o /tmp/kbench_$v &&
      { say "kbench $v (taskset -c $C1)"; timeout 30 taskset -c "$C1" /tmp/kbench_$v 151936 60 | tee -a "$LOG"; }
  done
fi

# round 7: whole rows from cache-cold memory, the old fast row (the sources in .devcarry/cpu7/old, its
# kernels renamed) against the tree's, in one process over the same 64 rows, alternating
# (.devcarry/cpu7/rowab.c; the host's drifting speed then hits both alike), per level
if [ "${ROWAB:-0}" = 1 ] && [ -f .devcarry/cpu7/rowab.c ] && [ -f build-c6/libmsampler.a ]; then
  R="-Dms__cpu_fast_kernels=X_k -Dms__cpu_fast_level=X_l -Dms__cpu_fast_level_name=X_ln -Dms__cpu_fast_level_ok=X_lo"
  R="$R -Dms__cpu_fast_set_level=X_sl -Dms__fast_bucket_cut=X_bc -Dms__fast_row=X_fast_row -Dms__fast_row_splits=X_rs"
  R="$R -Dms__fast_scratch_free=X_sf -Dms__fast_scratch_init=X_scratch_init -Dms__fast_scratch_team=X_st -Dms__fast_top_p_counts=X_tc"
  F="-O3 -DNDEBUG -std=c11 -ffp-contract=off -fno-fast-math -DMS_CPU_FAST_X86 -Iinclude"
  O="-Dms__fast_generic_kernels=ms__fast_ogeneric_kernels -Dms__fast_w16_kernels=ms__fast_ow16_kernels"
  O="$O -Dms__fast_avx2_kernels=ms__fast_oavx2_kernels -Dms__fast_avx512_kernels=ms__fast_oavx512_kernels"
  d=.devcarry/cpu7/old
  (gcc $F -I$d ${R//X_/A_} $O -c $d/ms_cpu_fast.c -o /tmp/fa.o &&
    gcc $F -I$d -DMS_FAST_W=4 -DMS_FAST_NAME=ogeneric -DMS_FAST_LABEL='"generic"' -c $d/ms_cpu_fast_simd.c -o /tmp/og.o &&
    gcc $F -I$d -DMS_FAST_W=16 -DMS_FAST_NAME=ow16 -DMS_FAST_LABEL='"w16"' -Wno-psabi -c $d/ms_cpu_fast_simd.c -o /tmp/ow.o &&
    gcc $F -I$d -mavx2 -DMS_FAST_W=8 -DMS_FAST_NAME=oavx2 -DMS_FAST_LABEL='"avx2"' -c $d/ms_cpu_fast_simd.c -o /tmp/oa.o &&
    gcc $F -I$d -mavx512f -mavx512bw -mavx512dq -mavx512vl -DMS_FAST_W=16 -DMS_FAST_NAME=oavx512 -DMS_FAST_LABEL='"avx512"' \
      -c $d/ms_cpu_fast_simd.c -o /tmp/o5.o &&
    gcc $F -Isrc ${R//X_/B_} -c src/ms_cpu_fast.c -o /tmp/fb.o &&
    gcc -O2 -std=c11 -Isrc -Iinclude .devcarry/cpu7/rowab.c /tmp/fa.o /tmp/og.o /tmp/ow.o /tmp/oa.o /tmp/o5.o /tmp/fb.o \
      build-c6/libmsampler.a -lm -lpthread -o /tmp/rowab) >>"$LOG" 2>&1
  say "rowab build: exit $?"
  for L in avx2 avx512; do
    for a in "0 0" "1 0" "0 1" "1 1"; do
      set -- $a
      r=$(MSAMPLER_CPU_LEVEL=$L timeout 30 taskset -c "$C1" /tmp/rowab 151936 "$1" "${ROWAB_IT:-20}" "$2" 2>&1)
      say "rowab $L (A: f4a63fc, B: tree): $r"
    done
  done
fi

bench() { # bench <variant> <level> <cpus> <threads> [extra args]
  local v=$1 L=$2 cpus=$3 th=$4
  shift 4
  MSAMPLER_CPU_LEVEL=$L timeout 40 taskset -c "$cpus" "${BIN[$v]}" bench --batch 1,64 --threads "$th" \
    --setting both --shape both --json "$@" 2>>"$LOG" |
    sed "s/^{/{\"variant\":\"$v\",\"level\":\"$L\",\"cpus\":\"$cpus\",/" >>"$JS"
  say "bench $v $L cpus $cpus threads $th: exit ${PIPESTATUS[0]}"
}

B=(--vocab "$VOCABS" --reps "$REPS" --no-baseline)
# one thread, pinned: the variants and levels alternate, ROUNDS times (the host's noise is large)
for r in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    [ -n "${BIN[$v]:-}" ] || continue
    [ "$v" = new ] && bench new avx2 "$C1" 1 "${B[@]}"
    bench "$v" avx512 "$C1" 1 "${B[@]}"
  done
done
# two threads on two pinned cores (the issue's 2-core shape)
B=(--vocab "${VOCABS2:-$VOCABS}" --reps "$REPS" --no-baseline)
for v in $VARIANTS; do
  [ -n "${BIN[$v]:-}" ] || continue
  [ "$v" = new ] && bench new avx2 "$C2" 2 "${B[@]}"
  bench "$v" avx512 "$C2" 2 "${B[@]}"
done
if [ "${BASELINE:-0}" = 1 ] && [ -n "${BIN[new]:-}" ]; then
  for L in avx2 avx512; do bench new $L "$C1" 1 --vocab 151936 --reps 9; done
fi
say "done: $(wc -l <"$JS") JSON lines"
