/*
 * fuzz_npy: the CLI's .npy reader (programs/ms_npy.c, issue 3) on arbitrary bytes.
 *
 * Properties: it returns 0 or -1; on -1 the message is non-empty and terminated; on 0 the array
 * lies inside the input (data + data_size <= buf + len), data_size = rows * cols * elem_size with a
 * known dtype. The input is copied to a buffer of its exact size, so a read past it is an ASan
 * report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "ms_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned char *buf = (unsigned char *)malloc(size ? size : 1);
    if (size) memcpy(buf, data, size);
    char err[96];
    memset(err, 'x', sizeof err);
    ms_npy_array a;
    int rc = ms_npy_parse(buf, size, &a, err, sizeof err);
    ms_fuzz_check(rc == 0 || rc == -1);
    if (rc == -1) {
        ms_fuzz_check(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
        ms_fuzz_check(strchr(err, '\n') == NULL);
    } else {
        ms_fuzz_check(a.dtype == MS_NPY_F4 || a.dtype == MS_NPY_F2 || a.dtype == MS_NPY_U2);
        ms_fuzz_check(a.elem_size == (a.dtype == MS_NPY_F4 ? 4u : 2u));
        ms_fuzz_check(a.rows >= 0 && a.cols >= 0);
        ms_fuzz_check(a.cols == 0 || (uint64_t)a.rows <= SIZE_MAX / (uint64_t)a.cols / a.elem_size);
        ms_fuzz_check(a.data_size == (size_t)a.rows * (size_t)a.cols * a.elem_size);
        const unsigned char *p = (const unsigned char *)a.data;
        ms_fuzz_check(p >= buf && p <= buf + size && a.data_size <= (size_t)(buf + size - p));
        ms_fuzz_check(ms_npy_dtype_name(a.dtype) != NULL);
        /* touch every byte the reader hands out */
        unsigned acc = 0;
        for (size_t i = 0; i < a.data_size; i++) acc += p[i];
        (void)acc;
    }
    /* a NULL error buffer is allowed too */
    ms_npy_parse(buf, size, &a, NULL, 0);
    free(buf);
    return 0;
}
