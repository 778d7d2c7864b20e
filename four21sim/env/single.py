"""A Gymnasium single-agent environment: one learner in one seat, fixed opponents in the others.

The opponents are any registered policy (:data:`four21sim.policies.REGISTRY`: ``optimal``,
the habits, ``random``) or plug-ins (callables taking a Turn, or ``MODULE:NAME``), one for
every other seat or one per seat. ``step`` plays the learner's keep, then the opponents
until the learner's next decision or the end of the game. The observation and the action
are the AEC environment's (:mod:`four21sim.env.observation`); the reward comes at the end
(−1 when the learner pays, −1/k when k share the loss; ``reward="win"``: +1/k when it is one
of k winners).

A game in which the learner has no decision at all (possible where a phase has a
one-throw limit) still counts: ``reset`` then returns the final observation with an
all-zero action mask and ``info["no_decision"] = True``, and the next ``step`` (any
action) returns the game's reward with ``terminated=True``.
"""

from __future__ import annotations

import os

import gymnasium
import numpy as np
from gymnasium import spaces

from .._util.checks import check_choice, check_int, check_seed
from ..advice.play import Game, seat_policies
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, as_variant
from .aec import REWARDS
from .observation import N_ACTIONS, action_mask, observation_size, observe

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env):
    """421 for one learner against fixed opponents (see the module docstring).

    Parameters
    ----------
    variant : str or Variant
    players : int
    seat : int
        The learner's seat (0 leads the first round).
    opponents : optional
        A policy for every other seat, or one per seat (the learner's entry ignored); default
        ``optimal`` with 2 players, ``greedy`` with more.
    reward : {'pay', 'win'}
    render_mode : {None, 'ansi'}
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant="super421", players: int = 2, seat: int = 0, opponents=None, reward: str = "pay",
                 render_mode: str | None = None):
        # the engine's checks (simulate): players=2.5 or "3" is a mistake, not a number to round
        self.variant, self.players = as_variant(variant), check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        seat = check_int("seat", seat, 0, self.players - 1)
        check_choice("reward", reward, REWARDS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.seat, self.reward_kind, self.render_mode = seat, reward, render_mode
        self.opponents = opponents or ("optimal" if self.players == 2 else "greedy")
        self.policies = seat_policies(self.variant, self.players, seat, self.opponents)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (observation_size(self.players),), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.game: Game | None = None
        self._seed, self._index = None, -1

    @property
    def turn(self):
        """The learner's decision waiting (a Turn: what a plug-in policy takes), or None."""
        return None if self.game is None or self.game.over else self.game.turn

    def _obs(self) -> dict:
        return {"observation": observe(self.game, self.seat), "action_mask": action_mask(self.game, self.seat)}

    def _play_opponents(self) -> None:
        while not self.game.over and self.game.turn.seat != self.seat:
            self.game.play(self.game.policy_keep(self.policies[self.game.turn.seat]))

    def _reward(self) -> float:
        res = self.game.result
        who = res.losers if self.reward_kind == "pay" else res.winners
        return (-1.0 if self.reward_kind == "pay" else 1.0) / len(who) if self.seat in who else 0.0

    def reset(self, *, seed=None, options=None):
        """A new game; ``seed`` (0 to 2**64 - 1, as in :func:`four21sim.simulate`) starts a new
        sequence of games, without it the next game of the sequence."""
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._index = seed, 0
        elif self._seed is None:
            self._seed, self._index = int.from_bytes(os.urandom(8), "little"), 0
        else:
            self._index += 1
        self.game = Game(self.variant, self.players, self._seed, game=self._index)
        self._play_opponents()
        return self._obs(), ({"no_decision": True} if self.game.over else {})

    def step(self, action):
        if self.game is None:
            raise ValueError("step: call reset first")
        if not self.game.over:
            self.game.play(int(action))
            self._play_opponents()
        done = self.game.over
        info = {} if not done else {"winners": self.game.result.winners, "losers": self.game.result.losers}
        return self._obs(), self._reward() if done else 0.0, done, False, info

    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        return "\n".join(f"{e}: {d}" for e, d in self.game.events)
