#!/bin/bash
# Round 34C, call 2 (carried as .devcarry/r34c/call2.sh; run from the repository root with $OUT set; carry .devcarry/r34c).
# D = main 35bf75e's default (.devcarry/s25/D); (N1 = r34c -DMS_CU_OR_LOOP2=1, call 1, not carried here: 64 MiB); N3 = r34c -DMS_CU_OR_LOOP2=3
# (constant step, round 19B's whole-step loads without the ring, their loads as offsets, one nibble shift); N3R = N3's
# binary with MS_CU_ORRING=1 (K2's ring in every step: the one-wave K2or with the ring); N4 = r34c -DMS_CU_OR_LOOP2=1
# -DMS_CU_OR_PF1=1 (N1 + the first step's logits prefetched into L2 at K2or's entry).
# Steps: A/B full fp32 V=151936 B=28..128 both shapes (2 runs alternating); bf16 B=64 and top-p alone B=64 (2 runs);
# then the 7 tests on the variant whose worst fp32 cell (mean - D's) is best: on N3's runner for N3 / N3R (N3R with
# MS_CU_ORRING=1), on N4's for N4 / N1 (N4's code is N1's plus the prefetch; N1's runner is not carried: 64 MiB).
B=.devcarry/r34c
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
DESC="D=main 35bf75e default (s25/D);N1=r34c -DMS_CU_OR_LOOP2=1;N3=r34c -DMS_CU_OR_LOOP2=3;N3R=N3 with MS_CU_ORRING=1 (ring in every step);N4=r34c -DMS_CU_OR_LOOP2=1 -DMS_CU_OR_PF1=1"
COMMON="AB_BIN=$B AB_ALIAS=N3R=N3 AB_ENV=N3R=MS_CU_ORRING=1"
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N3 N3R N4" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA:-85} bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt
cp $W/bench.txt $W/bench_fp32.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N3 N4" AB_B=64 AB_N=2 AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 \
  AB_VARIANTS_DT="D N3 N4" AB_STEPS="ab:bf16" BUDGET_S=${BB:-40} bash scripts/gpu_run.sh ab > $W/abbf_run.log 2>&1
echo "bf16: $(( $(date +%s) - T0 )) s" >> $W/times.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N3 N4" AB_B=64 AB_N=2 AB_SETTINGS=top-p \
  AB_STEPS="ab" BUDGET_S=${BP:-40} bash scripts/gpu_run.sh ab > $W/abtp_run.log 2>&1
echo "top-p: $(( $(date +%s) - T0 )) s" >> $W/times.txt
BEST=$(awk '/^== bench/{v=$5} /^full /{k=$2" "$3; s[v" "k]+=$5; n[v" "k]++; ks[k]=1; vs[v]=1}
  END{best="";bs=1e9; for(v in vs){ if(v=="D") continue; m=-1e9; for(k in ks){ if(!n[v" "k]||!n["D "k]) continue; d=s[v" "k]/n[v" "k]-s["D "k]/n["D "k]; if(d>m)m=d}; printf "%s worst %+.3f\n", v, m > "/dev/stderr"; if(m<bs){bs=m;best=v}} print best}' $W/bench_fp32.txt 2>>$W/best.txt)
echo "best: $BEST" >> $W/best.txt
TV=N4; EXTRA=""
case "$BEST" in N3) TV=N3 ;; N3R) TV=N3; EXTRA="MS_CU_ORRING=1" ;; esac
echo "tests on $TV ${EXTRA}" >> $W/best.txt
env $EXTRA OUT=$W $COMMON AB_DESC="$DESC" AB_STEPS="tests:$TV" \
  AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite" \
  BUDGET_S=${BT:-55} bash scripts/gpu_run.sh ab > $W/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench_fp32.txt $W/bench.txt $W/tests.log $W/times.txt $W/best.txt $OUT/ 2>/dev/null
tar czf $OUT/call2.tgz -C $W .
ls -la $W $OUT
