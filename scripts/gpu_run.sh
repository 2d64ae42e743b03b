#!/usr/bin/env bash
# scripts/gpu_run.sh: everything the CUDA backend needs from a lent GPU, in one call (issue 4, and
# issue 7's GPU part): build (sm_90, --fmad=false), the CUDA tests, compute-sanitizer on the quick test
# set, the benchmark table, ncu, and A/B runs of binaries built elsewhere. Logs go to $OUT (or ./gpu-out);
# every step is bounded by what is left of BUDGET_S (default 570 s: the device tool's limit is 600).
#
# Usage: scripts/gpu_run.sh [MODE] [bench args...]
#   all (default)  build; every test of the CUDA runner; memcheck and racecheck on the quick set; the bench
#   test | san | bench   one part of all (san: SAN_TOOLS, default "memcheck racecheck"; SAN_TESTS)
#   fi             build; every test; our bench and FlashInfer's on the same buffers (scripts/gpu_flashinfer.sh,
#                  needs carry=["third_party/flashinfer"]); then memcheck and racecheck (SAN_RESERVE s kept)
#   prof           ncu kernel times: PROF_SETTING (full), PROF_SHAPE (flat), PROF_B ("1 64"), V=151936
#   src            ncu --set full with source counters of the kernels in SRC_K ("ms_cu_k4:1 ms_cu_k2:64",
#                  kernel:batch; PROF_SETTING and PROF_SHAPE as prof): stall summary and the hottest lines
#   ab             no build: binaries carried prebuilt in $AB_BIN/<variant>/ (ms_bench_cuda, and ms_cuda_tests
#                  where tests run on it), then the steps of AB_STEPS (see below). r9 and r10 are old names.
# Removed in round 11 (git history before the commit "CUDA prune"): the per-round modes r2..r8, final, exp,
# prof2..prof4, with the off-by-default switches they built.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
T0=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - T0) )); } # seconds left of this call's budget

# Other engineers' uncommitted (maybe half-done) edits travel with the tree: the caller may carry their
# committed versions in .devcarry/head/<path> (git show HEAD:<path>), put back here before any build
# (the device's .git is stale, so git cannot do it there).
if [ -d .devcarry/head ]; then
  (cd .devcarry/head && find . -type f | sed 's|^\./||') | while read -r f; do cp ".devcarry/head/$f" "$f" && echo "reset to HEAD: $f"; done
fi
log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/machine.txt"
nvcc --version | tail -1 | tee -a "$OUT/machine.txt"

# The quick sets compute-sanitizer runs (MS_CUDA_TEST_QUICK=1, one host thread)
SANSET="cuda_bad_inputs cuda_identity_minp_edges cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band cuda_identity_band_edges cuda_identity_top_p_alone cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring cuda_stats_between_steps cuda_identity_smallb"
RACESET="cuda_stats_between_steps cuda_graph_replay_equals_eager cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_band cuda_identity_band_edges cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring cuda_identity_smallb"

run_tests() { # binary, then test names in order (default: all of the binary's tests)
  local tb=$1; shift
  [ -x $tb ] || { echo "   $tb missing" | tee -a "$OUT/tests.log"; return; }
  for t in ${@:-$($tb --list)}; do
    [ $(left) -gt 8 ] || { echo "   $t: no time left" | tee -a "$OUT/tests.log"; continue; }
    s=$(date +%s)
    timeout $(( $(left) < 120 ? $(left) : 120 )) $tb $t 2>&1 | tail -8 | grep -v "^1 passed, 0 failed" | tee -a "$OUT/tests.log"
    echo "   ($t: $(( $(date +%s) - s )) s)" | tee -a "$OUT/tests.log"
  done
}
run_san() { # binary, tool, then test names; its summary goes to SAN_LOG (default $OUT/san.log)
  local tb=$1 tool=$2; shift 2
  local sl=${SAN_LOG:-$OUT/san.log} raw=/tmp/san-$tool.log
  local tl=$(( $(left) - ${SAN_RESERVE:-0} - 5 ))
  [ $tl -gt 180 ] && tl=180
  log "compute-sanitizer $tool on $tb" | tee -a "$sl"
  [ $tl -lt 15 ] && { echo "   no time left" | tee -a "$sl"; return; }
  local extra=""
  [ $tool = memcheck ] && extra="--leak-check full"
  local s=$(date +%s)
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool $tool $extra --error-exitcode 9 $tb "$@" >$raw 2>&1
  echo "   exit $? in $(( $(date +%s) - s )) s (timeout $tl s; $*)" | tee -a "$sl"
  grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror" $raw | head -24 | tee -a "$sl"
}
ncu_times() { # binary, batch, setting, shape: each kernel's time in steady graph replays
  timeout 60 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
    $1 --batch $2 --vocab 151936 --shape $4 --setting $3 --no-baseline --reps 3 >/tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' | tee -a "$OUT/ncu.txt"
}

# ab: AB_BIN (default .devcarry/abbin; r9: .devcarry/r9bin, r10: .devcarry/r10bin) holds one folder per
# variant; AB_DESC="V=what V is;..." describes them in the logs. AB_STEPS, in order (default "tests:N ab
# stamps:S san:N"): tests:V (every test of V's runner, or AB_TESTS), san:V (memcheck and racecheck on the
# quick sets), ab (V=151936, settings AB_SETTINGS (full), B in AB_B (1,16,64), both shapes, for each variant of
# AB_VARIANTS (D N), AB_N (3) times alternating; the first run of each checks its tokens against the CPU
# reference; round 11: AB_V, default 151936, the vocabularies, AB_SHAPE, default both, the shapes), stamps:V (V's timeline, built with -DMS_CU_STAMPS: full setting at B in STAMPS_B, both
# shapes), ncu (kernel times of AB_NCU "variant:B", flat, setting AB_NCU_SETTING, default full), check:V (twentieth
# session: tests:V and san:V side by side, the final calls' validation step).
# AB_DTYPE=bf16: the ab step's logits in bf16 (ms_bench_cuda --dtype, ninth session; binaries built before it lack it).
# Step ab:DTYPE (round 15A): the ab step again with --dtype DTYPE, B in AB_B_DT (default AB_B), AB_N_DT (AB_N) runs
# of the variants AB_VARIANTS_DT (AB_VARIANTS).
# Round 29B: AB_ALIAS="A=V;..." runs V's carried binaries also as variant A (copied here, not carried twice), and
# AB_ENV="A=NAME=value,...;..." sets environment variables for variant A's bench runs (ab and stamps steps), e.g. a
# measurement knob such as MS_BENCH_ORDYN, so that one binary is measured in several settings, alternating.
case "$what" in r9) AB_BIN=${AB_BIN:-${R9_BIN:-.devcarry/r9bin}}; what=ab ;; r10) AB_BIN=${AB_BIN:-${R9_BIN:-.devcarry/r10bin}}; what=ab ;; esac
if [ "$what" = ab ]; then
  AB_BIN=${AB_BIN:-.devcarry/abbin}
  desc() { echo "${AB_DESC:-}" | tr ';' '\n' | sed -n "s/^$1=//p"; }
  venv() { echo "${AB_ENV:-}" | tr ';' '\n' | sed -n "s/^$1=//p" | tr ',' ' '; }
  for v in $(ls $AB_BIN 2>/dev/null); do
    src=$AB_BIN/$v; dst=build-gpu$v
    if [ -x $src/ms_bench_cuda ] && { $src/ms_bench_cuda --help 2>&1 || true; } | grep -q usage; then
      mkdir -p $dst/tests/cuda && cp $src/ms_bench_cuda $dst/ && { [ ! -x $src/ms_cuda_tests ] || cp $src/ms_cuda_tests $dst/tests/cuda/; }
      echo "$v ($(desc $v)): carried binaries ($(ls $src | tr '\n' ' '))" | tee -a "$OUT/build.log"
    else
      echo "$v: binaries do not run here" | tee -a "$OUT/build.log"
    fi
  done
  for av in $(echo "${AB_ALIAS:-}" | tr ';' ' '); do
    a=${av%%=*}; v=${av#*=}
    [ -d build-gpu$v ] && rm -rf build-gpu$a && cp -r build-gpu$v build-gpu$a && echo "$a: $v's binaries ($(desc $a); env: $(venv $a))" | tee -a "$OUT/build.log"
  done
  for step in ${AB_STEPS:-tests:N ab stamps:S san:N}; do
    v=${step#*:}
    case $step in
      tests:*)
        log "tests on $v ($(desc $v))" | tee -a "$OUT/tests.log"
        run_tests build-gpu$v/tests/cuda/ms_cuda_tests ${AB_TESTS:-} ;;
      san:*)
        run_san build-gpu$v/tests/cuda/ms_cuda_tests memcheck $SANSET
        run_san build-gpu$v/tests/cuda/ms_cuda_tests racecheck $RACESET ;;
      check:*) # tests:V and san:V side by side (each alone on the GPU takes ~100 s; together ~120 s): the final calls'
        # validation of a merged default in one step. Summaries in tests.log and san.log as for tests:V and san:V.
        log "check $v: every test, memcheck and racecheck side by side ($(desc $v))" | tee -a "$OUT/tests.log"
        ( run_tests build-gpu$v/tests/cuda/ms_cuda_tests ${AB_TESTS:-} > /dev/null ) &
        sleep 2 # the runner's first CUDA context before the sanitizers' (as the final calls of sessions 16-19 did)
        ( SAN_LOG=$OUT/san-memcheck.part run_san build-gpu$v/tests/cuda/ms_cuda_tests memcheck $SANSET > /dev/null ) &
        ( SAN_LOG=$OUT/san-racecheck.part run_san build-gpu$v/tests/cuda/ms_cuda_tests racecheck $RACESET > /dev/null ) &
        wait
        cat $OUT/san-memcheck.part $OUT/san-racecheck.part >> $OUT/san.log && rm -f $OUT/san-*.part
        echo "   tests passed: $(grep -c '^ok \|1 passed, 0 failed' $OUT/tests.log); failures:" | tee -a "$OUT/tests.log"
        grep -i 'fail' $OUT/tests.log | grep -v ' 0 failed\|tests passed:' | head -5 | tee -a "$OUT/tests.log" ;;
      ab|ab:*) # ab:DTYPE (round 15A): this step's logits in DTYPE at B in AB_B_DT (default AB_B), AB_N_DT times
        dt=${AB_DTYPE:-}; bl=${AB_B:-1,16,64}; nr=${AB_N:-3}; vl=${AB_VARIANTS:-D N}
        [ "$step" = ab ] || { dt=${step#ab:}; bl=${AB_B_DT:-$bl}; nr=${AB_N_DT:-$nr}; vl=${AB_VARIANTS_DT:-$vl}; }
        for i in $(seq 1 $nr); do
          for v in $vl; do
            for st in $(echo ${AB_SETTINGS:-full} | tr ',' ' '); do
              [ $(left) -gt 25 ] || break
              [ -x build-gpu$v/ms_bench_cuda ] || continue
              log "bench $st, V=${AB_V:-151936}, $v ($(desc $v))${dt:+, $dt}" | tee -a "$OUT/bench.txt"
              timeout 40 env $(venv $v) build-gpu$v/ms_bench_cuda --setting $st --vocab ${AB_V:-151936} --batch $bl \
                --shape ${AB_SHAPE:-both} --reps 3 $([ $i = 1 ] || echo --no-baseline) $([ -z "$dt" ] || echo --dtype $dt) \
                2>&1 | grep -v "^#" | tee -a "$OUT/bench.txt"
            done
          done
        done ;;
      stamps:*)
        for shape in flat peaked; do
          [ $(left) -gt 25 ] || break
          log "stamps, full $shape V=151936 ($v: $(desc $v))" | tee -a "$OUT/stamps.txt"
          MS_BENCH_STAMPS=1 timeout 30 env $(venv $v) build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch ${STAMPS_B:-1,64} \
            --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#" | tee -a "$OUT/stamps.txt"
        done ;;
      ncu)
        for vb in ${AB_NCU:-D:1 D:64 N:1 N:64}; do
          v=${vb%%:*}; b=${vb##*:}
          log "ncu ${AB_NCU_SETTING:-full} flat B=$b $v" | tee -a "$OUT/ncu.txt"
          [ $(left) -gt 45 ] || { echo "   no time left" | tee -a "$OUT/ncu.txt"; continue; }
          ncu_times build-gpu$v/ms_bench_cuda $b ${AB_NCU_SETTING:-full} flat
        done ;;
    esac
  done
  log "done ($(( $(date +%s) - T0 )) s)"
  exit 0
fi

log "build"
# FlashInfer's bench build, beside ours (fi)
if [ "$what" = fi ] && [ -f third_party/flashinfer/include/flashinfer/sampling.cuh ]; then
  (cmake -S . -B build-gpu-fi -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF -DMSAMPLER_TESTS=OFF \
     -DMSAMPLER_FLASHINFER_INCLUDE=$PWD/third_party/flashinfer/include -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/build_fi0.log 2>&1 &&
   cmake --build build-gpu-fi -j8 --target ms_bench_cuda >>/tmp/build_fi0.log 2>&1) &
fi
# (braces: without them "a && b || c && d" ran the second cmake even when the build was skipped)
[ -n "${SKIP_BUILD:-}" ] && [ -x build-gpu/ms_bench_cuda ] || { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo ${MAIN_CUDA_FLAGS:-}" >>"$OUT/build.log" 2>&1 &&
  cmake --build build-gpu -j16 --target ms_cuda_tests ms_bench_cuda >>"$OUT/build.log" 2>&1; }
rc=$?
[ -n "${SKIP_BUILD:-}" ] || tail -3 "$OUT/build.log"
if [ $rc -ne 0 ]; then grep -iE "error" "$OUT/build.log" | head -30; exit 1; fi
T=build-gpu/tests/cuda/ms_cuda_tests

if [ "$what" = all ] || [ "$what" = test ] || [ "$what" = fi ]; then
  log "tests" | tee -a "$OUT/tests.log"
  run_tests $T ${TESTS:-}
fi
if [ "$what" = fi ]; then
  wait # FlashInfer's build
  tail -3 /tmp/build_fi0.log >"$OUT/misc.txt" 2>&1
  BENCH_T=$(( $(left) - ${SAN_RESERVE:-130} )) scripts/gpu_flashinfer.sh "$@" 2>&1 | grep -v "^\[" | tail -45 >>"$OUT/misc.txt"
  { cat "$OUT/flashinfer_version.txt"; tail -3 "$OUT/build_fi.log"; head -20 "$OUT/bench_fi.err"; } >>"$OUT/misc.txt" 2>/dev/null
  rm -f "$OUT/flashinfer_version.txt" "$OUT/build_fi.log" "$OUT/bench_fi.err"
  SAN_RESERVE=0
fi
if [ "$what" = all ] || [ "$what" = san ] || [ "$what" = fi ]; then
  for tool in ${SAN_TOOLS:-memcheck racecheck}; do
    if [ $tool = racecheck ]; then run_san $T $tool ${SAN_TESTS:-$RACESET}; else run_san $T $tool ${SAN_TESTS:-$SANSET}; fi
  done
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  log "bench"
  timeout $(( $(left) > 20 ? $(left) - 10 : 10 )) build-gpu/ms_bench_cuda "$@" 2>&1 | tee "$OUT/bench.txt"
fi
if [ "$what" = prof ]; then
  for b in ${PROF_B:-1 64}; do
    log "ncu ${PROF_SETTING:-full} ${PROF_SHAPE:-flat} B=$b" | tee -a "$OUT/ncu.txt"
    ncu_times build-gpu/ms_bench_cuda $b ${PROF_SETTING:-full} ${PROF_SHAPE:-flat}
  done
fi
if [ "$what" = src ]; then
  for kb in ${SRC_K:-ms_cu_k4:1 ms_cu_k2:64}; do # kernel:batch
    k=${kb%%:*}; b=${kb##*:}
    log "ncu --set full $k B=$b ${PROF_SETTING:-full} ${PROF_SHAPE:-flat}" | tee -a "$OUT/ncu.txt"
    [ $(left) -gt 40 ] || { echo "   no time left" | tee -a "$OUT/ncu.txt"; continue; }
    timeout $(( $(left) > 100 ? 90 : $(left) - 10 )) ncu --clock-control none -k $k --launch-skip 60 --launch-count 1 --set full \
      --import-source yes -o /tmp/rep_$k -f build-gpu/ms_bench_cuda --batch $b --vocab 151936 --shape ${PROF_SHAPE:-flat} \
      --setting ${PROF_SETTING:-full} --no-baseline --reps 3 >/tmp/ncu_$k.log 2>&1
    tail -2 /tmp/ncu_$k.log
    ncu -i /tmp/rep_$k.ncu-rep --page details --print-details all 2>&1 | grep -iE "Duration|Registers Per|Achieved Occ|Warp Cycles Per Issued|Executed Ipc|Stall|stall" | head -40 | tee -a "$OUT/ncu.txt"
    ncu -i /tmp/rep_$k.ncu-rep --page source --print-source cuda,sass --csv >/tmp/src_$k.csv 2>&1
    python3 scripts/gpu_ncu_lines.py /tmp/src_$k.csv 35 2>&1 | tee -a "$OUT/ncu.txt"
    gzip -c /tmp/src_$k.csv >"$OUT/src_$k.csv.gz"
  done
fi
log "done ($(( $(date +%s) - T0 )) s)"
