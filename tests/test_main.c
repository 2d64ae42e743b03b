/* test_main.c: runs every test of test_list.h (or those named on the command line) and ends
 * with the line CI reads: "N passed, N failed". */
#include <math.h>
#include <stdlib.h>

#ifndef MS_TEST_LIST
#  define MS_TEST_LIST "test_list.h"
#endif

#include "ms_test.h"

int ms_test_failures;

double ms_trng_normal(ms_trng *r) {
    double u1 = ms_trng_unit(r), u2 = ms_trng_unit(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#define MS_TEST_ENTRY(name) void ms_test_##name(void);
#include MS_TEST_LIST
#undef MS_TEST_ENTRY

typedef struct { const char *name; void (*fn)(void); } ms_test_case;
static const ms_test_case ms_tests[] = {
#define MS_TEST_ENTRY(name) {#name, ms_test_##name},
#include MS_TEST_LIST
#undef MS_TEST_ENTRY
};

int main(int argc, char **argv) {
    int passed = 0, failed = 0, n = (int)(sizeof ms_tests / sizeof ms_tests[0]);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n; i++) printf("%s\n", ms_tests[i].name);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (argc > 1) {
            int wanted = 0;
            for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], ms_tests[i].name) == 0;
            if (!wanted) continue;
        }
        ms_test_failures = 0;
        ms_tests[i].fn();
        if (ms_test_failures) {
            printf("not ok %d - %s (%d checks failed)\n", i + 1, ms_tests[i].name, ms_test_failures);
            failed++;
        } else {
            printf("ok %d - %s\n", i + 1, ms_tests[i].name);
            passed++;
        }
        fflush(stdout);
    }
    if (passed + failed == 0) {
        fprintf(stderr, "no test matched\n");
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
