#!/bin/bash
# usage: build.sh NAME "flags" targets...
cd /work/wt-a
n=$1; f=$2; shift 2
d=build-$n
s=$(date +%s)
cmake -S . -B $d -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DMSAMPLER_PROGRAMS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-lineinfo -Xptxas -v $f" > /work/main/.devcarry/r18a/cfg-$n.log 2>&1
nice -n 5 cmake --build $d -j2 --target "$@" > /work/main/.devcarry/r18a/build-$n.log 2>&1
rc=$?
mkdir -p /work/main/.devcarry/r18a/bin/$n
[ -x $d/ms_bench_cuda ] && cp $d/ms_bench_cuda /work/main/.devcarry/r18a/bin/$n/
[ -x $d/tests/cuda/ms_cuda_tests ] && cp $d/tests/cuda/ms_cuda_tests /work/main/.devcarry/r18a/bin/$n/
echo "$n rc=$rc $(( $(date +%s) - s )) s" >> /work/main/.devcarry/r18a/builds.txt
