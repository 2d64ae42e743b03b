/* ms_cpu_fast_avx512.c: the SIMD passes at 64-byte vectors, compiled with -mavx512f (and friends,
 * sources-cpu.cmake) and used only when the CPU reports AVX-512F (ms_cpu_fast.c). */
#define MS_FAST_W 16
#define MS_FAST_NAME avx512
#define MS_FAST_LABEL "avx512"
#if defined(__AVX512F__)
#  include "ms_cpu_fast_simd.c"
#else
typedef int ms__fast_avx512_absent_t; /* no ISA flags for this compiler: the level is absent */
#endif
