#!/bin/bash
# Round 37C, call 1 (no build): D's bench (main b20f0da's default kernels; .devcarry/s28fin/M copied as .devcarry/r37c/D)
# run as several variants, alternating: D = the default's host rule (B <= 27 at V=151936 two-pass); Gg = the one-read path
# forced at B=4..27 (MS_BENCH_ORMIN=1024: the path from chunk size alone, no L2 rule, every B >= 4 has chunks >= 1152) with
# g chunks a row (MS_BENCH_ORG=g, within ms_cu_or_bound: V/1024, MS_CU_OR_GMAX 18). Full setting fp32 V=151936 B=4..27 both
# shapes; V=262144 B=8,16,24; bf16 B=8,16,24; top-p alone B=8,16,24.
B=.devcarry/r37c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s28fin/M);G18=D with ORMIN=1024 ORG=18;G14=ORG=14;G10=ORG=10;G12=ORG=12;G8=ORG=8"
ENVS="G18=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=18;G14=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=14;G10=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=10;G12=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=12;G8=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=8"

run() { # name budget, then env
  local n=$1 b=$2; shift 2
  env AB_BIN=$B "AB_ALIAS=G18=D;G14=D;G10=D;G12=D;G8=D" "AB_DESC=$DESC" "AB_ENV=$ENVS" AB_STEPS=ab AB_N=2 BUDGET_S=$b "$@" bash scripts/gpu_run.sh ab > $OUT/run_$n.log 2>&1
  mv $OUT/bench.txt $OUT/bench_$n.txt
  echo "$n: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
}
run main 80 AB_VARIANTS="D G18 G14 G10 G8" AB_B=4,8,12,16,20,24,27 AB_SETTINGS=full
run 262 42 AB_V=262144 AB_VARIANTS="D G18 G12 G8" AB_B=8,16,24 AB_SETTINGS=full
run bf16 40 AB_DTYPE=bf16 AB_VARIANTS="D G18 G14 G8" AB_B=8,16,24 AB_SETTINGS=full
run tp 42 AB_VARIANTS="D G18 G14 G8" AB_B=8,16,24 AB_SETTINGS=top-p
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
rm -rf build-gpu*
cd $OUT && tar czf /tmp/logs.tgz run_*.log build.log machine.txt 2>/dev/null; rm -f run_*.log build.log; mv /tmp/logs.tgz .; ls -la
