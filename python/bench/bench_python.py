"""The Python package's own cost: SamplerResource.sample against the C library's ms_sample called
directly (through ctypes with every argument prepared beforehand: the baseline), on the same resource settings and rows, in one run.

    PYTHONPATH=build/python MSAMPLER_LIB=build/libmsampler.so python3 python/bench/bench_python.py [--threads N]

Prints `name  batch  vocab  us/call  ratio-to-baseline` rows (medians). Rows are N(0,1)*3 fp32 with a few
raised tokens ("peaked"); settings: temperature 0.7, top-k 50, top-p 0.9, min-p 0.05.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from ms_helpers import CResource, c_config, c_spec, load_lib  # noqa: E402

from msampler import SamplerResource, SamplerSpec, SamplingReqConfig  # noqa: E402


def paired_medians_us(base, ours, reps):
    """Median times of two calls measured alternately, so that both see the same machine load."""
    base()
    ours()
    tb, to = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        base()
        t1 = time.perf_counter()
        ours()
        t2 = time.perf_counter()
        tb.append(t1 - t0)
        to.append(t2 - t1)
    return statistics.median(tb) * 1e6, statistics.median(to) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    lib = load_lib()
    if lib is None:
        sys.exit("set MSAMPLER_LIB to the shared library (build/libmsampler.so)")
    fields = dict(temperature=0.7, top_k=50, top_p=0.9, min_p=0.05)
    print(f"{'name':<22} {'batch':>5} {'vocab':>7} {'us/call':>10} {'ratio':>7}")
    for batch, vocab in [(1, 1000), (1, 32000), (1, 151936), (16, 151936), (64, 151936)]:
        rng = np.random.default_rng(batch * 7 + vocab)
        x = (rng.standard_normal((batch, vocab)) * 3).astype(np.float32)
        x[:, rng.integers(0, vocab, max(1, vocab // 300))] += 8
        rids = list(range(batch))
        keep = []
        c = CResource(lib, c_spec(lib, keep, vocab_size=vocab, enable_min_p=True), capacity=batch,
                      n_threads=args.threads)
        spec = SamplerSpec("k", {"n"}, vocab, enable_min_p=True)
        py = SamplerResource.build(spec, capacity=batch, n_threads=args.threads)
        for r in rids:
            c.ingest(r, c_config(lib, **fields))
            py.ingest_request(r, SamplingReqConfig(**fields))
        assert c.sample(rids, x).tolist() == py.sample(rids, x).tolist()
        base, ours = paired_medians_us(_direct_call(lib, c, rids, x), lambda: py.sample(rids, x), args.reps)
        print(f"{'ctypes ms_sample':<22} {batch:>5} {vocab:>7} {base:>10.1f} {1.0:>7.2f}")
        print(f"{'SamplerResource.sample':<22} {batch:>5} {vocab:>7} {ours:>10.1f} {ours / base:>7.2f}")


def _direct_call(lib, c, rids, x):
    """ms_sample with every argument built beforehand: the baseline is the library call itself
    (plus ctypes' own dispatch, about a microsecond)."""
    import ctypes as C

    from ms_helpers import CBatch

    step = lib.ms_step_default()
    r = np.ascontiguousarray(rids, dtype=np.int64)
    b = CBatch(len(r), r.ctypes.data_as(C.POINTER(C.c_int64)), x.ctypes.data, 0, x.shape[1], 0)
    tokens = np.empty(len(r), dtype=np.int32)
    args = (c.res, C.byref(step), C.byref(b), tokens.ctypes.data_as(C.POINTER(C.c_int32)), None)
    fn = lib.ms_sample

    def call():
        assert fn(*args) == 0

    return call


if __name__ == "__main__":
    main()
