"""Boosters collated like a retail set's: the draft booster of a set draft (`/draft start set:`).

The classic draft booster, what Wizards sold for drafting until 2024: 15 cards, one of them a rare
slot (a mythic rare about 1 time in 8, :data:`MYTHIC_RATE`, where the set has mythics), 3 uncommons,
10 commons and 1 basic land. No card appears twice within a booster (different boosters may share
cards, as real ones do). Left out: foils (which replaced a common in some boosters), and special
slots (the Masterpieces, the Bonus Sheets, the draft-matters cards or lands of some sets).

Another size (:func:`slots`): a larger booster has more commons; a smaller one drops the basic
land first, then commons, then uncommons, so the rare slot is the last card left.

Pure and deterministic: booster ``i`` of a draft depends only on the set, the size, the draft's
seed and ``i`` (:func:`booster`), so the first boosters of a smaller table are those of a larger one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["BASIC_LANDS", "CLASSIC_SIZE", "MYTHIC_RATE", "BoosterError", "SetSheet", "booster", "collate", "slots"]

CLASSIC_SIZE = 15
MYTHIC_RATE = 1 / 8
BASIC_LANDS = ("Plains", "Island", "Swamp", "Mountain", "Forest")
"""The land slot's cards for a set that lists no basic lands of its own."""
_CLASSIC_UNCOMMONS = 3
_SLOT_WORDS = {"rare": "rare or mythic rare", "uncommon": "uncommon", "common": "common", "basic": "basic land"}


class BoosterError(ValueError):
    """The set cannot fill a booster; the message is fit to show the user."""


@dataclass(frozen=True)
class SetSheet:
    """A set's cards by rarity (names, no duplicates), as the boosters are collated from them."""

    commons: tuple[str, ...]
    uncommons: tuple[str, ...]
    rares: tuple[str, ...]
    mythics: tuple[str, ...] = ()
    basics: tuple[str, ...] = ()

    @classmethod
    def from_cards(cls, cards: Iterable[tuple[str, str | None]], basics: Sequence[str] = ()) -> SetSheet:
        """From ``(name, rarity)`` pairs (rarity ``common``, ``uncommon``, ``rare`` or ``mythic``;
        none counts as common, ``basic`` as a basic land), each name once."""
        by_rarity: dict[str, dict[str, None]] = {r: {} for r in ("common", "uncommon", "rare", "mythic", "basic")}
        for name, rarity in cards:
            by_rarity.get(rarity or "common", by_rarity["common"])[name] = None
        for name in basics:
            by_rarity["basic"][name] = None
        return cls(*(tuple(by_rarity[r]) for r in ("common", "uncommon", "rare", "mythic", "basic")))

    @property
    def lands(self) -> tuple[str, ...]:
        return self.basics or BASIC_LANDS

    def cards(self) -> list[str]:
        """Every card a booster can hold, the land slot's included."""
        return [*self.commons, *self.uncommons, *self.rares, *self.mythics, *self.lands]


def slots(pack_size: int) -> dict[str, int]:
    """How many cards of each slot a booster of ``pack_size`` cards holds (see the module's doc)."""
    if pack_size < 1:
        raise BoosterError("A booster holds at least 1 card.")
    uncommons = min(_CLASSIC_UNCOMMONS, pack_size - 1)
    basic = 1 if pack_size >= CLASSIC_SIZE else 0
    return {"rare": 1, "uncommon": uncommons, "common": pack_size - 1 - uncommons - basic, "basic": basic}


def validate(sheet: SetSheet, pack_size: int) -> None:
    """:class:`BoosterError` naming the first slot the set has too few different cards for."""
    have = {"rare": len(sheet.rares) or len(sheet.mythics), "uncommon": len(sheet.uncommons),
            "common": len(sheet.commons), "basic": len(sheet.lands)}
    for slot, needed in slots(pack_size).items():
        if have[slot] < needed:
            word = _SLOT_WORDS[slot]
            raise BoosterError(
                f"The set is too small for a {pack_size}-card booster: it needs {needed} different "
                f"{word}{'s' if needed != 1 else ''} and the set has {have[slot]}.")


def booster(sheet: SetSheet, pack_size: int, seed: int, index: int) -> list[str]:
    """Booster ``index`` of a draft seeded ``seed``: rare slot, uncommons, commons, then the land."""
    rng = random.Random(f"{seed}/{index}")
    counts = slots(pack_size)
    mythic = bool(sheet.mythics) and (not sheet.rares or rng.random() < MYTHIC_RATE)
    rare = rng.choice(sheet.mythics if mythic else sheet.rares)
    return [rare, *rng.sample(sheet.uncommons, counts["uncommon"]), *rng.sample(sheet.commons, counts["common"]),
            *rng.sample(sheet.lands, counts["basic"])]


def collate(sheet: SetSheet, pack_size: int, count: int, seed: int) -> list[list[str]]:
    """``count`` boosters of a draft seeded ``seed`` (:class:`BoosterError` if the set is too small)."""
    validate(sheet, pack_size)
    return [booster(sheet, pack_size, seed, index) for index in range(count)]
