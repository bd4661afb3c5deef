"""Turnabout's deck rules (FORMATS.md §3), checked before a deck reaches the engine: 60+ cards (a
registered list at most :data:`MAX_DECKLIST_CARDS`), any number of copies, no sideboard, no ante
cards and no cards that fetch from outside the game: judged by the card's Oracle text where it is
known (:func:`oracle_ban`: ante, learn, "from outside the game", its rules text only, not its reminder
text), else by the fixed lists :data:`ANTE_CARDS` and :data:`OUTSIDE_GAME_FETCHERS`. Every problem is
reported, not just the first.

A list is read by the one card-list reader (:func:`bot.cards.parse.read_decklist`), so a sideboard is
what it is for 421 too (its one sideboard rule); Turnabout refuses a list that has one.

Pure: no I/O, no Discord. ``check_decklist(text | bytes) -> (cards, problems)``,
``checked(text | bytes) -> cards`` (raises :class:`DeckRejected`), ``deck_problems(cards)``."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.cards.parse import CubeFormatError, read_decklist
from bot.games.turnabout.rules import TurnaboutError
from bot.kit.text import name_key

MIN_DECK_SIZE = 60
# The most cards a registered list may hold: a list is shown to the opponent, so its size is bounded
# (a bigger deck is legal; it registers without a list).
MAX_DECKLIST_CARDS = 250

#: Every ante card ever printed (all nine; banned everywhere since ante was dropped).
ANTE_CARDS: frozenset[str] = frozenset(
    {
        "Amulet of Quoz",
        "Bronze Tablet",
        "Contract from Below",
        "Darkpact",
        "Demonic Attorney",
        "Jeweled Bird",
        "Rebirth",
        "Tempest Efreet",
        "Timmerian Fiends",
    }
)
#: Cards that bring cards into the game from outside it (the seed: "Ring of Ma'Ruf,
#: Research/Development, and the Wishes"), plus later ones whose text plainly does so.
#: Only the fallback for cards whose Oracle text is unknown (:func:`oracle_ban` judges the
#: others, learn included); not exhaustive.
OUTSIDE_GAME_FETCHERS: frozenset[str] = frozenset(
    {
        "Burning Wish",
        "Cunning Wish",
        "Death Wish",
        "Glittering Wish",
        "Golden Wish",
        "Living Wish",
        "Ring of Ma'Ruf",
        "Research // Development",
        "Mastermind's Acquisition",
        "Spawnsire of Ulamog",
        "Coax from the Blind Eternities",
        "Karn, the Great Creator",
        "Vivien, Arkbow Ranger",
        "Fae of Wishes // Granted",
    }
)
BANNED_CARDS: frozenset[str] = ANTE_CARDS | OUTSIDE_GAME_FETCHERS


class DeckRejected(TurnaboutError):
    """A decklist broke the deck rules; ``problems`` lists every problem (one sentence each)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("The decklist is not legal for Turnabout: " + " ".join(self.problems))


# --------------------------------------------------------------------------- scoring


_SPLIT = re.compile(r"\s*/{1,2}\s*")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def _card_key(name: str) -> str:
    """Compare card names: name_key, typographic apostrophes, ``A/B`` = ``A // B``."""
    return _SPLIT.sub(" // ", name_key(name.translate(_APOSTROPHES)))


_BANNED_KEYS: dict[str, str] = {_card_key(n): n for n in BANNED_CARDS}
# A split/adventure card is often listed by its first face alone ("Fae of Wishes").
_BANNED_KEYS.update({_card_key(n).split(" // ")[0]: n for n in BANNED_CARDS if "//" in n})
_ANTE_KEYS = {_card_key(n) for n in ANTE_CARDS}


def _banned_name(card: str) -> str | None:
    key = _card_key(card)
    return _BANNED_KEYS.get(key) or _BANNED_KEYS.get(key.split(" // ")[0])


@dataclass(frozen=True)
class OracleText:
    """What Scryfall says a card does: its official ``name`` ("A // B" for two faces) and its
    Oracle ``text`` (reminder text included; the faces joined by a "//" line)."""

    name: str
    text: str


ANTE = "an ante card"
OUTSIDE = "it brings cards into the game from outside it"
LEARN = "it has learn, which brings a Lesson card into the game from outside it"
_REMINDER = re.compile(r"\([^()]*\)")
_ANTE_WORD = re.compile(r"\bante\b", re.IGNORECASE)
_LEARN_WORD = re.compile(r"\blearn\b", re.IGNORECASE)
_FROM_OUTSIDE = re.compile(r"\bfrom\s+outside\s+the\s+game\b", re.IGNORECASE)


def oracle_ban(card: OracleText) -> str | None:
    """Why a card is banned by what its Oracle text says (None: it is allowed), FORMATS.md §3:

    * an **ante** card: its rules text (reminder text aside) uses the word "ante";
    * **learn**: the keyword action (reminder text aside) lets its controller reveal a Lesson card
      they own *from outside the game* and put it into their hand;
    * any other rules text that brings a card in **from outside the game** (the wishes, Ring of
      Ma'rûf, Research, Karn, the Great Creator, …).

    Reminder text never counts (FORMATS.md §3): a companion's reminder says it comes "from outside
    the game", but with no sideboard a companion is simply a card of the main deck.

    The card's own names are set aside first, so a name ("… Learned …") never counts as its text.
    Cards that only mention the phrase without fetching do not exist in Oracle today; a Lesson
    itself (fetched, not fetching) is allowed."""
    text = card.text
    for own in sorted({card.name, *(part.strip() for part in card.name.split("//"))}, key=len, reverse=True):
        if own:
            text = text.replace(own, "CARDNAME")
    rules = _REMINDER.sub(" ", text)
    if _ANTE_WORD.search(rules):
        return ANTE
    if _LEARN_WORD.search(rules):
        return LEARN
    if _FROM_OUTSIDE.search(rules):
        return OUTSIDE
    return None


def _ban(name: str, oracle: Mapping[str, OracleText]) -> tuple[str, str] | None:
    """(the name to show, why) if ``name`` is banned: by its Oracle text when it is known, else by
    the fixed lists (:data:`ANTE_CARDS`, :data:`OUTSIDE_GAME_FETCHERS`)."""
    known = oracle.get(_card_key(name))
    if known is not None:
        why = oracle_ban(known)
        return None if why is None else (known.name, f"{why} (by its Oracle text)")
    official = _banned_name(name)
    if official is None:
        return None
    return official, ANTE if _card_key(official) in _ANTE_KEYS else "it fetches cards from outside the game"


def deck_problems(
    cards: Sequence[tuple[int, str]], *, sideboard: bool = False, oracle: Mapping[str, OracleText] | None = None
) -> list[str]:
    """Every deck-rule problem of a main deck given as (count, name) lines; [] when legal.
    ``oracle`` maps card names to their Oracle text where it is known (see :func:`oracle_ban`);
    the others are judged by the fixed lists."""
    known = {_card_key(name): text for name, text in (oracle or {}).items()}
    problems: list[str] = []
    total = sum(count for count, _ in cards)
    if total < MIN_DECK_SIZE:
        problems.append(f"The deck has {total} cards; it needs at least {MIN_DECK_SIZE}.")
    elif total > MAX_DECKLIST_CARDS:
        problems.append(
            f"The list has {total:,} cards; a registered list may have at most {MAX_DECKLIST_CARDS} "
            "(join with a bigger deck without a list)."
        )
    if sideboard:
        problems.append(
            "Turnabout uses no sideboard: remove that section (a companion is played as a card of the main deck)."
        )
    banned: Counter[tuple[str, str]] = Counter()
    for count, name in cards:
        found = _ban(name, known)
        if found is not None:
            banned[found] += count
    for (official, why), count in sorted(banned.items()):
        copies = f" ({count} copies)" if count > 1 else ""
        problems.append(f"{official}{copies} is banned: {why}.")
    return problems


def check_decklist(
    data: str | bytes, *, oracle: Mapping[str, OracleText] | None = None
) -> tuple[list[tuple[int, str]], list[str]]:
    """Read a decklist (``4 Card Name`` lines, an Arena or MTGO export: the one card-list reader)
    and check it: (merged (count, name) lines of its main deck, every problem). ``oracle``: the
    Oracle text of the cards where it is known (:func:`deck_problems`). Unreadable input raises
    :class:`DeckRejected`."""
    try:
        read = read_decklist(data)
    except CubeFormatError as exc:
        raise DeckRejected([str(exc)]) from None
    merged: dict[str, list] = {}
    for card in read.main.cards:
        entry = merged.setdefault(_card_key(card.name), [0, card.name])
        entry[0] += 1
    cards = [(count, name) for count, name in merged.values()]
    return cards, deck_problems(cards, sideboard=bool(read.sideboard), oracle=oracle)


def checked(data: str | bytes, *, oracle: Mapping[str, OracleText] | None = None) -> list[tuple[int, str]]:
    """A legal decklist's (count, name) lines, for the engine's :func:`~bot.games.turnabout.rules.register`;
    raises :class:`DeckRejected` with every problem of one that is not."""
    cards, problems = check_decklist(data, oracle=oracle)
    if problems:
        raise DeckRejected(problems)
    return cards


def decklist_names(data: str | bytes) -> list[str]:
    """The card names of a decklist's main deck ([] if it cannot be read): what to look up before
    checking it with :func:`check_decklist`."""
    try:
        cards, _ = check_decklist(data)
    except DeckRejected:
        return []
    return [name for _, name in cards]
