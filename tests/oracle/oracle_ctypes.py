"""oracle_ctypes: the slice of msampler's C API the oracle drives, through ctypes.

The layouts mirror include/msampler.h field by field; the library is found through the
MSAMPLER_LIB environment variable (CTest sets it to the shared library it built).
"""

from __future__ import annotations

import ctypes as C
import os

import numpy as np

MS_BACKEND_CPU, MS_BACKEND_CPU_REF = 0, 1
MS_DTYPE_F32, MS_DTYPE_F16, MS_DTYPE_BF16 = 0, 1, 2
MS_ROW_OK, MS_ROW_EMPTY = 0, 1


class Spec(C.Structure):
    _fields_ = [
        ("resource_key", C.c_char_p),
        ("nodes", C.POINTER(C.c_char_p)),
        ("n_nodes", C.c_size_t),
        ("vocab_size", C.c_int32),
        ("enable_repetition_penalty", C.c_bool),
        ("enable_min_p", C.c_bool),
        ("max_repetition_window", C.c_int32),
        ("min_tokens_stop_ids", C.POINTER(C.c_int32)),
        ("n_min_tokens_stop_ids", C.c_size_t),
        ("enable_top_p_first", C.c_bool),
    ]


class ReqConfig(C.Structure):
    _fields_ = [
        ("temperature", C.c_float),
        ("top_k", C.c_int32),
        ("top_p", C.c_float),
        ("ignore_eos", C.c_bool),
        ("repetition_penalty", C.c_float),
        ("min_p", C.c_float),
        ("repetition_window", C.c_int32),
        ("min_tokens", C.c_int32),
        ("top_p_first", C.c_bool),
        ("top_p_min_keep", C.c_int32),
        ("penalize_prompt", C.c_bool),
        ("seed", C.c_uint64),
    ]


class Prefill(C.Structure):
    _fields_ = [("rid", C.c_int64), ("tokens", C.POINTER(C.c_int32)), ("n_tokens", C.c_int32)]


class Step(C.Structure):
    _fields_ = [
        ("apply_penalty", C.c_bool),
        ("apply_filters", C.c_bool),
        ("prefill", C.POINTER(Prefill)),
        ("n_prefill", C.c_int32),
        ("kept_rids", C.POINTER(C.c_int64)),
        ("n_kept_rids", C.c_int32),
    ]


class ResourceParams(C.Structure):
    _fields_ = [
        ("capacity", C.c_int32),
        ("max_rows", C.c_int32),
        ("max_vocab", C.c_int32),
        ("backend", C.c_int),
        ("n_threads", C.c_int32),
        ("device", C.c_int32),
    ]


class Batch(C.Structure):
    _fields_ = [
        ("n_rows", C.c_int32),
        ("rids", C.POINTER(C.c_int64)),
        ("logits", C.c_void_p),
        ("dtype", C.c_int),
        ("width", C.c_int32),
        ("row_stride", C.c_int64),
    ]


class Explanation(C.Structure):
    _fields_ = [
        ("n_kept", C.c_int32),
        ("status", C.c_int32),
        ("greedy", C.c_bool),
        ("floor_active", C.c_bool),
        ("total_mass", C.c_uint64),
    ]


def load(path: str | None = None) -> C.CDLL:
    path = path or os.environ["MSAMPLER_LIB"]
    lib = C.CDLL(path)
    P = C.POINTER
    sigs = {
        "ms_spec_default": (Spec, []),
        "ms_req_config_default": (ReqConfig, []),
        "ms_step_default": (Step, []),
        "ms_resource_params_default": (ResourceParams, []),
        "ms_req_config_validate": (C.c_int, [P(ReqConfig), P(Spec), C.c_char_p, C.c_size_t]),
        "ms_resource_create": (C.c_int, [P(C.c_void_p), P(Spec), P(ResourceParams)]),
        "ms_last_create_error": (C.c_char_p, []),
        "ms_resource_free": (None, [C.c_void_p]),
        "ms_resource_last_error": (C.c_char_p, [C.c_void_p]),
        "ms_ingest": (C.c_int, [C.c_void_p, C.c_int64, P(ReqConfig)]),
        "ms_remove": (C.c_int, [C.c_void_p, C.c_int64]),
        "ms_plan": (C.c_int, [C.c_void_p, P(Step)]),
        "ms_sample": (C.c_int, [C.c_void_p, P(Step), P(Batch), P(C.c_int32), P(C.c_int32)]),
        "ms_commit": (C.c_int, [C.c_void_p, P(Step)]),
        "ms_accept": (C.c_int, [C.c_void_p, C.c_int64, P(C.c_int32), C.c_int32]),
        "ms_explain": (C.c_int, [C.c_void_p, P(Step), C.c_int64, C.c_void_p, C.c_int, C.c_int32, C.c_int32,
                                 P(C.c_int32), P(C.c_double), P(C.c_uint64), P(Explanation)]),
        "ms_philox4x32_10": (None, [P(C.c_uint32), P(C.c_uint32), P(C.c_uint32)]),
        "ms_derive_seed": (C.c_int64, [C.c_int64, C.c_char_p, C.c_size_t]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def ptr(arr: np.ndarray, ctype):
    return arr.ctypes.data_as(C.POINTER(ctype))


class Resource:
    """A resource with just enough wrapping to keep the arrays it points at alive."""

    def __init__(self, lib, vocab_size, enable_rep=True, enable_min_p=False, max_window=0, stop_ids=(),
                 enable_top_p_first=False, backend=MS_BACKEND_CPU, n_threads=1, capacity=8, max_rows=64,
                 max_vocab=262144):
        self.lib = lib
        self.stop = np.asarray(list(stop_ids), dtype=np.int32)
        spec = lib.ms_spec_default()
        spec.resource_key = b"oracle"
        spec.vocab_size = vocab_size
        spec.enable_repetition_penalty = enable_rep
        spec.enable_min_p = enable_min_p
        spec.max_repetition_window = max_window
        if self.stop.size:
            spec.min_tokens_stop_ids = ptr(self.stop, C.c_int32)
            spec.n_min_tokens_stop_ids = self.stop.size
        spec.enable_top_p_first = enable_top_p_first
        self.spec = spec
        rp = lib.ms_resource_params_default()
        rp.capacity = capacity
        rp.max_rows = max_rows
        rp.max_vocab = max_vocab
        rp.backend = backend
        rp.n_threads = n_threads
        h = C.c_void_p()
        rc = lib.ms_resource_create(C.byref(h), C.byref(spec), C.byref(rp))
        if rc < 0:
            raise RuntimeError(f"ms_resource_create: {rc} {lib.ms_last_create_error().decode()}")
        self.h = h

    def close(self):
        if self.h:
            self.lib.ms_resource_free(self.h)
            self.h = None

    def err(self) -> str:
        return self.lib.ms_resource_last_error(self.h).decode()

    def check(self, rc, what):
        if rc < 0:
            raise RuntimeError(f"{what}: {rc} {self.err()}")
        return rc

    def ingest(self, rid, cfg: ReqConfig):
        return self.check(self.lib.ms_ingest(self.h, rid, C.byref(cfg)), "ms_ingest")

    def remove(self, rid):
        return self.check(self.lib.ms_remove(self.h, rid), "ms_remove")

    def plan(self, prefill: dict):
        keep = [np.asarray(t, dtype=np.int32) for t in prefill.values()]
        arr = (Prefill * len(prefill))()
        for i, (rid, toks) in enumerate(zip(prefill.keys(), keep)):
            arr[i].rid = rid
            arr[i].tokens = ptr(toks, C.c_int32)
            arr[i].n_tokens = toks.size
        step = self.lib.ms_step_default()
        step.prefill = arr
        step.n_prefill = len(prefill)
        return self.check(self.lib.ms_plan(self.h, C.byref(step)), "ms_plan")

    def accept(self, rid, tokens):
        t = np.asarray(tokens, dtype=np.int32)
        return self.check(self.lib.ms_accept(self.h, rid, ptr(t, C.c_int32), t.size), "ms_accept")

    def step(self, apply_penalty=True, apply_filters=True):
        s = self.lib.ms_step_default()
        s.apply_penalty = apply_penalty
        s.apply_filters = apply_filters
        return s

    def explain(self, step, rid, row: np.ndarray, dtype, width):
        """Returns (Explanation, ids, probs, masses) for one row (host memory)."""
        cap = width
        ids = np.zeros(cap, dtype=np.int32)
        probs = np.zeros(cap, dtype=np.float64)
        masses = np.zeros(cap, dtype=np.uint64)
        info = Explanation()
        rc = self.lib.ms_explain(self.h, C.byref(step), rid, row.ctypes.data_as(C.c_void_p), dtype, width, cap,
                                 ptr(ids, C.c_int32), ptr(probs, C.c_double), ptr(masses, C.c_uint64),
                                 C.byref(info))
        self.check(rc, "ms_explain")
        n = info.n_kept if info.status == MS_ROW_OK else 0
        return info, ids[:n].copy(), probs[:n].copy(), masses[:n].copy()

    def sample(self, step, rids, rows: np.ndarray, dtype, width, row_stride=0):
        """rows: a 2-D array (n_rows x row_stride, or x width) of raw elements (float32 or uint16)."""
        n = len(rids)
        r = np.asarray(rids, dtype=np.int64)
        rows = np.ascontiguousarray(rows)
        b = Batch(n, ptr(r, C.c_int64), rows.ctypes.data_as(C.c_void_p), dtype, width, row_stride)
        tokens = np.zeros(n, dtype=np.int32)
        status = np.zeros(n, dtype=np.int32)
        self.check(self.lib.ms_sample(self.h, C.byref(step), C.byref(b), ptr(tokens, C.c_int32),
                                      ptr(status, C.c_int32)), "ms_sample")
        return tokens, status

    def commit(self, kept_rids=None):
        step = self.lib.ms_step_default()
        if kept_rids is not None:
            k = np.asarray(kept_rids, dtype=np.int64)
            self._kept = k  # alive during the call
            self._none = C.c_int64(0)  # keeping none needs a non-NULL pointer
            step.kept_rids = ptr(k, C.c_int64) if k.size else C.pointer(self._none)
            step.n_kept_rids = k.size
        return self.check(self.lib.ms_commit(self.h, C.byref(step)), "ms_commit")
