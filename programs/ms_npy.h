/*
 * ms_npy.h: a strict reader of NumPy .npy files held in memory (issue 3).
 *
 * Accepts format versions 1.0, 2.0 and 3.0, C order, two dimensions, and the little-endian dtypes
 * msample reads: '<f4' (float32), '<f2' (float16) and '<u2' (uint16 holding bfloat16 bits). Every
 * other input is an error with a one-line message; the reader never reads outside [buf, buf+len).
 * It is a pure function of its input so that it can be fuzzed (the reliability issue).
 */
#ifndef MS_NPY_H
#define MS_NPY_H

#include <stddef.h>
#include <stdint.h>

typedef enum ms_npy_dtype {
    MS_NPY_F4 = 0, /* '<f4' */
    MS_NPY_F2 = 1, /* '<f2' */
    MS_NPY_U2 = 2  /* '<u2' */
} ms_npy_dtype;

typedef struct ms_npy_array {
    ms_npy_dtype dtype;
    int64_t rows, cols;    /* shape (rows, cols) */
    size_t elem_size;      /* 4 or 2 */
    const void *data;      /* points into the parsed buffer: rows * cols * elem_size bytes, which may
                            * be unaligned (copy before reading as float) */
    size_t data_size;
} ms_npy_array;

/** The dtype's name as .npy writes it ("<f4", ...). */
const char *ms_npy_dtype_name(ms_npy_dtype d);

/**
 * Parses the .npy file in buf[0, len). Returns 0 and fills *out, or -1 with a one-line message
 * (no file name, no newline) in err[0, err_size).
 */
int ms_npy_parse(const unsigned char *buf, size_t len, ms_npy_array *out, char *err, size_t err_size);

#endif /* MS_NPY_H */
