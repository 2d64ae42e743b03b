/*
 * _msampler.c: the thin CPython layer over the C library (issue 6).
 *
 * Everything numeric happens in the library (include/msampler.h); this file only converts Python
 * objects to the library's structs and its error codes to exceptions. Host logits are read in place
 * through the buffer protocol (numpy) or DLPack (torch, jax, ...), never copied; the GIL is released
 * while the library computes. Nothing here may crash the interpreter, whatever the input: every
 * object is checked before its memory is handed to the library.
 *
 * The public Python API is the pure-Python package around this module (msampler/__init__.py,
 * config.py, resource.py); this module's names are private and its stub is _msampler.pyi.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "msampler.h"

/* ---- exceptions -----------------------------------------------------------------------------
 * One base class, and subclasses that are also the built-in exception a Python caller expects:
 * a config outside the contract is a ValueError (the seed's validate says so), an unknown request
 * is a LookupError, a bad dtype is a TypeError. Each carries the library's code and its name. */
static PyObject *ms_py_Error, *ms_py_InvalidArgument, *ms_py_DtypeError, *ms_py_UnknownRequest,
    *ms_py_StateError, *ms_py_OutOfMemory;

static PyObject *ms_py_exc_for(int code) {
    switch (code) {
    case MS_EDTYPE: return ms_py_DtypeError;
    case MS_ENOENT: return ms_py_UnknownRequest;
    case MS_ENOMEM: return ms_py_OutOfMemory;
    case MS_EFULL:
    case MS_ESTATE:
    case MS_EBACKEND:
    case MS_ECUDA: return ms_py_StateError;
    default: return ms_py_InvalidArgument; /* EINVAL, ECONFIG, ECAPABILITY, ESPEC, ESHAPE, ERANGE, ... */
    }
}

/* Raises the exception of `code` with `msg`; returns NULL for the caller to return. */
static PyObject *ms_py_raise(int code, const char *msg) {
    PyObject *type = ms_py_exc_for(code);
    PyObject *exc = PyObject_CallFunction(type, "s", msg);
    if (!exc) return NULL;
    PyObject *pcode = PyLong_FromLong(code);
    PyObject *pname = PyUnicode_FromString(ms_err_name(code));
    if (!pcode || !pname || PyObject_SetAttrString(exc, "code", pcode) < 0 ||
        PyObject_SetAttrString(exc, "errname", pname) < 0) {
        Py_XDECREF(pcode);
        Py_XDECREF(pname);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(pcode);
    Py_DECREF(pname);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* Raises with a formatted message (PyUnicode_FromFormat: %s, %d, %zd, %R, %U, ...). */
static PyObject *ms_py_raisef(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *s = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!s) return NULL;
    const char *u = PyUnicode_AsUTF8(s);
    PyObject *r = u ? ms_py_raise(code, u) : NULL;
    Py_DECREF(s);
    return r;
}

/* ---- scalar conversions ---------------------------------------------------------------------- */

/* A Python number to the library's fp32 (the SPEC's fields are fp32; decisions.md "top_p as fp32").
 * A finite double beyond fp32's range becomes +-inf, as IEEE rounding would make it, without the
 * undefined behaviour of an out-of-range C conversion; validation then names the value inf. */
static int ms_py_f32(PyObject *o, const char *name, float *out) {
    if (PyBool_Check(o) || !(PyFloat_Check(o) || PyLong_Check(o) || PyNumber_Check(o))) {
        ms_py_raisef(MS_ECONFIG, "%s=%R: must be a real number", name, o);
        return -1;
    }
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        int overflow = PyErr_ExceptionMatches(PyExc_OverflowError);
        PyErr_Clear();
        if (overflow && PyLong_Check(o)) { /* an int too large for a double: +-inf in fp32 too */
            PyObject *zero = PyLong_FromLong(0);
            int neg = zero ? PyObject_RichCompareBool(o, zero, Py_LT) : -1;
            Py_XDECREF(zero);
            if (neg < 0) return -1;
            *out = neg ? -INFINITY : INFINITY;
            return 0;
        }
        ms_py_raisef(MS_ECONFIG, "%s=%R: must be a real number", name, o);
        return -1;
    }
    if (isfinite(d) && fabs(d) >= 0x1.ffffffp127) /* at or past the midpoint to 2^128: rounds to inf */
        *out = d < 0 ? -INFINITY : INFINITY;
    else
        *out = (float)d;
    return 0;
}

/* A Python integer to int32. Values beyond int32 are clamped: for every int32 field of the config a
 * clamped value means the same (top_k and top_p_min_keep >= V are "all", a window or min_tokens of
 * 2^31 is never reached, negatives are refused either way); see docs/decisions.md. A real number with an
 * integral value (3.0, numpy's float32(3.0) as well as float64) is taken as that integer; any other
 * float is refused with a message, and so is a bool (as ms_py_f32 refuses one: True is no count). */
static int ms_py_i32(PyObject *o, const char *name, int32_t *out) {
    PyObject *idx = NULL;
    if (PyBool_Check(o)) {
        ms_py_raisef(MS_ECONFIG, "%s=%R: must be an integer", name, o);
        return -1;
    }
    idx = PyFloat_Check(o) ? NULL : PyNumber_Index(o);
    if (!idx) {
        if (!PyFloat_Check(o)) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
            PyErr_Clear();
        }
        /* a float, or a real number that is not an index (numpy's float32, ...): integral values only */
        PyObject *fl = PyFloat_Check(o) ? (Py_INCREF(o), o) : PyNumber_Check(o) ? PyNumber_Float(o) : NULL;
        if (!fl) {
            if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError) &&
                !PyErr_ExceptionMatches(PyExc_ValueError))
                return -1;
            PyErr_Clear();
            ms_py_raisef(MS_ECONFIG, "%s=%R: must be an integer", name, o);
            return -1;
        }
        const double d = PyFloat_AS_DOUBLE(fl);
        Py_DECREF(fl);
        if (!(isfinite(d) && d == floor(d))) {
            ms_py_raisef(MS_ECONFIG, "%s=%R: must be an integer", name, o);
            return -1;
        }
        idx = PyLong_FromDouble(d);
    }
    if (!idx) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow > 0 || v > INT32_MAX) v = INT32_MAX;
    if (overflow < 0 || v < INT32_MIN) v = INT32_MIN;
    *out = (int32_t)v;
    return 0;
}

static int ms_py_bool(PyObject *o, bool *out) {
    int b = PyObject_IsTrue(o);
    if (b < 0) return -1;
    *out = b != 0;
    return 0;
}

/* An int64 request id or seed; anything else is an error naming `what`. */
static int ms_py_i64(PyObject *o, const char *what, int64_t *out) {
    PyObject *idx = PyNumber_Index(o);
    if (!idx) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            ms_py_raisef(MS_EINVAL, "%s=%R: must be an integer", what, o);
        }
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
        ms_py_raisef(MS_EINVAL, "%s=%R: must fit in int64", what, o);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* ---- config and spec ------------------------------------------------------------------------- */

/* The config tuple's order (config.py builds it); None keeps the C default (SPEC: None means the
 * sampler's default). */
enum { MS_PY_CFG_FIELDS = 12 };

static int ms_py_config(PyObject *t, ms_req_config *cfg) {
    *cfg = ms_req_config_default();
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != MS_PY_CFG_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "config: expected a tuple of 12 fields (SamplingReqConfig._as_tuple())");
        return -1;
    }
    PyObject *f[MS_PY_CFG_FIELDS];
    for (int i = 0; i < MS_PY_CFG_FIELDS; i++) f[i] = PyTuple_GET_ITEM(t, i);
    if (f[0] != Py_None && ms_py_f32(f[0], "temperature", &cfg->temperature) < 0) return -1;
    if (f[1] != Py_None && ms_py_i32(f[1], "top_k", &cfg->top_k) < 0) return -1;
    if (f[2] != Py_None && ms_py_f32(f[2], "top_p", &cfg->top_p) < 0) return -1;
    if (f[3] != Py_None && ms_py_bool(f[3], &cfg->ignore_eos) < 0) return -1;
    if (f[4] != Py_None && ms_py_f32(f[4], "repetition_penalty", &cfg->repetition_penalty) < 0) return -1;
    if (f[5] != Py_None && ms_py_f32(f[5], "min_p", &cfg->min_p) < 0) return -1;
    if (f[6] != Py_None && ms_py_i32(f[6], "repetition_window", &cfg->repetition_window) < 0) return -1;
    if (f[7] != Py_None && ms_py_i32(f[7], "min_tokens", &cfg->min_tokens) < 0) return -1;
    if (f[8] != Py_None && ms_py_bool(f[8], &cfg->top_p_first) < 0) return -1;
    if (f[9] != Py_None && ms_py_i32(f[9], "top_p_min_keep", &cfg->top_p_min_keep) < 0) return -1;
    if (f[10] != Py_None && ms_py_bool(f[10], &cfg->penalize_prompt) < 0) return -1;
    if (f[11] != Py_None) {
        /* Any Python int: its low 64 bits (two's complement), as C's (uint64_t) cast of an int64. */
        PyObject *idx = PyNumber_Index(f[11]);
        if (!idx) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                ms_py_raisef(MS_ECONFIG, "seed=%R: must be an integer", f[11]);
            }
            return -1;
        }
        unsigned long long s = PyLong_AsUnsignedLongLongMask(idx);
        Py_DECREF(idx);
        if (s == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        cfg->seed = (uint64_t)s;
    }
    return 0;
}

/* A spec with the storage its pointers use. */
typedef struct ms_py_spec {
    ms_spec spec;
    const char **nodes;
    int32_t *stop_ids;
} ms_py_spec;

static void ms_py_spec_free(ms_py_spec *s) {
    PyMem_Free((void *)s->nodes);
    PyMem_Free(s->stop_ids);
    s->nodes = NULL;
    s->stop_ids = NULL;
}

/* UTF-8 of a str with no NUL inside (the library takes C strings). */
static const char *ms_py_cstr(PyObject *o, const char *what) {
    if (!PyUnicode_Check(o)) {
        ms_py_raisef(MS_ESPEC, "%s=%R: must be a str", what, o);
        return NULL;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(o, &n);
    if (!u) return NULL;
    if ((Py_ssize_t)strlen(u) != n) {
        ms_py_raisef(MS_ESPEC, "%s=%R: must not contain NUL characters", what, o);
        return NULL;
    }
    return u;
}

/* The spec tuple: (resource_key, nodes, vocab_size, enable_repetition_penalty, enable_min_p,
 * max_repetition_window, min_tokens_stop_ids, enable_top_p_first). The strings stay owned by the
 * tuple, which the caller keeps alive while the spec is used. */
static int ms_py_spec_parse(PyObject *t, ms_py_spec *out) {
    memset(out, 0, sizeof *out);
    out->spec = ms_spec_default();
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 8) {
        PyErr_SetString(PyExc_TypeError, "spec: expected a tuple of 8 fields (SamplerSpec._as_tuple())");
        return -1;
    }
    PyObject *key = PyTuple_GET_ITEM(t, 0), *nodes = PyTuple_GET_ITEM(t, 1), *vocab = PyTuple_GET_ITEM(t, 2);
    PyObject *stop = PyTuple_GET_ITEM(t, 6);
    if (key != Py_None && !(out->spec.resource_key = ms_py_cstr(key, "resource_key"))) return -1;
    if (vocab != Py_None) {
        int32_t v;
        if (ms_py_i32(vocab, "vocab_size", &v) < 0) goto fail_type;
        if (v < 1 || v > MS_MAX_VOCAB) {
            ms_py_raisef(MS_ESPEC, "vocab_size=%R: must be None or in [1, %d]", vocab, MS_MAX_VOCAB);
            return -1;
        }
        out->spec.vocab_size = v;
    }
    if (PyTuple_GET_ITEM(t, 3) != Py_None && ms_py_bool(PyTuple_GET_ITEM(t, 3), &out->spec.enable_repetition_penalty) < 0)
        return -1;
    if (PyTuple_GET_ITEM(t, 4) != Py_None && ms_py_bool(PyTuple_GET_ITEM(t, 4), &out->spec.enable_min_p) < 0) return -1;
    if (PyTuple_GET_ITEM(t, 5) != Py_None &&
        ms_py_i32(PyTuple_GET_ITEM(t, 5), "max_repetition_window", &out->spec.max_repetition_window) < 0)
        goto fail_type;
    if (PyTuple_GET_ITEM(t, 7) != Py_None && ms_py_bool(PyTuple_GET_ITEM(t, 7), &out->spec.enable_top_p_first) < 0)
        return -1;
    if (nodes != Py_None) {
        if (!PyTuple_Check(nodes)) {
            PyErr_SetString(PyExc_TypeError, "spec nodes: expected a tuple of str");
            return -1;
        }
        Py_ssize_t n = PyTuple_GET_SIZE(nodes);
        if (n > 0) {
            out->nodes = (const char **)PyMem_Calloc((size_t)n, sizeof(char *));
            if (!out->nodes) goto nomem;
            for (Py_ssize_t i = 0; i < n; i++)
                if (!(out->nodes[i] = ms_py_cstr(PyTuple_GET_ITEM(nodes, i), "nodes[]"))) goto fail;
        }
        out->spec.nodes = out->nodes;
        out->spec.n_nodes = (size_t)n;
    }
    if (stop != Py_None) {
        if (!PyTuple_Check(stop)) {
            PyErr_SetString(PyExc_TypeError, "spec min_tokens_stop_ids: expected a tuple of int");
            goto fail;
        }
        Py_ssize_t n = PyTuple_GET_SIZE(stop);
        if (n > 0) {
            out->stop_ids = (int32_t *)PyMem_Calloc((size_t)n, sizeof(int32_t));
            if (!out->stop_ids) goto nomem;
            for (Py_ssize_t i = 0; i < n; i++)
                if (ms_py_i32(PyTuple_GET_ITEM(stop, i), "min_tokens_stop_ids[]", &out->stop_ids[i]) < 0) goto fail_type;
        }
        out->spec.min_tokens_stop_ids = out->stop_ids;
        out->spec.n_min_tokens_stop_ids = (size_t)n;
    }
    return 0;
fail_type:
    /* ms_py_i32 raised with code ECONFIG; a spec's bad field is ESPEC's kind of error, same class */
    ms_py_spec_free(out);
    return -1;
nomem:
    PyErr_NoMemory();
fail:
    ms_py_spec_free(out);
    return -1;
}

/* ---- module functions ------------------------------------------------------------------------ */

PyDoc_STRVAR(ms_py_validate_doc,
             "validate($module, config, spec=None, /)\n--\n\n"
             "Checks a config tuple against the absolute rules and, when spec is a spec tuple, against\n"
             "its capabilities. Raises InvalidArgument (a ValueError) with the library's message.");

static PyObject *ms_py_validate(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "validate(config, spec=None)");
        return NULL;
    }
    ms_req_config cfg;
    if (ms_py_config(args[0], &cfg) < 0) return NULL;
    ms_py_spec spec;
    bool have_spec = nargs == 2 && args[1] != Py_None;
    if (have_spec && ms_py_spec_parse(args[1], &spec) < 0) return NULL;
    char msg[256];
    int rc = ms_req_config_validate(&cfg, have_spec ? &spec.spec : NULL, msg, sizeof msg);
    if (have_spec) ms_py_spec_free(&spec);
    if (rc < 0) return ms_py_raise(rc, msg);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_spec_check_doc,
             "spec_check($module, spec, /)\n--\n\n"
             "Checks a spec tuple on its own (ms_spec_check). Raises InvalidArgument with the message.");

static PyObject *ms_py_spec_check(PyObject *mod, PyObject *arg) {
    ms_py_spec spec;
    if (ms_py_spec_parse(arg, &spec) < 0) return NULL;
    char msg[256];
    int rc = ms_spec_check(&spec.spec, msg, sizeof msg);
    ms_py_spec_free(&spec);
    if (rc < 0) return ms_py_raise(rc, msg);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_derive_seed_doc,
             "derive_seed($module, seed, stream, /)\n--\n\n"
             "ms_derive_seed: the low 63 bits of BLAKE2b-64 of \"<seed>:<stream>\" (UTF-8), for an\n"
             "int64 seed. msampler.derive_seed covers every Python int.");

static PyObject *ms_py_derive_seed(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "derive_seed(seed, stream) takes 2 arguments");
        return NULL;
    }
    PyObject *idx = PyNumber_Index(args[0]);
    if (!idx) return NULL;
    long long seed = PyLong_AsLongLong(idx); /* OverflowError beyond int64 */
    Py_DECREF(idx);
    if (seed == -1 && PyErr_Occurred()) return NULL;
    if (!PyUnicode_Check(args[1])) {
        PyErr_Format(PyExc_TypeError, "stream must be a str, not %.100s", Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(args[1], &n); /* UnicodeEncodeError for lone surrogates */
    if (!u) return NULL;
    return PyLong_FromLongLong(ms_derive_seed((int64_t)seed, u, (size_t)n));
}

PyDoc_STRVAR(ms_py_defaults_doc,
             "defaults($module, /)\n--\n\n"
             "The library's defaults: a dict with 'config', 'spec', 'step' and 'params' dicts.");

static PyObject *ms_py_defaults(PyObject *mod, PyObject *unused) {
    ms_req_config c = ms_req_config_default();
    ms_spec s = ms_spec_default();
    ms_step st = ms_step_default();
    ms_resource_params p = ms_resource_params_default();
    return Py_BuildValue(
        "{s:{s:d,s:i,s:d,s:O,s:d,s:d,s:i,s:i,s:O,s:i,s:O,s:K},"
        "s:{s:i,s:O,s:O,s:i,s:O},s:{s:O,s:O},s:{s:i,s:i,s:i,s:i}}",
        "config", "temperature", (double)c.temperature, "top_k", (int)c.top_k, "top_p", (double)c.top_p, "ignore_eos",
        c.ignore_eos ? Py_True : Py_False, "repetition_penalty", (double)c.repetition_penalty, "min_p",
        (double)c.min_p, "repetition_window", (int)c.repetition_window, "min_tokens", (int)c.min_tokens,
        "top_p_first", c.top_p_first ? Py_True : Py_False, "top_p_min_keep", (int)c.top_p_min_keep,
        "penalize_prompt", c.penalize_prompt ? Py_True : Py_False, "seed", (unsigned long long)c.seed, "spec",
        "vocab_size", (int)s.vocab_size, "enable_repetion_penalty", s.enable_repetition_penalty ? Py_True : Py_False,
        "enable_min_p", s.enable_min_p ? Py_True : Py_False, "max_repetition_window", (int)s.max_repetition_window,
        "enable_top_p_first", s.enable_top_p_first ? Py_True : Py_False, "step", "apply_penalty",
        st.apply_penalty ? Py_True : Py_False, "apply_filters", st.apply_filters ? Py_True : Py_False, "params",
        "capacity", (int)p.capacity, "max_rows", (int)p.max_rows, "max_vocab", (int)p.max_vocab, "n_threads",
        (int)p.n_threads);
}

/* ---- logits: buffer protocol and DLPack ------------------------------------------------------ */

/* DLPack's ABI (dlpack.h v0.8, the unversioned "dltensor" capsule every producer still offers). */
typedef struct { int32_t device_type, device_id; } ms_dl_device;
typedef struct { uint8_t code, bits; uint16_t lanes; } ms_dl_dtype;
typedef struct {
    void *data;
    ms_dl_device device;
    int32_t ndim;
    ms_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL = compact row-major */
    uint64_t byte_offset;
} ms_dl_tensor;
typedef struct ms_dl_managed {
    ms_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct ms_dl_managed *self);
} ms_dl_managed;
enum { MS_DL_CPU = 1, MS_DL_CUDA = 2, MS_DL_CUDA_HOST = 3, MS_DL_CUDA_MANAGED = 13 };
enum { MS_DL_FLOAT = 2, MS_DL_BFLOAT = 4 };

/* Rows of logits as the library reads them, and what keeps their memory alive meanwhile. */
typedef struct ms_py_logits {
    const void *data;
    ms_dtype dtype;
    int64_t rows, width, row_stride; /* row_stride in elements */
    Py_buffer view;
    bool have_view;
    PyObject *capsule; /* the DLPack capsule: its destructor calls the producer's deleter */
} ms_py_logits;

static void ms_py_logits_release(ms_py_logits *lg) {
    if (lg->have_view) PyBuffer_Release(&lg->view);
    lg->have_view = false;
    Py_CLEAR(lg->capsule);
}

/* Shape and strides (in elements) checks shared by both protocols. ndim is 2 ([rows, width]) or,
 * when want_ndim is 1, 1 ([width], one row). Columns must be adjacent; rows may be apart (a slice
 * of a wider, padded array) but not overlap or run backwards, since the library takes one positive
 * row stride. */
static int ms_py_logits_shape(ms_py_logits *lg, int ndim, const int64_t *shape, const int64_t *strides,
                              int want_ndim) {
    if (ndim != want_ndim) {
        ms_py_raisef(MS_ESHAPE, "logits: expected %d dimensions (%s), got %d", want_ndim,
                     want_ndim == 2 ? "rows, vocab" : "vocab", ndim);
        return -1;
    }
    lg->rows = want_ndim == 2 ? shape[0] : 1;
    lg->width = shape[ndim - 1];
    if (lg->width < 1 || lg->width > INT32_MAX) {
        ms_py_raisef(MS_ESHAPE, "logits: width %lld must be in [1, 2^31)", (long long)lg->width);
        return -1;
    }
    if (lg->rows < 0 || lg->rows > INT32_MAX) {
        ms_py_raisef(MS_ESHAPE, "logits: %lld rows is too many", (long long)lg->rows);
        return -1;
    }
    if (lg->width > 1 && strides[ndim - 1] != 1) {
        ms_py_raisef(MS_ESHAPE,
                     "logits: the last dimension must be contiguous (element stride %lld); pass a contiguous "
                     "array (numpy.ascontiguousarray, tensor.contiguous())",
                     (long long)strides[ndim - 1]);
        return -1;
    }
    lg->row_stride = lg->width;
    if (want_ndim == 2 && lg->rows > 1) {
        if (strides[0] < lg->width) {
            ms_py_raisef(MS_ESHAPE,
                         "logits: row stride %lld elements is below the width %lld (overlapping, broadcast or "
                         "reversed rows); pass a contiguous array",
                         (long long)strides[0], (long long)lg->width);
            return -1;
        }
        lg->row_stride = strides[0];
    }
    return 0;
}

static int ms_py_logits_from_buffer(PyObject *obj, int want_ndim, ms_py_logits *lg) {
    if (PyObject_GetBuffer(obj, &lg->view, PyBUF_RECORDS_RO) < 0) return -1;
    lg->have_view = true;
    Py_buffer *v = &lg->view;
    const char *fmt = v->format ? v->format : "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
#if PY_BIG_ENDIAN
    if (fmt != v->format && v->format[0] == '<') fmt = "?";
#else
    if (*fmt == '>' || *fmt == '!') fmt = "?"; /* byte-swapped data: refused */
#endif
    if (strcmp(fmt, "f") == 0 && v->itemsize == 4)
        lg->dtype = MS_DTYPE_F32;
    else if (strcmp(fmt, "e") == 0 && v->itemsize == 2)
        lg->dtype = MS_DTYPE_F16;
    else {
        ms_py_raisef(MS_EDTYPE, "logits: dtype with buffer format '%s' (itemsize %zd): expected float32, "
                                "float16 or bfloat16",
                     v->format ? v->format : "B", v->itemsize);
        return -1;
    }
    if (v->suboffsets) {
        ms_py_raisef(MS_ESHAPE, "logits: indirect (suboffset) buffers are not supported");
        return -1;
    }
    int64_t shape[2] = {0, 0}, strides[2] = {0, 0};
    if (v->ndim > 2 || v->ndim < 1) return ms_py_logits_shape(lg, v->ndim, shape, strides, want_ndim);
    for (int i = 0; i < v->ndim; i++) {
        shape[i] = v->shape ? (int64_t)v->shape[i] : (int64_t)(v->len / v->itemsize);
        Py_ssize_t st = v->strides ? v->strides[i] : (i == v->ndim - 1 ? v->itemsize : v->itemsize * v->shape[1]);
        if (st % v->itemsize != 0) {
            ms_py_raisef(MS_ESHAPE, "logits: stride of %zd bytes is not a whole number of elements", st);
            return -1;
        }
        strides[i] = (int64_t)(st / v->itemsize);
    }
    if (ms_py_logits_shape(lg, v->ndim, shape, strides, want_ndim) < 0) return -1;
    lg->data = v->buf;
    return 0;
}

/* Reads obj.__dlpack_device__() when present: (device_type, device_id). */
static int ms_py_dlpack_device(PyObject *obj, int *type, int *id) {
    *type = MS_DL_CPU;
    *id = 0;
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (!dev) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        return 0;
    }
    int ok = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2;
    if (ok) {
        *type = (int)PyLong_AsLong(PyTuple_GET_ITEM(dev, 0));
        *id = (int)PyLong_AsLong(PyTuple_GET_ITEM(dev, 1));
        ok = !PyErr_Occurred();
    }
    Py_DECREF(dev);
    if (!ok) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "logits: __dlpack_device__() did not return (device_type, device_id)");
        return -1;
    }
    return 0;
}

static const char *ms_py_dl_device_name(int type) {
    switch (type) {
    case MS_DL_CPU: return "cpu";
    case MS_DL_CUDA: return "cuda";
    case MS_DL_CUDA_HOST: return "cuda_host";
    case MS_DL_CUDA_MANAGED: return "cuda_managed";
    case 10: return "rocm";
    case 8: return "metal";
    default: return "device";
    }
}

/* Where a resource reads its logits: host memory, or the memory of one CUDA device. */
typedef struct ms_py_where {
    bool cuda;
    int32_t device;    /* the CUDA ordinal when cuda */
    PyObject *stream;  /* the consumer stream handed to __dlpack__(stream=...) (DLPack's convention:
                        * 1 legacy default, 2 per-thread default, else a cudaStream_t); NULL: none */
} ms_py_where;

static const char *ms_py_where_name(const ms_py_where *w) { return w->cuda ? "cuda" : "cpu"; }

/* Whether memory of DLPack device (type, id) can be read by a resource at w. Pinned host memory
 * (cuda_host) is readable from both sides. */
static int ms_py_device_ok(const ms_py_where *w, int type, int id) {
    if (!w->cuda) return type == MS_DL_CPU || type == MS_DL_CUDA_HOST;
    if (type == MS_DL_CUDA_HOST) return 1;
    return (type == MS_DL_CUDA || type == MS_DL_CUDA_MANAGED) && id == w->device;
}

static int ms_py_device_error(const ms_py_where *w, int type, int id) {
    if (w->cuda)
        ms_py_raisef(MS_EBACKEND, "logits are on %s:%d, but this resource samples the memory of cuda:%d",
                     ms_py_dl_device_name(type), id, (int)w->device);
    else
        ms_py_raisef(MS_EBACKEND, "logits are on %s:%d, but this resource samples host memory (device='cpu')",
                     ms_py_dl_device_name(type), id);
    return -1;
}

static int ms_py_dl_dtype(ms_dl_dtype d, ms_dtype *out) {
    if (d.lanes == 1 && d.code == MS_DL_FLOAT && d.bits == 32)
        *out = MS_DTYPE_F32;
    else if (d.lanes == 1 && d.code == MS_DL_FLOAT && d.bits == 16)
        *out = MS_DTYPE_F16;
    else if (d.lanes == 1 && d.code == MS_DL_BFLOAT && d.bits == 16)
        *out = MS_DTYPE_BF16;
    else {
        ms_py_raisef(MS_EDTYPE, "logits: DLPack dtype (code %d, bits %d, lanes %d): expected float32, float16 or "
                                "bfloat16",
                     (int)d.code, (int)d.bits, (int)d.lanes);
        return -1;
    }
    return 0;
}

static int ms_py_logits_from_dlpack(PyObject *obj, int want_ndim, const ms_py_where *w, ms_py_logits *lg) {
    int type, did;
    if (ms_py_dlpack_device(obj, &type, &did) < 0) return -1;
    if (!ms_py_device_ok(w, type, did)) return ms_py_device_error(w, type, did);
    if (w->cuda && w->stream && type != MS_DL_CUDA_HOST) {
        /* The producer makes the data ready on our stream (DLPack's stream contract), so the sample
         * enqueued there needs no host synchronisation. */
        PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
        PyObject *empty = meth ? PyTuple_New(0) : NULL;
        PyObject *kw = empty ? Py_BuildValue("{s:O}", "stream", w->stream) : NULL;
        lg->capsule = kw ? PyObject_Call(meth, empty, kw) : NULL;
        Py_XDECREF(kw);
        Py_XDECREF(empty);
        Py_XDECREF(meth);
    } else {
        lg->capsule = PyObject_CallMethod(obj, "__dlpack__", NULL);
    }
    if (!lg->capsule) return -1;
    ms_dl_managed *m = (ms_dl_managed *)PyCapsule_GetPointer(lg->capsule, "dltensor");
    if (!m) return -1; /* a used or foreign capsule: ValueError from CPython */
    /* The capsule is not renamed "used_dltensor": it stays the owner, and its destructor calls the
     * producer's deleter when we release it after the call. */
    const ms_dl_tensor *t = &m->dl_tensor;
    if (!ms_py_device_ok(w, t->device.device_type, t->device.device_id))
        return ms_py_device_error(w, t->device.device_type, t->device.device_id);
    if (ms_py_dl_dtype(t->dtype, &lg->dtype) < 0) return -1;
    if (t->ndim < 1 || t->ndim > 2 || !t->shape) {
        int64_t z[2] = {0, 0};
        return ms_py_logits_shape(lg, t->ndim, z, z, want_ndim);
    }
    if (!t->data && t->shape[0] != 0 && (t->ndim == 1 || t->shape[1] != 0)) { /* not empty: no product, no overflow */
        ms_py_raisef(MS_EINVAL, "logits: DLPack tensor with a NULL data pointer");
        return -1;
    }
    int64_t strides[2];
    if (t->strides) {
        for (int i = 0; i < t->ndim; i++) strides[i] = t->strides[i];
    } else {
        strides[t->ndim - 1] = 1;
        if (t->ndim == 2) strides[0] = t->shape[1];
    }
    if (ms_py_logits_shape(lg, t->ndim, t->shape, strides, want_ndim) < 0) return -1;
    lg->data = (const char *)t->data + t->byte_offset;
    return 0;
}

/* __cuda_array_interface__ (version 2 or 3): shape, typestr, data, strides (bytes), stream. The
 * producer's stream, when given, is where the sample is enqueued (*stream), so it runs after the
 * producer's writes without a host synchronisation. */
static int ms_py_logits_from_cai(PyObject *obj, int want_ndim, const ms_py_where *w, ms_py_logits *lg,
                                 PyObject **stream) {
    if (!w->cuda) {
        ms_py_raisef(MS_EBACKEND, "logits are in CUDA memory (__cuda_array_interface__), but this resource "
                                  "samples host memory (device='cpu')");
        return -1;
    }
    PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (!d) return -1;
    int rc = -1;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "logits: __cuda_array_interface__ is not a dict");
        goto done;
    }
    PyObject *shape = PyDict_GetItemString(d, "shape"), *typestr = PyDict_GetItemString(d, "typestr");
    PyObject *data = PyDict_GetItemString(d, "data"), *st = PyDict_GetItemString(d, "strides");
    if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data) ||
        PyTuple_GET_SIZE(data) < 1) {
        PyErr_SetString(PyExc_TypeError, "logits: __cuda_array_interface__ lacks shape, typestr or data");
        goto done;
    }
    const char *ts = PyUnicode_AsUTF8(typestr);
    if (!ts) goto done;
    Py_ssize_t itemsize;
    if (strcmp(ts, "<f4") == 0) {
        lg->dtype = MS_DTYPE_F32;
        itemsize = 4;
    } else if (strcmp(ts, "<f2") == 0) {
        lg->dtype = MS_DTYPE_F16;
        itemsize = 2;
    } else {
        ms_py_raisef(MS_EDTYPE, "logits: __cuda_array_interface__ typestr '%s': expected '<f4' or '<f2' (bfloat16: "
                                "use DLPack)", ts);
        goto done;
    }
    int ndim = (int)PyTuple_GET_SIZE(shape);
    int64_t sh[2] = {0, 0}, strides[2] = {0, 0};
    if (ndim >= 1 && ndim <= 2) {
        for (int i = 0; i < ndim; i++) {
            sh[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
            if (sh[i] == -1 && PyErr_Occurred()) goto done;
        }
        if (st && st != Py_None) {
            if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != ndim) {
                PyErr_SetString(PyExc_TypeError, "logits: __cuda_array_interface__ strides do not match its shape");
                goto done;
            }
            for (int i = 0; i < ndim; i++) {
                long long b = PyLong_AsLongLong(PyTuple_GET_ITEM(st, i));
                if (b == -1 && PyErr_Occurred()) goto done;
                if (b % itemsize != 0) {
                    ms_py_raisef(MS_ESHAPE, "logits: stride of %lld bytes is not a whole number of elements", b);
                    goto done;
                }
                strides[i] = b / itemsize;
            }
        } else {
            strides[ndim - 1] = 1;
            if (ndim == 2) strides[0] = sh[1];
        }
    }
    if (ms_py_logits_shape(lg, ndim, sh, strides, want_ndim) < 0) goto done;
    lg->data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!lg->data && PyErr_Occurred()) goto done;
    PyObject *s = PyDict_GetItemString(d, "stream");
    if (s && s != Py_None) {
        Py_INCREF(s);
        Py_XDECREF(*stream);
        *stream = s;
    }
    rc = 0;
done:
    Py_DECREF(d);
    return rc;
}

/* Fills lg from a numpy array / buffer, a DLPack producer (torch tensors) or, for a CUDA resource,
 * __cuda_array_interface__; releases on failure. *stream may be replaced by the producer's. */
static int ms_py_logits_get(PyObject *obj, int want_ndim, const ms_py_where *w, ms_py_logits *lg,
                            PyObject **stream) {
    memset(lg, 0, sizeof *lg);
    int rc;
    if (PyObject_CheckBuffer(obj)) {
        if (w->cuda) {
            ms_py_raisef(MS_EBACKEND, "logits are in host memory (%s), but this resource samples the memory of "
                                      "cuda:%d",
                         Py_TYPE(obj)->tp_name, (int)w->device);
            rc = -1;
        } else {
            rc = ms_py_logits_from_buffer(obj, want_ndim, lg);
        }
    } else if (PyObject_HasAttrString(obj, "__dlpack__")) {
        rc = ms_py_logits_from_dlpack(obj, want_ndim, w, lg);
    } else if (PyObject_HasAttrString(obj, "__cuda_array_interface__")) {
        rc = ms_py_logits_from_cai(obj, want_ndim, w, lg, stream);
    } else {
        ms_py_raisef(MS_EDTYPE, "logits: expected a numpy array, a torch tensor or another object with the buffer "
                                "protocol, DLPack or __cuda_array_interface__, got %s (resource on %s)",
                     Py_TYPE(obj)->tp_name, ms_py_where_name(w));
        rc = -1;
    }
    if (rc < 0) ms_py_logits_release(lg);
    return rc;
}

/* A stream object (DLPack / CAI convention) as the cudaStream_t the library takes: None, 0 and 1
 * are the legacy default stream (NULL), 2 the per-thread default (cudaStreamPerThread, 0x2). */
static int ms_py_stream_ptr(PyObject *s, void **out) {
    *out = NULL;
    if (!s || s == Py_None) return 0;
    void *p = PyLong_AsVoidPtr(s);
    if (!p && PyErr_Occurred()) return -1;
    *out = (p == (void *)1) ? NULL : p;
    return 0;
}

/* A contiguous 1-D buffer of `itemsize`-byte integers (int32 tokens, int64 ids, ...). */
static int ms_py_int_buffer(PyObject *obj, Py_buffer *v, Py_ssize_t itemsize, bool writable, const char *what) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *fmt = v->format ? v->format : "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
    bool ok = v->itemsize == itemsize && strlen(fmt) == 1 && strchr(itemsize == 8 ? "qlQL" : "iIlL", *fmt) && v->ndim <= 1;
    if (!ok) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous 1-D buffer of %zd-byte integers", what, itemsize);
        return -1;
    }
    return 0;
}

/* ---- the Resource type ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    ms_resource *res;
    int32_t capacity, max_rows;
    bool cuda;      /* backend MS_BACKEND_CUDA: logits, tokens and status are device memory */
    int32_t device; /* its CUDA ordinal */
    bool busy; /* a call is in flight with the GIL released: one resource per thread (msampler.h) */
} ms_py_resource;

static int ms_py_enter(ms_py_resource *self) {
    if (!self->res) {
        ms_py_raise(MS_ESTATE, "ESTATE: the resource is closed");
        return -1;
    }
    if (self->busy) {
        ms_py_raise(MS_ESTATE, "ESTATE: the resource is in use by another thread (use one resource per thread)");
        return -1;
    }
    self->busy = true;
    return 0;
}
static void ms_py_leave(ms_py_resource *self) { self->busy = false; }

static PyObject *ms_py_fail(ms_py_resource *self, int rc) {
    const char *m = ms_resource_last_error(self->res);
    return ms_py_raise(rc, m && *m ? m : ms_strerror(rc));
}

static PyObject *ms_py_resource_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"spec", "capacity", "max_rows", "max_vocab", "backend", "n_threads", "device", NULL};
    PyObject *spec_t;
    ms_resource_params p = ms_resource_params_default();
    int backend = (int)p.backend;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|iiiiii:Resource", kwlist, &spec_t, &p.capacity, &p.max_rows,
                                     &p.max_vocab, &backend, &p.n_threads, &p.device))
        return NULL;
    p.backend = (ms_backend)backend;
    ms_py_spec spec;
    if (ms_py_spec_parse(spec_t, &spec) < 0) return NULL;
    ms_py_resource *self = (ms_py_resource *)type->tp_alloc(type, 0);
    if (!self) {
        ms_py_spec_free(&spec);
        return NULL;
    }
    ms_resource *res = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS /* create allocates and clears memory for every slot: may take a while */
    rc = ms_resource_create(&res, &spec.spec, &p);
    Py_END_ALLOW_THREADS
    ms_py_spec_free(&spec);
    if (rc < 0) {
        Py_DECREF(self);
        return ms_py_raise(rc, ms_last_create_error());
    }
    self->res = res;
    self->capacity = p.capacity;
    self->max_rows = p.max_rows ? p.max_rows : 4 * p.capacity;
    self->cuda = p.backend == MS_BACKEND_CUDA;
    self->device = p.device;
    return (PyObject *)self;
}

static void ms_py_resource_dealloc(ms_py_resource *self) {
    ms_resource_free(self->res);
    self->res = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(ms_py_close_doc, "close($self, /)\n--\n\nFrees the resource's memory now; later calls raise StateError.");
static PyObject *ms_py_close(ms_py_resource *self, PyObject *unused) {
    if (self->busy) return ms_py_raise(MS_ESTATE, "ESTATE: the resource is in use by another thread");
    ms_resource_free(self->res);
    self->res = NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_ingest_doc, "ingest($self, rid, config, /)\n--\n\nms_ingest: rid is an int64, config a config tuple.");
static PyObject *ms_py_ingest(ms_py_resource *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "ingest(rid, config) takes 2 arguments");
        return NULL;
    }
    int64_t rid;
    ms_req_config cfg;
    if (ms_py_i64(args[0], "rid", &rid) < 0 || ms_py_config(args[1], &cfg) < 0) return NULL;
    if (ms_py_enter(self) < 0) return NULL;
    int rc = ms_ingest(self->res, rid, &cfg);
    ms_py_leave(self);
    if (rc < 0) return ms_py_fail(self, rc);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_remove_doc, "remove($self, rid, /)\n--\n\nms_remove.");
static PyObject *ms_py_remove(ms_py_resource *self, PyObject *arg) {
    int64_t rid;
    if (ms_py_i64(arg, "rid", &rid) < 0) return NULL;
    if (ms_py_enter(self) < 0) return NULL;
    int rc = ms_remove(self->res, rid);
    ms_py_leave(self);
    if (rc < 0) return ms_py_fail(self, rc);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_contains_doc, "contains($self, rid, /)\n--\n\nms_contains.");
static PyObject *ms_py_contains(ms_py_resource *self, PyObject *arg) {
    int64_t rid;
    if (ms_py_i64(arg, "rid", &rid) < 0) return NULL;
    if (!self->res) return ms_py_raise(MS_ESTATE, "ESTATE: the resource is closed");
    return PyBool_FromLong(ms_contains(self->res, rid));
}

PyDoc_STRVAR(ms_py_plan_doc,
             "plan($self, prefill, /)\n--\n\n"
             "ms_plan: prefill is a sequence of (rid, tokens) with tokens a contiguous int32 buffer.");
static PyObject *ms_py_plan(ms_py_resource *self, PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "plan: prefill must be a sequence of (rid, tokens)");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > INT32_MAX) {
        Py_DECREF(seq);
        return ms_py_raise(MS_EINVAL, "EINVAL: too many prefill entries");
    }
    ms_prefill *pf = (ms_prefill *)PyMem_Calloc((size_t)(n ? n : 1), sizeof *pf);
    Py_buffer *views = (Py_buffer *)PyMem_Calloc((size_t)(n ? n : 1), sizeof *views);
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    if (!pf || !views) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, got);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "plan: each prefill entry must be a (rid, tokens) tuple");
            goto done;
        }
        if (ms_py_i64(PyTuple_GET_ITEM(item, 0), "rid", &pf[got].rid) < 0) goto done;
        if (ms_py_int_buffer(PyTuple_GET_ITEM(item, 1), &views[got], 4, false, "plan tokens") < 0) goto done;
        if (views[got].len / 4 > INT32_MAX) {
            got++;
            ms_py_raise(MS_EINVAL, "EINVAL: too many prefill tokens");
            goto done;
        }
        pf[got].tokens = (const int32_t *)views[got].buf;
        pf[got].n_tokens = (int32_t)(views[got].len / 4);
    }
    if (ms_py_enter(self) < 0) goto done;
    ms_step step = ms_step_default();
    step.prefill = pf;
    step.n_prefill = (int32_t)n;
    int rc = ms_plan(self->res, &step);
    ms_py_leave(self);
    if (rc < 0) {
        ms_py_fail(self, rc);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t i = 0; i < got; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(pf);
    Py_DECREF(seq);
    return result;
}

PyDoc_STRVAR(ms_py_sample_doc,
             "sample($self, rids, logits, tokens, status, apply_penalty, apply_filters, stream=None, /)\n--\n\n"
             "ms_sample: rids is a contiguous int64 host buffer, logits a 2-D float32/float16/bfloat16 array\n"
             "read in place (buffer protocol, DLPack, or on a CUDA resource __cuda_array_interface__).\n"
             "Host resource: tokens and status are writable int32 buffers of at least len(rids) elements\n"
             "(status may be None). CUDA resource: they are device addresses (int) of len(rids) int32, and\n"
             "the sample is enqueued on `stream` (DLPack's convention; a __cuda_array_interface__ producer's\n"
             "own stream wins) without waiting. The GIL is released while sampling.");
static PyObject *ms_py_sample(ms_py_resource *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "sample(rids, logits, tokens, status, apply_penalty, apply_filters, stream=None)");
        return NULL;
    }
    if (!self->res) return ms_py_raise(MS_ESTATE, "ESTATE: the resource is closed");
    bool apply_penalty, apply_filters;
    if (ms_py_bool(args[4], &apply_penalty) < 0 || ms_py_bool(args[5], &apply_filters) < 0) return NULL;
    PyObject *stream = nargs == 7 && args[6] != Py_None ? args[6] : NULL;
    Py_XINCREF(stream);
    Py_buffer rv, tv, sv;
    bool have_t = false, have_s = false;
    int32_t *tokens = NULL, *status = NULL;
    ms_py_logits lg;
    memset(&lg, 0, sizeof lg);
    PyObject *result = NULL;
    if (ms_py_int_buffer(args[0], &rv, 8, false, "rids") < 0) {
        Py_XDECREF(stream);
        return NULL;
    }
    const Py_ssize_t n = rv.len / 8;
    if (self->cuda) {
        /* device outputs: addresses the Python layer took from tensors of n int32 on the device */
        if (!PyLong_Check(args[2]) || (args[3] != Py_None && !PyLong_Check(args[3]))) {
            PyErr_SetString(PyExc_TypeError, "sample: on a CUDA resource, tokens and status are device addresses");
            goto done;
        }
        tokens = (int32_t *)PyLong_AsVoidPtr(args[2]);
        if (args[3] != Py_None) status = (int32_t *)PyLong_AsVoidPtr(args[3]);
        if (PyErr_Occurred()) goto done;
        if (!tokens && n > 0) {
            ms_py_raise(MS_EINVAL, "EINVAL: tokens is a NULL device address");
            goto done;
        }
    } else {
        if (ms_py_int_buffer(args[2], &tv, 4, true, "tokens") < 0) goto done;
        have_t = true;
        if (args[3] != Py_None) {
            if (ms_py_int_buffer(args[3], &sv, 4, true, "status") < 0) goto done;
            have_s = true;
        }
        if (tv.len / 4 < n || (have_s && sv.len / 4 < n)) {
            ms_py_raise(MS_EINVAL, "EINVAL: tokens/status buffers are shorter than the number of rows");
            goto done;
        }
        tokens = (int32_t *)tv.buf;
        status = have_s ? (int32_t *)sv.buf : NULL;
    }
    ms_py_where w = {self->cuda, self->device, stream};
    if (ms_py_logits_get(args[1], 2, &w, &lg, &stream) < 0) goto done;
    if (lg.rows != n) {
        ms_py_raisef(MS_ESHAPE, "ESHAPE: logits have %lld rows for %zd request ids", (long long)lg.rows, n);
        goto done;
    }
    if (n > self->max_rows) {
        ms_py_raisef(MS_ESHAPE, "ESHAPE: %zd rows exceed max_rows=%d of this resource", n, (int)self->max_rows);
        goto done;
    }
    void *cuda_stream = NULL;
    if (self->cuda && ms_py_stream_ptr(stream, &cuda_stream) < 0) goto done;
    if (ms_py_enter(self) < 0) goto done;
    ms_step step = ms_step_default();
    step.apply_penalty = apply_penalty;
    step.apply_filters = apply_filters;
    ms_batch b = {(int32_t)n, (const int64_t *)rv.buf, lg.data, lg.dtype, (int32_t)lg.width, lg.row_stride};
    int rc = MS_OK;
    Py_BEGIN_ALLOW_THREADS
#ifdef MSAMPLER_HAVE_CUDA
    /* Only a library built with CUDA can hold a CUDA resource (ms_resource_create refuses otherwise) */
    if (self->cuda) rc = ms_cuda_set_stream(self->res, cuda_stream);
#else
    (void)cuda_stream;
#endif
    if (rc >= 0) rc = ms_sample(self->res, &step, &b, tokens, status);
    Py_END_ALLOW_THREADS
    ms_py_leave(self);
    if (rc < 0) {
        ms_py_fail(self, rc);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    ms_py_logits_release(&lg);
    PyBuffer_Release(&rv);
    if (have_t) PyBuffer_Release(&tv);
    if (have_s) PyBuffer_Release(&sv);
    Py_XDECREF(stream);
    return result;
}

PyDoc_STRVAR(ms_py_set_stream_doc,
             "set_stream($self, stream, /)\n--\n\n"
             "ms_cuda_set_stream: the stream later calls on a CUDA resource enqueue on (DLPack's convention:\n"
             "None, 0 or 1 the legacy default stream, 2 the per-thread default, else a cudaStream_t).");
static PyObject *ms_py_set_stream(ms_py_resource *self, PyObject *arg) {
    void *stream;
    if (ms_py_stream_ptr(arg, &stream) < 0) return NULL;
    if (self->res && !self->cuda) return ms_py_raise(MS_EBACKEND, "EBACKEND: set_stream: this resource is on cpu");
    if (ms_py_enter(self) < 0) return NULL;
#ifdef MSAMPLER_HAVE_CUDA
    int rc = ms_cuda_set_stream(self->res, stream);
#else
    int rc = MS_EBACKEND; /* unreachable: no CUDA resource in a library without CUDA */
    (void)stream;
#endif
    ms_py_leave(self);
    if (rc < 0) return ms_py_fail(self, rc);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_py_commit_doc,
             "commit($self, kept_rids, /)\n--\n\n"
             "ms_commit: kept_rids is None (every row) or a contiguous int64 buffer. Returns the count committed.");
static PyObject *ms_py_commit(ms_py_resource *self, PyObject *arg) {
    Py_buffer kv;
    bool have_k = arg != Py_None;
    if (have_k && ms_py_int_buffer(arg, &kv, 8, false, "kept_rids") < 0) return NULL;
    if (have_k && kv.len / 8 > INT32_MAX) {
        PyBuffer_Release(&kv);
        return ms_py_raise(MS_EINVAL, "EINVAL: too many kept_rids");
    }
    if (ms_py_enter(self) < 0) {
        if (have_k) PyBuffer_Release(&kv);
        return NULL;
    }
    ms_step step = ms_step_default();
    static const int64_t none[1] = {0};
    if (have_k) {
        step.kept_rids = kv.len ? (const int64_t *)kv.buf : none; /* non-NULL with 0 ids keeps none */
        step.n_kept_rids = (int32_t)(kv.len / 8);
    }
    int rc = ms_commit(self->res, &step);
    ms_py_leave(self);
    if (have_k) PyBuffer_Release(&kv);
    if (rc < 0) return ms_py_fail(self, rc);
    return PyLong_FromLong(rc);
}

PyDoc_STRVAR(ms_py_accept_doc,
             "accept($self, rid, tokens, /)\n--\n\nms_accept: commits explicit tokens (a contiguous int32 buffer).");
static PyObject *ms_py_accept(ms_py_resource *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "accept(rid, tokens) takes 2 arguments");
        return NULL;
    }
    int64_t rid;
    Py_buffer tv;
    if (ms_py_i64(args[0], "rid", &rid) < 0) return NULL;
    if (ms_py_int_buffer(args[1], &tv, 4, false, "tokens") < 0) return NULL;
    PyObject *result = NULL;
    if (tv.len / 4 > INT32_MAX) {
        ms_py_raise(MS_EINVAL, "EINVAL: too many tokens");
    } else if (ms_py_enter(self) == 0) {
        int rc = ms_accept(self->res, rid, (const int32_t *)tv.buf, (int32_t)(tv.len / 4));
        ms_py_leave(self);
        if (rc < 0)
            ms_py_fail(self, rc);
        else
            {
            result = Py_None;
            Py_INCREF(result);
        }
    }
    PyBuffer_Release(&tv);
    return result;
}

PyDoc_STRVAR(ms_py_explain_doc,
             "explain($self, rid, row, apply_penalty, apply_filters, ids, probs, masses, /)\n--\n\n"
             "ms_explain over one 1-D row; ids (int32), probs (float64) and masses (uint64) are writable\n"
             "buffers of the same length, at least the row's vocabulary. Returns\n"
             "(n_kept, status, greedy, floor_active, total_mass).");
static PyObject *ms_py_explain(ms_py_resource *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "explain(rid, row, apply_penalty, apply_filters, ids, probs, masses)");
        return NULL;
    }
    int64_t rid;
    bool apply_penalty, apply_filters;
    if (ms_py_i64(args[0], "rid", &rid) < 0 || ms_py_bool(args[2], &apply_penalty) < 0 ||
        ms_py_bool(args[3], &apply_filters) < 0)
        return NULL;
    Py_buffer iv, pv, mv;
    if (ms_py_int_buffer(args[4], &iv, 4, true, "ids") < 0) return NULL;
    if (PyObject_GetBuffer(args[5], &pv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&iv);
        return NULL;
    }
    if (pv.itemsize != 8 || !pv.format || strchr(pv.format, 'd') == NULL) {
        PyBuffer_Release(&iv);
        PyBuffer_Release(&pv);
        PyErr_SetString(PyExc_TypeError, "probs: expected a contiguous float64 buffer");
        return NULL;
    }
    if (ms_py_int_buffer(args[6], &mv, 8, true, "masses") < 0) {
        PyBuffer_Release(&iv);
        PyBuffer_Release(&pv);
        return NULL;
    }
    PyObject *result = NULL;
    ms_py_logits lg;
    /* ms_explain reads a HOST row on every backend (msampler.h) */
    ms_py_where host = {false, 0, NULL};
    PyObject *no_stream = NULL;
    if (ms_py_logits_get(args[1], 1, &host, &lg, &no_stream) < 0) goto done_bufs;
    Py_ssize_t cap = iv.len / 4;
    if (pv.len / 8 < cap) cap = pv.len / 8;
    if (mv.len / 8 < cap) cap = mv.len / 8;
    if (cap > INT32_MAX) cap = INT32_MAX;
    if (ms_py_enter(self) < 0) goto done;
    ms_step step = ms_step_default();
    step.apply_penalty = apply_penalty;
    step.apply_filters = apply_filters;
    ms_explanation info;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ms_explain(self->res, &step, rid, lg.data, lg.dtype, (int32_t)lg.width, (int32_t)cap, (int32_t *)iv.buf,
                    (double *)pv.buf, (uint64_t *)mv.buf, &info);
    Py_END_ALLOW_THREADS
    ms_py_leave(self);
    if (rc < 0) {
        ms_py_fail(self, rc);
        goto done;
    }
    result = Py_BuildValue("(iiOOK)", (int)info.n_kept, (int)info.status, info.greedy ? Py_True : Py_False,
                           info.floor_active ? Py_True : Py_False, (unsigned long long)info.total_mass);
done:
    ms_py_logits_release(&lg);
done_bufs:
    PyBuffer_Release(&iv);
    PyBuffer_Release(&pv);
    PyBuffer_Release(&mv);
    return result;
}

static PyObject *ms_py_get_vocab(ms_py_resource *self, void *c) {
    return PyLong_FromLong(self->res ? ms_resource_vocab_size(self->res) : 0);
}
static PyObject *ms_py_get_resident(ms_py_resource *self, void *c) {
    return PyLong_FromLong(self->res ? ms_resident(self->res) : 0);
}
static PyObject *ms_py_get_capacity(ms_py_resource *self, void *c) { return PyLong_FromLong(self->capacity); }
static PyObject *ms_py_get_max_rows(ms_py_resource *self, void *c) { return PyLong_FromLong(self->max_rows); }
static PyObject *ms_py_get_backend(ms_py_resource *self, void *c) {
    return PyLong_FromLong(self->res ? (long)ms_resource_backend(self->res) : -1);
}
static PyObject *ms_py_get_closed(ms_py_resource *self, void *c) { return PyBool_FromLong(self->res == NULL); }
static PyObject *ms_py_get_busy(ms_py_resource *self, void *c) { return PyBool_FromLong(self->busy); }

static PyGetSetDef ms_py_resource_getset[] = {
    {"vocab_size", (getter)ms_py_get_vocab, NULL, "V of the spec (0 when the row width decides)", NULL},
    {"resident", (getter)ms_py_get_resident, NULL, "number of resident requests", NULL},
    {"capacity", (getter)ms_py_get_capacity, NULL, "resident requests at most", NULL},
    {"max_rows", (getter)ms_py_get_max_rows, NULL, "rows per sample call at most", NULL},
    {"backend", (getter)ms_py_get_backend, NULL, "ms_backend value (-1 when closed)", NULL},
    {"closed", (getter)ms_py_get_closed, NULL, "True after close()", NULL},
    {"busy", (getter)ms_py_get_busy, NULL,
     "True while a call computes with the GIL released (another thread can only see it then)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef ms_py_resource_methods[] = {
    {"ingest", (PyCFunction)(void (*)(void))ms_py_ingest, METH_FASTCALL, ms_py_ingest_doc},
    {"remove", (PyCFunction)ms_py_remove, METH_O, ms_py_remove_doc},
    {"contains", (PyCFunction)ms_py_contains, METH_O, ms_py_contains_doc},
    {"plan", (PyCFunction)ms_py_plan, METH_O, ms_py_plan_doc},
    {"sample", (PyCFunction)(void (*)(void))ms_py_sample, METH_FASTCALL, ms_py_sample_doc},
    {"commit", (PyCFunction)ms_py_commit, METH_O, ms_py_commit_doc},
    {"set_stream", (PyCFunction)ms_py_set_stream, METH_O, ms_py_set_stream_doc},
    {"accept", (PyCFunction)(void (*)(void))ms_py_accept, METH_FASTCALL, ms_py_accept_doc},
    {"explain", (PyCFunction)(void (*)(void))ms_py_explain, METH_FASTCALL, ms_py_explain_doc},
    {"close", (PyCFunction)ms_py_close, METH_NOARGS, ms_py_close_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(ms_py_resource_doc,
             "Resource(spec, capacity=256, max_rows=0, max_vocab=262144, backend=0, n_threads=0, device=0)\n--\n\n"
             "An ms_resource. spec is a spec tuple; use msampler.SamplerResource instead.");

static PyTypeObject ms_py_resource_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "msampler._msampler.Resource",
    .tp_basicsize = sizeof(ms_py_resource),
    .tp_dealloc = (destructor)ms_py_resource_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = ms_py_resource_doc,
    .tp_methods = ms_py_resource_methods,
    .tp_getset = ms_py_resource_getset,
    .tp_new = ms_py_resource_new,
};

/* ---- the module ------------------------------------------------------------------------------ */

static PyMethodDef ms_py_methods[] = {
    {"validate", (PyCFunction)(void (*)(void))ms_py_validate, METH_FASTCALL, ms_py_validate_doc},
    {"spec_check", (PyCFunction)ms_py_spec_check, METH_O, ms_py_spec_check_doc},
    {"derive_seed", (PyCFunction)(void (*)(void))ms_py_derive_seed, METH_FASTCALL, ms_py_derive_seed_doc},
    {"defaults", (PyCFunction)ms_py_defaults, METH_NOARGS, ms_py_defaults_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(ms_py_module_doc, "The C layer of msampler (private: use the msampler package).");

static struct PyModuleDef ms_py_module = {PyModuleDef_HEAD_INIT, "_msampler", ms_py_module_doc, -1, ms_py_methods,
                                          NULL, NULL, NULL, NULL};

static int ms_py_add_exc(PyObject *m, PyObject **slot, const char *name, PyObject *bases, const char *doc) {
    char full[96];
    snprintf(full, sizeof full, "msampler.%s", name);
    *slot = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!*slot) return -1;
    Py_INCREF(*slot);
    return PyModule_AddObject(m, name, *slot);
}

static int ms_py_add_sub(PyObject *m, PyObject **slot, const char *name, PyObject *builtin, const char *doc) {
    PyObject *bases = PyTuple_Pack(2, ms_py_Error, builtin);
    if (!bases) return -1;
    int rc = ms_py_add_exc(m, slot, name, bases, doc);
    Py_DECREF(bases);
    return rc;
}

PyMODINIT_FUNC PyInit__msampler(void) {
    if (PyType_Ready(&ms_py_resource_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&ms_py_module);
    if (!m) return NULL;
    if (ms_py_add_exc(m, &ms_py_Error, "Error", PyExc_Exception,
                      "An error of the msampler library; .code is its ms_error number, .errname its name.") < 0 ||
        ms_py_add_sub(m, &ms_py_InvalidArgument, "InvalidArgument", PyExc_ValueError,
                      "A value outside the contract: a config, a spec, a shape, a token id (ValueError).") < 0 ||
        ms_py_add_sub(m, &ms_py_DtypeError, "DtypeError", PyExc_TypeError,
                      "Logits of a dtype the library does not read (TypeError).") < 0 ||
        ms_py_add_sub(m, &ms_py_UnknownRequest, "UnknownRequest", PyExc_LookupError,
                      "A request id that is not resident (LookupError).") < 0 ||
        ms_py_add_sub(m, &ms_py_StateError, "StateError", PyExc_RuntimeError,
                      "A call out of order, a full or closed resource, a missing backend (RuntimeError).") < 0 ||
        ms_py_add_sub(m, &ms_py_OutOfMemory, "OutOfMemory", PyExc_MemoryError, "The library could not allocate.") < 0)
        goto fail;
    Py_INCREF(&ms_py_resource_type);
    if (PyModule_AddObject(m, "Resource", (PyObject *)&ms_py_resource_type) < 0) {
        Py_DECREF(&ms_py_resource_type);
        goto fail;
    }
    /* ERRORS: name -> pinned ms_error number, so the Python layer raises its own errors with the
     * library's codes. */
    PyObject *errors = PyDict_New();
    if (!errors || PyModule_AddObject(m, "ERRORS", errors) < 0) {
        Py_XDECREF(errors);
        goto fail;
    }
#define MS_PY_ERR_ENTRY(name, num, msg)                                                            \
    do {                                                                                           \
        PyObject *v_ = PyLong_FromLong(num);                                                       \
        if (!v_ || PyDict_SetItemString(errors, #name, v_) < 0) {                                  \
            Py_XDECREF(v_);                                                                        \
            goto fail;                                                                             \
        }                                                                                          \
        Py_DECREF(v_);                                                                             \
    } while (0);
    MS_ERRNO_MAP(MS_PY_ERR_ENTRY)
#undef MS_PY_ERR_ENTRY
    if (PyModule_AddStringConstant(m, "version", ms_version_string()) < 0 ||
        PyModule_AddIntConstant(m, "BACKEND_CPU", MS_BACKEND_CPU) < 0 ||
        PyModule_AddIntConstant(m, "BACKEND_CPU_REF", MS_BACKEND_CPU_REF) < 0 ||
        PyModule_AddIntConstant(m, "BACKEND_CUDA", MS_BACKEND_CUDA) < 0 ||
        PyModule_AddIntConstant(m, "ROW_OK", MS_ROW_OK) < 0 || PyModule_AddIntConstant(m, "ROW_EMPTY", MS_ROW_EMPTY) < 0 ||
        PyModule_AddIntConstant(m, "MAX_VOCAB", MS_MAX_VOCAB) < 0 ||
#ifdef MSAMPLER_HAVE_CUDA
        PyModule_AddIntConstant(m, "HAVE_CUDA", 1) < 0)
#else
        PyModule_AddIntConstant(m, "HAVE_CUDA", 0) < 0)
#endif
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
