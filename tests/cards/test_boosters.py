"""The set drafts' booster collation (`bot.cards.boosters`): slots, no duplicates, the mythic rate."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cards import boosters
from bot.cards.boosters import BASIC_LANDS, BoosterError, SetSheet, collate, slots


def sheet(commons: int = 101, uncommons: int = 80, rares: int = 53, mythics: int = 15, basics: int = 5) -> SetSheet:
    return SetSheet(tuple(f"C{i}" for i in range(commons)), tuple(f"U{i}" for i in range(uncommons)),
                    tuple(f"R{i}" for i in range(rares)), tuple(f"M{i}" for i in range(mythics)),
                    tuple(f"L{i}" for i in range(basics)))


def rarity_counts(pack: list[str]) -> dict[str, int]:
    counts = dict.fromkeys("CURML", 0)
    for card in pack:
        counts[card[0] if card not in BASIC_LANDS else "L"] += 1
    return counts


def test_the_classic_booster_is_a_rare_3_uncommons_10_commons_and_a_basic() -> None:
    [pack] = collate(sheet(), 15, 1, seed=7)
    counts = rarity_counts(pack)
    assert (counts["R"] + counts["M"], counts["U"], counts["C"], counts["L"]) == (1, 3, 10, 1)
    assert pack[0][0] in "RM" and pack[-1].startswith("L")  # the rare slot first, the land last


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**63), size=st.integers(1, 30), count=st.integers(1, 24),
       mythics=st.integers(0, 20), basics=st.integers(0, 5))
def test_every_booster_has_its_slots_and_no_card_twice(seed: int, size: int, count: int, mythics: int,
                                                      basics: int) -> None:
    packs = collate(sheet(commons=40, uncommons=20, rares=10, mythics=mythics, basics=basics), size, count, seed)
    expected = slots(size)
    assert len(packs) == count
    for pack in packs:
        counts = rarity_counts(pack)
        assert len(pack) == size and len(set(pack)) == size
        assert counts["R"] + counts["M"] == 1
        assert (counts["U"], counts["C"], counts["L"]) == (expected["uncommon"], expected["common"], expected["basic"])
        if mythics == 0:
            assert counts["M"] == 0


@given(size=st.integers(1, 30))
def test_other_sizes_add_commons_or_drop_the_land_then_commons_then_uncommons(size: int) -> None:
    counts = slots(size)
    assert sum(counts.values()) == size and counts["rare"] == 1
    assert counts["basic"] == (1 if size >= 15 else 0)
    assert counts["uncommon"] == min(3, size - 1)
    assert counts["common"] == max(0, size - 4 - counts["basic"])


def test_a_mythic_is_in_about_1_booster_in_8() -> None:
    """1,600 seeded boosters: 200 mythics expected; the bounds are 5 standard deviations (a true
    rate of 1/8 falls outside them once in millions of seeds, a rate of 1/6 or 1/10 always does)."""
    n = 1600
    mythics = sum(pack[0].startswith("M") for pack in collate(sheet(), 15, n, seed=2026))
    sd = math.sqrt(n * boosters.MYTHIC_RATE * (1 - boosters.MYTHIC_RATE))
    assert abs(mythics - n / 8) <= 5 * sd


def test_a_set_without_mythics_has_a_rare_in_every_booster_and_one_without_rares_a_mythic() -> None:
    assert all(pack[0].startswith("R") for pack in collate(sheet(mythics=0), 15, 200, seed=1))
    assert all(pack[0].startswith("M") for pack in collate(sheet(rares=0), 15, 50, seed=1))


def test_a_set_without_basic_lands_gets_the_five_basics() -> None:
    lands = {pack[-1] for pack in collate(sheet(basics=0), 15, 100, seed=3)}
    assert lands <= set(BASIC_LANDS) and len(lands) > 1


def test_the_same_seed_deals_the_same_boosters_and_a_smaller_table_their_first_ones() -> None:
    assert collate(sheet(), 15, 24, seed=5) == collate(sheet(), 15, 24, seed=5)
    assert collate(sheet(), 15, 24, seed=5)[:9] == collate(sheet(), 15, 9, seed=5)
    assert collate(sheet(), 15, 24, seed=5) != collate(sheet(), 15, 24, seed=6)


@pytest.mark.parametrize(("kwargs", "size", "message"), [
    ({"commons": 9}, 15, "it needs 10 different commons and the set has 9"),
    ({"uncommons": 2}, 15, "it needs 3 different uncommons and the set has 2"),
    ({"rares": 0, "mythics": 0}, 15, "it needs 1 different rare or mythic rare and the set has 0"),
    ({"commons": 21}, 30, "it needs 25 different commons and the set has 21"),
])
def test_a_set_too_small_for_a_slot_says_which(kwargs: dict, size: int, message: str) -> None:
    with pytest.raises(BoosterError, match=message):
        collate(sheet(**kwargs), size, 1, seed=1)


def test_the_sheet_sorts_cards_by_rarity_once_each() -> None:
    built = SetSheet.from_cards([("A", "common"), ("B", "uncommon"), ("C", "rare"), ("D", "mythic"), ("A", "common"),
                                 ("E", None)], basics=["Forest"])
    assert built == SetSheet(("A", "E"), ("B",), ("C",), ("D",), ("Forest",))
