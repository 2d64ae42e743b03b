# cmake/flashinfer.cmake: FlashInfer timed side by side in the CUDA benchmark (issue 4), only when
# configured with -DMSAMPLER_FLASHINFER_INCLUDE=<dir holding flashinfer/sampling.cuh>
# (scripts/get_flashinfer.sh puts it in third_party/flashinfer/include). Included from
# cmake/cuda.cmake once ms_bench_cuda exists, and from programs/CMakeLists.txt for msample.
# Without the option nothing here builds and the bench shows ANCHORS.md's figures.
set(MSAMPLER_FLASHINFER_INCLUDE "" CACHE PATH
    "FlashInfer's include dir (scripts/get_flashinfer.sh); empty: the CUDA bench uses ANCHORS.md's figures")

if(MSAMPLER_CUDA AND MSAMPLER_FLASHINFER_INCLUDE AND NOT TARGET ms_bench_flashinfer)
  get_filename_component(_ms_fi_inc "${MSAMPLER_FLASHINFER_INCLUDE}" ABSOLUTE)
  if(NOT EXISTS "${_ms_fi_inc}/flashinfer/sampling.cuh")
    message(FATAL_ERROR "MSAMPLER_FLASHINFER_INCLUDE=${MSAMPLER_FLASHINFER_INCLUDE} has no flashinfer/sampling.cuh "
                        "(run scripts/get_flashinfer.sh)")
  endif()
  set(_ms_fi_version "?")
  if(EXISTS "${_ms_fi_inc}/../VERSION")
    file(STRINGS "${_ms_fi_inc}/../VERSION" _ms_fi_line LIMIT_COUNT 1 REGEX "^flashinfer-python ")
    string(REGEX REPLACE "^flashinfer-python ([^ ]+).*" "\\1" _ms_fi_version "${_ms_fi_line}")
  endif()
  message(STATUS "msampler: FlashInfer ${_ms_fi_version} timed in the CUDA bench (${_ms_fi_inc})")
  add_library(ms_bench_flashinfer STATIC ${CMAKE_CURRENT_LIST_DIR}/../programs/ms_bench_flashinfer.cu)
  target_include_directories(ms_bench_flashinfer SYSTEM PRIVATE "${_ms_fi_inc}")
  target_include_directories(ms_bench_flashinfer PUBLIC ${CMAKE_CURRENT_LIST_DIR}/../programs)
  target_compile_definitions(ms_bench_flashinfer PRIVATE MS_FLASHINFER_VERSION="${_ms_fi_version}"
                             FLASHINFER_ENABLE_F16 FLASHINFER_ENABLE_BF16)
  # the flags FlashInfer's JIT builds its sampling module with (a baseline, not our sampling code)
  target_compile_options(ms_bench_flashinfer PRIVATE -O3 -use_fast_math --expt-relaxed-constexpr)
  set_target_properties(ms_bench_flashinfer PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_link_libraries(ms_bench_flashinfer PUBLIC CUDA::cudart_static)
endif()

# ms_use_flashinfer(<target>): the bench target times FlashInfer live when it was configured in.
function(ms_use_flashinfer tgt)
  if(TARGET ms_bench_flashinfer AND TARGET ${tgt})
    target_compile_definitions(${tgt} PRIVATE MSAMPLER_HAVE_FLASHINFER=1)
    target_link_libraries(${tgt} PRIVATE ms_bench_flashinfer)
  endif()
endfunction()
