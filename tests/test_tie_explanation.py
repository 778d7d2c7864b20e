"""Where the game answer ties too, every answer names the same keep: the best play, the game's box and the
explanation (issue 47's smaller defect).

The situation, at a table of 3 under Super 421 (the shipped equilibrium): seat 2 holds 521 with one throw
left of two, behind the leader's 222 and seat 1's 441, in the décharge with seats 0 to 2 holding 1, 7 and 3
tokens. Keeping the 5 (``5 _ _``, ``5 2 _``, ``5 _ 1``) ends on a hand above 441 whatever falls (every hand
5xx: enumerated below, exact fractions), so seat 1 loses the round and receives the winner's payout: the
leader's 222 (worth 2, it holds 1) gives its last token and is out, or seat 2's 511 or 555 (worth 5, it holds
3) gives its last three and is out; either way the game ends at once with seat 1 holding the most tokens, so
seat 2 pays with probability 0 after each of the three keeps (docs/rules.md: first_out, the losers hold the
most tokens). Three keeps tie on the round and on the game: the game answer names the first of them in the
keep order (``dice.HAND_KEEPS``: stop, then more dice kept, then higher dice), and so must the best play and
the explanation. Before, the best play named the first in the round's order (``5 _ 1``, the round tie rule's:
the final hand worth the most) and the explanation said the game answer "breaks the tie" with it, while the
game's line named ``5 2 _``.
"""

from __future__ import annotations

from fractions import Fraction

from brute_keeps import brute_beat_exact

from four21sim.advice.advisor import best_play, format_advice
from four21sim.cli import advise as advise_cli
from four21sim.exact import odds
from four21sim.rules import dice

ARGV = ["521", "--throws-left", "1", "--beat", "222,441", "--count", "2", "--players", "3", "--seat", "2",
        "--state", "pot=0,t0=1,t1=7,t2=3,leader=0"]
TIED = {(5,): "5 _ _", (5, 2): "5 2 _", (5, 1): "5 _ 1"}


def _first_in_keep_order(hand: str, labels) -> str:
    h = dice.hand_index(tuple(int(c) for c in hand))
    order = [dice.keep_label(h, int(k)) for k in dice.HAND_KEEPS[h, :dice.N_HAND_KEEPS[h]]]
    return min(labels, key=order.index)


def test_the_witnesses_three_keeps_tie_on_the_round_and_on_the_game():
    brute = brute_beat_exact((5, 2, 1), 1, (4, 4, 1))
    assert {TIED[k] for k, p in brute.items() if p == 1} == set(TIED.values())  # the three, and only they
    js = advise_cli.advise(ARGV)
    assert {k["keep"]: Fraction(k["exact"]) for k in js["keeps"] if k["keep"] in TIED.values()} == \
        dict.fromkeys(TIED.values(), Fraction(1))
    pay = {k["keep"]: k["p_pay"] for k in js["game"]["keeps"]}
    assert all(abs(pay[k]) <= 1e-12 for k in TIED.values()), pay  # the game ends at once, seat 1 the loser


def test_the_best_play_the_games_box_and_the_explanation_name_one_keep():
    want = _first_in_keep_order("521", TIED.values())
    assert want == "5 2 _"
    js = advise_cli.advise(ARGV)
    assert js["game"]["best"]["keep"] == want  # the game answer's tie rule (keep_order)
    assert js["best"]["keep"] == want and sorted(js["best"]["ties_with"]) == sorted(set(TIED.values()) - {want})
    assert js["best"]["note"] == f"(ties with {', '.join(js['best']['ties_with'])} on the round and on the game)"
    why = js["explanation"]
    assert "breaks the tie" not in why, why  # nothing breaks it: they tie on the game too
    assert f"They tie on P(pay) too (0.00%): both answers name keep {want}, the first of them in the keep order" in why
    _, adv = advise_cli.compute(ARGV)
    text = format_advice(adv, width=200)
    assert f"Best play: keep {want}  ->" in text and f"Best play for the game: keep {want}  ->" in text


def _keep(label: str, value, index: int) -> odds.Keep:
    return odds.Keep(label, value, label.replace(" ", "").replace("_", ""), False, index)


def test_best_play_follows_the_game_answers_own_keep_among_keeps_equal_on_the_game():
    a, b, c = _keep("5 _ 1", Fraction(1), 1), _keep("5 2 _", Fraction(1), 2), _keep("5 _ _", Fraction(1), 3)
    d = _keep("_ _ 1", Fraction(1, 2), 4)
    # the game's rows as the game answer ranks them (b first by its tie rule), all equal but d
    rows = [_keep("5 2 _", 0.0, 2), _keep("5 _ 1", 0.0, 1), _keep("5 _ _", 1e-13, 3), _keep("_ _ 1", 0.2, 4)]
    bp = best_play([a, b, c, d], rows, lower_is_better=True, game_measure="P(pay)")
    assert bp.keep is b and bp.tied == (a, c)
    assert bp.note() == "(ties with 5 _ 1, 5 _ _ on the round and on the game)"
    # the same by a mapping and the game's keep given
    pay = {k.index: k.value for k in rows}
    assert best_play([a, b, c, d], pay, lower_is_better=True, game_best=2).keep is b
    # where the game answer's keep is not among the round's tied keeps, the round's order stands among equals
    assert best_play([a, c, b, d], pay, lower_is_better=True, game_best=4).keep is a
    # and where the game tells the tied keeps apart, the better for the game, whatever its own keep
    assert best_play([a, b, c, d], {1: 0.1, 2: 0.3, 3: 0.2, 4: 0.0}, lower_is_better=True, game_best=4).keep is a


def test_two_players_the_same_where_every_keep_of_the_4_wins_the_game():
    # a follower's 441 behind 331, one throw left of three, pot 1, you 0, the opponent 10 (the charge): every hand
    # 4xx is above 331 (enumerated), so the opponent loses the round and takes the pot's last token; the pot
    # empty, you hold none and are out: you win the game, P = 1 after 4 _ _, 4 4 _ and 4 _ 1 alike
    brute = brute_beat_exact((4, 4, 1), 1, (3, 3, 1))
    tied = {(4,): "4 _ _", (4, 4): "4 4 _", (4, 1): "4 _ 1"}
    assert {tied[k] for k, p in brute.items() if p == 1} == set(tied.values())
    argv = ["441", "--throws-left", "1", "--beat", "331", "--count", "3", "--state", "1,0,10"]
    js = advise_cli.advise(argv)
    win = {k["keep"]: k["p_win_game"] for k in js["game"]["keeps"]}
    assert all(abs(win[k] - 1.0) <= 1e-12 for k in tied.values()), win
    want = _first_in_keep_order("441", tied.values())
    assert want == "4 4 _" and js["game"]["best"]["keep"] == js["best"]["keep"] == want
    why = js["explanation"]
    assert "breaks it" not in why and \
        f"They tie on P(win the game) too (100.00%): both answers name keep {want}, the first of them" in why, why


def test_where_the_round_answers_keep_ties_on_the_game_with_the_games_the_explanation_names_both():
    # seat 2 of 3 holds 6 tokens, the others none, 5 in the pot (the charge): in the charge tokens only leave the
    # pot, so when it is empty seat 2 holds 6 of 11, the most: it pays with probability 1 whatever it keeps. The
    # round answer (_ _ 1 against 644, alone) and the game answer (the first keep in the keep order: 5 3 _) are
    # then different keeps, equal on the game; before, the explanation said they agree naming _ _ 1 alone
    argv = ["531", "--throws-left", "2", "--beat", "644,421", "--count", "3", "--players", "3", "--seat", "2",
            "--state", "pot=5,t0=0,t1=0,t2=6,leader=0"]
    js = advise_cli.advise(argv)
    assert all(abs(k["p_pay"] - 1.0) <= 1e-12 for k in js["game"]["keeps"])
    brute = brute_beat_exact((5, 3, 1), 2, (6, 4, 4))
    top = max(brute.values())
    assert [k for k, p in brute.items() if p == top] == [(1,)] and js["best"]["keep"] == "_ _ 1"
    labels = [k["keep"] for k in js["game"]["keeps"]]
    want = _first_in_keep_order("531", labels)
    assert want == "5 3 _" and js["game"]["best"]["keep"] == want
    assert js["explanation"] == ("The round and game answers agree: keep _ _ 1 (P(beat 644) 70.83%, P(pay) 100.00%). "
                                 f"It ties on P(pay) with keep {want}, which the game answer names, the first of them "
                                 "in the keep order (stop, then more dice kept, then higher dice).")


def test_the_hints_and_the_trainer_name_the_game_answers_own_keep_too():
    # the same situation met in a game (`play --hint`, `--train`): the trainer's best play is the one
    # advise names, the game answer's own keep among the three tied on the round and the game
    from four21sim import Variant
    from four21sim.advice.trainer import Trainer
    from four21sim.rules.state import Turn

    h = dice.hand_index
    turn = Turn(seat=2, leading=False, hand=h((5, 2, 1)), made=1, limit=2, may_stop=True, target=h((4, 4, 1)),
                pot=0, tokens=(1, 7, 3), players=3, order=(0, 1, 2), table=((0, h((2, 2, 2)), 2), (1, h((4, 4, 1)), 2)))
    ans = Trainer(Variant.from_preset("super421"), 3).answers(turn)
    label = dice.keep_label(turn.hand, ans.best.index)
    assert dice.keep_label(turn.hand, ans.game.best) == label == _first_in_keep_order("521", TIED.values())
    assert {dice.keep_label(turn.hand, k.index) for k in ans.best.tied} == set(TIED.values()) - {label}
