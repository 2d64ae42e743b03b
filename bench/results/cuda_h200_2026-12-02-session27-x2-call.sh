#!/bin/bash
# Twenty-seventh session's last call (measurement only, nothing turned on): F = the new default (9e1c0a7 / 74c64dd:
# K4_IDSCAN=1, OR_TKGATE=4) against X2 = the same tree with round 35C's -DMS_CU_K4_IDSCAN=2 (the id-rank draw in every
# K4, not only K4w), alternating, three runs each, F first: the full setting fp32 both shapes at B=2..16 (K4<false>'s
# steps, where round 35C saw -0.03..-0.26) and the one-read steps B=28..64 (where its one call saw flat B=32 +0.17).
B=.devcarry/x2c
mkdir -p $OUT
DESC="F=new default 74c64dd (K4_IDSCAN=1, OR_TKGATE=4);X2=F with K4_IDSCAN=2 (every K4)"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="F X2" AB_B=2,4,8,16,28,32,48,64 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
