#!/bin/bash
# round 25B, first call: the host rule's sweep (D with the one-read path off / on by chunk alone), the A/B of the
# round's build variants, top-p alone at B=64, stamps at B=64. Logs collected into a few files under $OUT.
set -u
R=.devcarry/r25b; O=$OUT; T=/tmp/r25b; mkdir -p $T
DESC="D=main 58a5672 default (b5274cd binaries);DT=D with MS_BENCH_ORMIN=2147483647 (one-read off: two-pass lite);DO=D with MS_BENCH_ORMIN=8192 (one-read by chunk alone);E=OREXIT+ORPF 32 KB;E0=E with MS_BENCH_ORPF=0 (OREXIT alone);EF=E with MS_BENCH_ORPF=1048576 (whole chunk);EL=E + K1OR_MINB=8;DS=D stamps;ES=E stamps;ES0=ES with ORPF=0"
go() { # name, env...
  local nm=$1; shift
  echo "#### $nm: $* ($(date -u +%H:%M:%S))" | tee -a $O/log.txt
  env OUT=$T/$nm AB_BIN=$R AB_DESC="$DESC" "$@" bash scripts/gpu_run.sh ab >> $O/log.txt 2>&1
  for f in bench stamps; do [ -f $T/$nm/$f.txt ] && { echo "#### $nm"; cat $T/$nm/$f.txt; } >> $O/$f.txt; done
  [ -f $O/machine.txt ] || cp $T/$nm/machine.txt $O/machine.txt
}
go ab AB_VARIANTS="D E0 E EF EL" AB_B=16,52,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab stamps:DS stamps:ES stamps:ES0" STAMPS_B=64 BUDGET_S=115
go sweep AB_VARIANTS="D DT" AB_B=52,64,80,96,128 AB_N=2 AB_SETTINGS=full AB_STEPS="ab ab:bf16" AB_B_DT=64,96 BUDGET_S=60
go sweep2 AB_VARIANTS="D DO" AB_B=32,40,48 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40
go topp AB_VARIANTS="D E0 E EF EL" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=50
echo "#### done $(date -u +%H:%M:%S)" | tee -a $O/log.txt
