"""SamplerResource: the flow plan -> sample -> commit, the same tokens as the C library, numpy and
torch inputs in every dtype, and invalid inputs of every kind (never a crash)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import msampler
from msampler import SamplerResource, SamplerSpec, SamplerStep, SamplingReqConfig

from ms_helpers import (
    DL_BFLOAT, DL_CUDA, DL_FLOAT, DL_INT, CResource, FakeDLPack, bf16_bits, bf16_to_f32, c_config, c_spec,
    load_lib,
)

LIB = load_lib()
V = 1000


def make_spec(**kw):
    d = dict(resource_key="LLM_SAMPLER", nodes={"thinker"}, vocab_size=V, enable_min_p=True,
             max_repetition_window=8, min_tokens_stop_ids=(3, 5), enable_top_p_first=True)
    d.update(kw)
    return SamplerSpec(**d)


# Four requests that exercise every stage: presence penalty over the prompt, a windowed penalty,
# min-p / top-k / top-p, the HF order, the min-tokens floor, greedy.
CONFIGS = {
    "a": dict(temperature=0.7, top_k=50, top_p=0.9, min_p=0.02, repetition_penalty=1.3),
    7: dict(temperature=1.0, repetition_penalty=1.5, repetition_window=8, min_tokens=4),
    ("t", 1): dict(temperature=0.8, top_p=0.8, top_k=20, top_p_first=True, top_p_min_keep=3),
    2**70: dict(temperature=0.0, repetition_penalty=2.0),
}


def logits_for(step, n_rows, width=V, shape="peaked"):
    rng = np.random.default_rng(1000 + step)
    x = rng.standard_normal((n_rows, width)).astype(np.float32) * 3
    if shape == "peaked":
        x[:, rng.integers(0, width, 8)] += 8
    return x


def build_pair(seed_base=11, reference=False):
    spec = make_spec()
    res = SamplerResource.build(spec, capacity=8, reference=reference)
    for i, (rid, fields) in enumerate(CONFIGS.items()):
        cfg = SamplingReqConfig(**fields)
        cfg.apply_conductor_config(seed_base + i, spec.resource_key)
        res.ingest_request(rid, cfg)
    return spec, res


def run_steps(res, steps=10):
    """The seed's flow for `steps` steps; returns every step's tokens."""
    rids = list(CONFIGS)
    out = []
    for s in range(steps):
        prefill = {"a": [1, 2, 3, 4], "7": np.arange(10, 20)} if s == 0 else {}
        row_ids = rids + ["a", 7] if s % 3 == 1 else rids  # a request may own several rows
        kept = None if s % 4 != 2 else frozenset({"a", 2**70})
        step = SamplerStep(prefill_tracked_tokens=prefill, kept_rids=kept, apply_filters=s != 5,
                           apply_penalty=s != 6)
        res.plan(step)
        tokens = res.sample(row_ids, logits_for(s, len(row_ids)))
        again = res.sample(row_ids, logits_for(s, len(row_ids)))
        np.testing.assert_array_equal(tokens, again)  # sample reads state, changes none
        res.commit(step)
        out.append(tokens.tolist())
    return out


def test_flow_is_deterministic_and_backends_agree():
    _, fast = build_pair()
    _, ref = build_pair(reference=True)
    a, b = run_steps(fast), run_steps(ref)
    assert a == b
    _, again = build_pair()
    assert run_steps(again) == a
    _, other_seed = build_pair(seed_base=99)
    assert run_steps(other_seed) != a  # the seed matters (so the comparison above can fail)


@pytest.mark.skipif(LIB is None, reason="MSAMPLER_LIB (the shared library CTest built) is not set")
def test_same_tokens_as_the_c_library():
    spec, res = build_pair()
    keep = []
    cspec = c_spec(LIB, keep, resource_key=spec.resource_key, vocab_size=V, enable_min_p=True,
                   max_repetition_window=8, min_tokens_stop_ids=(3, 5), enable_top_p_first=True)
    c = CResource(LIB, cspec, capacity=8)
    cid = {rid: i + 100 for i, rid in enumerate(CONFIGS)}
    for i, (rid, fields) in enumerate(CONFIGS.items()):
        seed = msampler.derive_seed(11 + i, spec.resource_key)
        c.ingest(cid[rid], c_config(LIB, _seed=seed, **fields))
    py = run_steps(res)
    rids = list(CONFIGS)
    for s in range(10):
        if s == 0:
            c.plan({cid["a"]: [1, 2, 3, 4], cid[7]: np.arange(10, 20)})
        row_ids = rids + ["a", 7] if s % 3 == 1 else rids
        tokens = c.sample([cid[r] for r in row_ids], logits_for(s, len(row_ids)), apply_filters=s != 5,
                          apply_penalty=s != 6)
        assert tokens.tolist() == py[s], s
        c.commit(None if s % 4 != 2 else [cid["a"], cid[2**70]])


def _one_request_resource(reference=False, **cfg):
    res = SamplerResource.build(make_spec(), capacity=4, reference=reference)
    c = SamplingReqConfig(temperature=0.9, top_k=40, top_p=0.95, **cfg)
    c.apply_conductor_config(5, "x")
    res.ingest_request("r", c)
    res.ingest_request("s", SamplingReqConfig(temperature=1.2))
    return res


def test_float16_and_bfloat16_read_exactly():
    res = _one_request_resource()
    x = logits_for(0, 6)
    rids = ["r", "s"] * 3
    h = x.astype(np.float16)
    np.testing.assert_array_equal(res.sample(rids, h), res.sample(rids, h.astype(np.float32)))
    bits = bf16_bits(x)
    got = res.sample(rids, FakeDLPack(bits, DL_BFLOAT, 16))
    np.testing.assert_array_equal(got, res.sample(rids, bf16_to_f32(bits)))
    # and the three differ from each other somewhere (the dtype is really read)
    p32 = res.explain(["r"], x[:1])[0].probs
    p16 = res.explain(["r"], FakeDLPack(bits[:1], DL_BFLOAT, 16))[0].probs
    assert p32.shape != p16.shape or not np.array_equal(p32, p16)


def test_dlpack_and_buffer_agree_and_views_are_read_in_place():
    res = _one_request_resource()
    x = logits_for(1, 4)
    rids = ["r", "s", "r", "s"]
    want = res.sample(rids, x)
    np.testing.assert_array_equal(res.sample(rids, FakeDLPack(x, DL_FLOAT, 32)), want)
    wide = np.zeros((4, 1200), dtype=np.float32)
    wide[:, :V] = x
    wide[:, V:] = 50  # padded columns (>= vocab_size) are never drawn
    np.testing.assert_array_equal(res.sample(rids, wide), want)
    np.testing.assert_array_equal(res.sample(rids, wide[:, :V]), want)  # row stride 1200, no copy
    np.testing.assert_array_equal(res.sample(rids, FakeDLPack(wide, DL_FLOAT, 32, shape=(4, V), strides=(1200, 1))),
                                  want)
    ro = x.copy()
    ro.setflags(write=False)
    np.testing.assert_array_equal(res.sample(rids, ro), want)
    np.testing.assert_array_equal(res.sample(rids, memoryview(x)), want)
    ex = res.explain(rids, memoryview(x))
    assert [e.ids.tolist() for e in ex] == [e.ids.tolist() for e in res.explain(rids, x)]


def test_explain_agrees_with_sample():
    res = _one_request_resource(min_p=0.05)
    x = logits_for(2, 2)
    ex = res.explain(["r", "s"], x)
    tokens = res.sample(["r", "s"], x)
    for e, t in zip(ex, tokens):
        assert e.status == 0 and not e.greedy
        assert np.all(np.diff(e.ids) > 0)
        assert t in e.ids
        assert abs(e.probs.sum() - 1) < 1e-9
        assert int(e.masses.sum()) == e.total_mass
    assert len(ex[0].ids) <= 40  # top_k=40
    g = SamplerResource.build(make_spec(), capacity=1)
    g.ingest_request(0, SamplingReqConfig(temperature=0))
    (e,) = g.explain([0], x[:1])
    assert e.greedy and e.ids.tolist() == [int(np.argmax(x[0]))] and e.probs.tolist() == [1.0]


def test_commit_kept_rids_and_request_id_mapping():
    res = SamplerResource.build(make_spec(max_repetition_window=4), capacity=4)
    for rid in ("5", 6, (1, 2)):
        res.ingest_request(rid, SamplingReqConfig(repetition_penalty=3.0, repetition_window=4, temperature=0))
    x = np.zeros((3, V), dtype=np.float32)
    x[:, 10] = 1.0
    x[:, 11] = 0.9
    assert res.sample(["5", 6, (1, 2)], x).tolist() == [10, 10, 10]
    # kept_rids uses ints where ids were str (the seed's types differ): "5" is found as 5
    assert res.commit(SamplerStep(kept_rids=frozenset({5, (1, 2), "nobody"}))) == 2
    assert res.sample(["5", 6, (1, 2)], x).tolist() == [11, 10, 11]  # penalised where committed
    assert res.commit(None) == 3
    assert len(res) == 3 and "5" in res and 5 in res and (1, 2) in res and 7 not in res
    assert " 5" not in res and "+5" not in res and "6" in res and "0_6" not in res
    res.remove_request(5)
    assert "5" not in res and len(res) == 2
    res.ingest_request("5", SamplingReqConfig(temperature=0))
    assert res.sample(["5"], x[:1]).tolist() == [10]  # a reused slot starts empty
    ids = np.array([6, 6], dtype=np.int64)
    assert res.sample(ids, x[:2]).tolist() == [11, 11]


def test_empty_rows_and_zero_rows():
    res = _one_request_resource()
    x = np.full((2, V), -np.inf, dtype=np.float32)
    x[1, :] = np.nan
    assert res.sample(["r", "s"], x).tolist() == [-1, -1]
    assert res.last_row_status.tolist() == [1, 1]
    assert res.sample([], np.zeros((0, V), dtype=np.float32)).tolist() == []


# ---- invalid inputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int16, np.uint16, np.bool_, np.complex64])
def test_wrong_dtype(dtype):
    res = _one_request_resource()
    with pytest.raises(TypeError, match="expected float32, float16 or bfloat16") as e:
        res.sample(["r"], np.zeros((1, V), dtype=dtype))
    assert isinstance(e.value, msampler.DtypeError) and e.value.errname == "EDTYPE"


def test_wrong_dtype_through_dlpack_and_unknown_objects():
    res = _one_request_resource()
    with pytest.raises(msampler.DtypeError, match="DLPack dtype"):
        res.sample(["r"], FakeDLPack(np.zeros((1, V), np.int32), DL_INT, 32))
    with pytest.raises(msampler.DtypeError, match="lanes 2"):
        res.sample(["r"], FakeDLPack(np.zeros((1, V), np.float32), DL_FLOAT, 32, lanes=2))
    with pytest.raises(msampler.DtypeError, match="got list"):
        res.sample(["r"], [[0.0] * V])
    with pytest.raises(msampler.DtypeError):
        res.sample(["r"], None)
    with pytest.raises(msampler.DtypeError):
        res.sample(["r"], np.zeros((1, V), dtype=">f4"))  # byte-swapped


@pytest.mark.parametrize(
    "shape,match",
    [((V,), "expected 2 dimensions"), ((1, 1, V), "expected 2 dimensions"), ((2, V), "2 rows for 1 request ids"),
     ((1, V - 1), "narrower than vocab_size"), ((1, 0), "width 0")],
)
def test_wrong_shape(shape, match):
    res = _one_request_resource()
    with pytest.raises(ValueError, match=match):
        res.sample(["r"], np.zeros(shape, dtype=np.float32))
    with pytest.raises(ValueError):
        res.explain(["r"], np.zeros(shape, dtype=np.float32))


def test_non_contiguous():
    res = _one_request_resource()
    x = logits_for(0, 4, width=2 * V)
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        res.sample(["r"] * 4, x[:, ::2])
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        res.sample(["r"] * 4, np.asfortranarray(x[:, :V]))
    with pytest.raises(ValueError, match="row stride"):
        res.sample(["r"] * 4, x[::-1, :V])
    with pytest.raises(ValueError, match="row stride"):
        res.sample(["r"] * 3, np.broadcast_to(x[0, :V], (3, V)))
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        res.sample(["r"], FakeDLPack(x, DL_FLOAT, 32, shape=(1, V), strides=(2 * V, 2)))


def test_wrong_device():
    res = _one_request_resource()
    with pytest.raises(RuntimeError, match=r"cuda:1") as e:
        res.sample(["r"], FakeDLPack(np.zeros((1, V), np.float32), DL_FLOAT, 32, device=(DL_CUDA, 1)))
    assert e.value.errname == "EBACKEND"

    class CudaArray:
        __cuda_array_interface__ = {"shape": (1, V), "typestr": "<f4", "data": (0, False), "version": 3}

    with pytest.raises(RuntimeError, match="CUDA memory"):
        res.sample(["r"], CudaArray())
    try:
        gpu = SamplerResource.build(make_spec(), device="cuda:0")
    except msampler.StateError as e:  # a build or machine without CUDA says so
        assert e.errname in ("EBACKEND", "ECUDA") and "cuda" in str(e).lower()
    else:  # a CUDA build on a GPU machine: host logits are refused, not copied
        assert gpu.device == "cuda:0"
        gpu.ingest_request("r", SamplingReqConfig())
        with pytest.raises(RuntimeError, match="torch CUDA tensor"):
            gpu.sample(["r"], np.zeros((1, V), np.float32))
    with pytest.raises(RuntimeError, match="resource is on cpu"):
        res._res.set_stream(None)
    for bad in ("tpu", "cuda:x", "cpu:0"):
        with pytest.raises(ValueError, match="expected 'cpu', 'cuda' or 'cuda:N'"):
            SamplerResource.build(make_spec(), device=bad)
    with pytest.raises(ValueError, match="reference=True"):
        SamplerResource.build(make_spec(), device="cuda", reference=True)


def test_unknown_request_ids():
    res = _one_request_resource()
    x = logits_for(0, 2)
    for call in (lambda: res.sample(["r", "nobody"], x), lambda: res.explain(["nobody"], x[:1]),
                 lambda: res.remove_request("nobody"), lambda: res.accept_tokens("nobody", [1]),
                 lambda: res.plan(SamplerStep(prefill_tracked_tokens={"nobody": [1]}))):
        with pytest.raises(LookupError, match="request 'nobody' is not resident") as e:
            call()
        assert isinstance(e.value, msampler.UnknownRequest) and e.value.errname == "ENOENT"
    with pytest.raises(TypeError, match="not hashable"):
        res.sample([["r"]], x[:1])
    with pytest.raises(TypeError):
        res.ingest_request(["list"], SamplingReqConfig())


def test_lifecycle_errors_change_nothing():
    res = SamplerResource.build(make_spec(), capacity=2)
    res.ingest_request("a", SamplingReqConfig())
    with pytest.raises(ValueError, match="EEXIST: request 'a' is already resident"):
        res.ingest_request("a", SamplingReqConfig())
    with pytest.raises(ValueError, match=r"ECONFIG: request 'b': top_p=0: must be finite and in \(0, 1\]"):
        res.ingest_request("b", SamplingReqConfig(top_p=0))
    with pytest.raises(ValueError, match="ECAPABILITY: request 'b': repetition_window=99 exceeds max_repetition_window=8"):
        res.ingest_request("b", SamplingReqConfig(repetition_window=99))
    assert len(res) == 1 and "b" not in res  # a refused request leaves no trace
    res.ingest_request("b", SamplingReqConfig())
    with pytest.raises(RuntimeError, match="EFULL") as e:
        res.ingest_request("c", SamplingReqConfig())
    assert isinstance(e.value, msampler.StateError)
    with pytest.raises(TypeError):
        res.ingest_request("c", {"temperature": 1.0})
    with pytest.raises(RuntimeError, match="ESTATE"):
        res.commit(SamplerStep())  # no sample since the last commit
    x = logits_for(3, 1)
    res.sample(["a"], x)
    res.commit()
    with pytest.raises(RuntimeError, match="ESTATE"):
        res.commit()


def test_plan_errors_change_nothing():
    res = SamplerResource.build(make_spec(), capacity=2)
    res.ingest_request("a", SamplingReqConfig(repetition_penalty=5.0, temperature=0))
    x = np.zeros((1, V), dtype=np.float32)
    x[0, 7] = 1
    x[0, 8] = 0.5
    bad = [
        ({"a": [7, V]}, ValueError, "ERANGE"),
        ({"a": [7, -1]}, ValueError, "ERANGE"),
        ({"a": [7, 2**40]}, ValueError, "ERANGE"),
        ({"a": [7.0, 8.0]}, TypeError, "integers"),
        ({"a": ["7"]}, TypeError, "integers"),
    ]
    for prefill, exc, match in bad:
        with pytest.raises(exc, match=match):
            res.plan(SamplerStep(prefill_tracked_tokens=prefill))
        assert res.sample(["a"], x).tolist() == [7]  # nothing of the failing plan was applied
    res.plan(SamplerStep(prefill_tracked_tokens={"a": np.array([[7]], dtype=np.int64)}))
    assert res.sample(["a"], x).tolist() == [8]
    with pytest.raises(TypeError):
        res.plan({"a": [1]})


def test_bad_builds():
    with pytest.raises(ValueError, match="vocab_size is required when enable_repetition_penalty=True"):
        SamplerResource.build(SamplerSpec("k", {"n"}, None))
    with pytest.raises(ValueError, match="min_tokens_stop_ids"):
        SamplerResource.build(SamplerSpec("k", {"n"}, 10, min_tokens_stop_ids=(10,)))
    with pytest.raises(ValueError, match="capacity=0"):
        SamplerResource.build(make_spec(), capacity=0)
    with pytest.raises(ValueError, match="vocab_size=0"):
        SamplerResource.build(SamplerSpec("k", {"n"}, 0))
    with pytest.raises(ValueError, match="NUL"):
        SamplerResource.build(SamplerSpec("k\0", {"n"}, 10))
    with pytest.raises(TypeError):
        SamplerResource.build({"resource_key": "k"})
    r = SamplerResource.build(SamplerSpec("k", "one-node", None, enable_repetion_penalty=False), capacity=1)
    r.ingest_request(1, SamplingReqConfig(temperature=0))
    assert r.sample([1], np.eye(3, dtype=np.float32)[2:]).tolist() == [2]  # vocab None: the row width
    r.close()
    with pytest.raises(RuntimeError, match="closed"):
        r.sample([1], np.eye(3, dtype=np.float32)[2:])


def test_too_many_rows():
    res = SamplerResource.build(make_spec(), capacity=1, max_rows=2)
    res.ingest_request(0, SamplingReqConfig())
    with pytest.raises(ValueError, match="max_rows=2"):
        res.sample([0, 0, 0], np.zeros((3, V), np.float32))


def test_garbage_never_crashes():
    """Every entry point, public and private, with objects of the wrong kind: exceptions only."""
    res = _one_request_resource()
    low = res._res
    junk = [None, 1, -1, 2**100, 1.5, "x", b"x", [], [1, 2], {}, object(), np.zeros(3), np.zeros((2, 2)),
            np.zeros(3, np.int64), np.zeros(3, np.int32), (1, 2), FakeDLPack(np.zeros(3, np.float32), DL_FLOAT, 32)]
    calls = [
        lambda a, b: res.sample(a, b), lambda a, b: res.explain(a, b), lambda a, b: res.plan(a),
        lambda a, b: res.commit(a), lambda a, b: res.ingest_request(a, b), lambda a, b: res.accept_tokens("r", a),
        lambda a, b: low.sample(a, b, a, b, a, b), lambda a, b: low.plan(a), lambda a, b: low.plan([(a, b)]),
        lambda a, b: low.commit(a), lambda a, b: low.ingest(a, b), lambda a, b: low.accept(a, b),
        lambda a, b: low.explain(a, b, True, True, a, b, a), lambda a, b: msampler._msampler.validate(a, b),
        lambda a, b: msampler._msampler.spec_check(a), lambda a, b: msampler._msampler.derive_seed(a, b),
        lambda a, b: msampler._msampler.Resource(a),
    ]
    for call in calls:
        for a in junk:
            for b in junk[:6] + junk[-4:]:
                try:
                    call(a, b)
                except Exception:
                    pass
    rids = np.zeros(1, np.int64)
    toks = np.zeros(1, np.int32)
    with pytest.raises(TypeError):
        low.sample(rids, logits_for(0, 1), np.zeros(1, np.int64), None, True, True)  # tokens must be int32
    with pytest.raises(ValueError):
        low.sample(rids, logits_for(0, 1), np.zeros(0, np.int32), None, True, True)  # too short
    with pytest.raises((ValueError, TypeError)):
        ro = np.zeros(1, np.int32)
        ro.setflags(write=False)
        low.sample(rids, logits_for(0, 1), ro, None, True, True)  # read-only output
    assert res.sample(["r"], logits_for(0, 1)).shape == (1,)  # still works afterwards
    del toks


def test_gil_is_released_while_sampling():
    """While one thread samples, another runs Python code and sees the resource busy: `busy` is set
    and cleared under the GIL with no Python code in between, so another thread can only observe it
    if the GIL was released during the computation. A second call then is refused with StateError
    (one resource per thread), never a data race."""
    big = SamplerResource.build(make_spec(vocab_size=200_000), capacity=1, max_rows=16, reference=True,
                                n_threads=1)
    big.ingest_request(0, SamplingReqConfig(top_k=100, top_p=0.9))
    x = np.random.default_rng(0).standard_normal((6, 200_000)).astype(np.float32)
    small = _one_request_resource()
    errors, busy_seen, refused, other_calls = [], [], [], 0

    def worker():
        try:
            for _ in range(3):
                big.sample([0] * 6, x)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    while t.is_alive():
        if big._res.busy:
            busy_seen.append(True)
            try:
                big.sample([0], x[:1])
            except msampler.StateError as e:
                refused.append(str(e))
        small.sample(["r"], logits_for(0, 1))  # another resource works meanwhile
        other_calls += 1
    t.join()
    assert not errors
    assert busy_seen, "the GIL was not released while sampling"
    assert all("in use by another thread" in m for m in refused)
    assert other_calls > 1


# ---- torch (optional) -------------------------------------------------------------------------


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    res = _one_request_resource()
    x = logits_for(4, 4)
    rids = ["r", "s", "r", "s"]
    want = res.sample(rids, x)
    for dt, ref in ((torch.float32, x), (torch.float16, x.astype(np.float16).astype(np.float32))):
        got = res.sample(rids, torch.from_numpy(x).to(dt))
        assert isinstance(got, torch.Tensor) and got.dtype == torch.int32
        np.testing.assert_array_equal(got.numpy(), res.sample(rids, ref))
    b = torch.from_numpy(x).to(torch.bfloat16)
    np.testing.assert_array_equal(res.sample(rids, b).numpy(), res.sample(rids, b.float().numpy()))
    np.testing.assert_array_equal(res.sample(rids, torch.from_numpy(x).requires_grad_()).numpy(), want)
    with pytest.raises(ValueError, match="contiguous"):
        res.sample(rids, torch.from_numpy(x).t().contiguous().t())
    with pytest.raises(TypeError):
        res.sample(rids, torch.from_numpy(x).double())
    res.plan(SamplerStep(prefill_tracked_tokens={"r": torch.tensor([1, 2, 3])}))
    if torch.cuda.is_available():
        with pytest.raises(RuntimeError):
            res.sample(rids, torch.from_numpy(x).cuda())


def test_awkward_rows_agree_with_the_reference_backend():
    """Random small vocabularies (1 included), NaN / +-inf logits, float16, padded widths and every
    setting: the default backend draws what the reference backend draws, always a token in [-1, V)."""
    rng = np.random.default_rng(66)
    for it in range(150):
        vocab = int(rng.choice([1, 2, 3, 7, 64, 111, 257]))
        width = vocab + int(rng.choice([0, 0, 1, 5]))
        spec = SamplerSpec("k", {"n"}, vocab, enable_min_p=True, max_repetition_window=4,
                           min_tokens_stop_ids=(0,), enable_top_p_first=True)
        fast = SamplerResource.build(spec, capacity=2, n_threads=1)
        ref = SamplerResource.build(spec, capacity=2, reference=True)
        cfg = SamplingReqConfig(
            temperature=float(rng.choice([0.0, 1e-6, 0.3, 1.0, 2.5])), top_k=int(rng.choice([0, 1, 2, 50])),
            top_p=float(rng.choice([1.0, 0.5, 0.9, 1e-3])), min_p=float(rng.choice([0.0, 0.1, 1.0])),
            repetition_penalty=float(rng.choice([1.0, 1.5, 0.7])), repetition_window=int(rng.choice([0, 4])),
            min_tokens=int(rng.choice([0, 3])), top_p_first=bool(rng.random() < 0.5),
            top_p_min_keep=int(rng.choice([1, 2])))
        cfg.apply_conductor_config(it)
        prompt = rng.integers(0, vocab, 3)
        for r in (fast, ref):
            r.ingest_request("q", cfg)
            r.plan(SamplerStep(prefill_tracked_tokens={"q": prompt}))
        for step in range(3):
            n = int(rng.integers(0, 4))
            x = (rng.standard_normal((n, width)) * 4).astype(np.float32)
            special = rng.random((n, width))
            x[special < 0.1] = np.nan
            x[(special >= 0.1) & (special < 0.15)] = -np.inf
            x[special > 0.98] = np.inf
            if rng.random() < 0.3:
                x = x.astype(np.float16)
            got = fast.sample(["q"] * n, x)
            assert got.tolist() == ref.sample(["q"] * n, x).tolist(), (it, step)
            assert all(-1 <= t < vocab for t in got.tolist())
            fast.commit()
            ref.commit()


def test_no_reference_leaks():
    """Calls, failing calls included, leave the inputs' reference counts as they were."""
    import sys

    res = _one_request_resource()
    x = logits_for(5, 2)
    f = FakeDLPack(x, DL_FLOAT, 32)

    def run(n):
        for _ in range(n):
            res.sample(["r", "s"], x)
            res.sample(["r", "s"], f)
            res.explain(["r", "s"], x)
            for bad in (lambda: res.sample(["r"], x), lambda: res.sample(["r", "s"], x.astype(np.float64)),
                        lambda: res.sample(["nobody"], x[:1]), lambda: res.sample(["r", "s"], x[:, ::2])):
                try:
                    bad()
                except msampler.Error:
                    pass

    run(20)
    before = sys.getrefcount(x), sys.getrefcount(f)
    run(300)
    assert (sys.getrefcount(x), sys.getrefcount(f)) == before
