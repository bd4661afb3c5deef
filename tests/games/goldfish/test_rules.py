"""Goldfish Draft scoring (FORMATS.md §1): rules, properties, coin flips and dice."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.games.goldfish.rules import (
    DEFAULT_TABLE,
    GOLDFISH_CALL,
    MAX_CARDS_MILLED,
    MAX_GAME_WINS,
    MAX_LIFE_LOST,
    MAX_POISON,
    MAX_TURNS,
    METHODS,
    MIN_TURNS,
    TURNS_GOLDFISH_CUBE,
    TURNS_ORDINARY,
    GoldfishInputError,
    breakdown,
    flip_sequence,
    roll_sequence,
    score,
    validate_inputs,
    validate_table,
    validate_turns,
)

# ---------------------------------------------------------------------------------------
# the table and constants


def test_default_table_and_constants() -> None:
    assert dict(DEFAULT_TABLE) == {"life": 1.0, "mill": 0.5, "poison": 2.0, "win": 20.0}
    assert METHODS == ("sum", "max", "product")
    assert (TURNS_GOLDFISH_CUBE, TURNS_ORDINARY) == (7, 10)
    assert GOLDFISH_CALL == "tails"


@given(st.integers(min_value=-5, max_value=40))
def test_any_game_length_from_1_to_20_turns(turns: int) -> None:
    """FORMATS.md §1 makes the turn count configurable: an organizer may choose 1 to 20."""
    assert (MIN_TURNS, MAX_TURNS) == (1, 20)
    if 1 <= turns <= 20:
        assert validate_turns(turns) == turns
    else:
        with pytest.raises(GoldfishInputError, match="1 to 20 turns"):
            validate_turns(turns)


@pytest.mark.parametrize("bad", [7.0, "7", True, None])
def test_a_game_length_is_a_whole_number(bad: object) -> None:
    with pytest.raises(GoldfishInputError):
        validate_turns(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, 0.0),
        ({"life_lost": 1}, 1.0),
        ({"life_lost": 20}, 20.0),
        ({"cards_milled": 1}, 0.5),
        ({"cards_milled": 7}, 3.5),
        ({"poison": 1}, 2.0),
        ({"poison": 10}, 20.0),
        ({"game_wins": 1}, 20.0),
        ({"game_wins": 2}, 40.0),
    ],
)
def test_each_table_value(kwargs: dict[str, int], expected: float) -> None:
    assert score(**kwargs) == expected


def test_sum_adds_the_components() -> None:
    # 23 life + 13 milled + 4 poison + 1 win = 23 + 6.5 + 8 + 20
    assert score(life_lost=23, cards_milled=13, poison=4, game_wins=1) == 57.5


def test_half_points_from_milling() -> None:
    value = score(life_lost=3, cards_milled=3)
    assert value == 4.5
    assert not float(value).is_integer()


def test_life_lost_above_twenty_is_allowed() -> None:
    assert score(life_lost=47) == 47.0
    assert score(life_lost=20.0 + 1_000) == 1_020.0


def test_max_takes_the_largest_component() -> None:
    assert score(life_lost=23, cards_milled=13, poison=4, game_wins=1, method="max") == 23.0
    assert score(cards_milled=100, poison=3, method="max") == 50.0
    assert score(method="max") == 0.0


def test_product_multiplies_only_nonzero_components() -> None:
    # 10 life × 6 poison points: the zero mill and win components are left out
    assert score(life_lost=10, poison=3, method="product") == 60.0
    assert score(life_lost=10, cards_milled=4, poison=3, game_wins=1, method="product") == 10 * 2 * 6 * 20
    assert score(life_lost=7, method="product") == 7.0  # a single component scores as itself
    assert score(method="product") == 0.0  # all zero → 0
    assert score(cards_milled=1, method="product") == 0.5  # fractions multiply too


@pytest.mark.parametrize("method", METHODS)
def test_loss_or_draw_scores_zero(method: str) -> None:
    assert (
        score(life_lost=40, cards_milled=30, poison=10, game_wins=2, lost_or_drew=True, method=method) == 0.0
    )


@pytest.mark.parametrize("method", METHODS)
def test_prevented_win_scores_zero(method: str) -> None:
    assert score(life_lost=40, game_wins=1, prevented=True, method=method) == 0.0


def test_custom_table_is_merged_over_the_default() -> None:
    assert score(life_lost=10, poison=1, table={"life": 2}) == 22.0
    assert score(cards_milled=10, table={"mill": 1, "win": 0}) == 10.0
    with pytest.raises(GoldfishInputError, match="unknown scoring table entries"):
        score(table={"lives": 1})
    with pytest.raises(GoldfishInputError, match="cannot be negative \\(got \u22121\\)"):  # U+2212, not "-"
        score(table={"life": -1})
    assert validate_table(None) == dict(DEFAULT_TABLE)


def test_unknown_method_rejected() -> None:
    with pytest.raises(ValueError, match="one of sum, max, product"):
        score(life_lost=1, method="average")


# ---------------------------------------------------------------------------------------
# breakdown


def test_breakdown_lists_each_component_and_total() -> None:
    assert breakdown(life_lost=23, cards_milled=13, poison=4, game_wins=1) == {
        "life": 23.0,
        "mill": 6.5,
        "poison": 8.0,
        "win": 20.0,
        "total": 57.5,
    }


def test_breakdown_when_lost_keeps_components_but_zero_total() -> None:
    parts = breakdown(life_lost=5, lost_or_drew=True)
    assert parts["life"] == 5.0 and parts["total"] == 0.0


def test_breakdown_prevented_voids_win_points() -> None:
    parts = breakdown(life_lost=5, game_wins=1, prevented=True)
    assert parts["win"] == 0.0 and parts["life"] == 5.0 and parts["total"] == 0.0


# ---------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize(
    ("kwargs", "label"),
    [
        ({"life_lost": -1}, "Life lost"),
        ({"cards_milled": -1}, "Cards milled"),
        ({"poison": -2}, "Poison counters"),
        ({"game_wins": -1}, "Game wins"),
        ({"life_lost": -0.5}, "Life lost"),
    ],
)
def test_negative_inputs_rejected(kwargs: dict[str, float], label: str) -> None:
    with pytest.raises(ValueError, match=f"{label} cannot be negative"):
        score(**kwargs)
    with pytest.raises(GoldfishInputError):
        breakdown(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "label"),
    [
        ({"life_lost": MAX_LIFE_LOST + 1}, "Life lost"),
        ({"cards_milled": MAX_CARDS_MILLED + 1}, "Cards milled"),
        ({"poison": MAX_POISON + 1}, "Poison counters"),
        ({"game_wins": MAX_GAME_WINS + 1}, "Game wins"),
    ],
)
def test_absurd_values_capped(kwargs: dict[str, int], label: str) -> None:
    with pytest.raises(GoldfishInputError, match=f"{label} of .* is not believable"):
        score(**kwargs)


def test_caps_themselves_are_allowed() -> None:
    value = score(
        life_lost=MAX_LIFE_LOST, cards_milled=MAX_CARDS_MILLED, poison=MAX_POISON, game_wins=MAX_GAME_WINS
    )
    assert value == MAX_LIFE_LOST + MAX_CARDS_MILLED * 0.5 + MAX_POISON * 2 + MAX_GAME_WINS * 20


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cards_milled": 1.5},
        {"poison": 0.5},
        {"game_wins": 0.25},
        {"life_lost": math.nan},
        {"life_lost": math.inf},
        {"life_lost": "3"},
        {"poison": True},
        {"cards_milled": None},
    ],
)
def test_non_numbers_and_fractions_of_counts_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(GoldfishInputError):
        score(**kwargs)  # type: ignore[arg-type]


def test_whole_floats_accepted_for_counts() -> None:
    assert validate_inputs(cards_milled=4.0, poison=2.0) == {
        "life": 0.0,
        "mill": 4.0,
        "poison": 2.0,
        "win": 0.0,
    }


# ---------------------------------------------------------------------------------------
# properties

counts = st.integers(min_value=0, max_value=10_000)
life = st.one_of(st.integers(min_value=0, max_value=100_000), st.floats(min_value=0, max_value=100_000))
methods = st.sampled_from(METHODS)


@given(life=life, milled=counts, poison=counts, wins=st.integers(min_value=0, max_value=MAX_GAME_WINS))
def test_sum_at_least_every_component_and_max(life: float, milled: int, poison: int, wins: int) -> None:
    parts = breakdown(life_lost=life, cards_milled=milled, poison=poison, game_wins=wins)
    total = parts["total"]
    components = [parts[k] for k in ("life", "mill", "poison", "win")]
    assert all(total >= c for c in components)
    assert total >= score(life_lost=life, cards_milled=milled, poison=poison, game_wins=wins, method="max")
    assert math.isclose(total, sum(components), rel_tol=1e-12)


@given(
    life=life,
    milled=counts,
    poison=counts,
    wins=st.integers(min_value=0, max_value=MAX_GAME_WINS),
    method=methods,
    lost=st.booleans(),
    prevented=st.booleans(),
)
def test_scores_never_negative(
    life: float, milled: int, poison: int, wins: int, method: str, lost: bool, prevented: bool
) -> None:
    value = score(
        life_lost=life,
        cards_milled=milled,
        poison=poison,
        game_wins=wins,
        method=method,
        lost_or_drew=lost,
        prevented=prevented,
    )
    assert value >= 0
    if lost or prevented:
        assert value == 0


@given(
    base=st.fixed_dictionaries(
        {"life_lost": counts, "cards_milled": counts, "poison": counts, "game_wins": st.integers(0, 100)}
    ),
    which=st.sampled_from(["life_lost", "cards_milled", "poison", "game_wins"]),
    extra=st.integers(min_value=1, max_value=100),  # keeps game_wins under MAX_GAME_WINS
)
def test_sum_is_strictly_monotone_in_each_component(base: dict[str, int], which: str, extra: int) -> None:
    more = dict(base, **{which: base[which] + extra})
    assert score(**more) > score(**base)


@given(
    base=st.fixed_dictionaries({"life_lost": counts, "cards_milled": counts, "poison": counts}),
    which=st.sampled_from(["life_lost", "cards_milled", "poison"]),
    extra=st.integers(min_value=0, max_value=1_000),
    method=methods,
)
def test_every_method_is_monotone(base: dict[str, int], which: str, extra: int, method: str) -> None:
    more = dict(base, **{which: base[which] + extra})
    # product of non-zero parts can fall when a component rises from 0 to below 1 point
    # (e.g. one milled card = 0.5), so compare only when the component already counts.
    if method == "product" and base[which] == 0:
        return
    assert score(**more, method=method) >= score(**base, method=method)


# ---------------------------------------------------------------------------------------
# coin flips and dice


def test_flip_sequence_alternates_from_the_chosen_first() -> None:
    assert flip_sequence("heads", 5) == ["heads", "tails", "heads", "tails", "heads"]
    assert flip_sequence("Tails", 3) == ["tails", "heads", "tails"]
    assert flip_sequence("t", 2) == ["tails", "heads"]
    assert flip_sequence("H", 1) == ["heads"]
    assert flip_sequence("heads", 0) == []


@pytest.mark.parametrize("bad", ["edge", "", "tail"])
def test_flip_sequence_rejects_other_sides(bad: str) -> None:
    with pytest.raises(GoldfishInputError, match="heads or tails"):
        flip_sequence(bad, 3)


def test_roll_sequence_cycles_upwards_and_wraps() -> None:
    assert roll_sequence(4, 6) == [4, 5, 6, 1, 2, 3]
    assert roll_sequence(6, 3) == [6, 1, 2]
    assert roll_sequence(1, 8) == [1, 2, 3, 4, 5, 6, 1, 2]
    assert roll_sequence(19, 4, sides=20) == [19, 20, 1, 2]
    assert roll_sequence(3, 0) == []


@pytest.mark.parametrize(("first", "sides"), [(0, 6), (7, 6), (21, 20), (True, 6), (3, 1)])
def test_roll_sequence_rejects_impossible_rolls(first: int, sides: int) -> None:
    with pytest.raises(GoldfishInputError):
        roll_sequence(first, 3, sides=sides)


def test_sequence_lengths_validated() -> None:
    with pytest.raises(GoldfishInputError, match="cannot be negative"):
        flip_sequence("heads", -1)
    with pytest.raises(GoldfishInputError, match="at most"):
        roll_sequence(1, 10**9)


@given(first=st.sampled_from(["heads", "tails"]), n=st.integers(0, 200))
def test_flips_never_repeat(first: str, n: int) -> None:
    seq = flip_sequence(first, n)
    assert len(seq) == n
    assert all(a != b for a, b in zip(seq, seq[1:], strict=False))


@given(sides=st.integers(2, 100), data=st.data())
def test_rolls_step_by_one(sides: int, data: st.DataObject) -> None:
    first = data.draw(st.integers(1, sides))
    n = data.draw(st.integers(0, 3 * sides))
    seq = roll_sequence(first, n, sides=sides)
    assert len(seq) == n and all(1 <= r <= sides for r in seq)
    assert all(b == a % sides + 1 for a, b in zip(seq, seq[1:], strict=False))
