#!/bin/bash
# Round 28B, call 2: R = r28b 4f3cb1e (MS_CU_OR_ONEWAVE on) against D (main 3221ccc's default), alternating.
# 1) full setting fp32 V=151936 at B=64 (unchanged) and B=106/144/176 (changed: 4/3/3 chunks a row), two runs;
# 2) top-p alone at B=112,128,160,176, one run; 3) V=262144 full at B=64,80,100,128 (R: 7/6/5/4 chunks instead of 8
# from B=67), one run; 4) bf16 full at B=128,160, one run. (No tests: the 16 tests do not fit this helper's device time.)
mkdir -p $OUT; T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
DESC="D=main 3221ccc default;R=r28b 4f3cb1e MS_CU_OR_ONEWAVE on"
g() { AB_BIN=.devcarry/r28b AB_DESC="$DESC" AB_VARIANTS="D R" AB_STEPS="ab" "$@" bash scripts/gpu_run.sh ab >> $OUT/ab_run.log 2>&1; echo "step done at $(el) s" >> $OUT/ab_run.log; }
g env AB_B=64,106,144,176 AB_N=2 AB_SETTINGS=full BUDGET_S=60
g env AB_B=112,128,160,176 AB_N=1 AB_SETTINGS=top-p BUDGET_S=$(( 78 - $(el) ))
g env AB_V=262144 AB_B=64,80,100,128 AB_N=1 AB_SETTINGS=full BUDGET_S=$(( 84 - $(el) ))
g env AB_DTYPE=bf16 AB_B=128,160 AB_N=1 AB_SETTINGS=full BUDGET_S=$(( 90 - $(el) ))
echo "done $(date -u +%H:%M:%S) after $(el) s"
