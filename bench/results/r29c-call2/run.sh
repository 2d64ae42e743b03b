#!/usr/bin/env bash
# Round 29C, call 2: D, N (call 1's), NF (-DMS_CU_K4_FUSE_NOLD: the finish's part alone), NL (-DMS_CU_K4_FUSE_NOFIN: the
# loads' part alone), full setting at the one-read B, both shapes, three alternating runs; stamps of DS and NS at B=32,64.
cd "$(dirname "$0")/../.."
B=.devcarry/r29c
DESC="D=main b1272aa default (s21/D);N=r29c + -DMS_CU_K4_FUSE=1 (call 1);NF=r29c a356147 + -DMS_CU_K4_FUSE=1 -DMS_CU_K4_FUSE_NOLD=1 (finish part);NL=r29c a356147 + -DMS_CU_K4_FUSE=1 -DMS_CU_K4_FUSE_NOFIN=1 (loads part);DS=D + MS_CU_STAMPS (s21/DS);NS=N + MS_CU_STAMPS"
AB_BIN=$B AB_DESC="$DESC" STAMPS_B=32,64 AB_STEPS="stamps:DS stamps:NS" BUDGET_S=40 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N NF NL" AB_B=32,48,64,106,128,256 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=140 bash scripts/gpu_run.sh ab
