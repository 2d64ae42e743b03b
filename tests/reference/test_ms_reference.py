"""Self-tests of ms_reference: each SPEC section 2 rule on rows small enough to work by hand.

Example row used throughout: x = [3, 2, 2, 1] at T = 1 has weights [1, e^-1, e^-1, e^-2], total
M = 1.8711; the mass strictly above each token is [0, 1, 1, 1 + 2 e^-1 = 1.7358].
"""

import os
import sys

import pytest

np = pytest.importorskip("numpy", reason="numpy is missing: the reference needs it (scripts/setup.sh installs it)")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ms_reference as ref  # noqa: E402

ROW = [3.0, 2.0, 2.0, 1.0]


def dist(x, V=None, state=None, stop=(), apply_penalty=True, apply_filters=True, **cfg):
    x = np.asarray(x, dtype=np.float32)
    cfg.setdefault("temperature", 1.0)
    return ref.distribution(x, V or x.size, ref.Config(**cfg), state or ref.State(), stop, apply_penalty,
                            apply_filters)


def ids(r):
    return [int(t) for t in r.ids]


def test_softmax_after_fp32_temperature():
    r = dist([1.0, 2.0, 3.0], temperature=0.7)
    y = (np.array([1, 2, 3], dtype=np.float32) / np.float32(0.7)).astype(np.float64)
    e = np.exp(y - y.max())
    assert ids(r) == [0, 1, 2]
    assert np.max(np.abs(r.probs - e / e.sum())) < 1e-15
    assert abs(r.probs.sum() - 1.0) < 1e-15


def test_top_k_keeps_ties_with_the_kth_value():
    assert ids(dist([5.0, 4.0, 4.0, 4.0, 1.0], top_k=2)) == [0, 1, 2, 3]
    assert ids(dist([5.0, 4.0, 4.0, 4.0, 1.0], top_k=1)) == [0]
    assert ids(dist([5.0, 4.0, 4.0, 4.0, 1.0], top_k=4)) == [0, 1, 2, 3]
    assert ids(dist([1.0, 2.0], top_k=2)) == [0, 1]  # k >= V: off
    assert ids(dist([1.0, 2.0], top_k=7)) == [0, 1]


def test_top_p_keeps_the_crossing_group_whole():
    assert ids(dist(ROW, top_p=0.5)) == [0]  # p M = 0.936 <= 1: the tie is above the bound
    assert ids(dist(ROW, top_p=0.6)) == [0, 1, 2]  # p M = 1.123 > 1: the tie crosses, kept together
    assert ids(dist(ROW, top_p=0.95)) == [0, 1, 2, 3]  # p M = 1.778 > 1.736
    assert ids(dist(ROW, top_p=1e-7)) == [0]


def test_top_p_min_keep():
    assert ids(dist(ROW, top_p=0.5, top_p_min_keep=2)) == [0, 1, 2]  # the tie has 1 token above
    assert ids(dist(ROW, top_p=0.5, top_p_min_keep=4)) == [0, 1, 2, 3]


def test_order_default_renormalises_after_top_k():
    # top-k 3 leaves [0, 1, 2] (mass 1.7358); p = 0.55 of that is 0.955 < 1: the tie goes
    assert ids(dist(ROW, top_k=3, top_p=0.55)) == [0]
    # HF order: top-p over all (p M = 1.029 > 1 keeps the tie), then top-k 3
    assert ids(dist(ROW, top_k=3, top_p=0.55, top_p_first=True)) == [0, 1, 2]


def test_hf_order_top_k_uses_max_of_k_and_min_keep():
    assert ids(dist(ROW, top_k=1, top_p=0.95, top_p_first=True, top_p_min_keep=3)) == [0, 1, 2]
    assert ids(dist(ROW, top_k=1, top_p=0.95, top_p_first=False, top_p_min_keep=3)) == [0]
    assert ids(dist(ROW, top_k=0, top_p=0.95, top_p_first=True, top_p_min_keep=3)) == [0, 1, 2, 3]


def test_min_p_on_weights_and_its_bound():
    x = [0.0, -1.0, -2.0, -3.0]
    assert ids(dist(x, min_p=0.3)) == [0, 1]
    assert dist(x, min_p=0.3).boundary is None
    assert dist(x, min_p=float(np.exp(-1.0))).boundary == "min_p"
    assert ids(dist(x, min_p=1.0)) == [0]
    assert ids(dist(x, min_p=0.3, apply_filters=False)) == [0, 1, 2, 3]


def test_top_p_bound_is_flagged():
    M = 1 + 2 * np.exp(-1) + np.exp(-2)
    r = dist(ROW, top_p=float(np.float32(1.0 / M)))  # the tie's mass above sits on p M
    assert r.boundary == "top_p"
    assert dist(ROW, top_p=0.6).boundary is None


def test_presence_penalty():
    st = ref.State(history=[0], prompt={1})
    r = dist([2.0, -1.0, 3.0], state=st, repetition_penalty=2.0, temperature=1.0)
    x = np.array([1.0, -2.0, 3.0])
    e = np.exp(x - 3.0)
    assert np.max(np.abs(r.probs - e / e.sum())) < 1e-15
    # the prompt only when penalize_prompt; nothing when the step says apply_penalty=False
    r = dist([2.0, -1.0, 3.0], state=st, repetition_penalty=2.0, penalize_prompt=False)
    e = np.exp(np.array([1.0, -1.0, 3.0]) - 3.0)
    assert np.max(np.abs(r.probs - e / e.sum())) < 1e-15
    r = dist([2.0, -1.0, 3.0], state=st, repetition_penalty=2.0, apply_penalty=False)
    e = np.exp(np.array([2.0, -1.0, 3.0]) - 3.0)
    assert np.max(np.abs(r.probs - e / e.sum())) < 1e-15


def test_windowed_penalty_counts_the_last_w_tokens():
    st = ref.State(history=[2, 2, 0], prompt={1})
    x = ref.penalized_logits(np.array([2.0, -1.0, 3.0], dtype=np.float32), 3, ref.Config(repetition_penalty=2.0,
                             repetition_window=3), st, apply_penalty=False)
    assert list(x) == [1.0, -1.0, 0.75]  # r^2 for token 2, r for token 0, prompt ignored
    x = ref.penalized_logits(np.array([2.0, -1.0, 3.0], dtype=np.float32), 3, ref.Config(repetition_penalty=2.0,
                             repetition_window=1), st)
    assert list(x) == [1.0, -1.0, 3.0]
    # r^n as successive fp32 products
    x = ref.penalized_logits(np.array([1.0], dtype=np.float32), 1, ref.Config(repetition_penalty=1.1,
                             repetition_window=8), ref.State(history=[0] * 5))
    f = np.float32(1)
    for _ in range(5):
        f = np.float32(f * np.float32(1.1))
    assert x[0] == np.float32(np.float32(1.0) / f)


def test_greedy_ties_and_the_floor():
    assert ids(dist([1.0, 3.0, 3.0], temperature=0.0)) == [1]
    st = ref.State()
    assert ids(dist([1.0, 3.0, 3.0], temperature=0.0, state=st, stop=(1,), min_tokens=1)) == [2]
    r = dist([1.0, 3.0, 3.0], temperature=0.0, state=st, stop=(1, 2), min_tokens=1)
    assert ids(r) == [0] and r.floor_active
    r = dist([-np.inf, 3.0, 3.0], temperature=0.0, state=st, stop=(1, 2), min_tokens=1)
    assert ids(r) == [1] and not r.floor_active  # nothing free: the unfloored argmax
    r = dist([1.0, 3.0, 3.0], temperature=0.0, state=ref.State(history=[5]), stop=(1, 2), min_tokens=1)
    assert ids(r) == [1] and not r.floor_active  # n = 1 >= min_tokens
    assert ids(dist([1.0, 3.0], temperature=5e-6)) == [1]


def test_floor_masks_stop_ids_unless_nothing_is_left():
    r = dist([0.0, 0.0, 5.0], stop=(2,), min_tokens=2)
    assert ids(r) == [0, 1] and r.floor_active
    r = dist([0.0, 0.0, 5.0], stop=(2,), min_tokens=2, top_k=1)
    assert ids(r) == [2] and not r.floor_active


def test_nan_inf_empty_and_padding():
    assert ids(dist([np.nan, 0.0])) == [1]
    r = dist([np.inf, 0.0, np.inf])
    assert ids(r) == [0, 2] and list(r.probs) == [0.5, 0.5]
    assert dist([np.nan, -np.inf]).empty
    assert dist([np.nan, -np.inf], temperature=0.0).empty
    assert ids(dist([3e38, 0.0], temperature=0.5)) == [0]  # x / T overflows: counts as +inf
    assert ids(dist([0.0, 0.0, 100.0], V=2)) == [0, 1]  # columns >= V never matter


def test_mass_grain():
    assert ids(dist([0.0, -30.0])) == [0]  # exp(-30) 2^40 = 0.10: no mass
    assert ids(dist([0.0, -27.0])) == [0, 1]  # exp(-27) 2^40 = 1.97
    r = dist([0.0, float(np.float32(-np.log(2.0**40)))])
    assert list(r.uncertain) == [1]


def test_top_p_threshold_is_quantised():
    assert ref.top_p_effective(1.0) == 1.0
    assert ref.top_p_effective(0.5) == 0.5
    assert ref.top_p_effective(1e-12) == 2.0**-32  # max(1, round(p 2^32))
    p = float(np.float32(1e-7))
    assert ref.top_p_effective(1e-7) == round(p * 2**32) / 2**32


def test_philox_known_answers():
    assert ref.philox4x32_10((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert ref.philox4x32_10((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) == (
        0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)


def test_draw_target_and_running_sum():
    seed, n, k = 0x0123456789ABCDEF, 7, 2
    r = ref.draw_bits(seed, n, k)
    out = ref.philox4x32_10((7, 0, 2, 0), (0x89ABCDEF, 0x01234567))
    assert r == out[0] | (out[1] << 32)
    masses = [3, 5, 8]
    target = (r * 16) >> 64
    want = [10, 20, 30][0 if target < 3 else 1 if target < 8 else 2]
    assert ref.draw([10, 20, 30], masses, seed, n, k) == want
    assert ref.draw([4], [2**40], seed, n, k) == 4
