"""validate(): every rule of SPEC section 1 raises ValueError with the C library's own message."""
from __future__ import annotations

import math

import pytest

import msampler
from msampler import SamplerSpec, SamplingReqConfig

from ms_helpers import c_config, c_spec, c_validate_message, load_lib

LIB = load_lib()
NAN, INF = float("nan"), float("inf")

# (config fields, the message). The messages are the library's format (src/ms_config.c): the field,
# its value and the rule. Checked here as text, and against the library itself through ctypes.
ABSOLUTE = [
    ({"temperature": -0.5}, "temperature=-0.5: must be finite and >= 0"),
    ({"temperature": NAN}, "temperature=nan: must be finite and >= 0"),
    ({"temperature": INF}, "temperature=inf: must be finite and >= 0"),
    ({"temperature": 1e300}, "temperature=inf: must be finite and >= 0"),  # fp32 of 1e300
    ({"top_p": 0.0}, "top_p=0: must be finite and in (0, 1]"),
    ({"top_p": -0.25}, "top_p=-0.25: must be finite and in (0, 1]"),
    ({"top_p": 1.5}, "top_p=1.5: must be finite and in (0, 1]"),
    ({"top_p": -INF}, "top_p=-inf: must be finite and in (0, 1]"),
    ({"min_p": -0.25}, "min_p=-0.25: must be finite and in [0, 1]"),
    ({"min_p": 2}, "min_p=2: must be finite and in [0, 1]"),
    ({"min_p": NAN}, "min_p=nan: must be finite and in [0, 1]"),
    ({"repetition_penalty": 0}, "repetition_penalty=0: must be finite and > 0"),
    ({"repetition_penalty": -1.5}, "repetition_penalty=-1.5: must be finite and > 0"),
    ({"repetition_penalty": INF}, "repetition_penalty=inf: must be finite and > 0"),
    ({"top_k": -1}, "top_k=-1: must be an integer >= 0"),
    ({"repetition_window": -3}, "repetition_window=-3: must be >= 0"),
    ({"min_tokens": -1}, "min_tokens=-1: must be >= 0"),
    ({"top_p_min_keep": 0}, "top_p_min_keep=0: must be >= 1"),
]

SPEC = dict(resource_key="k", vocab_size=100)
CAPABILITY = [
    ({"min_p": 0.1}, {}, "min_p=0.1 needs enable_min_p (enable_min_p=False)"),
    ({"repetition_penalty": 1.2}, {"enable_repetion_penalty": False},
     "repetition_penalty=1.2 with repetition_window=0 needs enable_repetion_penalty (enable_repetion_penalty=False)"),
    ({"repetition_window": 4}, {}, "repetition_window=4 exceeds max_repetition_window=0"),
    ({"repetition_window": 17, "repetition_penalty": 1.1}, {"max_repetition_window": 16},
     "repetition_window=17 exceeds max_repetition_window=16"),
    ({"min_tokens": 3}, {}, "min_tokens=3 needs min_tokens_stop_ids (min_tokens_stop_ids=())"),
    ({"top_p_first": True}, {}, "top_p_first=True needs enable_top_p_first (enable_top_p_first=False)"),
    ({"top_p_min_keep": 2}, {}, "top_p_min_keep=2 needs enable_top_p_first (enable_top_p_first=False)"),
]


def _c_message(fields, spec_fields=None):
    if LIB is None:
        return None
    keep = []
    # ctypes would refuse 1e300 for a c_float; the package rounds it to fp32's inf
    cfg = c_config(LIB, **{k: (INF if v == 1e300 else v) for k, v in fields.items()})
    spec = None
    if spec_fields is not None:
        sf = dict(spec_fields)
        if "enable_repetion_penalty" in sf:
            sf["enable_repetition_penalty"] = sf.pop("enable_repetion_penalty")
        spec = c_spec(LIB, keep, resource_key="k", vocab_size=100, **sf)
    return c_validate_message(LIB, cfg, spec)


@pytest.mark.parametrize("fields,message", ABSOLUTE)
def test_absolute_rules(fields, message):
    cfg = SamplingReqConfig(**fields)
    with pytest.raises(ValueError) as e:
        cfg.validate()
    assert str(e.value) == message
    assert isinstance(e.value, msampler.InvalidArgument)
    assert e.value.errname == "ECONFIG" and e.value.code == -2
    with pytest.raises(ValueError) as e2:  # a spec never makes an absolute rule pass
        cfg.validate(SamplerSpec(enable_min_p=True, enable_top_p_first=True, max_repetition_window=64,
                                 min_tokens_stop_ids=(1,), nodes={"n"}, **SPEC))
    assert str(e2.value) == message
    if LIB is not None:
        assert _c_message(fields) == message


@pytest.mark.parametrize("fields,spec_fields,message", CAPABILITY)
def test_capability_rules(fields, spec_fields, message):
    cfg = SamplingReqConfig(**fields)
    cfg.validate()  # absolute rules alone accept it
    with pytest.raises(ValueError) as e:
        cfg.validate(SamplerSpec(nodes={"n"}, **SPEC, **spec_fields))
    assert str(e.value) == message
    assert e.value.errname == "ECAPABILITY" and e.value.code == -3
    if LIB is not None:
        assert _c_message(fields, spec_fields) == message


def test_capabilities_that_are_enabled_accept():
    spec = SamplerSpec("k", {"n"}, 100, enable_min_p=True, max_repetition_window=16, min_tokens_stop_ids=(2, 3),
                       enable_top_p_first=True)
    SamplingReqConfig(min_p=0.2, repetition_penalty=1.3, repetition_window=16, min_tokens=5, top_p_first=True,
                      top_p_min_keep=3, top_k=2**40, temperature=0).validate(spec)
    # a windowed penalty does not need enable_repetion_penalty
    SamplingReqConfig(repetition_penalty=1.3, repetition_window=8).validate(
        SamplerSpec("k", {"n"}, 100, enable_repetion_penalty=False, max_repetition_window=8))
    # edges that are inside the contract
    SamplingReqConfig(temperature=0.0, top_p=1.0, min_p=0.0, top_k=0, top_p_min_keep=1).validate()
    SamplingReqConfig(top_p=2**-30).validate()


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"temperature": "hot"}, "temperature='hot': must be a real number"),
        ({"top_p": None, "min_p": [0.1]}, "min_p=[0.1]: must be a real number"),
        ({"temperature": True}, "temperature=True: must be a real number"),
        ({"top_k": 1.5}, "top_k=1.5: must be an integer"),
        ({"top_k": "3"}, "top_k='3': must be an integer"),
        ({"min_tokens": float("nan")}, "min_tokens=nan: must be an integer"),
        ({"_seed": 1.0}, "seed=1.0: must be an integer"),
        ({"top_k": True}, "top_k=True: must be an integer"),
        ({"min_tokens": False}, "min_tokens=False: must be an integer"),
    ],
)
def test_wrong_types_are_value_errors_naming_the_field(fields, message):
    with pytest.raises(ValueError) as e:
        SamplingReqConfig(**fields).validate()
    assert str(e.value) == message


def test_large_integers_keep_their_meaning():
    # top_k beyond int32 means "off" as any top_k >= V does (decisions.md: clamped to int32)
    SamplingReqConfig(top_k=2**80).validate()
    SamplingReqConfig(repetition_window=2**40).validate()  # absolute rule: >= 0
    with pytest.raises(ValueError, match="exceeds max_repetition_window=0"):
        SamplingReqConfig(repetition_window=2**40).validate(SamplerSpec("k", {"n"}, 10))
    with pytest.raises(ValueError, match=r"^top_k=-2147483648: must be an integer >= 0$"):
        SamplingReqConfig(top_k=-(2**40)).validate()
    with pytest.raises(ValueError, match="temperature=inf"):
        SamplingReqConfig(temperature=10**400).validate()  # an int too large for a double


def test_integral_floats_are_integers():
    SamplingReqConfig(top_k=3.0, min_tokens=0.0).validate()


def test_integer_fields_take_every_kind_of_real_alike():
    # numpy's float32 is no subclass of float (float64 is): both must follow the float rule
    np = pytest.importorskip("numpy")
    for kind in (float, np.float64, np.float32, np.float16):
        SamplingReqConfig(top_k=kind(3.0), min_tokens=kind(0.0)).validate()
        with pytest.raises(ValueError) as e:
            SamplingReqConfig(top_k=kind(1.5)).validate()
        assert str(e.value) == f"top_k={kind(1.5)!r}: must be an integer"
    for kind in (int, np.int8, np.int32, np.int64, np.uint16):
        SamplingReqConfig(top_k=kind(3)).validate()


@pytest.mark.skipif(LIB is None, reason="MSAMPLER_LIB (the shared library CTest built) is not set")
def test_random_configs_give_the_c_library_verdict_and_message():
    """Random configs (edges, NaN, inf, negatives) and specs: the package's verdict and message are
    the library's, for each of 3000 draws."""
    import random
    import struct

    rng = random.Random(2026)
    floats = [0.0, -0.0, 1.0, 0.5, 1e-6, 2.0, -1.0, NAN, INF, -INF, 1e-45, 3.4e38]
    ints = [0, 1, 2, -1, 5, 16, 17, 100, 2**31 - 1, -(2**31)]

    def f32(v):
        return struct.unpack("f", struct.pack("f", v))[0] if math.isfinite(v) else v

    for _ in range(3000):
        fields = {
            "temperature": rng.choice(floats + [rng.uniform(0, 2)]),
            "top_k": rng.choice(ints),
            "top_p": rng.choice(floats + [rng.uniform(0, 1)]),
            "repetition_penalty": rng.choice(floats + [rng.uniform(0.5, 2)]),
            "min_p": rng.choice(floats + [rng.uniform(0, 1)]),
            "repetition_window": rng.choice(ints),
            "min_tokens": rng.choice(ints),
            "top_p_first": rng.random() < 0.3,
            "top_p_min_keep": rng.choice(ints),
        }
        fields = {k: v for k, v in fields.items() if rng.random() < 0.6}
        spec_fields = None
        if rng.random() < 0.7:
            spec_fields = {"enable_repetion_penalty": rng.random() < 0.5, "enable_min_p": rng.random() < 0.5,
                           "max_repetition_window": rng.choice([0, 1, 16]),
                           "min_tokens_stop_ids": rng.choice([(), (1,)]),
                           "enable_top_p_first": rng.random() < 0.5}
        cfg = SamplingReqConfig(**fields)
        try:
            cfg.validate(None if spec_fields is None else SamplerSpec(nodes={"n"}, **SPEC, **spec_fields))
            got = None
        except ValueError as e:
            got = str(e)
        want = _c_message({k: (f32(v) if isinstance(v, float) else v) for k, v in fields.items()}, spec_fields)
        assert got == want, (fields, spec_fields)


def test_validate_needs_a_spec_or_none():
    with pytest.raises(TypeError, match="SamplerSpec"):
        SamplingReqConfig().validate({"vocab_size": 10})
