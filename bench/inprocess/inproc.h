/* What both in-process harnesses (dab.c, rowab.c) need: the library's internals they call, the test
 * helpers' random rows (ms_trng_normal is defined here, as tests/test_main.c does for the test runners,
 * since each harness is one translation unit with its own main), a microsecond clock and a median. */
#ifndef MS_INPROC_H
#define MS_INPROC_H
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ms_cpu.h"
#include "ms_math.h"
#include "ms_test.h"
int ms_test_failures;
double ms_trng_normal(ms_trng *r) {
    double u1 = ms_trng_unit(r), u2 = ms_trng_unit(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double med(double *a, int n) { qsort(a, n, 8, cmpd); return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]); }
#endif
