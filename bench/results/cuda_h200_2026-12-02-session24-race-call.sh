#!/bin/bash
# Twenty-fourth session, second call: cuda_identity_band_edges under racecheck on D and M (the final call's racecheck
# reported it "not ok" on M with 0 hazards), and in quick mode without the sanitizer, full output.
mkdir -p $OUT
for v in M D M; do
  echo "== $v racecheck $(date -u +%T)"
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 .devcarry/fin24/$v/ms_cuda_tests cuda_identity_band_edges 2>&1 | tail -15
  echo "   exit ${PIPESTATUS[0]}"
done
for v in M D; do
  echo "== $v quick, no sanitizer $(date -u +%T)"
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 .devcarry/fin24/$v/ms_cuda_tests cuda_identity_band_edges 2>&1 | tail -8
  echo "== $v memcheck $(date -u +%T)"
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 60 compute-sanitizer --tool memcheck .devcarry/fin24/$v/ms_cuda_tests cuda_identity_band_edges 2>&1 | tail -6
done
