"""Deck/pool export formats: plain text, Arena, MTGO .dek and Cockatrice .cod (pure functions)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

FORMATS = {
    "text": ("txt", "Plain text, one card per line"),
    "arena": ("txt", "MTG Arena import (`1 Card Name`)"),
    "mtgo": ("dek", "MTGO .dek (and its text list for cards without an MTGO id)"),
    "cockatrice": ("cod", "Cockatrice .cod (XML)"),
}


def _counted(cards: Sequence[str]) -> list[tuple[str, int]]:
    """Cards with their counts, in first-picked order."""
    return list(Counter(cards).items())


def to_text(cards: Sequence[str]) -> str:
    return "".join(f"{card}\n" for card in cards)


def to_arena(cards: Sequence[str]) -> str:
    return "Deck\n" + "".join(f"{count} {name}\n" for name, count in _counted(cards))


def mtgo_name(name: str) -> str:
    """How Magic Online spells a card: a split card's halves joined by one slash ("Fire/Ice")."""
    return "/".join(part.strip() for part in name.split("//")) if "//" in name else name


def to_mtgo_dek(cards: Sequence[str], mtgo_ids: Mapping[str, int], sideboard: Sequence[str] = ()) -> str:
    """Magic Online's `.dek` (XML): one `Cards` line per card and zone, keyed by its catalogue id
    (CatID), which MTGO reads a card by (a wrong one is ignored, a missing one crashes it). Cards
    without an id in `mtgo_ids` are left out: `mtgo_export` names them and gives the text list."""
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
        "  <NetDeckID>0</NetDeckID>",
        "  <PreconstructedDeckID>0</PreconstructedDeckID>",
    ]
    for zone, in_sideboard in ((cards, "false"), (sideboard, "true")):
        lines += [
            f'  <Cards CatID="{mtgo_ids[name]}" Quantity="{count}" Sideboard="{in_sideboard}"'
            f' Name={quoteattr(mtgo_name(name))} Annotation="0" />'
            for name, count in _counted(zone) if mtgo_ids.get(name, 0) > 0
        ]
    lines.append("</Deck>")
    return "\n".join(lines) + "\n"


def to_mtgo_text(cards: Sequence[str], sideboard: Sequence[str] = ()) -> str:
    """Magic Online's plain-text deck list, which it imports by name: `1 Card Name` lines, the
    sideboard's after a blank line."""
    main = [f"{count} {mtgo_name(name)}" for name, count in _counted(cards)]
    side = [f"{count} {mtgo_name(name)}" for name, count in _counted(sideboard)]
    return "\n".join(main + ([""] + side if side else [])) + "\n"


@dataclass(frozen=True)
class MtgoExport:
    """A pool for Magic Online: the `.dek` of the cards with a catalogue id, the names (as MTGO
    spells them) of those it leaves out, and MTGO's text list of every card, which imports them
    by name."""

    dek: str
    left_out: tuple[str, ...]
    text_list: str

    @property
    def complete(self) -> bool:
        return not self.left_out

    @property
    def dek_cards(self) -> bool:
        """Whether the `.dek` holds any card at all."""
        return "<Cards " in self.dek


def mtgo_export(
    cards: Sequence[str], *, names: Mapping[str, str] | None = None, mtgo_ids: Mapping[str, int] | None = None,
    sideboard: Sequence[str] = (),
) -> MtgoExport:
    """`cards` (and `sideboard`) for Magic Online. `names` as for `export`; `mtgo_ids` maps a card
    (as picked) to its MTGO catalogue id (`bot.kit.card_data.printings`)."""
    names, mtgo_ids = names or {}, mtgo_ids or {}
    ids = {names.get(card, card): number for card, number in mtgo_ids.items() if number and number > 0}
    main, side = [names.get(c, c) for c in cards], [names.get(c, c) for c in sideboard]
    left_out = tuple(dict.fromkeys(mtgo_name(card) for card in [*main, *side] if card not in ids))
    return MtgoExport(to_mtgo_dek(main, ids, side), left_out, to_mtgo_text(main, side))


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
    cards: Sequence[str], fmt: str, *, deck_name: str = "Draft pool", names: Mapping[str, str] | None = None,
    mtgo_ids: Mapping[str, int] | None = None,
) -> tuple[str, str]:
    """(file extension, file text) for `fmt`, one of FORMATS. `names` maps a card to the name deck
    files know it by (Scryfall's, see `bot.kit.card_data.export_names`); others stay as they are.
    `mtgo_ids`: for "mtgo", each card's catalogue id; the `.dek` leaves out cards without one (see
    `mtgo_export` for the whole answer: those cards' names and the text list)."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    extension = FORMATS[fmt][0]
    if fmt == "mtgo":
        return extension, mtgo_export(cards, names=names, mtgo_ids=mtgo_ids).dek
    if names:
        cards = [names.get(card, card) for card in cards]
    if fmt == "text":
        return extension, to_text(cards)
    if fmt == "arena":
        return extension, to_arena(cards)
    return extension, to_cockatrice_cod(cards, deck_name)
