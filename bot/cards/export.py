"""Deck/pool export formats: plain text, Arena, MTGO .dek and Cockatrice .cod (pure functions)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

FORMATS = {
    "text": ("txt", "Plain text, one card per line"),
    "arena": ("txt", "MTG Arena import (`1 Card Name`)"),
    "mtgo": ("dek", "MTGO .dek (XML)"),
    "cockatrice": ("cod", "Cockatrice .cod (XML)"),
}


def _counted(cards: Sequence[str]) -> list[tuple[str, int]]:
    """Cards with their counts, in first-picked order."""
    return list(Counter(cards).items())


def to_text(cards: Sequence[str]) -> str:
    return "".join(f"{card}\n" for card in cards)


def to_arena(cards: Sequence[str]) -> str:
    return "Deck\n" + "".join(f"{count} {name}\n" for name, count in _counted(cards))


def to_mtgo_dek(cards: Sequence[str]) -> str:
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
        "  <NetDeckID>0</NetDeckID>",
        "  <PreconstructedDeckID>0</PreconstructedDeckID>",
    ]
    lines += [
        f'  <Cards CatID="0" Quantity="{count}" Sideboard="false" Name={quoteattr(name)} />'
        for name, count in _counted(cards)
    ]
    lines.append("</Deck>")
    return "\n".join(lines) + "\n"


def to_cockatrice_cod(cards: Sequence[str], deck_name: str = "Draft pool") -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<cockatrice_deck version="1">',
        f"  <deckname>{escape(deck_name)}</deckname>",
        "  <comments></comments>",
        '  <zone name="main">',
    ]
    lines += [f"    <card number=\"{count}\" name={quoteattr(name)}/>" for name, count in _counted(cards)]
    lines += ["  </zone>", "</cockatrice_deck>"]
    return "\n".join(lines) + "\n"


def export(
    cards: Sequence[str], fmt: str, *, deck_name: str = "Draft pool", names: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(file extension, file text) for `fmt`, one of FORMATS. `names` maps a card to the name deck
    files know it by (Scryfall's, see `bot.kit.card_data.export_names`); others stay as they are."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    if names:
        cards = [names.get(card, card) for card in cards]
    extension = FORMATS[fmt][0]
    if fmt == "text":
        return extension, to_text(cards)
    if fmt == "arena":
        return extension, to_arena(cards)
    if fmt == "mtgo":
        return extension, to_mtgo_dek(cards)
    return extension, to_cockatrice_cod(cards, deck_name)
