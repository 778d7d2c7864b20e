"""A compiled policy: the decision tables the engine indexes, and their checks.

Every table policy is two arrays of keep indices (docs/engine.md):

``lead[ctx, throws_left - 1, hand]``
    the leader's keep with ``throws_left`` (1 or 2) throws still allowed;
``foll[ctx, target, count - 1, made - 1, hand]``
    a follower's keep after ``made`` throws out of the round's ``count``, when
    ``target`` is the worst hand on the table so far (the leader's hand in context
    mode 2).

``ctx`` is 0 in context mode 0; the other modes are :mod:`four21sim.policies.contexts`.
In context mode 3 (``CTX_COMPACT``, an n-player equilibrium) the follower table is
``foll[row, made - 1, hand]``, a row per context of the solver, and ``aux`` says which row.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field

import numpy as np

from ..rules import dice
from ..rules.variants import Variant
from . import contexts as C

__all__ = ["Policy", "KEEP_DTYPE", "stop_tables", "table_policy", "check_policy"]

KEEP_DTYPE = dice.KEEP_DTYPE
_NH = dice.N_HANDS


@dataclass(frozen=True, eq=False)
class Policy:
    """A compiled policy: what the engine reads.

    Attributes
    ----------
    name : str
    kind : {'table', 'random'}
    ctx_mode : int
        0: decisions ignore the token state; 1: indexed by ``pot * (tokens+1) + own``;
        2: indexed by the round's state and the hands before (docs/engine.md).
    lead, foll : ndarray of int8
        Decision tables (see the module docstring); empty for ``random``.
    variant : Variant
        The variant the tables were built for.
    players : int or None
        The player count the policy is built for, or None if it fits any.
    info : dict
        What the builder wants known (a threshold, exact values, ...).
    aux : ndarray of int64
        Context mode 3 only: where each decision's row is (:mod:`four21sim.policies.contexts`).
    """

    name: str
    kind: str
    ctx_mode: int
    lead: np.ndarray
    foll: np.ndarray
    variant: Variant
    players: int | None = None
    info: dict = field(default_factory=dict)
    aux: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def leader_keep(self, hand: int, throws_left: int, ctx: int = 0) -> int:
        """The leader's keep index for a hand with 1 or 2 throws left."""
        return int(self.lead[ctx, throws_left - 1, hand])

    def follower_keep(self, hand: int, target: int, count: int, made: int, ctx: int = 0) -> int:
        """A follower's keep index after ``made`` of ``count`` throws against ``target``."""
        return int(self.foll[ctx, target, count - 1, made - 1, hand])


def stop_tables(n_ctx: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Tables that stop on every hand in every context (a builder's starting point)."""
    stop = (dice.FULL_KEEP + np.arange(_NH)).astype(KEEP_DTYPE)
    lead = np.broadcast_to(stop, (n_ctx, 2, _NH)).copy()
    foll = np.broadcast_to(stop, (n_ctx, _NH, 3, 2, _NH)).copy()
    return lead, foll


def table_policy(name: str, variant: Variant, lead: np.ndarray, foll: np.ndarray, ctx_mode: int = 0,
                 players: int | None = None, info: dict | None = None, aux: np.ndarray | None = None) -> Policy:
    """Wrap decision tables as a :class:`Policy` after checking they are legal."""
    pol = Policy(name, "table", ctx_mode, np.ascontiguousarray(lead, dtype=KEEP_DTYPE),
                 np.ascontiguousarray(foll, dtype=KEEP_DTYPE), variant, players, info or {},
                 np.ascontiguousarray(aux if aux is not None else np.zeros(0), dtype=np.int64))
    check_policy(pol, variant)
    return pol


_LEGAL = np.zeros((_NH, dice.N_KEEPS), dtype=bool)
for _h in range(_NH):
    _LEGAL[_h, dice.keeps_of(_h)] = True
# (count-1, made-1) pairs a follower meets: made < count
_USED = np.zeros((3, 2), dtype=bool)
_USED[1, 0] = _USED[2, 0] = _USED[2, 1] = True


def _check_keeps(policy: Policy, variant: Variant) -> None:
    lead, foll = policy.lead, policy.foll
    hands = np.arange(_NH)
    if ((lead < 0) | (lead >= dice.N_KEEPS)).any() or not _LEGAL[hands, lead].all():
        raise ValueError(f"policies: policy {policy.name!r} keeps dice its leader does not hold")
    foll = _distinct_rows(foll)
    for lo in range(0, foll.shape[0], 2048):  # in blocks: the 3-player tables are large
        part = foll[lo:lo + 2048]
        if ((part < 0) | (part >= dice.N_KEEPS)).any() or not _LEGAL[hands, part].all():
            raise ValueError(f"policies: policy {policy.name!r} keeps dice its follower does not hold")
        if variant.followers == "exact" and (part == (dice.FULL_KEEP + hands))[:, :, _USED, :].any():
            raise ValueError(f"policies: policy {policy.name!r} lets a follower stop early, "
                             "which the 'exact' follower rule forbids")


def _distinct_rows(table: np.ndarray) -> np.ndarray:
    """The distinct rows (contexts) of a follower table, each once: a row's checks do not depend on
    its context, and tables built by context group repeat a few rows over many contexts."""
    first: dict[bytes, int] = {}
    for i in range(table.shape[0]):
        first.setdefault(hashlib.sha256(np.ascontiguousarray(table[i])).digest(), i)
    return table if len(first) == table.shape[0] else table[list(first.values())]


def _check_compact(policy: Policy, variant: Variant) -> None:
    """The checks of a ``CTX_COMPACT`` policy: shapes, legal keeps, no early stop under ``exact``
    (the rows' layout is its builder's: :func:`four21sim.policies.optimal.engine_tables_compact`)."""
    lead, foll, hands = policy.lead, policy.foll, np.arange(_NH)
    if lead.ndim != 3 or lead.shape[1:] != (2, _NH) or foll.ndim != 3 or foll.shape[1:] != (2, _NH) \
            or policy.aux.ndim != 1 or policy.aux.size < C.AUX_HEADER:
        raise ValueError(f"policies: policy {policy.name!r} has tables of the wrong shape "
                         f"{lead.shape} / {foll.shape} / {policy.aux.shape}")
    if ((lead < 0) | (lead >= dice.N_KEEPS)).any() or not _LEGAL[hands, lead].all():
        raise ValueError(f"policies: policy {policy.name!r} keeps dice its leader does not hold")
    for lo in range(0, foll.shape[0], 1 << 16):  # in blocks: the tables are large
        part = foll[lo:lo + (1 << 16)]
        if ((part < 0) | (part >= dice.N_KEEPS)).any() or not _LEGAL[hands, part].all():
            raise ValueError(f"policies: policy {policy.name!r} keeps dice its follower does not hold")
        if variant.followers == "exact" and (part == (dice.FULL_KEEP + hands)).any():
            raise ValueError(f"policies: policy {policy.name!r} lets a follower stop early, "
                             "which the 'exact' follower rule forbids")


def check_policy(policy: Policy, variant: Variant, players: int | None = None) -> None:
    """Raise ValueError unless ``policy`` fits ``variant`` (and ``players``) and its tables are legal."""
    if policy.variant != variant:
        raise ValueError(f"policies: policy {policy.name!r} was built for {policy.variant.describe()}, "
                         f"not for {variant.describe()}; compile it for this variant")
    if players is not None and policy.players is not None and policy.players != players:
        raise ValueError(f"policies: policy {policy.name!r} was built for {policy.players} players, not {players}")
    if policy.kind == "random":
        return
    # Every simulate() checks every seat's tables again (a search plays the same tables hundreds of
    # times): tables whose content passed for this variant and context mode pass again, by digest
    # (their arrays may have been changed in place since, so never by identity).
    key = _content_key(policy, variant)
    if key is not None and key in _PASSED:
        return
    _check_tables(policy, variant)
    if key is None:
        return
    with _PASSED_LOCK:  # threads of one process (a threaded scheduler) may check at once
        if len(_PASSED) >= _PASSED_MAX:
            del _PASSED[next(iter(_PASSED))]
        _PASSED[key] = None


_PASSED: dict[tuple, None] = {}  # the keys of tables that passed, oldest first
_PASSED_MAX = 256
_PASSED_LOCK = threading.Lock()


def _content_key(policy: Policy, variant: Variant) -> tuple | None:
    """What the table checks read: the context mode, the variant, and a digest of the tables' types,
    shapes and contents (None for tables that are not integer arrays: those are checked every time)."""
    arrays = [np.ascontiguousarray(a) for a in (policy.lead, policy.foll, policy.aux)]
    if any(a.dtype.kind not in "iu" or a.ndim == 0 for a in arrays):
        return None
    digest = hashlib.sha256()  # the fastest of hashlib here (2.3 MB of 4-player tables: 1.3 ms)
    for a in arrays:
        digest.update(f"{a.dtype.str}{a.shape};".encode())
        digest.update(a.view(np.uint8).reshape(-1))
    return policy.ctx_mode, variant, digest.digest()


def _check_tables(policy: Policy, variant: Variant) -> None:
    lead, foll = policy.lead, policy.foll
    if policy.ctx_mode == C.CTX_COMPACT:
        _check_compact(policy, variant)
        return
    if lead.ndim != 3 or lead.shape[1:] != (2, _NH) or foll.ndim != 5 or foll.shape[1:] != (_NH, 3, 2, _NH) \
            or lead.shape[0] != foll.shape[0]:
        raise ValueError(f"policies: policy {policy.name!r} has tables of the wrong shape "
                         f"{lead.shape} / {foll.shape}")
    _check_keeps(policy, variant)
    need = C.rows(policy.ctx_mode, variant)
    if need is not None and lead.shape[0] != need:
        raise ValueError(f"policies: policy {policy.name!r} has {lead.shape[0]} contexts, needs {need}")
