"""Tests of four21sim.rules.variants: presets (docs/rules.md's table), overrides, TOML."""

import doctest
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from four21sim.rules import variants
from four21sim.rules.variants import OPTIONS, PRESETS, Variant, get_preset, parse_overrides

# docs/rules.md's preset table, written out literally.
EXPECTED_PRESETS = {
    "super421": dict(tokens=11, ranking="super421", values="super421", charge_throws=3, decharge_throws=3,
                     followers="exact", fewer_throws_wins=False, cumulative="none", nenette_min=2,
                     nenette_rescue=False, next_leader="loser", end="first_out"),
    "super421-lebon": dict(tokens=11, ranking="super421", values="super421", charge_throws=3, decharge_throws=3,
                           followers="at_most", fewer_throws_wins=False, cumulative="none", nenette_min=2,
                           nenette_rescue=False, next_leader="loser", end="first_out"),
    "montreal": dict(tokens=11, ranking="montreal", values="super421", charge_throws=1, decharge_throws=3,
                     followers="exact", fewer_throws_wins=False, cumulative="both", nenette_min=2,
                     nenette_rescue=True, next_leader="loser", end="first_out"),
    "classic": dict(tokens=21, ranking="classic", values="classic", charge_throws=1, decharge_throws=3,
                    followers="at_most", fewer_throws_wins=True, cumulative="decharge", nenette_min=0,
                    nenette_rescue=False, next_leader="loser", end="last_holder"),
}
OPTION_NAMES = ["tokens", "ranking", "values", "charge_throws", "decharge_throws", "followers",
                "fewer_throws_wins", "cumulative", "nenette_min", "nenette_rescue", "next_leader", "end"]

# The allowed values of every option (docs/rules.md).
CHOICES = {
    "ranking": ["super421", "montreal", "classic"],
    "values": ["super421", "classic"],
    "followers": ["exact", "at_most"],
    "cumulative": ["none", "charge", "decharge", "both"],
    "next_leader": ["loser", "winner", "next_seat"],
    "end": ["first_out", "last_holder"],
}
INT_RANGES = {"tokens": (1, 999), "charge_throws": (1, 3), "decharge_throws": (1, 3), "nenette_min": (0, 999)}
BOOLS = ["fewer_throws_wins", "nenette_rescue"]
TRUE_WORDS = ["true", "yes", "on", "1"]
FALSE_WORDS = ["false", "no", "off", "0"]
ACCEPTED_WORDS = {w for ws in CHOICES.values() for w in ws} | set(TRUE_WORDS) | set(FALSE_WORDS) | {
    "décharge", "at-most", "lebon", "le_bon", "next-seat", "first-out", "last-holder"}


# ----------------------------------------------------------------- presets
def test_option_names_in_rules_order():
    assert list(OPTIONS) == OPTION_NAMES


@pytest.mark.parametrize("name", list(EXPECTED_PRESETS))
def test_presets_match_rules(name):
    assert PRESETS[name].options() == EXPECTED_PRESETS[name]
    assert get_preset(name) == Variant(**EXPECTED_PRESETS[name])
    assert Variant.from_preset(name) == PRESETS[name]
    assert PRESETS[name].describe() == name
    assert str(PRESETS[name]) == name


def test_exactly_four_presets():
    assert set(PRESETS) == set(EXPECTED_PRESETS)


def test_preset_name_spellings_and_unknown():
    assert get_preset("super421_lebon") == PRESETS["super421-lebon"]
    assert get_preset(" Classic ") == PRESETS["classic"]
    with pytest.raises(ValueError, match="variant.*'nope'"):
        get_preset("nope")


def test_helpers():
    m = PRESETS["montreal"]
    assert m.cumulative_in("charge") and m.cumulative_in("decharge")
    c = PRESETS["classic"]
    assert not c.cumulative_in("charge") and c.cumulative_in("decharge")
    assert c.throws("charge") == 1 and c.throws("decharge") == 3
    assert (c.ranking_index, c.values_index) == (2, 1)


# ----------------------------------------------------------------- overrides
def test_overrides_from_strings():
    v = Variant.from_preset("super421", ["tokens=21", "followers=at_most"])
    assert v.tokens == 21 and v.followers == "at_most"
    assert v == Variant(tokens=21, followers="at_most")
    # every other option unchanged
    assert {k: x for k, x in v.options().items() if k not in ("tokens", "followers")} == \
        {k: x for k, x in EXPECTED_PRESETS["super421"].items() if k not in ("tokens", "followers")}


def test_overrides_from_mapping_and_single_string():
    assert Variant.from_preset("classic", {"tokens": 5}).tokens == 5
    assert PRESETS["super421"].with_options("tokens=3").tokens == 3


@pytest.mark.parametrize("word,value", [("yes", True), ("no", False), ("true", True), ("false", False),
                                        ("True", True), (" NO ", False), ("on", True), ("0", False)])
def test_boolean_words(word, value):
    v = Variant.from_preset("super421", [f"nenette_rescue={word}", f"fewer-throws-wins={word}"])
    assert v.nenette_rescue is value and v.fewer_throws_wins is value


def test_keys_with_dashes_and_aliases():
    v = Variant.from_preset("super421", ["next-leader=next-seat", "charge-throws=1", "nenette-min=0",
                                         "cumulative=décharge", "followers=lebon"])
    assert (v.next_leader, v.charge_throws, v.nenette_min, v.cumulative, v.followers) == \
        ("next_seat", 1, 0, "decharge", "at_most")


def test_override_without_equals():
    with pytest.raises(ValueError, match="--set.*'tokens'"):
        Variant.from_preset("super421", ["tokens"])


def test_constructor_validates():
    with pytest.raises(ValueError, match="tokens"):
        Variant(tokens=0)
    with pytest.raises(ValueError, match="tokens"):
        Variant(tokens=True)
    with pytest.raises(ValueError, match="ranking"):
        Variant(ranking="nope")
    with pytest.raises(ValueError, match="nenette_rescue"):
        Variant(nenette_rescue="yes")


# ----------------------------------------------------------------- description
def test_describe_modified_preset():
    v = Variant.from_preset("super421", ["tokens=21"])
    assert v.describe() == "super421 with tokens=21"
    assert "tokens=21" in str(v)
    w = Variant.from_preset("classic", ["nenette_rescue=yes"])
    assert w.describe() == "classic with nenette_rescue=yes"
    # A variant equal to another preset is described as that preset.
    assert Variant.from_preset("super421", ["followers=at_most"]).describe() == "super421-lebon"


def test_table_mentions_every_option():
    for v in list(PRESETS.values()) + [Variant.from_preset("montreal", ["tokens=7"])]:
        text = v.table()
        lines = text.splitlines()
        assert len(lines) == len(OPTION_NAMES)
        for name, line in zip(OPTION_NAMES, lines):
            assert line.split()[0] == name
            value = getattr(v, name)
            shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
            assert line.split()[1] == shown


def test_module_doctests():
    result = doctest.testmod(variants, verbose=False)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------- TOML
def test_toml_examples(tmp_path):
    v = PRESETS["classic"]
    text = v.to_toml()
    assert text.startswith("[variant]\n")
    for name in OPTION_NAMES:
        assert f"\n{name} = " in text
    assert Variant.from_toml(text) == v
    path = tmp_path / "v.toml"
    path.write_text(text)
    assert Variant.from_toml(path) == v
    assert Variant.from_toml('preset = "montreal"\ntokens = 5\n') == Variant.from_preset("montreal", ["tokens=5"])
    with pytest.raises(ValueError, match="TOML"):
        Variant.from_toml("this is = not toml [")
    with pytest.raises(ValueError, match="tokens"):
        Variant.from_toml("[variant]\ntokens = 0\n")
    with pytest.raises(ValueError, match="tokens"):
        Variant.from_toml("[variant]\ntokens = 5.0\n")
    with pytest.raises(ValueError, match="option 'bogus'"):
        Variant.from_toml("bogus = 1\n")
    # a 'variant' key that is not a table is a user error, not a TypeError
    for text in ("variant = 5\n", 'variant = "classic"\n'):
        with pytest.raises(ValueError, match="variant"):
            Variant.from_toml(text)


# ----------------------------------------------------------------- property tests
def _option_value(name):
    """Strategy of (text as on a command line, canonical value) for one option."""
    if name in CHOICES:
        return st.sampled_from(CHOICES[name]).map(lambda c: (c, c))
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        return st.integers(lo, hi).map(lambda i: (str(i), i))
    return st.sampled_from([(w, True) for w in TRUE_WORDS] + [(w, False) for w in FALSE_WORDS])


valid_overrides = st.dictionaries(st.sampled_from(OPTION_NAMES), st.just(None)).flatmap(
    lambda d: st.fixed_dictionaries({name: _option_value(name) for name in d}))


@settings(max_examples=100, deadline=None)
@given(preset=st.sampled_from(list(EXPECTED_PRESETS)), overrides=valid_overrides, dashes=st.booleans())
def test_valid_overrides_round_trip_toml(preset, overrides, dashes):
    items = [f"{k.replace('_', '-') if dashes else k}={text}" for k, (text, _) in overrides.items()]
    v = Variant.from_preset(preset, items)
    expected = dict(EXPECTED_PRESETS[preset], **{k: val for k, (_, val) in overrides.items()})
    assert v.options() == expected
    assert Variant.from_toml(v.to_toml()) == v
    assert Variant.from_preset(preset, {k: val for k, (_, val) in overrides.items()}) == v
    # describe() names no option that is not set as it says
    desc = v.describe()
    if " with " in desc:
        base, changes = desc.split(" with ")
        assert base in PRESETS
        for part in changes.split(", "):
            k, _, val = part.partition("=")
            assert k in OPTION_NAMES
            assert parse_overrides([part]) == {k: getattr(v, k)}
    else:
        assert PRESETS[desc] == v


_words = st.text(alphabet=string.ascii_letters + string.digits + "_-. ", min_size=0, max_size=12)


def _bad_value(name):
    if name in CHOICES:
        return _words.filter(lambda w: w.strip().lower() not in CHOICES[name] + list(ACCEPTED_WORDS - set(TRUE_WORDS)
                                                                                     - set(FALSE_WORDS)))
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        return st.one_of(st.integers(max_value=lo - 1), st.integers(min_value=hi + 1)).map(str) | \
            st.text(alphabet=string.ascii_letters + ".", min_size=0, max_size=8)
    return _words.filter(lambda w: w.strip().lower() not in TRUE_WORDS + FALSE_WORDS)


bad_key = st.text(alphabet=string.ascii_lowercase + "_-", min_size=1, max_size=16).filter(
    lambda k: k.strip().replace("-", "_") not in OPTION_NAMES)

invalid_override = st.one_of(
    bad_key.map(lambda k: (k, f"{k}=1")),
    st.sampled_from(OPTION_NAMES).flatmap(lambda n: _bad_value(n).map(lambda raw: (n, f"{n}={raw}"))),
)


@settings(max_examples=100, deadline=None)
@given(preset=st.sampled_from(list(EXPECTED_PRESETS)), good=valid_overrides, bad=invalid_override,
       position=st.integers(0, 20))
def test_invalid_overrides_raise_naming_the_option(preset, good, bad, position):
    name, item = bad
    items = [f"{k}={text}" for k, (text, _) in good.items() if k != name]
    items.insert(min(position, len(items)), item)
    with pytest.raises(ValueError) as info:
        Variant.from_preset(preset, items)
    assert name in str(info.value)
    with pytest.raises(ValueError) as info:
        parse_overrides([item])
    assert name in str(info.value)


@settings(max_examples=100, deadline=None)
@given(bad=invalid_override)
def test_invalid_overrides_rejected_in_toml(bad):
    name, item = bad
    key, _, raw = item.partition("=")
    text = f'[variant]\n"{key}" = "{raw}"\n'
    with pytest.raises(ValueError) as info:
        Variant.from_toml(text)
    assert name in str(info.value)


def test_a_huge_bad_value_is_named_in_one_short_line():
    with pytest.raises(ValueError) as err:
        Variant.from_preset("super421", ["tokens=" + "9" * 5000])
    msg = str(err.value)
    assert msg.startswith("tokens: '999") and "(5,002 characters)" in msg and len(msg) < 200
