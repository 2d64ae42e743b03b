"""Helpers of the Python package's tests: the C library through ctypes (the tokens the package must
reproduce), a hand-made DLPack producer (bfloat16 and device tensors without torch), and the paths
CTest passes (MSAMPLER_LIB: the shared library; MSAMPLE_CLI: the msample program)."""
from __future__ import annotations

import ctypes as C
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

# ---- the C API: the oracle's ctypes binding (tests/oracle/oracle_ctypes.py) is the one mirror of
# include/msampler.h's layouts; the package's tests use it rather than keep a second copy.

_ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "oracle")
if _ORACLE not in sys.path:
    sys.path.insert(0, _ORACLE)

from oracle_ctypes import Batch as CBatch  # noqa: E402
from oracle_ctypes import Prefill as CPrefill  # noqa: E402
from oracle_ctypes import ReqConfig as CConfig  # noqa: E402
from oracle_ctypes import ResourceParams as CParams  # noqa: E402
from oracle_ctypes import Spec as CSpec  # noqa: E402
from oracle_ctypes import Step as CStep  # noqa: E402
from oracle_ctypes import load as _oracle_load  # noqa: E402


def load_lib() -> Optional[C.CDLL]:
    path = os.environ.get("MSAMPLER_LIB")
    if not path or not os.path.exists(path):
        return None
    return _oracle_load(path)


def c_config(lib: C.CDLL, **fields) -> CConfig:
    cfg = lib.ms_req_config_default()
    for k, v in fields.items():
        setattr(cfg, "seed" if k == "_seed" else k, v)
    return cfg


def c_spec(lib: C.CDLL, keep: list, resource_key="k", vocab_size=0, enable_repetition_penalty=True,
           enable_min_p=False, max_repetition_window=0, min_tokens_stop_ids=(), enable_top_p_first=False) -> CSpec:
    s = lib.ms_spec_default()
    key = resource_key.encode()
    keep.append(key)
    s.resource_key = key
    s.vocab_size = vocab_size
    s.enable_repetition_penalty = enable_repetition_penalty
    s.enable_min_p = enable_min_p
    s.max_repetition_window = max_repetition_window
    if min_tokens_stop_ids:
        arr = (C.c_int32 * len(min_tokens_stop_ids))(*min_tokens_stop_ids)
        keep.append(arr)
        s.min_tokens_stop_ids = C.cast(arr, C.POINTER(C.c_int32))
        s.n_min_tokens_stop_ids = len(min_tokens_stop_ids)
    s.enable_top_p_first = enable_top_p_first
    return s


def c_validate_message(lib: C.CDLL, cfg: CConfig, spec: Optional[CSpec]) -> Optional[str]:
    buf = C.create_string_buffer(256)
    rc = lib.ms_req_config_validate(C.byref(cfg), C.byref(spec) if spec is not None else None, buf, 256)
    return buf.value.decode() if rc < 0 else None


class CResource:
    """A C resource driven step by step like the package's SamplerResource."""

    def __init__(self, lib: C.CDLL, spec: CSpec, capacity: int = 16, backend: int = 0, n_threads: int = 0):
        self.lib = lib
        self.res = C.c_void_p()
        p = lib.ms_resource_params_default()
        p.capacity = capacity
        p.backend = backend
        p.n_threads = n_threads
        rc = lib.ms_resource_create(C.byref(self.res), C.byref(spec), C.byref(p))
        assert rc == 0, rc

    def __del__(self):
        if getattr(self, "res", None):
            self.lib.ms_resource_free(self.res)

    def check(self, rc: int) -> int:
        assert rc >= 0, self.lib.ms_resource_last_error(self.res).decode()
        return rc

    def ingest(self, rid: int, cfg: CConfig) -> None:
        self.check(self.lib.ms_ingest(self.res, rid, C.byref(cfg)))

    def plan(self, prefill: dict) -> None:
        step = self.lib.ms_step_default()
        arrs = [np.ascontiguousarray(v, dtype=np.int32) for v in prefill.values()]
        pf = (CPrefill * max(1, len(arrs)))()
        for i, (rid, a) in enumerate(zip(prefill, arrs)):
            pf[i] = CPrefill(rid, a.ctypes.data_as(C.POINTER(C.c_int32)), len(a))
        step.prefill = C.cast(pf, C.POINTER(CPrefill))
        step.n_prefill = len(arrs)
        self.check(self.lib.ms_plan(self.res, C.byref(step)))

    def sample(self, rids: Sequence[int], logits: np.ndarray, dtype: int = 0, apply_penalty=True,
               apply_filters=True) -> np.ndarray:
        step = self.lib.ms_step_default()
        step.apply_penalty = apply_penalty
        step.apply_filters = apply_filters
        r = np.ascontiguousarray(rids, dtype=np.int64)
        logits = np.ascontiguousarray(logits)
        b = CBatch(len(r), r.ctypes.data_as(C.POINTER(C.c_int64)), logits.ctypes.data, dtype, logits.shape[1], 0)
        tokens = np.empty(len(r), dtype=np.int32)
        self.check(self.lib.ms_sample(self.res, C.byref(step), C.byref(b),
                                      tokens.ctypes.data_as(C.POINTER(C.c_int32)), None))
        return tokens

    def commit(self, kept: Optional[List[int]] = None) -> int:
        step = self.lib.ms_step_default()
        if kept is not None:
            k = np.ascontiguousarray(kept if kept else [0], dtype=np.int64)
            self._kept = k
            step.kept_rids = k.ctypes.data_as(C.POINTER(C.c_int64))
            step.n_kept_rids = len(kept)
        return self.check(self.lib.ms_commit(self.res, C.byref(step)))


# ---- a DLPack producer made by hand -----------------------------------------------------------


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [
        ("data", C.c_void_p),
        ("device", DLDevice),
        ("ndim", C.c_int32),
        ("dtype", DLDataType),
        ("shape", C.POINTER(C.c_int64)),
        ("strides", C.POINTER(C.c_int64)),
        ("byte_offset", C.c_uint64),
    ]


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p)]


_capsule_new = C.pythonapi.PyCapsule_New
_capsule_new.restype = C.py_object
_capsule_new.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]

DL_FLOAT, DL_BFLOAT, DL_INT = 2, 4, 0
DL_CPU, DL_CUDA = 1, 2


class FakeDLPack:
    """An object that exports `array`'s memory through DLPack as (code, bits), like a torch tensor
    would (torch is optional here; bfloat16 has no numpy dtype). No buffer protocol on purpose."""

    def __init__(self, array: np.ndarray, code: int, bits: int, device=(DL_CPU, 0), strides=None, shape=None,
                 lanes: int = 1):
        self.array = array
        shape = array.shape if shape is None else shape
        self.shape = shape
        self._shape = (C.c_int64 * max(1, len(shape)))(*shape)
        self._strides = None if strides is None else (C.c_int64 * len(strides))(*strides)
        self._device = device
        t = DLManagedTensor()
        t.dl_tensor.data = array.ctypes.data
        t.dl_tensor.device = DLDevice(*device)
        t.dl_tensor.ndim = len(shape)
        t.dl_tensor.dtype = DLDataType(code, bits, lanes)
        t.dl_tensor.shape = C.cast(self._shape, C.POINTER(C.c_int64))
        t.dl_tensor.strides = None if self._strides is None else C.cast(self._strides, C.POINTER(C.c_int64))
        t.dl_tensor.byte_offset = 0
        self._managed = t
        self.exports = 0

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, stream=None):
        self.exports += 1
        return _capsule_new(C.addressof(self._managed), b"dltensor", None)

    def __getitem__(self, i):  # one row, for explain
        row = self.array[i]
        return FakeDLPack(row, self._managed.dl_tensor.dtype.code, self._managed.dl_tensor.dtype.bits, self._device)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (round to nearest even; no NaN in the inputs used)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)
