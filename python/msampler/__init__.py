"""msampler: exact, deterministic next-token sampling for LLM inference engines.

The seed's module (``mstar.engine.resources.sampler.config``) mirrored name for name, backed by the
C library: ``SamplerSpec``, ``SamplerStep``, ``SamplingReqConfig``, ``derive_seed`` and the
``SamplerResource`` that ``SamplerSpec.resource_class`` names. See docs/python.md.
"""
from __future__ import annotations

from typing import Any

from ._msampler import (
    DtypeError,
    Error,
    InvalidArgument,
    OutOfMemory,
    StateError,
    UnknownRequest,
)
from ._msampler import version as __version__
from .config import SamplerSpec, SamplerStep, SamplingReqConfig, derive_seed

__all__ = [
    "SamplerSpec",
    "SamplerStep",
    "SamplingReqConfig",
    "SamplerResource",
    "Explanation",
    "derive_seed",
    "Error",
    "InvalidArgument",
    "DtypeError",
    "UnknownRequest",
    "StateError",
    "OutOfMemory",
]


def __getattr__(name: str) -> Any:
    # The resource is imported lazily, as the seed's resource_class is: declaring stays cheap.
    if name in ("SamplerResource", "Explanation"):
        from . import resource

        return getattr(resource, name)
    raise AttributeError(f"module 'msampler' has no attribute {name!r}")
