"""The sampler resource: requests' state and the per-step flow plan -> sample -> commit.

A thin layer over the C library's ms_resource (include/msampler.h). Request ids may be any hashable
object; each resident id is mapped to a C int64 id (docs/python.md, "Request ids").
"""
from __future__ import annotations

import operator
import re
import sys
from dataclasses import dataclass
from typing import Any, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from . import _msampler
from .config import SamplerSpec, SamplerStep, SamplingReqConfig

__all__ = ["SamplerResource", "Explanation"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_INT32_MAX = 2**31 - 1
_DECIMAL = re.compile(r"-?[0-9]+")


def _error(cls: type, name: str, message: str) -> Exception:
    """An exception of the C layer's classes, with the library's code and its name."""
    exc = cls(f"{name}: {message}")
    exc.code = _msampler.ERRORS[name]
    exc.errname = name
    return exc


def _is_torch(obj: Any) -> bool:
    return type(obj).__module__.split(".", 1)[0] == "torch"


def _host_ints(obj: Any) -> Any:
    """Token ids or request ids as a host object numpy can read (torch tensors: detached, on cpu)."""
    if _is_torch(obj) and hasattr(obj, "detach"):
        return obj.detach().cpu().numpy()
    return obj


@dataclass
class Explanation:
    """The final distribution of one row (ms_explain): the ids that can be drawn, ascending, their
    probabilities q/M and their 2^40 fixed-point masses q."""

    ids: np.ndarray
    probs: np.ndarray
    masses: np.ndarray
    status: int
    greedy: bool
    floor_active: bool
    total_mass: int


class SamplerResource:
    """One sampler resource: a fixed number of resident requests and their state.

    Build it with ``SamplerResource.build(spec)`` (or ``spec.resource_class.build(spec)``). Then per
    request ``ingest_request`` / ``remove_request``, and per step ``plan(step)`` ->
    ``sample(request_ids, logits)`` -> ``commit(step)``. One resource per thread.
    """

    def __init__(
        self,
        spec: SamplerSpec,
        device: Any = "cpu",
        capacity: int = 256,
        *,
        max_rows: Optional[int] = None,
        max_vocab: Optional[int] = None,
        n_threads: int = 0,
        reference: bool = False,
    ) -> None:
        if not isinstance(spec, SamplerSpec):
            raise TypeError(f"spec must be a SamplerSpec, not {type(spec).__name__}")
        dev = str(device)
        kind, _, index = dev.partition(":")
        if dev == "cpu":
            backend, ordinal = (_msampler.BACKEND_CPU_REF if reference else _msampler.BACKEND_CPU), 0
        elif kind == "cuda" and (index == "" or index.isdigit()) and not reference:
            # the library's CUDA backend: state on the device; a build without it says so (EBACKEND)
            backend, ordinal = _msampler.BACKEND_CUDA, int(index or 0)
        else:
            raise _error(_msampler.InvalidArgument, "EINVAL",
                         f"device={dev!r}: expected 'cpu', 'cuda' or 'cuda:N' (reference=True: 'cpu' only)")
        defaults = _msampler.defaults()["params"]
        self.spec = spec
        self.device = "cpu" if backend != _msampler.BACKEND_CUDA else f"cuda:{ordinal}"
        self._cuda = backend == _msampler.BACKEND_CUDA
        self._res = _msampler.Resource(
            spec._as_tuple(),
            capacity=operator.index(capacity),
            max_rows=0 if max_rows is None else operator.index(max_rows),
            max_vocab=defaults["max_vocab"] if max_vocab is None else operator.index(max_vocab),
            backend=backend,
            n_threads=operator.index(n_threads),
            device=ordinal,
        )
        self._cid: Dict[Hashable, int] = {}  # request id -> C int64 rid
        self._key: Dict[int, Hashable] = {}  # C rid -> request id
        self._next_cid = _INT64_MIN
        self._apply = (True, True)  # the last plan's (apply_penalty, apply_filters)
        self._last_status: Optional[np.ndarray] = None

    @classmethod
    def build(
        cls,
        spec: SamplerSpec,
        device: Any = "cpu",
        capacity: int = 256,
        *,
        max_rows: Optional[int] = None,
        max_vocab: Optional[int] = None,
        n_threads: int = 0,
        reference: bool = False,
    ) -> "SamplerResource":
        """Builds the resource for ``spec``; all its memory is taken now.

        capacity: resident requests at most (256); max_rows: rows per sample call (4 x capacity);
        max_vocab: the widest row when spec.vocab_size is None (262144); n_threads: CPU workers
        (0 = all cores); reference: use the library's straightforward reference backend.
        """
        return cls(spec, device, capacity, max_rows=max_rows, max_vocab=max_vocab, n_threads=n_threads,
                   reference=reference)

    # ---- CUDA streams ------------------------------------------------------------------------------

    def _torch_stream(self) -> Optional[int]:
        """torch's current stream on the resource's device (DLPack's convention: 1 is the legacy
        default stream, which torch reports as 0), or None when torch is not loaded."""
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        return torch.cuda.current_stream(torch.device(self.device)).cuda_stream or 1

    def _on_stream(self) -> None:
        # every call on a CUDA resource enqueues on the caller's current stream, not on whichever
        # stream the last sample used (which may be gone by now)
        if self._cuda:
            self._res.set_stream(self._torch_stream())

    # ---- request ids ------------------------------------------------------------------------------

    def _lookup(self, rid: Hashable) -> Optional[int]:
        """The C id of a resident request id, or None. Exact match first; then, because the seed
        keys prefill_tracked_tokens by str and kept_rids by int, "7" finds 7 and 7 finds "7"."""
        try:
            return self._cid[rid]
        except KeyError:
            pass
        except TypeError:
            raise TypeError(f"request id {rid!r} is not hashable") from None
        if isinstance(rid, str):
            # plain decimal only: int() would also take " 7", "+7" and "7_0"
            return self._cid.get(int(rid)) if _DECIMAL.fullmatch(rid) else None
        if isinstance(rid, (int, np.integer)) and not isinstance(rid, bool):
            return self._cid.get(str(int(rid)))
        return None

    def _require(self, rid: Hashable, where: str) -> int:
        cid = self._lookup(rid)
        if cid is None:
            raise _error(_msampler.UnknownRequest, "ENOENT", f"{where}request {rid!r} is not resident")
        return cid

    def _new_cid(self, rid: Hashable) -> int:
        # An int request id keeps its value as the C id (so messages and the C API agree); any other
        # id, or an int already taken, gets the next free number counting up from -2^63.
        if isinstance(rid, (int, np.integer)) and not isinstance(rid, bool):
            v = int(rid)
            if _INT64_MIN <= v <= _INT64_MAX and v not in self._key:
                return v
        while self._next_cid in self._key:
            self._next_cid += 1
        return self._next_cid

    def _translate(self, exc: Exception, pairs: Iterable[Tuple[int, Hashable]]) -> Exception:
        """The library's message names C ids; name the caller's ids instead."""
        msg = str(exc)
        for cid, rid in pairs:
            if not (isinstance(rid, int) and rid == cid):
                msg = msg.replace(f"request {cid}", f"request {rid!r}")
        new = type(exc)(msg)
        new.code = getattr(exc, "code", None)
        new.errname = getattr(exc, "errname", None)
        return new

    def __contains__(self, rid: Hashable) -> bool:
        try:
            return self._lookup(rid) is not None
        except TypeError:
            return False

    def __len__(self) -> int:
        return len(self._cid)

    @property
    def request_ids(self) -> List[Hashable]:
        """The resident request ids, in ingest order."""
        return list(self._cid)

    # ---- lifecycle ------------------------------------------------------------------------------

    def ingest_request(self, rid: Hashable, config: SamplingReqConfig) -> None:
        """Validates ``config`` against the spec and makes ``rid`` resident with empty state. A
        refused request leaves no trace (ValueError with the library's message)."""
        if not isinstance(config, SamplingReqConfig):
            raise TypeError(f"config must be a SamplingReqConfig, not {type(config).__name__}")
        hash(rid)  # TypeError for an unhashable id, before anything changes
        if rid in self._cid:
            raise _error(_msampler.InvalidArgument, "EEXIST", f"request {rid!r} is already resident")
        cid = self._new_cid(rid)
        self._on_stream()
        try:
            self._res.ingest(cid, config._as_tuple())
        except _msampler.Error as e:
            raise self._translate(e, [(cid, rid)]) from None
        self._cid[rid] = cid
        self._key[cid] = rid
        if cid == self._next_cid:
            self._next_cid += 1

    def remove_request(self, rid: Hashable) -> None:
        """Frees ``rid``'s slot; a reused slot starts empty."""
        cid = self._require(rid, "")
        self._on_stream()
        try:
            self._res.remove(cid)
        except _msampler.Error as e:
            raise self._translate(e, [(cid, rid)]) from None
        del self._cid[self._key.pop(cid)]

    def accept_tokens(self, rid: Hashable, tokens: Any) -> None:
        """Commits explicit tokens for ``rid`` (speculative decoding, replay), as commit would."""
        cid = self._require(rid, "")
        self._on_stream()
        try:
            self._res.accept(cid, self._token_array(tokens, f"request {rid!r}"))
        except _msampler.Error as e:
            raise self._translate(e, [(cid, rid)]) from None

    def close(self) -> None:
        """Frees the library's memory now (otherwise when the object is collected)."""
        self._res.close()  # later calls raise StateError ("closed"); the id map stays for messages

    def __enter__(self) -> "SamplerResource":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- the step -------------------------------------------------------------------------------

    @staticmethod
    def _token_array(tokens: Any, what: str) -> np.ndarray:
        a = np.asarray(_host_ints(tokens))
        if a.size == 0:
            return np.empty(0, dtype=np.int32)
        if a.dtype.kind not in "iu":
            raise TypeError(f"{what}: token ids must be integers, got dtype {a.dtype}")
        a = a.reshape(-1)
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi > _INT32_MAX:
            bad = lo if lo < 0 else hi
            raise _error(_msampler.InvalidArgument, "ERANGE", f"{what}: token id {bad} outside the int32 range")
        return np.ascontiguousarray(a, dtype=np.int32)

    def plan(self, step: SamplerStep) -> None:
        """Adds the step's prefill_tracked_tokens to the requests' seen sets (for requests with
        penalize_prompt) and remembers apply_penalty / apply_filters for the following sample. A
        failing plan changes nothing."""
        if not isinstance(step, SamplerStep):
            raise TypeError(f"step must be a SamplerStep, not {type(step).__name__}")
        prefill = []
        pairs = []
        for rid, tokens in (step.prefill_tracked_tokens or {}).items():
            cid = self._require(rid, "prefill: ")
            prefill.append((cid, self._token_array(tokens, f"prefill_tracked_tokens[{rid!r}]")))
            pairs.append((cid, rid))
        if prefill:
            self._on_stream()
            try:
                self._res.plan(prefill)
            except _msampler.Error as e:
                raise self._translate(e, pairs) from None
        self._apply = (bool(step.apply_penalty), bool(step.apply_filters))

    def _rid_array(self, request_ids: Any) -> Tuple[np.ndarray, List[Hashable]]:
        ids = request_ids
        if isinstance(ids, np.ndarray) or _is_torch(ids):
            ids = np.asarray(_host_ints(ids)).reshape(-1).tolist()
        elif not isinstance(ids, (list, tuple)):
            ids = list(ids)
        try:  # the common case, every id resident under its exact key: one C-level pass
            return np.fromiter(map(self._cid.__getitem__, ids), dtype=np.int64, count=len(ids)), ids
        except (KeyError, TypeError):
            pass
        out = np.empty(len(ids), dtype=np.int64)
        for i, rid in enumerate(ids):
            out[i] = self._require(rid, f"row {i}: ")
        return out, ids

    def _flags(self, step: Optional[SamplerStep]) -> Tuple[bool, bool]:
        if step is None:
            return self._apply
        return bool(step.apply_penalty), bool(step.apply_filters)

    def sample(self, request_ids: Sequence[Hashable], logits: Any, step: Optional[SamplerStep] = None) -> Any:
        """Draws one token per logits row; row i belongs to ``request_ids[i]``.

        logits: [rows, width >= vocab_size] float32, float16 or bfloat16, a numpy array or a torch
        CPU tensor (or any buffer / DLPack host array), read in place. Returns int32 tokens in the
        same library (-1 for a row with no finite or +inf logit; see ``last_row_status``). Reads the
        requests' state and changes none: sampling again draws the same tokens. ``step`` overrides
        the apply_penalty / apply_filters that the last plan(step) remembered.
        """
        rids, ids = self._rid_array(request_ids)
        torch_in = _is_torch(logits)
        if torch_in and getattr(logits, "requires_grad", False):
            logits = logits.detach()
        n = len(ids)
        ap, af = self._flags(step)
        if self._cuda:
            return self._sample_cuda(rids, ids, logits, ap, af)
        tokens = np.empty(n, dtype=np.int32)
        status = np.empty(n, dtype=np.int32)
        try:
            self._res.sample(rids, logits, tokens, status, ap, af)
        except _msampler.Error as e:
            raise self._translate(e, zip(rids.tolist(), ids)) from None
        self._last_status = status
        if torch_in:
            torch = sys.modules["torch"]
            return torch.from_numpy(tokens)
        return tokens

    def _sample_cuda(self, rids: np.ndarray, ids: List[Hashable], logits: Any, ap: bool, af: bool) -> Any:
        """A CUDA resource: torch CUDA logits read in place on the tensor's current stream; tokens
        come back as a CUDA tensor written on that stream (no host synchronisation)."""
        if not _is_torch(logits) or getattr(getattr(logits, "device", None), "type", None) != "cuda":
            raise _error(_msampler.StateError, "EBACKEND",
                         f"logits must be a torch CUDA tensor on {self.device} for this resource, "
                         f"got {type(logits).__name__} on {getattr(logits, 'device', 'the host')}")
        torch = sys.modules["torch"]
        dev = logits.device
        stream = torch.cuda.current_stream(dev).cuda_stream or 1
        n = len(ids)
        tokens = torch.empty(n, dtype=torch.int32, device=dev)
        status = torch.empty(n, dtype=torch.int32, device=dev)
        try:
            # DLPack's stream convention: 1 is the legacy default stream (torch reports it as 0)
            self._res.sample(rids, logits, tokens.data_ptr(), status.data_ptr(), ap, af, stream)
        except _msampler.Error as e:
            raise self._translate(e, zip(rids.tolist(), ids)) from None
        self._last_status = status
        return tokens

    @property
    def last_row_status(self) -> Optional[np.ndarray]:
        """Per-row status of the last sample (0 ok, 1 empty: no finite or +inf logit, token -1)."""
        return self._last_status

    def commit(self, step: Optional[SamplerStep] = None) -> int:
        """Commits the last sample's rows whose request is kept (``step.kept_rids``; None keeps
        every row): each token joins its request's history and seen set. Ids in kept_rids that are
        not resident are ignored. Returns the number of tokens committed."""
        kept = None if step is None else step.kept_rids
        if kept is None:
            arr = None
        else:
            if isinstance(kept, np.ndarray) or _is_torch(kept):
                kept = np.asarray(_host_ints(kept)).reshape(-1).tolist()
            cids = [self._lookup(r) for r in kept]
            arr = np.array([c for c in cids if c is not None], dtype=np.int64)
        self._on_stream()
        return self._res.commit(arr)

    def explain(self, request_ids: Sequence[Hashable], logits: Any, step: Optional[SamplerStep] = None) -> List[Explanation]:
        """The final distribution of each row without drawing (what sample would draw from)."""
        rids, ids = self._rid_array(request_ids)
        if _is_torch(logits):
            # the library explains host rows on every backend: a CUDA tensor is copied (and waited for)
            logits = logits.detach()
            if logits.device.type != "cpu":
                logits = logits.cpu()
        elif isinstance(logits, memoryview):
            logits = np.asarray(logits)  # a view (multi-dimensional memoryviews cannot be indexed by row)
        shape = tuple(getattr(logits, "shape", ()))
        if len(shape) != 2:
            raise _error(_msampler.InvalidArgument, "ESHAPE", f"logits: expected 2 dimensions (rows, vocab), got shape {shape}")
        if shape[0] != len(ids):
            raise _error(_msampler.InvalidArgument, "ESHAPE", f"logits have {shape[0]} rows for {len(ids)} request ids")
        ap, af = self._flags(step)
        width = int(shape[1])
        out = []
        for i in range(len(ids)):
            idbuf = np.empty(width, dtype=np.int32)
            probs = np.empty(width, dtype=np.float64)
            masses = np.empty(width, dtype=np.uint64)
            try:
                n, status, greedy, floor_active, total = self._res.explain(
                    int(rids[i]), logits[i], ap, af, idbuf, probs, masses)
            except _msampler.Error as e:
                raise self._translate(e, [(int(rids[i]), ids[i])]) from None
            out.append(Explanation(idbuf[:n].copy(), probs[:n].copy(), masses[:n].copy(), status, greedy,
                                   floor_active, total))
        return out
