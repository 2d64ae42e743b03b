"""CUDA tensors on a GPU build (skipped elsewhere): read in place on the tensor's current stream,
tokens returned as a CUDA tensor, bit-identical to the CPU resource on the same rows."""
from __future__ import annotations

import numpy as np
import pytest

import msampler
from msampler import SamplerResource, SamplerSpec, SamplerStep, SamplingReqConfig

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to torch", allow_module_level=True)

V = 32000


def _pair():
    spec = SamplerSpec("LLM_SAMPLER", {"n"}, V, enable_min_p=True, max_repetition_window=8)
    try:
        gpu = SamplerResource.build(spec, device="cuda:0", capacity=8)
    except msampler.StateError as e:
        pytest.skip(f"this build of the package has no CUDA backend: {e}")
    cpu = SamplerResource.build(spec, capacity=8)
    for res in (gpu, cpu):
        for i, kw in enumerate([dict(top_k=50, top_p=0.9, min_p=0.05, repetition_penalty=1.2),
                                dict(temperature=1.0, repetition_penalty=1.3, repetition_window=8),
                                dict(temperature=0)]):
            cfg = SamplingReqConfig(**kw)
            cfg.apply_conductor_config(i, spec.resource_key)
            res.ingest_request(i, cfg)
    return gpu, cpu


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_cuda_tensors_match_the_cpu_resource(dtype):
    gpu, cpu = _pair()
    dt = getattr(torch, dtype)
    for s in range(5):
        x = torch.randn(4, V, generator=torch.Generator().manual_seed(s)) * 3
        x = x.to(dt)
        step = SamplerStep(prefill_tracked_tokens={0: [1, 2, 3]} if s == 0 else {})
        gpu.plan(step)
        cpu.plan(step)
        rows = [0, 1, 2, 0]
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):  # the tensor's current stream is where the sample runs
            xd = x.cuda()
            got = gpu.sample(rows, xd)
        assert got.is_cuda and got.dtype == torch.int32
        stream.synchronize()
        want = cpu.sample(rows, x)
        assert got.cpu().tolist() == want.tolist(), s
        gpu.commit(step)
        cpu.commit(step)
    torch.cuda.synchronize()


def test_cuda_resource_refuses_host_and_other_devices():
    gpu, _ = _pair()
    with pytest.raises(RuntimeError, match="torch CUDA tensor"):
        gpu.sample([0], np.zeros((1, V), np.float32))
    with pytest.raises(RuntimeError):
        gpu.sample([0], torch.zeros(1, V))
    e = gpu.explain([0], torch.randn(1, V).cuda())  # explain copies the row to the host
    assert abs(e[0].probs.sum() - 1) < 1e-9
