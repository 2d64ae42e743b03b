"""ms_reference: an independent reference of SPEC section 2 (one row's distribution), in numpy.

Written from the SPEC, not from the C code, and phrased the way HF transformers phrases its
logits warpers: sort descending, threshold on the k-th value for top-k, cumulative sums for top-p.
Everything after the two steps the SPEC pins to fp32 (the penalties and y = x / T) is computed in
float64, so this reference does not share the C library's exp, fixed-point masses or 128-bit
thresholds; it only has to agree with them to within their stated precision.

Where float64 and the library's fp32 / 2^40 fixed-point arithmetic may legitimately disagree the
reference says so instead of guessing:
  - `boundary` names the rule whose bound a row sits on (top-p mass or min-p weight within 1e-6 of
    its threshold, or a min-tokens floor decided by a token whose mass is on the 2^-40 grain);
    a kept set that differs there is excused by the oracle, and counted.
  - `uncertain` lists tokens whose weight is within the library's rounding of the 2^-40 mass grain
    (docs/decisions.md: explain reports tokens with q = floor(w 2^40) > 0); they may or may not be
    in the library's support.

The probabilities are exact (float64) ones; the library's are q/M with q = floor(w 2^40), w relative
to the row's maximum before any filter. That grain is invisible (< 1e-6) unless the kept mass M is
small, which happens only when the min-tokens floor masks the row's top tokens: then q/M may differ
from the exact probability by up to (n p + 1) / (M - n) for n kept tokens (`grain_mass` gives M).

The public function is `distribution(...)`; `philox4x32_10` and `draw` re-implement SPEC section 3's
draw so that a sampled token can be checked against the masses explain reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

# SPEC 2.2: greedy below this temperature (compared in fp32, the config's type).
GREEDY_T = np.float32(1e-5)
# Relative tolerance of the 1e-6 bounds the issue names (top-p and min-p).
BOUND_TOL = 1e-6
MASS_ONE = float(2**40)
F32_EPS = 2.0**-24  # half an ulp of fp32, relative


@dataclass
class Config:
    """A request's settings (SamplingReqConfig), fp32 fields as the C struct holds them."""

    temperature: float = 0.6
    top_k: int = 0
    top_p: float = 1.0
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    repetition_window: int = 0
    min_tokens: int = 0
    top_p_first: bool = False
    top_p_min_keep: int = 1
    penalize_prompt: bool = True
    seed: int = 0


@dataclass
class State:
    """A request's committed state: generated tokens in order and the prompt tokens (plan)."""

    history: list = field(default_factory=list)
    prompt: set = field(default_factory=set)

    @property
    def n(self) -> int:
        return len(self.history)


@dataclass
class Result:
    ids: np.ndarray  # ascending token ids of the support
    probs: np.ndarray  # their probabilities (float64), summing to 1
    empty: bool = False
    greedy: bool = False
    floor_active: bool = False
    boundary: str | None = None  # rule whose bound the row sits on, None when clear
    cut: tuple = ()  # the rules that removed a token with mass (coverage statistics for the oracle)
    grain_mass: float = 0.0  # the support's weight in units of the 2^-40 grain (sum of w 2^40)
    uncertain: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def _penalize(x: np.float32, f: np.float32) -> np.float32:
    # SPEC 2.1, in fp32: x > 0 ? x / f : x * f
    return np.float32(x / f) if x > 0 else np.float32(x * f)


def _grain_tol(w: np.ndarray) -> np.ndarray:
    """How far (relative) the library's fp32 weight of a token may be from exp(d) in float64.

    The library computes d = y - max y as an fp32 subtraction (half an ulp of d, i.e. |d| 2^-24
    relative in w), then its own exp (8.04e-8 measured, docs/decisions.md), then rounds w to fp32.
    1e-6 is the issue's bound; the |d| term only matters for |d| > ~10."""
    with np.errstate(divide="ignore"):
        d = np.abs(np.log(np.maximum(w, 1e-300)))
    return BOUND_TOL + (d + 2.0) * F32_EPS


def _top_k_keep(y: np.ndarray, keep: np.ndarray, k: int) -> np.ndarray:
    """HF TopKLogitsWarper: remove scores < the k-th largest surviving score (ties with it stay)."""
    surv = np.flatnonzero(keep)
    if k <= 0 or k >= surv.size:
        return keep
    kth = np.sort(y[surv])[::-1][k - 1]
    out = keep.copy()
    out[surv[y[surv] < kth]] = False
    return out


def _top_p_keep(y, w, keep, p_eff, min_keep):
    """HF TopPLogitsWarper in descending form, with the SPEC's tie rule.

    Survivors sorted by y descending; a token's "mass above" is the cumulative mass of the
    survivors strictly greater than it (the exclusive cumulative sum at the start of its tie
    group). Kept iff mass above < p * the survivors' mass, or fewer than min_keep survivors are
    strictly above it. Returns (keep, on_bound)."""
    surv = np.flatnonzero(keep)
    if surv.size == 0:
        return keep, False
    order = surv[np.lexsort((surv, -y[surv]))]
    ys = y[order]
    ws = w[order]
    total = ws.sum()
    excl = np.concatenate(([0.0], np.cumsum(ws)[:-1]))
    # first index of each token's tie group (sorted descending, so equal values are adjacent)
    neg = -ys
    group_start = np.searchsorted(neg, neg, side="left")
    above = excl[group_start]
    bound = p_eff * total
    kept_sorted = (above < bound) | (group_start < min_keep)
    on_bound = bool(np.any((np.abs(above - bound) <= BOUND_TOL * total) & (group_start >= min_keep)))
    out = keep.copy()
    out[order[~kept_sorted]] = False
    return out, on_bound


def top_p_effective(p: float) -> float:
    """SPEC section 3: the threshold is p_q / 2^32 with p_q = max(1, round(p 2^32)), p in fp32."""
    pq = max(1, int(np.floor(float(np.float32(p)) * 2.0**32 + 0.5)))
    return pq / 2.0**32


def penalized_logits(logits, V: int, cfg: Config, state: State, apply_penalty: bool = True,
                     presence_enabled: bool = True) -> np.ndarray:
    """Steps 0-1: the first V columns as fp32, NaN as -inf, then the penalties in fp32."""
    x = np.array(logits[:V], dtype=np.float32)
    x[np.isnan(x)] = -np.inf
    r = np.float32(cfg.repetition_penalty)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if cfg.repetition_window > 0:
            # 1b: f = r^n, n = occurrences among the last w committed generated tokens
            if r != np.float32(1):
                window = state.history[-cfg.repetition_window:]
                for t, n in Counter(window).items():
                    f = np.float32(1)
                    for _ in range(n):
                        f = np.float32(f * r)
                    x[t] = _penalize(x[t], f)
        elif r != np.float32(1) and apply_penalty and presence_enabled:
            # 1a: once per token of the seen set (generated tokens, plus the prompt if penalised)
            seen = set(state.history)
            if cfg.penalize_prompt:
                seen |= state.prompt
            for t in seen:
                x[t] = _penalize(x[t], r)
    return x


def distribution(logits, V: int, cfg: Config, state: State, stop_ids=(), apply_penalty: bool = True,
                 apply_filters: bool = True, presence_enabled: bool = True) -> Result:
    """The final distribution of one row (SPEC section 2) as the support and its probabilities.

    logits: the row as fp32 values (fp16/bf16 rows converted exactly by the caller), width >= V.
    stop_ids: the spec's min_tokens_stop_ids. presence_enabled: the spec's enable_repetion_penalty
    (without it no seen set exists)."""
    x = penalized_logits(logits, V, cfg, state, apply_penalty, presence_enabled)
    stop = np.zeros(V, dtype=bool)
    if len(stop_ids):
        stop[np.asarray(list(stop_ids), dtype=np.int64)] = True
    floor = bool(stop.any()) and state.n < cfg.min_tokens
    empty = Result(ids=np.zeros(0, dtype=np.int64), probs=np.zeros(0), empty=True)

    # 2. greedy: argmax after the floor, lowest id on ties
    if np.float32(cfg.temperature) < GREEDY_T:
        cand = ~np.isneginf(x)
        if not cand.any():
            empty.greedy = True
            return empty
        free = cand & ~stop if floor else np.zeros(V, dtype=bool)
        use = free if free.any() else cand
        vals = np.where(use, x, -np.inf)
        best = int(np.flatnonzero(use & (vals == vals[use].max()))[0])
        return Result(ids=np.array([best]), probs=np.array([1.0]), greedy=True, floor_active=bool(free.any()))

    # 3. temperature, in fp32 (IEEE division; a finite x may overflow to +-inf)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        y32 = x / np.float32(cfg.temperature)
    y = y32.astype(np.float64)
    m = y.max() if V else -np.inf
    if m == -np.inf:
        return empty
    if m == np.inf:
        w = (y == np.inf).astype(np.float64)  # +inf logits share the mass equally
        exact = True
    else:
        w = np.exp(y - m)
        exact = False

    keep = np.ones(V, dtype=bool)
    boundary = None
    massive = w * MASS_ONE >= 1.0
    cut = []

    def note(rule, before, after):
        if np.any(before & ~after & massive):
            cut.append(rule)

    if apply_filters:
        # 4a. min-p on w = exp(y - max y)
        mp = float(np.float32(cfg.min_p))
        if mp > 0:
            keep = w >= mp
            note("min_p", np.ones(V, dtype=bool), keep)
            if not exact:
                near = np.abs(w - mp) <= _grain_tol(np.full(1, mp))[0] * mp
                near &= y != m  # w = 1 exactly there, in the library too
                if near.any():
                    boundary = "min_p"
        k = cfg.top_k if 0 < cfg.top_k < V else 0
        p_on = np.float32(cfg.top_p) < np.float32(1)
        p_eff = top_p_effective(cfg.top_p)
        if not cfg.top_p_first:
            before = keep
            keep = _top_k_keep(y, keep, k)
            note("top_k", before, keep)
            if p_on:
                before = keep
                keep, nb = _top_p_keep(y, w, keep, p_eff, cfg.top_p_min_keep)
                note("top_p", before, keep)
                if nb and not exact:
                    boundary = boundary or "top_p"
        else:
            if p_on:
                before = keep
                keep, nb = _top_p_keep(y, w, keep, p_eff, cfg.top_p_min_keep)
                note("top_p", before, keep)
                if nb and not exact:
                    boundary = boundary or "top_p"
            k2 = max(k, cfg.top_p_min_keep) if k > 0 else 0
            before = keep
            keep = _top_k_keep(y, keep, k2)
            note("top_k", before, keep)

    # masses: the library keeps tokens with floor(w 2^40) > 0; tokens within its rounding of the
    # grain are uncertain
    scaled = w * MASS_ONE
    grain = np.zeros(V, dtype=bool) if exact else np.abs(scaled - 1.0) <= _grain_tol(w)
    has_mass = scaled >= 1.0

    # 5. min-tokens floor: stop ids get no mass unless that leaves none
    floor_active = False
    if floor:
        free = keep & ~stop
        if (free & has_mass).any():
            note("floor", keep, free)
            keep = free
            floor_active = True
            if not (free & has_mass & ~grain).any():
                boundary = boundary or "floor"
        elif (free & grain).any():
            boundary = boundary or "floor"

    support = keep & has_mass
    uncertain = np.flatnonzero(keep & grain)
    ids = np.flatnonzero(support)
    if ids.size == 0:  # cannot happen for a row with a finite logit (the max has w = 1)
        return empty
    probs = w[ids] / w[ids].sum()
    return Result(ids=ids, probs=probs, floor_active=floor_active, boundary=boundary, uncertain=uncertain,
                  cut=tuple(cut), grain_mass=float(w[ids].sum() * MASS_ONE))


# ---- the draw (SPEC section 3) ------------------------------------------------------------------

_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_U32 = 0xFFFFFFFF


def philox4x32_10(counter, key):
    """Philox4x32-10 (Salmon et al., SC 2011): 10 rounds of two 32x32->64 multiplies, the key
    bumped by the Weyl constants after each round."""
    c0, c1, c2, c3 = (int(v) & _U32 for v in counter)
    k0, k1 = (int(v) & _U32 for v in key)
    for _ in range(10):
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & _U32, p1 & _U32, ((p0 >> 32) ^ c3 ^ k1) & _U32, p0 & _U32
        k0 = (k0 + _W0) & _U32
        k1 = (k1 + _W1) & _U32
    return c0, c1, c2, c3


def draw_bits(seed: int, n: int, row_k: int) -> int:
    """r: key = the seed (low word, high word); counter = (n low, n high, row_k, 0)."""
    seed &= (1 << 64) - 1
    out = philox4x32_10((n & _U32, (n >> 32) & _U32, row_k, 0), (seed & _U32, seed >> 32))
    return out[0] | (out[1] << 32)


def draw(ids, masses, seed: int, n: int, row_k: int) -> int:
    """The smallest id whose running kept mass exceeds floor(r M / 2^64) (ids ascending)."""
    masses = [int(q) for q in masses]
    total = sum(masses)
    target = (draw_bits(seed, n, row_k) * total) >> 64
    running = 0
    for t, q in zip(ids, masses):
        running += q
        if running > target:
            return int(t)
    return -1
