"""What a player at the table sees, as the vector the environments give (docs/environment.md).

Every entry is in [0, 1]; seats are *relative* to the observer (0 is the observer, 1 the
next seat, ...), so one policy can sit in any seat. Blocks, in order (n = players):

==========================  =====  ==================================================
block                       size   what
==========================  =====  ==================================================
``hand``                    56     the hand being decided on, one-hot (zeros between decisions)
``deciding``                n      the relative seat of the player deciding, one-hot
``made``                    3      throws made by it, one-hot (1, 2, 3)
``limit``                   3      its throw limit this turn, one-hot
``flags``                   4      it leads; it may stop; the charge is on; I decide
``target``                  56     the worst hand on the table so far (a follower), one-hot
``pot``                     1      tokens in the pot / tokens
``tokens``                  n      every seat's tokens / tokens
``in_play``                 n      who plays this round
``leader``                  n      the round's leader, one-hot
``table``                   56 n   the final hand of each seat that already played this round
``throws``                  n      and its throws / 3
==========================  =====  ==================================================

The action is a keep index (:data:`four21sim.rules.dice.KEEPS`): the dice kept, the whole
hand to stop; ``action_mask`` marks the legal keeps of the player deciding.
"""

from __future__ import annotations

import numpy as np

from ..rules import dice

__all__ = ["observation_size", "observe", "action_mask", "N_ACTIONS", "BLOCKS"]

N_ACTIONS = dice.N_KEEPS
_NH = dice.N_HANDS


def BLOCKS(n: int) -> list[tuple[str, int]]:  # noqa: N802  (a table of the layout, read like a constant)
    """The observation's blocks and their sizes for ``n`` players (the module docstring's table)."""
    return [("hand", _NH), ("deciding", n), ("made", 3), ("limit", 3), ("flags", 4), ("target", _NH), ("pot", 1),
            ("tokens", n), ("in_play", n), ("leader", n), ("table", _NH * n), ("throws", n)]


def observation_size(n: int) -> int:
    return sum(size for _, size in BLOCKS(n))


def _offsets(n: int) -> dict[str, int]:
    out, at = {}, 0
    for name, size in BLOCKS(n):
        out[name] = at
        at += size
    return out


def observe(game, seat: int) -> np.ndarray:
    """The observation of ``seat`` in ``game`` (a :class:`four21sim.advice.play.Game`)."""
    n, T = game.players, game.variant.tokens
    o = _offsets(n)
    x = np.zeros(observation_size(n), dtype=np.float32)

    def rel(s: int) -> int:
        return (s - seat) % n

    x[o["pot"]] = game.pot / T
    for s in range(n):
        x[o["tokens"] + rel(s)] = game.tok[s] / T
    t = game.turn
    if t is None:
        return x
    x[o["hand"] + t.hand] = 1
    x[o["deciding"] + rel(t.seat)] = 1
    x[o["made"] + t.made - 1] = 1
    x[o["limit"] + t.limit - 1] = 1
    x[o["flags"]:o["flags"] + 4] = (t.leading, t.may_stop, t.pot > 0, t.seat == seat)
    if t.target is not None:
        x[o["target"] + t.target] = 1
    for s in range(n):  # the tokens before the round: what the round is played for
        x[o["tokens"] + rel(s)] = t.tokens[s] / T
    for s in t.order:
        x[o["in_play"] + rel(s)] = 1
    x[o["leader"] + rel(t.order[0])] = 1
    for s, h, f in t.table:
        x[o["table"] + rel(s) * _NH + h] = 1
        x[o["throws"] + rel(s)] = f / 3
    return x


def action_mask(game, seat: int) -> np.ndarray:
    """1 for the legal keeps of ``seat`` if it decides now, else zeros."""
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    t = game.turn
    if t is not None and t.seat == seat:
        m[t.keeps()] = 1
    return m
