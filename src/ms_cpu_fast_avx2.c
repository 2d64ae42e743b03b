/* ms_cpu_fast_avx2.c: the SIMD passes at 32-byte vectors, compiled with -mavx2 (sources-cpu.cmake)
 * and used only when the CPU reports AVX2 (ms_cpu_fast.c). */
#define MS_FAST_W 8
#define MS_FAST_NAME avx2
#define MS_FAST_LABEL "avx2"
#if defined(__AVX2__)
#  include "ms_cpu_fast_simd.c"
#else
typedef int ms__fast_avx2_absent_t; /* no ISA flags for this compiler: the level is absent */
#endif
