"""End-to-end tests of the msample command-line tool (issue 3).

Run by CTest (tests/cli/CMakeLists.txt passes the binary as $MSAMPLE). Scenarios are generated in a
temporary directory and the tool's explain/draw output is checked against the independent numpy
reference of SPEC section 2 (tests/reference/ms_reference.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import numpy as np
except ImportError:  # CTest reads this reason and reports the test as skipped
    pytest.skip("numpy is missing", allow_module_level=True)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference"))
import ms_reference as ref  # noqa: E402

MSAMPLE = os.environ.get("MSAMPLE") or str(HERE.parents[1] / "build" / "programs" / "msample")


def run(*args, check=None):
    p = subprocess.run([MSAMPLE, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check is not None:
        assert p.returncode == check, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return p


def assert_bad_input(p, *words):
    """Exit 2, nothing on stdout, one line on stderr naming each of `words` (file, problem)."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert "Traceback" not in p.stderr and "Sanitizer" not in p.stderr


# ---- scenario files -----------------------------------------------------------------------------

CFG_FIELDS = ("temperature", "top_k", "top_p", "min_p", "repetition_penalty", "repetition_window",
              "min_tokens", "top_p_first", "top_p_min_keep", "penalize_prompt", "seed")


def write_npy(path: Path, arr: np.ndarray, version=None):
    with open(path, "wb") as f:
        if version is None:
            np.save(f, arr)
        else:
            np.lib.format.write_array(f, arr, version=version)


def write_scenario(tmp: Path, doc: dict, logits: np.ndarray | None, name="scn", npy_version=None,
                   raw_json: str | None = None) -> Path:
    if logits is not None:
        write_npy(tmp / f"{name}.npy", logits, npy_version)
        doc.setdefault("logits", f"{name}.npy")
    path = tmp / f"{name}.json"
    path.write_text(raw_json if raw_json is not None else json.dumps(doc))
    return path


def lm_logits(rng, n_rows, width):
    """Language-model-shaped rows: a Zipf profile, noise, a few raised tokens."""
    base = -1.1 * np.log1p(rng.permutation(width)).astype(np.float32)
    x = base[None, :] + rng.normal(0, 1.0, (n_rows, width)).astype(np.float32)
    for r in range(n_rows):
        x[r, rng.integers(0, width, 12)] = rng.uniform(0.5, 4.0, 12)
    return x.astype(np.float32)


def to_bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_to_f32(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << 16).view(np.float32)


def mixed_scenario(rng, V=1000, width=1024, seed_base=7):
    """Requests of every kind; request 11 owns two rows; prompts and generated histories."""
    stop = [V - 3, V - 1]
    spec = {"resource_key": "LLM_SAMPLER", "nodes": ["thinker"], "vocab_size": V, "enable_repetion_penalty": True,
            "enable_min_p": True, "max_repetition_window": 32, "min_tokens_stop_ids": stop,
            "enable_top_p_first": True}
    big = [6373920217672001033, 2**64 - 1, 2**63 + 12345]
    configs = [
        {"temperature": 0.0},
        {"temperature": 0.7, "top_p": 0.9},
        {"temperature": 0.8, "top_k": 40, "top_p": 0.95},
        {"temperature": 1.0, "min_p": 0.05, "repetition_penalty": 1.2},
        {"temperature": 0.7, "repetition_penalty": 1.3, "repetition_window": 16, "min_tokens": 50},
        {"temperature": 0.9, "top_p": 0.8, "top_k": 20, "top_p_first": True, "top_p_min_keep": 5},
        {"temperature": 1.3, "repetition_penalty": 0.8, "penalize_prompt": False, "top_k": 7},
        {"temperature": 0.0, "repetition_penalty": 1.5, "min_tokens": 3},
    ]
    requests = []
    for i, c in enumerate(configs):
        c = dict(c)
        c["seed"] = big[i % 3] if i < 3 else int(rng.integers(0, 2**63))
        requests.append({"rid": 10 + i, "config": c,
                         "prompt": [int(t) for t in rng.integers(0, V, int(rng.integers(0, 20)))],
                         "generated": [int(t) for t in rng.integers(0, V, int(rng.integers(0, 30)))]})
    rows = [r["rid"] for r in requests] + [11, 15]
    order = rng.permutation(len(rows))
    rows = [rows[i] for i in order]
    doc = {"spec": spec, "requests": requests, "step": {"apply_penalty": True, "apply_filters": True}, "rows": rows}
    x = lm_logits(rng, len(rows), width)
    x[:, V - 1] = 5.0  # a likely stop id, so that the min-tokens floor changes the distribution
    return doc, x


def reference_rows(doc, logits_f32):
    """ms_reference's distribution for every row of a scenario."""
    spec = doc["spec"]
    V = spec.get("vocab_size") or logits_f32.shape[1]
    step = doc.get("step", {})
    reqs = {r["rid"]: r for r in doc["requests"]}
    out = []
    for i, rid in enumerate(doc["rows"]):
        r = reqs[rid]
        c = {k: v for k, v in r.get("config", {}).items() if k in CFG_FIELDS}
        cfg = ref.Config(**c)
        state = ref.State(history=list(r.get("generated", [])), prompt=set(r.get("prompt", [])))
        out.append(ref.distribution(logits_f32[i], V, cfg, state, spec.get("min_tokens_stop_ids", ()),
                                    apply_penalty=step.get("apply_penalty", True),
                                    apply_filters=step.get("apply_filters", True),
                                    presence_enabled=spec.get("enable_repetion_penalty", True)))
    return out


def json_lines(p):
    return [json.loads(line) for line in p.stdout.splitlines()]


def check_against_reference(doc, logits_f32, explained, drawn):
    """explain's support and probabilities match the reference; each draw is the token SPEC 3 names."""
    refs = reference_rows(doc, logits_f32)
    reqs = {r["rid"]: r for r in doc["requests"]}
    assert len(explained) == len(drawn) == len(doc["rows"])
    checked_draws = 0
    row_k = {}
    for i, (e, d, rr) in enumerate(zip(explained, drawn, refs)):
        rid = doc["rows"][i]
        k = row_k.get(rid, 0)
        row_k[rid] = k + 1
        assert e["row"] == d["row"] == i and e["rid"] == d["rid"] == rid
        assert e["status"] == d["status"] == ("empty" if rr.empty else "ok"), (i, e["status"])
        if rr.empty:
            assert e["ids"] == [] and d["token"] == -1
            continue
        ids = np.array(e["ids"], dtype=np.int64)
        probs = np.array(e["probs"], dtype=np.float64)
        assert np.all(np.diff(ids) > 0), "ids ascending"
        assert abs(probs.sum() - 1.0) < 1e-9
        unc = set(int(t) for t in rr.uncertain)
        if rr.boundary is None:
            assert set(ids.tolist()) - unc == set(rr.ids.tolist()) - unc, (i, rid)
        common = np.intersect1d(ids, rr.ids)
        pl = probs[np.searchsorted(ids, common)]
        pr = rr.probs[np.searchsorted(rr.ids, common)]
        if rr.boundary is None:
            assert np.allclose(pl, pr, rtol=1e-5, atol=1e-6), (i, np.max(np.abs(pl - pr)))
        assert d["token"] in set(ids.tolist())
        if rr.greedy:
            assert ids.tolist() == [d["token"]] == rr.ids.tolist()
            continue
        # SPEC 3: target = floor(r M / 2^64), the token whose running probability crosses r / 2^64
        seed = reqs[rid]["config"]["seed"]
        n = len(reqs[rid].get("generated", []))
        u = ref.draw_bits(seed, n, k) / 2.0**64
        cum = np.cumsum(probs)
        if np.min(np.abs(cum - u)) < 1e-9:
            continue  # too close to a boundary for probabilities printed as doubles
        assert d["token"] == int(ids[np.searchsorted(cum, u, side="right")]), (i, rid)
        checked_draws += 1
    return checked_draws


# ---- commands -----------------------------------------------------------------------------------

def test_help_lists_every_command():
    for args in (["--help"], ["-h"], ["help"]):
        p = run(*args, check=0)
        for cmd in ("demo", "explain", "draw", "derive-seed", "bench", "--backend"):
            assert cmd in p.stdout
    for sub in ("explain", "draw", "derive-seed", "demo"):
        p = run(sub, "--help", check=0)
        assert "usage: msample " + sub in p.stdout


def test_version_and_unknown_command():
    assert run("--version", check=0).stdout.startswith("msample ")
    assert_bad_input(run("frobnicate"), "frobnicate", "unknown command")


def derive_seed_py(seed: int, stream: str) -> int:
    h = hashlib.blake2b(f"{seed}:{stream}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(h, "little") & (2**63 - 1)


def test_derive_seed_matches_hashlib():
    cases = [(0, "talker"), (0, "thinker"), (42, "LLM_SAMPLER"), (-2**63, "x"), (2**63 - 1, ""),
             (123456789, "ünïcode"), (-1, "a:b c")]
    rng = np.random.default_rng(3)
    cases += [(int(rng.integers(-2**63, 2**63 - 1)), f"node{i}") for i in range(5)]
    for seed, stream in cases:
        p = run("derive-seed", "--", seed, stream, check=0)
        assert int(p.stdout) == derive_seed_py(seed, stream), (seed, stream)
    assert int(run("derive-seed", "42", "LLM_SAMPLER", check=0).stdout) == 6373920217672001033


def test_derive_seed_bad_input():
    assert_bad_input(run("derive-seed", "12x", "s"), "12x")
    assert_bad_input(run("derive-seed", "--", str(2**63), "s"), str(2**63))
    assert_bad_input(run("derive-seed", "1"), "derive-seed")
    assert_bad_input(run("derive-seed"), "derive-seed")


def test_bench_is_dispatched():
    p = run("bench", "--help")
    if p.returncode == 2:
        assert "not built" in p.stderr
    else:
        assert p.returncode == 0 and p.stdout


def test_demo_small_is_deterministic():
    p = run("demo", "--steps", 6, "--vocab", 3000, check=0)
    assert p.stdout.count("32/32 requests identical") == 2 and "FAILED" not in p.stdout
    for name in ("greedy", "top-p", "min-p", "windowed penalty", "HF order", "baseline", "speedup"):
        assert name in p.stdout
    assert "[run] step" in p.stderr and "[replay] step" in p.stderr and "[baseline cpu-ref] step" in p.stderr
    q = run("demo", "--steps", 6, "--vocab", 3000, "--no-baseline", check=0)
    assert q.stdout.count("32/32 requests identical") == 1 and "speedup" not in q.stdout
    # the tokens do not depend on whether the baseline ran
    rows = [line for line in p.stdout.splitlines() if re.match(r"^ +\d+ +\d+ ", line)]
    assert len(rows) == 32 and all(r in q.stdout for r in rows)
    assert_bad_input(run("demo", "--steps", "x"), "--steps")
    assert_bad_input(run("demo", "--frob"), "--frob")


def test_default_is_the_full_demo():
    """`msample` alone: the README's main job at full size (about 14 s on the project's machine)."""
    p = subprocess.run([MSAMPLE], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "32 requests joining and leaving over 64 decode steps, vocab 151936, backend cpu" in p.stdout
    assert p.stdout.count("32/32 requests identical") == 2 and "FAILED" not in p.stdout
    assert "[run] step 64/64" in p.stderr and "[replay] step 64/64" in p.stderr


# ---- explain / draw against the reference -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_scenario_matches_reference(tmp_path, dtype):
    rng = np.random.default_rng({"float32": 1, "float16": 2, "bfloat16": 3}[dtype])
    doc, x = mixed_scenario(rng)
    if dtype == "float16":
        stored, x32 = x.astype(np.float16), x.astype(np.float16).astype(np.float32)
    elif dtype == "bfloat16":
        stored = to_bf16(x)
        x32 = bf16_to_f32(stored)
        doc["logits_dtype"] = "bfloat16"
    else:
        stored, x32 = x, x
    path = write_scenario(tmp_path, doc, stored)
    explained = json_lines(run("explain", path, check=0))
    drawn = json_lines(run("draw", path, check=0))
    assert check_against_reference(doc, x32, explained, drawn) >= 3
    # the floor masked the stop id for the requests below min_tokens, and only for them
    V = doc["spec"]["vocab_size"]
    reqs = {r["rid"]: r for r in doc["requests"]}
    for e in explained:
        r = reqs[e["rid"]]
        floored = len(r["generated"]) < r["config"].get("min_tokens", 0)
        if floored:
            assert V - 1 not in e["ids"]
        elif r["config"]["temperature"] > 0 and r["config"].get("top_k", 0) != 7:
            assert V - 1 in e["ids"], e["rid"]
    # the reference backend gives the same bytes
    assert run("explain", path, "--backend", "cpu-ref", check=0).stdout == run("explain", path, check=0).stdout
    assert run("draw", path, "--backend=cpu-ref", check=0).stdout == run("draw", path, check=0).stdout


def test_special_rows_and_switches(tmp_path):
    """Empty rows (all NaN / -inf), +inf rows, filters off, penalties off, padded width."""
    rng = np.random.default_rng(5)
    doc, x = mixed_scenario(rng, V=500, width=512)
    x[0, :] = np.nan
    x[1, :] = -np.inf
    x[1, 600 % 512] = np.nan
    x[2, [5, 9]] = np.inf
    x[3, 500:] = 100.0  # padding columns are never drawn
    doc["step"] = {"apply_penalty": False, "apply_filters": False}
    path = write_scenario(tmp_path, doc, x)
    explained = json_lines(run("explain", path, check=0))
    drawn = json_lines(run("draw", path, check=0))
    check_against_reference(doc, x, explained, drawn)
    assert explained[0]["status"] == "empty" and drawn[0]["token"] == -1
    assert all(t < 500 for e in explained for t in e["ids"])


def test_draw_ignores_batch_order(tmp_path):
    """Shuffling rows (keeping each request's own rows in order) moves no token."""
    rng = np.random.default_rng(9)
    doc, x = mixed_scenario(rng)
    a = json_lines(run("draw", write_scenario(tmp_path, doc, x, name="a"), check=0))
    perm = rng.permutation(len(doc["rows"]))
    # keep the relative order of rows of the same request (its row index k picks the Philox counter)
    rows = doc["rows"]
    slots = {rid: [i for i, r in enumerate(rows) if r == rid] for rid in set(rows)}
    new_order = []
    used = {rid: 0 for rid in slots}
    for j in perm:
        rid = rows[j]
        new_order.append(slots[rid][used[rid]])
        used[rid] += 1
    doc2 = dict(doc, rows=[rows[i] for i in new_order])
    doc2.pop("logits", None)
    b = json_lines(run("draw", write_scenario(tmp_path, doc2, x[new_order], name="b"), check=0))
    assert [a[i]["token"] for i in new_order] == [r["token"] for r in b]


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_versions(tmp_path, version):
    rng = np.random.default_rng(11)
    doc, x = mixed_scenario(rng, V=300, width=300)
    path = write_scenario(tmp_path, doc, x, npy_version=version)
    check_against_reference(doc, x, json_lines(run("explain", path, check=0)), json_lines(run("draw", path, check=0)))


def test_cuda_backend_fails_cleanly_or_agrees(tmp_path):
    rng = np.random.default_rng(13)
    doc, x = mixed_scenario(rng, V=300, width=300)
    path = write_scenario(tmp_path, doc, x)
    p = run("draw", path, "--backend", "cuda")
    if p.returncode == 0:
        assert p.stdout == run("draw", path, check=0).stdout
    else:
        assert_bad_input(p, str(path))


def test_spec_without_vocab_uses_width(tmp_path):
    rng = np.random.default_rng(17)
    x = lm_logits(rng, 2, 200)
    doc = {"spec": {"resource_key": "k", "nodes": [], "enable_repetion_penalty": False},
           "requests": [{"rid": -5, "config": {"temperature": 0.9, "top_k": 10, "seed": 1}}],
           "rows": [-5, -5]}
    path = write_scenario(tmp_path, doc, x)
    check_against_reference(doc, x, json_lines(run("explain", path, check=0)), json_lines(run("draw", path, check=0)))


# ---- bad input ----------------------------------------------------------------------------------

def base_doc():
    return {"spec": {"resource_key": "k", "nodes": ["n"], "vocab_size": 64},
            "requests": [{"rid": 1, "config": {"temperature": 0.8, "seed": 3}, "prompt": [1, 2], "generated": [3]}],
            "step": {"apply_penalty": True, "apply_filters": True},
            "rows": [1]}


def good_logits(rows=1, width=64):
    return np.random.default_rng(0).normal(size=(rows, width)).astype(np.float32)


@pytest.mark.parametrize("cmd", ["explain", "draw"])
def test_usage_errors(tmp_path, cmd):
    assert_bad_input(run(cmd), "missing")
    assert_bad_input(run(cmd, tmp_path / "nope.json"), "nope.json", "cannot open")
    path = write_scenario(tmp_path, base_doc(), good_logits())
    assert_bad_input(run(cmd, path, "--backend", "tpu"), "--backend")
    assert_bad_input(run(cmd, path, "--frob"), "--frob")
    assert_bad_input(run(cmd, path, path), "one scenario")


JSON_CASES = {
    "malformed": ('{"spec": {,}', "malformed"),
    "truncated": ('{"spec": {"resource_key": "k"}, "requests": [', "truncated"),
    "not_object": ("[1, 2]", "not a JSON object"),
    "empty": ("", "malformed"),
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_bad_json(tmp_path, case):
    text, word = JSON_CASES[case]
    path = write_scenario(tmp_path, {}, good_logits(), raw_json=text)
    assert_bad_input(run("draw", path), "scn.json", word)


def mutate(path_keys, value):
    doc = base_doc()
    obj = doc
    for k in path_keys[:-1]:
        obj = obj[k]
    obj[path_keys[-1]] = value
    return doc


DOC_CASES = {
    "unknown_top": (mutate(["extra"], 1), "unknown field 'extra'"),
    "unknown_with_newline": (mutate(["ex\ntra"], 1), "unknown field 'ex?tra'"),
    "unknown_spec": (mutate(["spec", "vocab"], 3), "unknown field 'vocab'"),
    "unknown_config": (mutate(["requests", 0, "config", "topk"], 3), "unknown field 'topk'"),
    "unknown_request": (mutate(["requests", 0, "tokens"], []), "unknown field 'tokens'"),
    "unknown_step": (mutate(["step", "penalty"], True), "unknown field 'penalty'"),
    "missing_rows": ({k: v for k, v in base_doc().items() if k != "rows"}, "missing field 'rows'"),
    "wrong_type": (mutate(["requests", 0, "config", "temperature"], "hot"), "temperature"),
    "fractional_int": (mutate(["requests", 0, "config", "top_k"], 2.5), "top_k"),
    "bool_type": (mutate(["step", "apply_filters"], 1), "apply_filters"),
    "unknown_rid_in_rows": (mutate(["rows"], [1, 99]), "request id 99"),
    "duplicate_rid": (dict(base_doc(), requests=base_doc()["requests"] * 2), "repeats"),
    "bad_dtype_name": (mutate(["logits_dtype"], "float64"), "logits_dtype"),
}


@pytest.mark.parametrize("case", sorted(DOC_CASES))
def test_bad_fields(tmp_path, case):
    doc, word = DOC_CASES[case]
    rows = len(doc.get("rows", [1]))
    path = write_scenario(tmp_path, doc, good_logits(rows))
    assert_bad_input(run("explain", path), "scn.json", word)


REFUSED = {
    "min_p_capability": ({"min_p": 0.1}, "enable_min_p"),
    "window_capability": ({"repetition_penalty": 1.2, "repetition_window": 8}, "max_repetition_window"),
    "top_p_range": ({"top_p": 1.5}, "top_p"),
    "negative_temperature": ({"temperature": -1.0}, "temperature"),
    "hf_order_capability": ({"top_p_first": True}, "enable_top_p_first"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_config(tmp_path, case):
    cfg, word = REFUSED[case]
    doc = base_doc()
    doc["requests"][0]["config"].update(cfg)
    path = write_scenario(tmp_path, doc, good_logits())
    assert_bad_input(run("draw", path), "scn.json", "refused", word)


def test_refused_tokens_and_spec(tmp_path):
    doc = base_doc()
    doc["requests"][0]["prompt"] = [64]
    assert_bad_input(run("draw", write_scenario(tmp_path, doc, good_logits())), "scn.json", "prompt")
    doc = base_doc()
    doc["requests"][0]["generated"] = [-1]
    assert_bad_input(run("draw", write_scenario(tmp_path, doc, good_logits())), "scn.json", "generated")
    doc = base_doc()
    doc["spec"]["min_tokens_stop_ids"] = [70]
    assert_bad_input(run("draw", write_scenario(tmp_path, doc, good_logits())), "scn.json", "resource")


def npy_bytes(header: str, data: bytes = b"", version=(1, 0)) -> bytes:
    h = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    size = len(h).to_bytes(2 if version[0] == 1 else 4, "little")
    return b"\x93NUMPY" + bytes(version) + size + h + data


GOOD_HDR = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 64), }"
NPY_CASES = {
    "bad_magic": (b"\x93NUMPX\x01\x00" + b"\x00" * 120, "bad magic"),
    "tiny": (b"\x93NUM", "not a .npy"),
    "truncated_header": (npy_bytes(GOOD_HDR)[:40], "truncated"),
    "truncated_data": (npy_bytes(GOOD_HDR, b"\x00" * 100), "truncated"),
    "trailing_data": (npy_bytes(GOOD_HDR, b"\x00" * 260), "after the data"),
    "version": (npy_bytes(GOOD_HDR, b"\x00" * 256)[:6] + b"\x04\x00" + npy_bytes(GOOD_HDR, b"\x00" * 256)[8:],
                "version 4.0"),
    "f8": (np.float64, "'<f8'"),
    "big_endian": (np.dtype(">f4"), "'>f4'"),
    "i4": (np.int32, "'<i4'"),
    "fortran": ("fortran", "fortran_order"),
    "three_d": ("3d", "3 dimensions"),
    "one_d": ("1d", "1 dimensions"),
    "garbage_header": (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 64), 'x': 1}",
                                 b"\x00" * 256), "unknown key"),
    "newline_in_key": (npy_bytes("{'de\nscr': '<f4', 'fortran_order': False, 'shape': (1, 64), }", b"\x00" * 256),
                       "malformed header"),
    "bad_shape": (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, -64), }", b""), "shape"),
    "wrong_rows": ("rows", "rows"),
    "narrow": ("narrow", "narrower"),
    "u2_without_bf16": ("u2", "bfloat16"),
    "dtype_mismatch": ("mismatch", "float16"),
}


@pytest.mark.parametrize("case", sorted(NPY_CASES))
def test_bad_npy(tmp_path, case):
    what, word = NPY_CASES[case]
    doc = base_doc()
    npy = tmp_path / "scn.npy"
    x = good_logits()
    if isinstance(what, bytes):
        npy.write_bytes(what)
    elif what == "fortran":
        np.save(npy, np.asfortranarray(good_logits(3, 64)))
        doc["rows"] = [1, 1, 1]
    elif what == "3d":
        np.save(npy, x.reshape(1, 1, 64))
    elif what == "1d":
        np.save(npy, x.reshape(64))
    elif what == "rows":
        np.save(npy, good_logits(2))
    elif what == "narrow":
        np.save(npy, good_logits(1, 63))
    elif what == "u2":
        np.save(npy, to_bf16(x))
    elif what == "mismatch":
        np.save(npy, x.astype(np.float16))
        doc["logits_dtype"] = "float32"
    else:
        np.save(npy, x.astype(what))
    doc["logits"] = "scn.npy"
    path = tmp_path / "scn.json"
    path.write_text(json.dumps(doc))
    assert_bad_input(run("explain", path), "scn.npy", word)


def test_example_scenarios_run():
    """The examples the man page shows run and agree with the reference."""
    ex = HERE.parents[1] / "programs" / "examples"
    for path in sorted(ex.glob("*.json")):
        doc = json.loads(path.read_text())
        arr = np.load(path.parent / doc["logits"])
        x32 = bf16_to_f32(arr) if doc.get("logits_dtype") == "bfloat16" else arr.astype(np.float32)
        check_against_reference(doc, x32, json_lines(run("explain", path, check=0)), json_lines(run("draw", path, check=0)))
