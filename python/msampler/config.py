"""What a model declares about sampling: its spec, its per-request config, its step.

The mirror of the seed's ``mstar.engine.resources.sampler.config``: the same names, fields, defaults
and behaviour, checked by the C library (``include/msampler.h``). Kept free of the resource, so a
module can declare a step without building one (``SamplerSpec.resource_class`` imports it lazily).
"""
from __future__ import annotations

import hashlib
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Hashable, Optional, Set, Tuple

from . import _msampler

if TYPE_CHECKING:  # pragma: no cover
    from .resource import SamplerResource

__all__ = ["SamplerSpec", "SamplerStep", "SamplingReqConfig", "derive_seed"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def derive_seed(seed: int, stream: str) -> int:
    """A seed for one named stream of a request, as a non-negative int64.

    Stable across processes (no hash()), and distinct per stream, so a request's samplers do not
    draw correlated numbers from one seed. Equal, for every Python int ``seed``, to
    ``int.from_bytes(blake2b(f"{seed}:{stream}".encode(), digest_size=8).digest(), "little") & (2**63 - 1)``:
    the C library computes it for int64 seeds, hashlib for larger ones (docs/python.md).
    """
    seed = operator.index(seed)
    if not isinstance(stream, str):
        raise TypeError(f"stream must be a str, not {type(stream).__name__}")
    if _INT64_MIN <= seed <= _INT64_MAX:
        return _msampler.derive_seed(seed, stream)
    digest = hashlib.blake2b(f"{seed}:{stream}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & _INT64_MAX


@dataclass
class SamplerSpec:
    """What one sampler resource (serving the graph nodes in ``nodes``) is able to do.

    Capability, not intent: a node that enables nothing pays nothing. ``enable_repetion_penalty``
    keeps the seed's spelling; ``enable_repetition_penalty`` is an alias of it.
    """

    resource_key: str
    nodes: Set[str]
    vocab_size: Optional[int]
    enable_repetion_penalty: bool = True
    enable_min_p: bool = False
    max_repetition_window: int = 0
    min_tokens_stop_ids: Tuple[int, ...] = ()
    enable_top_p_first: bool = False

    @property
    def enable_repetition_penalty(self) -> bool:
        """The correctly spelled alias of ``enable_repetion_penalty``."""
        return self.enable_repetion_penalty

    @enable_repetition_penalty.setter
    def enable_repetition_penalty(self, value: bool) -> None:
        self.enable_repetion_penalty = value

    @property
    def resource_class(self) -> "type[SamplerResource]":
        """What builds this spec. Imported inside the property, so declaring a resource stays free
        of the resource and its extension's state."""
        from .resource import SamplerResource

        return SamplerResource

    def _as_tuple(self) -> tuple:
        """The C layer's spec tuple (the order of _msampler.c's ms_py_spec)."""
        nodes = self.nodes
        if nodes is None:
            nodes = ()
        elif isinstance(nodes, str):  # one node name, not its characters
            nodes = (nodes,)
        else:
            nodes = tuple(sorted(nodes)) if isinstance(nodes, (set, frozenset)) else tuple(nodes)
        stop = self.min_tokens_stop_ids
        stop = () if stop is None else tuple(stop)
        return (
            self.resource_key,
            nodes,
            self.vocab_size,
            self.enable_repetion_penalty,
            self.enable_min_p,
            self.max_repetition_window,
            stop,
            self.enable_top_p_first,
        )

    def check(self) -> None:
        """Raises ValueError (msampler.InvalidArgument) with the library's message when the spec
        itself is invalid (e.g. a penalty enabled with vocab_size None)."""
        _msampler.spec_check(self._as_tuple())


@dataclass
class SamplerStep:
    """One step's work for the resource.

    ``segments``: (request_id, label, span) tuples, accepted and not interpreted (one token is drawn
    per logits row); ``prefill_tracked_tokens``: request id -> prompt tokens to count as seen;
    ``kept_rids``: None keeps every row's token, otherwise only rows of these request ids commit.
    """

    segments: Optional[Tuple[Any, ...]] = None
    apply_penalty: bool = True
    apply_filters: bool = True
    prefill_tracked_tokens: Dict[Hashable, Any] = field(default_factory=dict)
    kept_rids: Optional[FrozenSet[Hashable]] = None


@dataclass
class SamplingReqConfig:
    """One request's settings. None for a field means the sampler's default."""

    temperature: float = 0.6
    top_k: int = 0
    top_p: float = 1
    ignore_eos: bool = False
    repetition_penalty: float = 1
    min_p: float = 0.0
    repetition_window: int = 0
    min_tokens: int = 0
    top_p_first: bool = False
    top_p_min_keep: int = 1
    penalize_prompt: bool = True
    _seed: int = 0

    def apply_conductor_config(self, seed: int = 0, resource_key: Optional[str] = None, **kwargs: Any) -> None:
        """The request's seed becomes ``seed`` when ``resource_key`` is None, else
        ``derive_seed(seed, resource_key)``; other keywords are accepted and ignored."""
        self._seed = operator.index(seed) if resource_key is None else derive_seed(seed, resource_key)

    @property
    def seed(self) -> int:
        """The request's seed (the Philox key; its low 64 bits are used)."""
        return self._seed

    def validate(self, spec: Optional[SamplerSpec] = None) -> None:
        """Raise ValueError on a value outside the contract, or one spec's node cannot honour.
        None means the sampler's default."""
        if spec is not None and not isinstance(spec, SamplerSpec):
            raise TypeError(f"spec must be a SamplerSpec or None, not {type(spec).__name__}")
        _msampler.validate(self._as_tuple(), None if spec is None else spec._as_tuple())

    def _as_tuple(self) -> tuple:
        """The C layer's config tuple (the order of _msampler.c's ms_py_config)."""
        return (
            self.temperature,
            self.top_k,
            self.top_p,
            self.ignore_eos,
            self.repetition_penalty,
            self.min_p,
            self.repetition_window,
            self.min_tokens,
            self.top_p_first,
            self.top_p_min_keep,
            self.penalize_prompt,
            self._seed,
        )
