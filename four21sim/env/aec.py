"""The PettingZoo AEC environment of 421: ``four21sim.env.env(variant=..., players=n)``.

Agents ``player_0`` ... ``player_{n-1}`` sit in seats 0 to n-1 (seat 0 leads the first
round). The agent selected is the one whose decision waits; a turn with nothing to decide
(a one-throw limit, a count of 1) plays itself, and the same agent is selected again as
long as it keeps re-throwing. The game is :class:`four21sim.advice.play.Game`: the rules
kernel and the engine's random stream, so ``reset(seed=S)`` and the same actions give the
same game (game 0 of S's stream; a later ``reset()`` without a seed plays the stream's
next game). A game that ends with no decision at all (possible where the charge has a
one-throw limit: Montreal's charge can end the game) still gives its rewards through one
step: after ``reset`` ``player_0`` is selected with an all-zero action mask and
``infos["player_0"]["no_decision"]`` True, and its step (any action) ends the game.
Rewards come at the end: ``reward="pay"`` (default) gives −1 to the payer
(−1/k to each of k payers sharing the loss) and 0 to the others; ``reward="win"`` gives
+1/k to each of k winners.
"""

from __future__ import annotations

import functools
import os

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .._util.checks import check_choice, check_int, check_seed
from ..advice.play import Game
from ..rules import dice
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, as_variant
from .observation import N_ACTIONS, action_mask, observation_size, observe

__all__ = ["env", "raw_env", "REWARDS"]

REWARDS = ("pay", "win")


def env(**kwargs):
    """The environment, wrapped as PettingZoo's classic games are (order enforced, actions in bounds)."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's name for the unwrapped environment)
    """421 for n agents (see the module docstring).

    Parameters
    ----------
    variant : str or Variant
        A preset name or a Variant (default ``super421``).
    players : int
        2 to 8.
    reward : {'pay', 'win'}
    render_mode : {None, 'human', 'ansi'}
        ``human`` prints each event; ``ansi`` makes :meth:`render` return the events so far.
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "four21sim_v0", "is_parallelizable": False}

    def __init__(self, variant="super421", players: int = 2, reward: str = "pay", render_mode: str | None = None):
        super().__init__()
        self.variant = as_variant(variant)
        # the engine's checks (simulate): players=2.5 or "3" is a mistake, not a number to round
        players = check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        check_choice("reward", reward, REWARDS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.players, self.reward_kind, self.render_mode = players, reward, render_mode
        self.possible_agents = [f"player_{s}" for s in range(self.players)]
        size = observation_size(self.players)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None
        self._seed, self._index, self._log = None, -1, []

    @functools.lru_cache(maxsize=None)  # noqa: B019  (PettingZoo's convention: the same space object each call)
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def turn(self):
        """The decision waiting (a :class:`four21sim.rules.state.Turn`: what a plug-in policy takes), or None."""
        return None if self.game is None else self.game.turn

    def observe(self, agent):
        s = self.possible_agents.index(agent)
        return {"observation": observe(self.game, s), "action_mask": action_mask(self.game, s)}

    def reset(self, seed=None, options=None):
        """A new game; ``seed`` (0 to 2**64 - 1, as in :func:`four21sim.simulate`) starts a new
        sequence of games, without it the next game of the sequence."""
        if seed is not None:
            self._seed, self._index = check_seed(seed), 0
        elif self._seed is None:
            self._seed, self._index = int.from_bytes(os.urandom(8), "little"), 0
        else:
            self._index += 1
        self._log = []
        self.game = Game(self.variant, self.players, self._seed, game=self._index, report=self._event)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._no_decision = self.game.over
        if self._no_decision:
            self.agent_selection = self.agents[0]
            self.infos[self.agents[0]] = {"no_decision": True}
        else:
            self._select()

    def _event(self, event: str, data: dict) -> None:
        self._log.append(_event_text(event, data))
        if self.render_mode == "human":
            print(self._log[-1])

    def _select(self) -> None:
        if self.game.over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game.turn.seat]

    def _finish(self) -> None:
        res = self.game.result
        who = res.losers if self.reward_kind == "pay" else res.winners
        sign = -1.0 if self.reward_kind == "pay" else 1.0
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = sign / len(who) if s in who else 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._no_decision:  # the game ended without a decision: this step delivers its end
            self._no_decision = False
            self.infos[agent] = {}
            self._finish()
            return
        keep = int(action)
        if keep not in self.game.turn.keeps():
            t = self.game.turn
            raise ValueError(f"action: {keep} is not allowed for {agent} holding {dice.hand_name(t.hand)}; allowed: "
                             f"the keeps its action_mask marks, {t.keeps()}")
        self.game.play(keep)
        self._select()

    def render(self):
        if self.render_mode is None:
            return None
        text = "\n".join(self._log)
        return text if self.render_mode == "ansi" else None

    def close(self):
        self.game = None


def _event_text(event: str, d: dict) -> str:
    """One line per event, for ``render``."""
    if event == "round":
        return f"round {d['number']} ({d['phase']}, pot {d['pot']}, tokens {d['tokens']}): player_{d['leader']} leads"
    if event == "throw":
        return f"  player_{d['seat']} throws {dice.hand_name(d['hand'])} ({d['made']} of {d['limit']})"
    if event == "keep":
        return f"    and keeps {dice.keep_label(d['hand'], d['keep'])}"
    if event == "result":
        return (f"  player_{d['winner']} wins the round, player_{d['loser']} loses it; {d['swing']} token(s) move; "
                f"tokens {d['tokens']}")
    return f"game over after {d['rounds']} rounds: winners {d['winners']}, paying {d['losers']}"
