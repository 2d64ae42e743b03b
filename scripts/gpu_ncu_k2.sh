#!/usr/bin/env bash
# scripts/gpu_ncu_k2.sh (lead, tenth session): ncu --set full with source counters of K2 at bb97fa9: L = default (lite path at B=16/64),
# O = -DMS_CU_ONEREAD_L2=0 (the one-read path at B=64)
set -u
mkdir -p build-gpu
for v in L O; do
  cp .devcarry/lead/$v/ms_bench_cuda build-gpu/ms_bench_cuda
  k="ms_cu_k2:64"; [ $v = L ] && k="ms_cu_k2:64 ms_cu_k2:16"
  SKIP_BUILD=1 SRC_K="$k" PROF_SHAPE=flat BUDGET_S=${BUDGET:-110} bash scripts/gpu_run.sh src > /tmp/run_$v.log 2>&1
  mv "$OUT/ncu.txt" "$OUT/ncu_$v.txt"
  for f in "$OUT"/src_*.csv.gz; do [ -f "$f" ] && mv "$f" "${f%.csv.gz}_$v.csv.gz"; done
  tail -3 /tmp/run_$v.log
done
rm -f "$OUT/machine.txt"
ls -la "$OUT"
