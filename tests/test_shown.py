"""Error messages repeat a bad value shortened and with its control characters escaped."""

import pytest

from four21sim._util.checks import SHOWN_CHARS, check_choice, check_int, shown


def test_a_huge_value_is_cut_and_its_length_said():
    msg = shown("9" * 1_000_000)
    assert len(msg) < SHOWN_CHARS + 40
    assert "1,000,002 characters" in msg  # the repr's quotes count


def test_a_short_value_is_its_repr():
    assert shown("631") == "'631'"
    assert shown(2.5) == "2.5"


def test_an_escape_sequence_is_shown_not_obeyed():
    msg = shown("\x1b[2J\x1b[31mred")
    assert "\x1b" not in msg and "\\x1b" in msg


@pytest.mark.parametrize("check", [lambda v: check_int("games", v, 1), lambda v: check_choice("variant", v, ["a"])])
def test_the_checks_give_one_short_line(check):
    with pytest.raises(ValueError) as exc:
        check("x" * 100_000)
    text = str(exc.value)
    assert len(text) < 300 and "\n" not in text and "100,002 characters" in text
