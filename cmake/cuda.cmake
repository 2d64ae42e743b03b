# cmake/cuda.cmake: the CUDA backend (issue 4), included by the top-level CMakeLists.
# With MSAMPLER_CUDA the kernels join the library (compiled with --fmad=false, sm_90 by default);
# without it a stub keeps the public CUDA functions, which then return MS_EBACKEND.
if(MSAMPLER_CUDA)
  list(APPEND MS_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../src/cuda/ms_cuda.cu)
  # The standalone benchmark (msample bench --backend cuda uses the same file when the CLI has it).
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/../programs/ms_bench_cuda.c)
    add_executable(ms_bench_cuda ${CMAKE_CURRENT_LIST_DIR}/../programs/ms_bench_cuda.c)
    target_compile_definitions(ms_bench_cuda PRIVATE MS_BENCH_CUDA_STANDALONE=1)
    target_include_directories(ms_bench_cuda PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../programs)
    target_compile_options(ms_bench_cuda PRIVATE -ffp-contract=off -Wall -Wextra -Wno-unused-parameter)
    target_link_libraries(ms_bench_cuda PRIVATE msampler_static CUDA::cudart_static Threads::Threads m)
    # FlashInfer timed side by side, only with -DMSAMPLER_FLASHINFER_INCLUDE (cmake/flashinfer.cmake)
    include(${CMAKE_CURRENT_LIST_DIR}/flashinfer.cmake)
    ms_use_flashinfer(ms_bench_cuda)
  endif()
else()
  list(APPEND MS_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../src/cuda/ms_cuda_stub.c)
endif()
