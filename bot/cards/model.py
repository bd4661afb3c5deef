"""Plain data types for cube lists (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BASIC_LAND_NAMES", "Card", "CardList", "basic_land_name", "is_basic_land"]

_BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
#: Every basic land name (lower case): the five basics, Wastes, and their Snow-Covered forms.
BASIC_LAND_NAMES: frozenset[str] = frozenset(
    [name.lower() for name in _BASICS] + [f"snow-covered {name.lower()}" for name in _BASICS]
)


_CANONICAL_BASICS = {name.lower(): name for name in _BASICS} | {
    f"snow-covered {name.lower()}": f"Snow-Covered {name}" for name in _BASICS
}


def is_basic_land(name: str) -> bool:
    """True for a basic land name (case-insensitive, surrounding/inner whitespace ignored)."""
    return " ".join(name.split()).lower() in BASIC_LAND_NAMES


def basic_land_name(name: str) -> str | None:
    """The printed spelling of a basic land name (``"snow-covered  ISLAND"`` -> ``"Snow-Covered
    Island"``), or None when ``name`` is not a basic land."""
    return _CANONICAL_BASICS.get(" ".join(name.split()).lower())


@dataclass(frozen=True)
class Card:
    """One card of a cube list.

    ``colour`` is a WUBRG string such as ``"W"`` or ``"UB"``, ``"C"`` for colourless, or
    ``None`` when the source did not say. ``rating`` is a free-form number (the shipped
    cubes use 1–5, a CubeCobra import its cards' Elo). ``edhrec_rank`` is Scryfall's EDHREC
    popularity rank (1 is the most played), when known.
    """

    name: str
    rarity: str | None = None
    colour: str | None = None
    type_line: str | None = None
    mana_value: float | None = None
    rating: float | None = None
    edhrec_rank: int | None = None


@dataclass
class CardList:
    """An ordered list of cards (duplicates allowed) and where it came from.

    ``source`` names the detected input format: ``"text"``, ``"csv"``,
    ``"cubecobra-json"`` or ``"shipped"``.
    """

    cards: list[Card] = field(default_factory=list)
    source: str = "text"

    def names(self) -> list[str]:
        return [card.name for card in self.cards]

    def is_singleton(self, ignore_basics: bool = True) -> bool:
        """True when no card name occurs twice (compared case-insensitively).

        Basic lands are ignored by default, as singleton cubes conventionally allow any
        number of them.
        """
        seen: set[str] = set()
        for card in self.cards:
            if ignore_basics and is_basic_land(card.name):
                continue
            key = card.name.casefold()
            if key in seen:
                return False
            seen.add(key)
        return True

    def __len__(self) -> int:
        return len(self.cards)
