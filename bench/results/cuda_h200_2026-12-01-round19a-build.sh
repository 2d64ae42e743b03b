#!/bin/bash
# sequential builds of round 19A's variants: name flags targets
cd /work/wt-a
C=/work/main/.devcarry/r19a
b() { v=$1; fl=$2; tg=$3
  echo "== $v ($fl) $(date -u +%H:%M:%S)"
  cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo $fl" > /tmp/a19/cm-$v.log 2>&1 || { echo cmake failed; return; }
  nice -n 5 cmake --build build-$v -j2 --target $tg 2>&1 | tail -3
  mkdir -p $C/$v
  cp build-$v/ms_bench_cuda $C/$v/ && echo "copied bench"
  [ -x build-$v/tests/cuda/ms_cuda_tests ] && echo "$tg" | grep -q tests && cp build-$v/tests/cuda/ms_cuda_tests $C/$v/ && echo "copied tests"
  echo "== $v done $(date -u +%H:%M:%S)"
}
b PL "-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_EF_LITE" "ms_cuda_tests ms_bench_cuda"
b P "-DMS_CU_LOGITS_EF" "ms_bench_cuda"
b C "-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_CS" "ms_bench_cuda"
b PLS "-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_EF_LITE -DMS_CU_STAMPS" "ms_bench_cuda"
b DS "-DMS_CU_STAMPS" "ms_bench_cuda"
echo ALLDONE
