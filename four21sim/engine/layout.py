"""What a game leaves behind, declared once: the engine's counters and per-game records.

The counters of a block of games are one flat ``int64`` vector. Each counter is a
named slice of it, declared in :data:`COUNTERS` with its shape (which may depend
on the number of players and of tokens) and its meaning. Everything else derives
from this table: the offsets the kernel adds into (:func:`offsets`, read through
the ``S_*`` slot numbers), the tidy dictionary of arrays a simulation returns
(:func:`unpack`), and the keys of a study's part files.

Adding a measure: one :class:`Counter` here with its ``S_*`` slot, and its increment in
:mod:`four21sim.engine._kernels`. A count of finished games names its measure in
:attr:`Counter.rate` and ``SimulationResult.measures()`` reports it as a rate with its
interval; a measure of another form is one more line there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules import dice
from ..rules.variants import MAX_PLAYERS

SHARERS = MAX_PLAYERS + 1  # win[s, k]: games seat s won with k sharers, k = 1..MAX_PLAYERS
ROUND_BINS = 256  # histograms of rounds per game; the last bin collects longer games
SWING_BINS = 64  # swing per round
GAME_SWING_BINS = 1024  # swing over a game
MAX_COUNT = 3  # a leader throws at most three times
TAKEN_BINS = 128  # tokens a player takes in a game; the last bin collects more
SHARE_UNIT = 840  # lcm(1..8): a win or loss shared by k players is worth SHARE_UNIT // k, exactly
PHASES = 2  # charge, décharge

# symbolic dimensions, resolved per simulation
PLAYERS = "players"
TOKENS_PLUS_ONE = "tokens+1"


@dataclass(frozen=True)
class Counter:
    """One named counter: an integer sum over games.

    ``rate``, for a count of finished games: the name of the measure
    ``SimulationResult.measures()`` reports for it (the count over the finished games, with
    a Wilson interval); empty when the counter is reported otherwise. ``result``: what a
    game's result decides (who won, who paid, the places), counted with ``counters="results"`` too.
    """

    name: str
    dims: tuple
    meaning: str
    rate: str = ""
    result: bool = False

    def shape(self, players: int, tokens: int) -> tuple[int, ...]:
        size = {PLAYERS: players, TOKENS_PLUS_ONE: tokens + 1}
        return tuple(size.get(d, d) for d in self.dims)


COUNTERS: tuple[Counter, ...] = (
    Counter("games", (), "games played, runaways included", result=True),
    Counter("runaways", (), "games stopped at the round limit (counted in nothing else but draws and rounds_played)",
            result=True),
    Counter("draws", (), "draws made from the random stream", result=True),
    Counter("rounds_played", (), "rounds played, runaway games included: the denominator of per-round rates"),
    Counter("rescues", (), "rounds in which the nénette rescue applied"),
    Counter("decided_in_charge", (), "finished games with no round in the décharge", "p_decided_in_charge"),
    Counter("sum_rounds", (), "rounds of finished games"),
    Counter("sum_rounds_sq", (), "squares of the rounds of finished games"),
    Counter("sum_rounds_charge", (), "rounds in the charge of finished games"),
    Counter("sum_rounds_decharge", (), "rounds in the décharge of finished games"),
    Counter("sum_swing", (), "tokens moved over finished games"),
    Counter("sum_swing_sq", (), "squares of the tokens moved per finished game"),
    Counter("win", (PLAYERS, SHARERS), "win[s, k]: games seat s won with k winners in all", result=True),
    Counter("lose", (PLAYERS, SHARERS), "lose[s, k]: games seat s lost with k losers in all", result=True),
    Counter("place", (PLAYERS, PLAYERS), "place[s, p]: games seat s ended with p players out before it", result=True),
    Counter("rounds_charge", (ROUND_BINS,), "histogram of rounds in the charge (last bin: longer)"),
    Counter("rounds_decharge", (ROUND_BINS,), "histogram of rounds in the décharge (last bin: longer)"),
    Counter("rounds", (ROUND_BINS,), "histogram of rounds per game (last bin: longer)"),
    Counter("swing_round", (SWING_BINS,), "histogram of tokens moved per round (last bin: more)"),
    Counter("swing_game", (GAME_SWING_BINS,), "histogram of tokens moved per game (last bin: more)"),
    Counter("tokens_end_charge", (PLAYERS, TOKENS_PLUS_ONE),
            "tokens_end_charge[s, t]: games seat s ended the charge with t tokens"),
    Counter("cat_winner", (len(dice.CATEGORY_NAMES),), "rounds won by each category of hand"),
    Counter("cat_loser", (len(dice.CATEGORY_NAMES),), "rounds lost by each category of hand"),
    Counter("count", (MAX_COUNT,), "count[c-1]: rounds whose leader threw c times"),
    Counter("position", (PHASES, PLAYERS, 3), "position[phase, j]: rounds with a player j places after the "
            "leader (0 = the leader), rounds that position lost, rounds it won"),
    Counter("round1_loser", (4,), "over finished games, the round-1 loser's win share and pay share (units of "
            "1/SHARE_UNIT) and their squares", result=True),
    Counter("taken", (TAKEN_BINS,), "histogram of the tokens a player takes in a game as a round's loser, one "
            "entry per player and finished game (last bin: more)"),
    Counter("win_pairs", (PLAYERS, PLAYERS), "sums over finished games of u_s u_t, u = a seat's win share in "
            "units of 1/SHARE_UNIT: the per-game covariance of win shares", result=True),
    Counter("lose_pairs", (PLAYERS, PLAYERS), "the same for pay (loss) shares", result=True),
)
COUNTER_NAMES: tuple[str, ...] = tuple(c.name for c in COUNTERS)

RESULT_COUNTERS: tuple[str, ...] = tuple(c.name for c in COUNTERS if c.result)
"""What a game's result decides (who won, who paid, the places): the counters a simulation with
``counters="results"`` counts; the others (per round, lengths, swings, tokens) stay unread."""
COUNTER_LEVELS: tuple[str, ...] = ("all", "results")
"""The values of ``simulate(..., counters=)``."""


def slot(name: str) -> int:
    """The position of counter ``name`` in :data:`COUNTERS` (its entry in the offsets)."""
    return COUNTER_NAMES.index(name)


# Slots the kernel adds into: off[S_X] is where counter X starts in a block's vector.
S_GAMES = slot("games")
S_RUNAWAYS = slot("runaways")
S_DRAWS = slot("draws")
S_ROUNDS_PLAYED = slot("rounds_played")
S_RESCUES = slot("rescues")
S_DECIDED_IN_CHARGE = slot("decided_in_charge")
S_SUM_ROUNDS = slot("sum_rounds")
S_SUM_ROUNDS_SQ = slot("sum_rounds_sq")
S_SUM_ROUNDS_CHARGE = slot("sum_rounds_charge")
S_SUM_ROUNDS_DECHARGE = slot("sum_rounds_decharge")
S_SUM_SWING = slot("sum_swing")
S_SUM_SWING_SQ = slot("sum_swing_sq")
S_WIN = slot("win")
S_LOSE = slot("lose")
S_PLACE = slot("place")
S_ROUNDS_CHARGE = slot("rounds_charge")
S_ROUNDS_DECHARGE = slot("rounds_decharge")
S_ROUNDS = slot("rounds")
S_SWING_ROUND = slot("swing_round")
S_SWING_GAME = slot("swing_game")
S_TOKENS_END_CHARGE = slot("tokens_end_charge")
S_CAT_WINNER = slot("cat_winner")
S_CAT_LOSER = slot("cat_loser")
S_COUNT = slot("count")
S_POSITION = slot("position")
S_ROUND1_LOSER = slot("round1_loser")
S_TAKEN = slot("taken")
S_WIN_PAIRS = slot("win_pairs")
S_LOSE_PAIRS = slot("lose_pairs")


def offsets(players: int, tokens: int) -> np.ndarray:
    """Start of every counter in a block's vector, plus the vector's size at the end."""
    sizes = [int(np.prod(c.shape(players, tokens), dtype=np.int64)) for c in COUNTERS]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def unpack(flat: np.ndarray, players: int, tokens: int) -> dict[str, np.ndarray]:
    """Named views of counter vectors ``flat[..., size]``: ``{name: array[..., *shape]}``."""
    off = offsets(players, tokens)
    lead = flat.shape[:-1]
    return {c.name: flat[..., off[i]:off[i + 1]].reshape(lead + c.shape(players, tokens))
            for i, c in enumerate(COUNTERS)}


# ------------------------------------------------------------------ per-game records
RECORD_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("rounds_charge", 1, "rounds in the charge"),
    ("rounds_decharge", 1, "rounds in the décharge"),
    ("win_mask", 1, "bit s set when seat s won"),
    ("lose_mask", 1, "bit s set when seat s lost (pays)"),
    ("swing", 1, "tokens moved over the game"),
    ("draws", 1, "draws made from the random stream"),
    ("event_hash", 1, "hash of every round's loser, winner, leader, count and swing (docs/engine.md)"),
    ("tok", MAX_PLAYERS, "tokens by seat at the end of the game"),
    ("charge_tok", MAX_PLAYERS, "tokens by seat at the end of the charge"),
)


def _record_offsets() -> dict[str, int]:
    out, at = {}, 0
    for name, width, _ in RECORD_FIELDS:
        out[name] = at
        at += width
    out["width"] = at
    return out


_REC = _record_offsets()
REC_WIDTH = _REC["width"]
R_ROUNDS_CHARGE = _REC["rounds_charge"]
R_ROUNDS_DECHARGE = _REC["rounds_decharge"]
R_WIN_MASK = _REC["win_mask"]
R_LOSE_MASK = _REC["lose_mask"]
R_SWING = _REC["swing"]
R_DRAWS = _REC["draws"]
R_EVENT_HASH = _REC["event_hash"]
R_TOK = _REC["tok"]
R_CHARGE_TOK = _REC["charge_tok"]
RECORD_COLUMNS: tuple[str, ...] = tuple(
    name if width == 1 else f"{name}{s}" for name, width, _ in RECORD_FIELDS for s in range(width))
