/*
 * ms_npy.c: the .npy reader (see ms_npy.h). Format reference: numpy/lib/format.py.
 *
 * The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * followed by spaces and '\n'. Only that grammar is accepted (quoted keys, the three keys exactly once,
 * True/False, a tuple of decimal integers): a small hand-written scanner over a bounded span, since a
 * general Python-literal parser would be a bigger attack surface than the format needs.
 */
#include "ms_npy.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int npy_fail(char *err, size_t err_size, const char *fmt, ...) {
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
        /* the message quotes input bytes: keep it one printable line */
        for (char *p = err; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    }
    return -1;
}

const char *ms_npy_dtype_name(ms_npy_dtype d) {
    switch (d) {
    case MS_NPY_F4: return "<f4";
    case MS_NPY_F2: return "<f2";
    case MS_NPY_U2: return "<u2";
    }
    return "?";
}

typedef struct npy_scan {
    const char *p, *end;
} npy_scan;

static void skip_ws(npy_scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static bool take(npy_scan *s, char c) {
    skip_ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* A quoted string ('...' or "..."), no escapes (none of the accepted values needs one). */
static bool scan_string(npy_scan *s, char *dst, size_t dst_size) {
    skip_ws(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) return false;
    char q = *s->p++;
    size_t n = 0;
    while (s->p < s->end && *s->p != q) {
        if (*s->p == '\\' || n + 1 >= dst_size) return false;
        dst[n++] = *s->p++;
    }
    if (s->p >= s->end) return false;
    s->p++;
    dst[n] = '\0';
    return true;
}

static bool scan_word(npy_scan *s, const char *w) {
    skip_ws(s);
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0) return false;
    s->p += n;
    return true;
}

/* A non-negative decimal integer below 2^62. */
static bool scan_uint(npy_scan *s, int64_t *v) {
    skip_ws(s);
    if (s->p >= s->end || *s->p < '0' || *s->p > '9') return false;
    int64_t x = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
        if (x > ((int64_t)1 << 62) / 10) return false;
        x = x * 10 + (*s->p++ - '0');
    }
    *v = x;
    return true;
}

int ms_npy_parse(const unsigned char *buf, size_t len, ms_npy_array *out, char *err, size_t err_size) {
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (!buf || !out) return npy_fail(err, err_size, "no input");
    memset(out, 0, sizeof *out);
    if (len < 10) return npy_fail(err, err_size, "not a .npy file: %zu bytes, shorter than the 10-byte preamble", len);
    if (memcmp(buf, magic, 6) != 0) return npy_fail(err, err_size, "not a .npy file: bad magic string");
    const unsigned major = buf[6], minor = buf[7];
    size_t hlen, hstart;
    if (major == 1 && minor == 0) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if ((major == 2 || major == 3) && minor == 0) {
        if (len < 12) return npy_fail(err, err_size, "truncated: %zu bytes, shorter than the 12-byte v%u preamble", len, major);
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        return npy_fail(err, err_size, "unsupported .npy format version %u.%u (1.0, 2.0 and 3.0 are read)", major, minor);
    }
    if (hlen > len - hstart)
        return npy_fail(err, err_size, "truncated: header of %zu bytes but only %zu bytes follow the preamble", hlen,
                        len - hstart);
    npy_scan s = {(const char *)buf + hstart, (const char *)buf + hstart + hlen};
    if (hlen == 0 || s.end[-1] != '\n') return npy_fail(err, err_size, "malformed header: it does not end with a newline");

    char descr[16] = "";
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    int64_t dims[2] = {0, 0};
    int ndim = 0;
    if (!take(&s, '{')) return npy_fail(err, err_size, "malformed header: expected '{'");
    for (;;) {
        if (take(&s, '}')) break;
        char key[32];
        if (!scan_string(&s, key, sizeof key)) return npy_fail(err, err_size, "malformed header: expected a quoted key");
        if (!take(&s, ':')) return npy_fail(err, err_size, "malformed header: expected ':' after '%s'", key);
        if (strcmp(key, "descr") == 0) {
            if (have_descr) return npy_fail(err, err_size, "malformed header: 'descr' given twice");
            if (!scan_string(&s, descr, sizeof descr))
                return npy_fail(err, err_size, "unsupported dtype: 'descr' is not a simple type string");
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_order) return npy_fail(err, err_size, "malformed header: 'fortran_order' given twice");
            if (scan_word(&s, "True")) fortran = true;
            else if (scan_word(&s, "False")) fortran = false;
            else return npy_fail(err, err_size, "malformed header: 'fortran_order' is not True or False");
            have_order = true;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape) return npy_fail(err, err_size, "malformed header: 'shape' given twice");
            if (!take(&s, '(')) return npy_fail(err, err_size, "malformed header: 'shape' is not a tuple");
            for (;;) {
                if (take(&s, ')')) break;
                int64_t v;
                if (!scan_uint(&s, &v)) return npy_fail(err, err_size, "malformed header: bad dimension in 'shape'");
                if (ndim < 2) dims[ndim] = v;
                if (ndim < 3) ndim++;
                if (take(&s, ',')) continue;
                if (take(&s, ')')) break;
                return npy_fail(err, err_size, "malformed header: expected ',' or ')' in 'shape'");
            }
            have_shape = true;
        } else {
            return npy_fail(err, err_size, "malformed header: unknown key '%s'", key);
        }
        if (take(&s, ',')) continue;
        if (take(&s, '}')) break;
        return npy_fail(err, err_size, "malformed header: expected ',' or '}'");
    }
    skip_ws(&s);
    if (s.p != s.end) return npy_fail(err, err_size, "malformed header: unexpected text after '}'");
    if (!have_descr || !have_order || !have_shape)
        return npy_fail(err, err_size, "malformed header: missing '%s'",
                        !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");

    if (strcmp(descr, "<f4") == 0) out->dtype = MS_NPY_F4, out->elem_size = 4;
    else if (strcmp(descr, "<f2") == 0) out->dtype = MS_NPY_F2, out->elem_size = 2;
    else if (strcmp(descr, "<u2") == 0) out->dtype = MS_NPY_U2, out->elem_size = 2;
    else return npy_fail(err, err_size, "unsupported dtype '%s' (read: '<f4', '<f2', '<u2' holding bfloat16)", descr);
    if (fortran) return npy_fail(err, err_size, "unsupported layout: fortran_order is True (C order is read)");
    if (ndim != 2) return npy_fail(err, err_size, "wrong shape: %d dimensions, expected 2 (rows, width)", ndim);

    /* rows * cols * elem_size must not overflow: each dim < 2^62, so check against the bytes present */
    const size_t data_off = hstart + hlen;
    const size_t avail = len - data_off;
    const uint64_t r = (uint64_t)dims[0], c = (uint64_t)dims[1];
    if (c != 0 && r > (uint64_t)SIZE_MAX / c / out->elem_size)
        return npy_fail(err, err_size, "wrong shape: (%lld, %lld) is too large", (long long)dims[0], (long long)dims[1]);
    const size_t need = (size_t)(r * c) * out->elem_size;
    if (need > avail)
        return npy_fail(err, err_size, "truncated: shape (%lld, %lld) needs %zu data bytes, %zu present",
                        (long long)dims[0], (long long)dims[1], need, avail);
    if (need < avail)
        return npy_fail(err, err_size, "malformed: %zu bytes after the data of shape (%lld, %lld)", avail - need,
                        (long long)dims[0], (long long)dims[1]);
    out->rows = dims[0];
    out->cols = dims[1];
    out->data = buf + data_off;
    out->data_size = need;
    return 0;
}
