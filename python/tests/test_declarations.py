"""The seed's names, fields and defaults; derive_seed against hashlib; apply_conductor_config."""
from __future__ import annotations

import dataclasses
import glob
import hashlib
import os
import random
import re
import subprocess
import sys

import pytest

import msampler
from msampler import SamplerSpec, SamplerStep, SamplingReqConfig, derive_seed
from msampler import _msampler

# The seed's signatures, as its documentation page prints them (shared/seed/000_*.txt). The test
# reads the page itself when it is beside the repository (CI lays shared/ there) and checks this copy
# against it, so the expectations cannot drift from the seed.
SEED_FIELDS = {
    "SamplerSpec": [
        ("resource_key", None), ("nodes", None), ("vocab_size", None),
        ("enable_repetion_penalty", "True"), ("enable_min_p", "False"), ("max_repetition_window", "0"),
        ("min_tokens_stop_ids", "()"), ("enable_top_p_first", "False"),
    ],
    "SamplerStep": [
        ("segments", "None"), ("apply_penalty", "True"), ("apply_filters", "True"),
        ("prefill_tracked_tokens", "<factory>"), ("kept_rids", "None"),
    ],
    "SamplingReqConfig": [
        ("temperature", "0.6"), ("top_k", "0"), ("top_p", "1"), ("ignore_eos", "False"),
        ("repetition_penalty", "1"), ("min_p", "0.0"), ("repetition_window", "0"), ("min_tokens", "0"),
        ("top_p_first", "False"), ("top_p_min_keep", "1"), ("penalize_prompt", "True"), ("_seed", "0"),
    ],
}


def _seed_page():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    for d in (os.path.join(root, "..", "shared", "seed"), os.environ.get("MSAMPLER_SEED_DIR", "")):
        hits = sorted(glob.glob(os.path.join(d, "000_*.txt"))) if d else []
        if hits:
            with open(hits[0], encoding="utf-8") as f:
                return f.read()
    return None


def _split_params(sig: str):
    """Top-level comma split of a signature's parameter list."""
    out, depth, cur = [], 0, ""
    for ch in sig:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def test_seed_page_matches_the_copy_here():
    page = _seed_page()
    if page is None:
        pytest.skip("the seed's page (../shared/seed) is not beside this checkout")
    for cls, fields in SEED_FIELDS.items():
        m = re.search(r"class mstar\.engine\.resources\.sampler\.config\.%s\((.*)\)\n" % cls, page)
        assert m, cls
        sig = m.group(1)
        if cls == "SamplerStep":
            # its page garbles the annotations; the names and defaults are in order in the text
            names = re.findall(r"(\w+): [^=]*?=\s*(None|True|False|<factory>)", sig)
            assert [n for n, _ in names] == [f for f, _ in fields], names
            assert [d for _, d in names] == [d for _, d in fields]
            continue
        got = []
        for p in _split_params(sig):
            name = p.split(":", 1)[0].strip()
            default = p.split("=", 1)[1].strip() if "=" in p else None
            got.append((name, default))
        assert got == fields, (cls, got)


@pytest.mark.parametrize("cls", [SamplerSpec, SamplerStep, SamplingReqConfig])
def test_fields_names_order_and_defaults(cls):
    fields = dataclasses.fields(cls)
    assert [f.name for f in fields] == [n for n, _ in SEED_FIELDS[cls.__name__]]
    for f, (_, default) in zip(fields, SEED_FIELDS[cls.__name__]):
        if default is None:
            assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, f.name
        elif default == "<factory>":
            assert f.default_factory is not dataclasses.MISSING, f.name
            assert f.default_factory() == {}
        else:
            assert f.default == eval(default), f.name  # noqa: S307 - literals of the seed's page
            assert type(f.default) is type(eval(default)), f.name  # noqa: S307 (1 stays an int)


def test_python_defaults_equal_the_c_library_defaults():
    d = _msampler.defaults()
    cfg = SamplingReqConfig()
    for name, value in d["config"].items():
        py = cfg.seed if name == "seed" else getattr(cfg, name)
        if isinstance(value, float):
            import struct
            assert struct.unpack("f", struct.pack("f", py))[0] == value, name
        else:
            assert py == value, name
    spec = SamplerSpec("k", {"n"}, None)
    assert spec.enable_repetion_penalty == d["spec"]["enable_repetion_penalty"]
    assert spec.enable_min_p == d["spec"]["enable_min_p"]
    assert spec.max_repetition_window == d["spec"]["max_repetition_window"]
    assert spec.enable_top_p_first == d["spec"]["enable_top_p_first"]
    step = SamplerStep()
    assert step.apply_penalty == d["step"]["apply_penalty"]
    assert step.apply_filters == d["step"]["apply_filters"]


def test_public_names():
    for name in ("SamplerSpec", "SamplerStep", "SamplingReqConfig", "derive_seed", "SamplerResource"):
        assert hasattr(msampler, name), name
    assert callable(SamplingReqConfig().apply_conductor_config)
    assert isinstance(SamplingReqConfig.seed, property)
    assert isinstance(SamplerSpec.resource_class, property)


def test_repetition_penalty_alias():
    s = SamplerSpec("k", {"n"}, 10, enable_repetion_penalty=False)
    assert s.enable_repetition_penalty is False
    s.enable_repetition_penalty = True
    assert s.enable_repetion_penalty is True


def test_resource_class_is_imported_lazily():
    code = (
        "import sys, msampler.config as c\n"
        "assert 'msampler.resource' not in sys.modules\n"
        "s = c.SamplerSpec('k', {'n'}, 10)\n"
        "cls = s.resource_class\n"
        "assert 'msampler.resource' in sys.modules\n"
        "import msampler\n"
        "assert cls is msampler.SamplerResource and cls.__name__ == 'SamplerResource'\n"
        "assert hasattr(cls, 'build')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def _hashlib_seed(seed, stream):
    d = hashlib.blake2b(f"{seed}:{stream}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(d, "little") & (2**63 - 1)


SPEC_VECTORS = [
    (0, "talker", 1466087175172459492),
    (0, "thinker", 680448207711658939),
    (42, "LLM_SAMPLER", 6373920217672001033),
    (-(2**63), "x", 4256707496185041139),
    (2**63 - 1, "", 4288483695068457510),
    (123456789, "ünïcode", 1223046619482343680),
]


@pytest.mark.parametrize("seed,stream,want", SPEC_VECTORS)
def test_derive_seed_spec_vectors(seed, stream, want):
    assert derive_seed(seed, stream) == want
    assert _hashlib_seed(seed, stream) == want


def test_derive_seed_equals_hashlib_for_any_int():
    rng = random.Random(6)
    streams = ["", "LLM_SAMPLER", "talker", "ünïcode", "日本語", "a:b", "x" * 300, "\x00nul"]
    seeds = [0, 1, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, 2**64 - 1, -(2**64), 10**40, -(10**40)]
    seeds += [rng.randrange(-(2**70), 2**70) for _ in range(300)]
    seeds += [rng.randrange(-(2**63), 2**63) for _ in range(300)]
    for s in seeds:
        st = rng.choice(streams)
        got = derive_seed(s, st)
        assert got == _hashlib_seed(s, st), (s, st)
        assert 0 <= got < 2**63


def test_derive_seed_types():
    import numpy as np

    assert derive_seed(np.int64(42), "LLM_SAMPLER") == 6373920217672001033
    with pytest.raises(TypeError):
        derive_seed(1.5, "x")
    with pytest.raises(TypeError):
        derive_seed(1, b"x")
    with pytest.raises(UnicodeEncodeError):
        derive_seed(1, "\udc80")


def test_apply_conductor_config_and_seed_property():
    c = SamplingReqConfig()
    assert c.seed == 0
    c.apply_conductor_config(seed=7)
    assert c.seed == 7 and c._seed == 7
    c.apply_conductor_config(seed=42, resource_key="LLM_SAMPLER", ignored=1, other="x")
    assert c.seed == 6373920217672001033
    c.apply_conductor_config(2**80, "k")
    assert c.seed == _hashlib_seed(2**80, "k")
    c.apply_conductor_config()
    assert c.seed == 0
    with pytest.raises(AttributeError):
        c.seed = 3  # a read-only property, as the seed's


def test_none_means_default():
    cfg = SamplingReqConfig(**{f.name: None for f in dataclasses.fields(SamplingReqConfig)})
    cfg.validate()
    cfg.validate(SamplerSpec("k", {"n"}, 10))
