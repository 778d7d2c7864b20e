"""Numbers and hands a person types, read by one rule everywhere (four21sim._util.checks.typed_int:
ASCII digits, an optional sign), and refusals that repeat a bad input only shortened (``shown``).

Python's ``int`` takes "٣" (ARABIC-INDIC DIGIT THREE), "1_0" and thousands of digits; a hand
(three dice 1-6) never did, so ``--state pot=٣`` was read as 3 where a hand "٣21" was refused.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from four21sim._util.checks import parse_int, typed_int
from four21sim.cli import advise, play, solve, sweep
from four21sim.rules import dice
from four21sim.rules.state import STATE_FORMS, parse_keep, parse_state
from four21sim.rules.variants import Variant

REPO = Path(__file__).resolve().parents[1]
BIG = "6" * 200_000  # a paste: more than one argument of a command line may hold (131,072 bytes on Linux)


def _error_lines(err: str) -> list[str]:
    """The lines of stderr but a compile notice (a refusal compiles nothing; a notice is not an error)."""
    return [line for line in err.splitlines() if "compiling" not in line]


def _refused(console, argv, capsys, name: str, longest: int = 300) -> str:
    assert console(argv) == 2
    out = capsys.readouterr()
    lines = _error_lines(out.err)
    assert len(lines) == 1, out.err[:2000]
    assert f"error: {name}:" in lines[0] and "allowed" in lines[0] and "Traceback" not in out.err
    assert len(lines[0]) < longest, lines[0][:400]
    return lines[0]


@pytest.mark.parametrize("text,want", [("12", 12), (" 7 ", 7), ("-1", -1), ("+3", 3), ("0", 0),
                                       ("٣", None), ("1_0", None), ("３", None), ("1.0", None), ("", None),
                                       ("1e3", None), ("0x10", None), ("1" * 40, int("1" * 40)),
                                       ("1" * 5000, None), (3, None)])
def test_the_one_rule_for_typed_numbers(text, want):
    assert typed_int(text) == want


def test_parse_int_names_the_option_and_the_digits():
    with pytest.raises(ValueError, match=r"^--count: '٣' is not allowed; allowed: an integer in digits 0-9$"):
        parse_int("--count", "٣")
    with pytest.raises(ValueError, match=r"^--seat: .4. is not allowed; allowed: an integer in digits 0-9 from 0 "
                                         r"to 3$"):
        parse_int("--seat", "4", 0, 3)


@pytest.mark.parametrize("text", ["pot=٣,mine=4,theirs=4", "pot=1_1,mine=0,theirs=0", "١١,0,0", "11,0,0,١",
                                  "pot=11,mine=0,theirs=0,leader=٠", "pot=5,t0=2,t1=٣,t2=1"])
def test_the_state_parser_takes_ascii_digits_only(text):
    # each of these was read by int(): pot=٣ as 3, 1_1 as 11, and so on
    players = 3 if "t2" in text else 2
    with pytest.raises(ValueError, match=r"^--state: .* is not allowed .*not a number in digits 0-9"):
        parse_state(text, players, option="--state")


@pytest.mark.parametrize("state", ["pot=٣,mine=4,theirs=4", "pot=1_0,mine=1,theirs=0"])
def test_advise_refuses_such_a_state_in_one_line(state):
    proc = subprocess.run([sys.executable, "-m", "four21sim", "advise", "631", "--state", state], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("advise: error: --state:"), proc.stderr
    assert "not a number in digits 0-9" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("console,argv,name", [
    (advise.console, ["631", "--beat", "611", "--count", "٣"], "--count"),
    (advise.console, ["631", "--throws-left", "1_0"], "--throws-left"),
    (advise.console, ["631", "--players", "٣"], "--players"),
    (advise.console, ["631", "--players", "2.5"], "--players"),
    (advise.console, ["631", "--players", "3", "--seat", "١"], "--seat"),
    (advise.console, ["631", "--beat", "611:٢"], "--beat"),
    (advise.console, ["631", "--set", "tokens=١١"], "tokens"),
    (advise.console, ["631", "--set", "tokens=1_1"], "tokens"),
    (play.console, ["--players", "٣"], "--players"),
    (play.console, ["--players", "3", "--seat", "١"], "--seat"),
    (play.console, ["--seed", "1_0"], "--seed"),
    (play.console, ["--game", "٢"], "--game"),
    (play.console, ["--games", "1_0"], "--games"),
])
def test_every_typed_number_of_advise_and_play_follows_the_rule(console, argv, name, capsys):
    _refused(console, argv, capsys, name)


@pytest.mark.parametrize("read,name", [
    (lambda: solve._parse_players("٣"), "--players"),
    (lambda: solve._parse_seat("١", 3), "--seat"),
    (lambda: solve._parse_follower("611,٢", 3), "--follower"),
    (lambda: sweep.study_from_args(sweep.build_parser().parse_args(["--games", "١٠"])), "--games"),
    (lambda: sweep.study_from_args(sweep.build_parser().parse_args(["--seed", "4_21"])), "--seed"),
    (lambda: sweep.study_from_args(sweep.build_parser().parse_args(["--workers", "٢"])), "--workers"),
    (lambda: sweep.study_from_args(sweep.build_parser().parse_args(["--players", "٣"])), "--players"),
])
def test_every_typed_number_of_solve_and_sweep_follows_the_rule(read, name):
    # the readers, not the commands: before the rule "--players ٣" solved a 3-player game and
    # "--games ١٠" ran a study
    with pytest.raises(ValueError, match=f"^{name}: .*allowed"):
        read()


def test_hands_and_keeps_were_already_ascii():
    # the rule the numbers now follow: the hand and keep parsers never took other digits
    for text in ("٤٢١", "4_2_1"):
        with pytest.raises(ValueError, match="^hand:"):
            dice.parse_hand(text)
    with pytest.raises(ValueError, match="^keep:"):
        parse_keep("٢", dice.parse_hand("421"))
    assert Variant.from_preset("super421", ["tokens=21"]).tokens == 21


# ------------------------------------------------------------- a paste repeated only shortened
@pytest.mark.parametrize("argv,name", [
    ([BIG], "hand"),
    (["631", "--beat", BIG], "--beat"),
    (["631", "--beat", "611:" + BIG], "--beat"),
    (["631", "--reach", BIG], "--reach"),
    (["631", "--count", BIG], "--count"),
    (["631", "--throws-left", BIG], "--throws-left"),
    (["631", "--set", "tokens=" + BIG], "tokens"),
    (["631", "--set", BIG], "--set"),
    (["631", "--set", BIG + "=1"], "--set"),
    (["--chart", "super421", "--out", "x.pdf", BIG], "hand"),
])
def test_a_pasted_megabyte_is_not_repeated(argv, name, capsys):
    # each error repeated the whole value: a 200,000-digit hand gave a 200 kB line
    _refused(advise.console, argv, capsys, name)


@pytest.mark.parametrize("state", [BIG, "pot=" + BIG, "pot=1,mine=" + BIG + ",theirs=0", "pot=1,x" + BIG + "=1"])
def test_a_pasted_state_is_not_repeated(state, capsys):
    # the state's error says the forms allowed (STATE_FORMS), so the bound is that plus one short line
    _refused(advise.console, ["631", "--state", state], capsys, "--state", 300 + len(STATE_FORMS))


def test_a_pasted_keep_is_not_repeated():
    with pytest.raises(ValueError) as exc:
        parse_keep("1" * 200_000, dice.parse_hand("421"))
    assert str(exc.value).startswith("keep:") and len(str(exc.value)) < 300


def test_a_pasted_policy_name_is_not_repeated():
    # sweep --lineups, simulate(policies=...) and solve --against name policies typed by a person
    from four21sim.policies.against import resolve_against
    from four21sim.policies.registry import canonical_name
    for call in (lambda: canonical_name("x" * 200_000),
                 lambda: resolve_against(Variant.from_preset("super421"), 3, ["x" * 200_000, "greedy"])):
        with pytest.raises(ValueError) as exc:
            call()
        assert "200,002 characters" in str(exc.value) and len(str(exc.value)) < 400, str(exc.value)[:400]
