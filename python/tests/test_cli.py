"""The same tokens as the command-line tool: `msample draw SCENARIO.json` replays one step of a
scenario (programs/ms_scenario.h) and the package replays the same scenario through its API."""
from __future__ import annotations

import json
import os
import subprocess
import zlib

import numpy as np
import pytest

from msampler import SamplerResource, SamplerSpec, SamplerStep, SamplingReqConfig

from ms_helpers import bf16_bits, FakeDLPack, DL_BFLOAT

CLI = os.environ.get("MSAMPLE_CLI")
pytestmark = pytest.mark.skipif(not CLI or not os.path.exists(CLI), reason="MSAMPLE_CLI (msample) is not built")

SPEC = {"resource_key": "LLM_SAMPLER", "nodes": ["thinker"], "vocab_size": 500, "enable_min_p": True,
        "max_repetition_window": 6, "min_tokens_stop_ids": [0, 1], "enable_top_p_first": True}
REQUESTS = [
    {"rid": 1, "config": {"temperature": 0.7, "top_k": 40, "top_p": 0.9, "min_p": 0.02,
                          "repetition_penalty": 1.4, "seed": 2**64 - 5},
     "prompt": [5, 6, 7, 8], "generated": [9, 10]},
    {"rid": 2, "config": {"temperature": 1.1, "repetition_penalty": 1.2, "repetition_window": 6,
                          "min_tokens": 9, "seed": 77},
     "generated": [11, 11, 12]},
    {"rid": 3, "config": {"temperature": 0.9, "top_p": 0.7, "top_k": 10, "top_p_first": True,
                          "top_p_min_keep": 4, "seed": 3}},
    {"rid": 4, "config": {"temperature": 0, "repetition_penalty": 3.0}, "prompt": [0, 1, 2]},
]


def _python_tokens(rows, logits, apply_penalty, apply_filters):
    spec = SamplerSpec(resource_key=SPEC["resource_key"], nodes=set(SPEC["nodes"]), vocab_size=SPEC["vocab_size"],
                       enable_min_p=True, max_repetition_window=6, min_tokens_stop_ids=(0, 1),
                       enable_top_p_first=True)
    res = spec.resource_class.build(spec, capacity=8)
    for r in REQUESTS:
        fields = dict(r["config"])
        seed = fields.pop("seed", 0)
        cfg = SamplingReqConfig(**fields)
        cfg.apply_conductor_config(seed)  # no resource_key: the seed as given
        res.ingest_request(f"req-{r['rid']}", cfg)  # str ids: the mapping must not matter
    res.plan(SamplerStep(prefill_tracked_tokens={f"req-{r['rid']}": r["prompt"] for r in REQUESTS if "prompt" in r}))
    for r in REQUESTS:
        if "generated" in r:
            res.accept_tokens(f"req-{r['rid']}", r["generated"])
    step = SamplerStep(apply_penalty=apply_penalty, apply_filters=apply_filters)
    res.plan(step)
    return res.sample([f"req-{rid}" for rid in rows], logits).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("apply_penalty,apply_filters", [(True, True), (False, True), (True, False)])
def test_same_tokens_as_msample_draw(tmp_path, dtype, apply_penalty, apply_filters):
    rng = np.random.default_rng(zlib.crc32(f"{dtype}{apply_penalty}{apply_filters}".encode()))
    rows = [1, 2, 3, 4, 1, 2, 3, 3]
    x = (rng.standard_normal((len(rows), 512)) * 2.5).astype(np.float32)  # wider than V: padded head
    x[:, rng.integers(0, 500, 5)] += 6
    if dtype == "float32":
        arr, ours = x, x
    elif dtype == "float16":
        arr = x.astype(np.float16)
        ours = arr
    else:
        arr = bf16_bits(x)  # .npy has no bfloat16: '<u2' bits, named by logits_dtype
        ours = FakeDLPack(arr, DL_BFLOAT, 16)
    np.save(tmp_path / "logits.npy", arr)
    scenario = {"spec": SPEC, "requests": REQUESTS, "step": {"apply_penalty": apply_penalty,
                                                              "apply_filters": apply_filters},
                "rows": rows, "logits": "logits.npy"}
    if dtype == "bfloat16":
        scenario["logits_dtype"] = "bfloat16"
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    out = subprocess.run([CLI, "draw", str(tmp_path / "s.json")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert [d["rid"] for d in lines] == rows
    cli_tokens = [d["token"] for d in lines]
    assert _python_tokens(rows, ours, apply_penalty, apply_filters) == cli_tokens
