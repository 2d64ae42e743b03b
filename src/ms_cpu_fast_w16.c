/* ms_cpu_fast_w16.c: the 64-byte-vector shape of the SIMD passes without ISA flags (the compiler
 * splits each vector). Slow; it exists so that the code the AVX-512 level runs is tested against
 * the reference on machines that lack AVX-512 (tests/cpu forces each level in turn). */
#define MS_FAST_W 16
#define MS_FAST_NAME w16
#define MS_FAST_LABEL "w16"
#include "ms_cpu_fast_simd.c"
