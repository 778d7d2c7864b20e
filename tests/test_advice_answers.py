"""One answer, explained: the best play (a round tie broken by the game answer), the round
answer at every table size, and the reason said wherever the round and game answers differ.

Witnesses: the round's values by enumeration (exact fractions, tests/brute_keeps.py, as
tests/test_advise_cli.py uses them); the game's from the solvers (their own tests check them against brute-force
trees); the choice among tied keeps from those values, not from the advisor's order.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from brute_keeps import brute_beat_exact
from rules_tables import POSITION

from four21sim import Variant
from four21sim.advice import advise
from four21sim.advice.advisor import GAME_PLAYERS, ROUND_PLAYERS, best_play, players_text, wrap_text
from four21sim.advice.charts import cheat_sheet, game_note
from four21sim.advice.table_answer import advise_table
from four21sim.cli import advise as advise_cli
from four21sim.cli.play import Terminal
from four21sim.exact import nplayer, odds, two_player
from four21sim.rules import dice
from four21sim.rules.state import Turn, parse_state
from four21sim.rules.variants import MAX_PLAYERS, MIN_PLAYERS

ROOT = Path(__file__).resolve().parents[1]
SUPER = Variant.from_preset("super421")
SMALL = Variant.from_preset("super421", ["tokens=4"])  # a 3-player equilibrium solved in about a second


def run(*args, columns: int | None = 200):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "four21sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def _keep(label: str, value, index: int, stop: bool = False) -> odds.Keep:
    return odds.Keep(label, value, label.replace(" ", "").replace("_", ""), stop, index)


# ------------------------------------------------------------------ best_play, the one rule
def test_best_play_breaks_an_exact_round_tie_by_the_game():
    a, b, c = _keep("6 3 _", Fraction(1), 1), _keep("6 _ 1", Fraction(1), 2), _keep("_ _ 1", Fraction(9, 10), 3)
    pay = {1: 0.0734, 2: 0.0572, 3: 0.01}  # c is best for the game but does not tie on the round
    bp = best_play([a, b, c], pay, lower_is_better=True, game_measure="P(pay)")
    assert bp.keep is b and bp.tied == (a,)
    assert bp.note() == "(ties with 6 3 _ on the round; better for the game: P(pay) 5.72% against 7.34%)"
    # P(win the game): higher is better, the same tie the other way round
    assert best_play([a, b, c], {1: 0.6, 2: 0.5, 3: 0.9}).keep is a
    # no game answer, or a game tie (within the solvers' 1e-12): the round answer's order stands
    assert best_play([a, b, c]).keep is a and best_play([a, b, c]).note() == "(ties with 6 _ 1 on the round)"
    assert best_play([a, b, c], {1: 0.5, 2: 0.5 + 1e-13, 3: 0.9}).note() == \
        "(ties with 6 _ 1 on the round and on the game)"


def test_best_play_does_not_break_a_near_tie():
    # a round gap of 1/216^3 is no tie: the exact fractions differ
    a, b = _keep("6 3 _", Fraction(1), 1), _keep("6 _ 1", 1 - Fraction(1, 216 ** 3), 2)
    bp = best_play([a, b], {1: 0.1, 2: 0.9})
    assert bp.keep is a and bp.tied == () and bp.note() == ""


# ------------------------------------------------------------------ the round answer at every table size
def test_the_player_ranges_come_from_the_engine_and_the_solvers():
    assert ROUND_PLAYERS == (MIN_PLAYERS, MAX_PLAYERS) == (2, 8)
    # the solver reaches 8 players, but the game answer stops where a first solve stops being minutes
    assert GAME_PLAYERS == (2, nplayer.ANSWER_PLAYERS) == (2, 6) and nplayer.MAX_PLAYERS == 8
    assert (players_text("round"), players_text("game")) == ("2 to 8", "2 to 6")


@pytest.mark.parametrize("players", [3, 4, 7, 8])
def test_the_round_answer_at_n_players_is_against_the_worst_hand(players):
    # 654 then 521 on the table: the follower plays to beat 521, the worst (enumerated)
    adv = advise("631", beat=["654", "521"], throws_left=2, players=players)
    two = advise("631", beat="521", throws_left=2)
    got = {k.kept: k.value for k in adv.round}
    assert got == {k.kept: k.value for k in two.round}
    brute = brute_beat_exact((6, 3, 1), 2, (5, 2, 1))
    assert got == {"".join(map(str, k)) or "-": p for k, p in brute.items()}
    assert adv.measure == "P(beat 521)" and adv.game is None and adv.players == players


def test_advise_4_players_without_a_state_is_the_round_answer():
    proc = run("advise", "631", "--throws-left", "2", "--beat", "611", "--players", "4")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "4 players" in out.splitlines()[0] and "Game answer" not in out
    two = run("advise", "631", "--throws-left", "2", "--beat", "611").stdout
    table = [ln for ln in out.splitlines() if ln.startswith("  ")]
    assert table == [ln for ln in two.splitlines() if ln.startswith("  ")]  # the same keeps, the same numbers
    expected = brute_beat_exact((6, 3, 1), 2, (6, 1, 1))
    assert f"keep _ _ 1  ->  P(beat 611) = {100 * float(expected[(1,)]):.2f}%" in out
    assert "needs the state of the game (advise --state); the exact solvers reach 2 to 6 players." in out
    js = json.loads(run("advise", "631", "--throws-left", "2", "--beat", "611", "--players", "4", "--json").stdout)
    assert js["players"] == 4 and js["game"] is None and Fraction(js["best"]["exact"]) == expected[(1,)]


def test_advise_7_players_has_no_game_answer():
    proc = run("advise", "652", "--role", "leader", "--players", "7")
    assert proc.returncode == 0, proc.stderr
    assert "No game answer at 7 players: the exact solvers reach 2 to 6 players" in proc.stdout
    assert "with 6 followers it is a guide only" in proc.stdout


@pytest.mark.parametrize("argv,words", [
    (["631", "--players", "7", "--state", "0,1,1,1,1,1,1,5"], ["--players: 7 is not allowed with --state",
                                                              "allowed: 2 to 6", "2 to 8"]),
    (["631", "--players", "9"], ["--players: 9 is not allowed", "allowed: 2 to 8"]),
    (["631", "--players", "1"], ["--players: 1 is not allowed", "allowed: 2 to 8"]),
    (["631", "--players", "3", "--beat", "611,543,421"], ["--beat: 3 hands are not allowed at 3 players",
                                                          "up to 2"]),
    (["631", "--players", "4", "--seat", "4", "--beat", "611"], ["--seat: 4 is not allowed", "0 to 3"]),
])
def test_player_range_errors_are_one_line_exit_2(argv, words):
    proc = run("advise", *argv)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advise: error: ")
    for w in words:
        assert w in lines[0], (w, lines[0])


# ------------------------------------------------------------------ ties at a table of 3
_TIE_STATE = "pot=0,t0=1,t1=1,t2=2,leader=0"


def test_a_table_tie_is_broken_by_p_pay():
    # seat 2 throws last behind 654 and 521 with one throw left: keeping the 6 (with or without
    # the 3 or the 1) beats 521 whatever falls (enumerated: exactly 1); the game tells them apart
    adv = advise_table("631", parse_state(_TIE_STATE, 3), players=3, seat=2, beat=["654", "521"], throws_left=1,
                       variant=SMALL)
    brute = brute_beat_exact((6, 3, 1), 1, (5, 2, 1))
    ones = {k for k, p in brute.items() if p == 1}
    assert ones == {(6, 3), (6, 1), (6,)}
    tied = [k for k in adv.round if k.value == 1]
    assert [type(k.value) for k in tied] == [Fraction] * 3 and len({k.value for k in tied}) == 1
    pay = {k.index: k.value for k in adv.game}
    lowest = min(tied, key=lambda k: pay[k.index])
    # the round's tie rule (the final hand worth the most: 6 x 1) names the game's keep here too
    # (tests/test_round_ties.py); the game breaking a tie against the round's order: test_best_play_*
    assert adv.round[0].index == lowest.index
    bp = adv.best
    assert bp.keep.index == lowest.index
    assert {k.index for k in bp.tied} == {k.index for k in tied} - {lowest.index}
    js = adv.to_dict()
    assert js["best"]["keep"] == lowest.keep and sorted(js["best"]["ties_with"]) == sorted(k.keep for k in bp.tied)
    text = advise_cli_text(["631", "--players", "3", "--seat", "2", "--state", _TIE_STATE, "--beat", "654,521",
                            "--throws-left", "1", "--set", "tokens=4"])
    others = ", ".join(k.keep for k in adv.round if k.value == 1 and k.index != lowest.index)
    assert (f"Best play: keep {lowest.keep}  ->  P(beat 521) = 100.00% (ties with {others} on the round; better "
            f"for the game: P(pay) {100 * pay[lowest.index]:.2f}% against") in text


def advise_cli_text(argv) -> str:
    from four21sim.advice.advisor import format_advice
    _, adv = advise_cli.compute(argv)
    return format_advice(adv, width=1000)


@pytest.mark.slow
def test_the_readme_4_player_tie():
    # the case: 6 3 _ and 6 _ 1 both beat 521 surely; 6 _ 1 pays less often (P(pay) 5.72% against 7.34%)
    argv = ["631", "--players", "4", "--seat", "2", "--state", "pot=0,t0=3,t1=4,t2=2,t3=2,leader=0",
            "--beat", "654,521"]
    _, adv = advise_cli.compute(argv)
    exact = {k.keep: k.value for k in odds.keep_advice("631", 2, "beat", "521", exact=True)}
    assert exact["6 3 _"] == exact["6 _ 1"] == 1
    pay = {k.keep: k.value for k in adv.game}
    assert pay["6 _ 1"] < pay["6 3 _"]
    assert adv.best.keep.keep == "6 _ 1"
    # the tied keeps in the round tie rule's order (the final hand worth the most first: tests/test_round_ties.py)
    assert "Best play: keep 6 _ 1  ->  P(beat 521) = 100.00% (ties with 6 _ _, 6 3 _ on the round; better for the " \
           f"game: P(pay) {100 * pay['6 _ 1']:.2f}% against {100 * pay['6 _ _']:.2f}% for 6 _ _, " \
           f"{100 * pay['6 3 _']:.2f}% for 6 3 _" in advise_cli_text(argv)


def test_the_2_player_tie_is_the_same_best_play_in_advise_and_in_the_hint():
    # 611 behind 551, one throw left, décharge 5 tokens to 6: 6 1, 1 1 and 6 tie (exactly 1)
    adv = advise("611", beat="551", throws_left=1, state=(0, 5, 6))
    L = SUPER.throws("decharge")
    t = Turn(0, False, dice.parse_hand("611"), L - 1, L, False, dice.parse_hand("551"), 0, (5, 6), 2, (1, 0),
             ((1, dice.parse_hand("551"), L),))
    term = Terminal(SUPER, 2, 0, ["you", "optimal"], hint=True)
    a = term.answers(t)
    assert a.best.index == adv.best.index == adv.best_game.index and len(a.best.tied) == 2
    hint = term.advice(t)
    assert f"for the round, keep {' '.join(adv.best.keep.kept)} (P(beat 551) = 100.0%" in hint
    assert "(ties with" in hint and "the round answer is the game's best keep too" in hint
    assert "For the game," not in hint  # the answers agree: no reason to give


# ------------------------------------------------------------------ the reason in play's hints and the trainer
def _leader(hand: str, state=(11, 0, 0)) -> Turn:
    return Turn(0, True, dice.parse_hand(hand), 1, 3, True, None, state[0], state[1:], 2, (0, 1), ())


def _p_not_losing_to_one_throw(hand: tuple) -> Fraction:
    """A leader who stops after one throw against a follower with one throw: P(follower worse) + P(equal)/2."""
    pos = POSITION["super421"]
    mine, score = pos[hand], Fraction(0)
    for d in itertools.product(range(1, 7), repeat=3):
        other = pos[tuple(sorted(d, reverse=True))]
        score += 1 if other > mine else Fraction(1, 2) if other == mine else 0
    return score / 216


def test_the_hint_says_why_when_the_answers_differ():
    # the case: leading with 652 after one throw at the start, the round says stop, the game throw again
    t = _leader("652")
    term = Terminal(SUPER, 2, 0, ["you", "optimal"], hint=True)
    hint = term.advice(t)
    stop, empty = dice.FULL_KEEP + t.hand, dice.EMPTY_KEEP
    p_stop = _p_not_losing_to_one_throw((6, 5, 2))
    assert p_stop == Fraction(23, 36)
    win = two_player.leader_keep_values(two_player.solve(SUPER), 11, 0, 0, t.hand, 1)
    assert max(win, key=win.get) == empty and win[empty] > win[stop]
    assert f"for the round, stop (P(not losing the round) = {100 * float(p_stop):.1f}%" in hint
    assert f"for the game, throw all three again (P(win the game) = {100 * win[empty]:.1f}%" in hint
    reason = next(ln for ln in hint.splitlines() if "For the game," in ln)
    assert (f"For the game, throw all three again rather than stop: stopping on 652 gives P(not losing the round) "
            f"{100 * float(p_stop):.1f}% but P(win the game) {100 * win[stop]:.1f}%, throwing all three again "
            ) in reason
    gap = 100 * (win[empty] - win[stop])
    assert f"and {100 * win[empty]:.1f}% ({gap:+.1f} pp for the game), mostly because" in reason


def test_the_hint_has_no_reason_when_the_answers_agree():
    t = _leader("421")  # stop on 421: the best hand, for the round and for the game
    hint = Terminal(SUPER, 2, 0, ["you", "optimal"], hint=True).advice(t)
    assert "for the round, stop" in hint and "for the game, stop" in hint
    assert "the round answer is the game's best keep too" in hint and "For the game," not in hint


def test_the_trainer_says_why_when_the_answers_differ():
    out = []
    term = Terminal(SUPER, 2, 0, ["you", "optimal"], hint=False, train=True, write=out.append, width=1000)
    t = _leader("652")
    term.judge(t, dice.FULL_KEEP + t.hand)  # the round answer's keep
    text = "\n".join(out)
    assert "train: cost " in text and "why: the round answer says stop (P(not losing the round) = 63.9%). " \
        "For the game, throw all three again rather than stop: stopping on 652" in text
    out.clear()
    term.judge(_leader("421"), dice.FULL_KEEP + dice.parse_hand("421"))
    assert "train: the best keep" in out[0] and not any("why:" in ln for ln in out)


def _follower3(hand: str, beat: list[str], left: int) -> Turn:
    """Seat 2 of 3 in the décharge of _TIE_STATE, behind ``beat`` (seats 0 and 1, three throws each)."""
    rank = dice.RANK[SMALL.ranking_index]
    hs = [dice.parse_hand(b) for b in beat]
    return Turn(2, False, dice.parse_hand(hand), 3 - left, 3, False, max(hs, key=lambda h: rank[h]), 0, (1, 1, 2), 3,
                (0, 1, 2), tuple((s, h, 3) for s, h in enumerate(hs)))


def test_the_table_hint_says_why_with_p_pay():
    # 3 players (tokens=4): the tie above is no difference (no reason); a keep outside it that the game
    # prefers is one, said with both keeps' P(pay)
    state = parse_state(_TIE_STATE, 3)
    term = Terminal(SMALL, 3, 2, ["a", "b", "you"], hint=True)
    seen = set()
    for hand, beat, left in [("631", ["654", "521"], 1), ("543", ["654", "521"], 1), ("522", ["654", "611"], 2),
                             ("651", ["654", "432"], 1), ("641", ["665", "521"], 1), ("553", ["654", "542"], 2)]:
        adv = advise_table(hand, state, players=3, seat=2, beat=beat, throws_left=left, variant=SMALL)
        hint = term.advice(_follower3(hand, beat, left))
        pay = {k.index: k.value for k in adv.game}
        if adv.agree:
            assert "For the game," not in hint and "the round answer is the game's best keep too" in hint
            seen.add("agree")
            continue
        r, g = adv.best.keep, adv.best_game
        reason = next(ln for ln in hint.splitlines() if "For the game," in ln)
        assert f"P(pay) {100 * pay[r.index]:.1f}%" in reason and f"and {100 * pay[g.index]:.1f}% (paying " in reason
        assert f"(paying {100 * (pay[r.index] - pay[g.index]):.1f} pp less often)" in reason
        assert adv.explanation.startswith("For the game, ") and f"P(pay) {100 * pay[r.index]:.2f}%" in \
            adv.explanation and f"keep {g.keep}" in adv.explanation
        seen.add("differ")
    assert seen == {"agree", "differ"}


# ------------------------------------------------------------------ the cheat sheet, the wrapping
def test_the_cheat_sheet_says_it_gives_round_answers():
    note = game_note()
    assert note.startswith("Round answers: the best keep for this round alone. The game answer") and \
        "four21sim advise HAND --state" in note and "2 to 6 players" in note
    figs = cheat_sheet(SUPER, targets=["611"])
    try:
        for fig in figs:  # every page: the leader's and the follower's
            texts = [t.get_text() for ax in fig.axes for t in ax.texts]
            assert any("Round answers: the best keep for this round alone." in t for t in texts)
    finally:
        import matplotlib.pyplot as plt
        for fig in figs:
            plt.close(fig)


def test_advise_output_wraps_to_the_terminal_width():
    argv = ["advise", "631", "--players", "3", "--beat", "654,521", "--throws-left", "2"]
    for columns, width in ((None, 80), (60, 60)):
        out = run(*argv, columns=columns).stdout
        assert max(len(ln) for ln in out.splitlines()) <= width
        assert "6 3 _" in out and "Best play:" in out  # keeps are never cut across lines
    wide = run(*argv, columns=300).stdout
    assert max(len(ln) for ln in wide.splitlines()) > 80


def test_wrap_text_keeps_dice_together():
    text = wrap_text("x" * 70 + " 6 _ _ and 6 5 2 and more words", 75)
    assert text.splitlines()[1].startswith("  6 _ _")


def test_play_at_the_terminal_says_why_once():
    # seed 17 deals the person 652 on the first throw of the first round (the situation)
    proc = subprocess.run([sys.executable, "-m", "four21sim", "play", "--seed", "17", "--hint", "--train"],
                          input="stop\nq\n", cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "1000"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "You throw 6 5 2 (throw 1 of up to 3)." in out
    assert "hint: For the game, throw all three again rather than stop: stopping on 652 gives" in out
    assert "why:" not in out  # the hint said it already
    proc = subprocess.run([sys.executable, "-m", "four21sim", "play", "--seed", "17", "--train"],
                          input="stop\nq\n", cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "1000"})
    assert "  why: the round answer says stop (P(not losing the round) = 63.9%). For the game, throw all three " \
           "again rather than stop" in proc.stdout
