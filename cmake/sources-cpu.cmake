# The fast CPU row (issue 5): the pipeline in ms_cpu_fast.c, its elementwise passes in
# ms_cpu_fast_simd.c compiled once per SIMD level. The level is chosen at run time
# (__builtin_cpu_supports), so only the per-level files get ISA flags; everything stays
# -ffp-contract=off (MS_FP_FLAGS), which keeps every lane bit-identical to the scalar rules.
list(APPEND MS_SOURCES
  src/ms_cpu_fast.c
  src/ms_cpu_fast_simd.c
  src/ms_cpu_fast_w16.c
  src/ms_cpu_fast_avx2.c
  src/ms_cpu_fast_avx512.c
)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set_source_files_properties(src/ms_cpu_fast_avx2.c PROPERTIES COMPILE_OPTIONS "-mavx2")
  set_source_files_properties(src/ms_cpu_fast_avx512.c
                              PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512dq;-mavx512vl")
  set_source_files_properties(src/ms_cpu_fast_w16.c PROPERTIES COMPILE_OPTIONS "-Wno-psabi")
  set_source_files_properties(src/ms_cpu_fast.c PROPERTIES COMPILE_DEFINITIONS MS_CPU_FAST_X86=1)
endif()
