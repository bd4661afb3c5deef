"""Set lists for 421 (FORMATS.md §5): a set's cards with their rarities, and its basic lands.

A 421 pool is built from whole sets: 4 of each common, 2 of each uncommon, 1 of each rare and
mythic (the engine, :mod:`bot.games.four_two_one.rules`, does that arithmetic). This module only
gets the lists, from two sources:

* **An uploaded file** (:func:`parse_set_bytes`, :func:`parse_set_text`), either
  - plain ``rarity,name`` lines: the rarity is ``C``/``U``/``R``/``M`` or the full word
    (``common``, ``uncommon``, ``rare``, ``mythic``, also ``mythic rare``), any case; a basic
    land may be given the rarity ``L``/``land``/``basic`` (or any rarity). Blank lines and
    lines starting with ``#`` or ``//`` are ignored. Names may contain commas: only the first
    comma separates. Bad lines are reported together, each with its line number; or
  - a CubeCobra-style CSV whose header row has a ``name`` and a ``Rarity`` column. It is read by
    the cube CSV reader (:mod:`bot.cards.parse`: maybeboard rows skipped, quoted names), then
    every rarity is checked; a bad one is reported with the card's name.

  Uploads go through :func:`bot.cards.parse.decode_upload` (1 MiB, UTF-8, not binary) like
  cube uploads, and a set may list at most :data:`MAX_SET_CARDS` different cards.
* **Scryfall** (:func:`fetch_scryfall_set`): ``GET <SCRYFALL_BASE>/cards/search?q=e:<code>+
  is:booster&unique=cards``, following ``next_page`` while ``has_more`` is true, with an
  optional async progress callback after each page. Scryfall's API guidelines are kept: a
  descriptive ``User-Agent`` and an ``Accept`` header on every request, and requests spaced at
  least 100 ms apart across the whole process (:class:`RequestSpacing`), i.e. at most 10/s.

Basic lands (``Plains`` … ``Forest``, ``Wastes`` and the ``Snow-Covered`` ones) are never
4/2/1 cards: a set keeps them apart in :attr:`CardSet.basics`, which is what decides whether
the set brings "extra basics" (see :mod:`bot.games.four_two_one.rules`).

Every refusal is a :class:`SetListError` (a ``ValueError``) whose ``message`` is a sentence fit
to show the user: :class:`SetFormatError`, :class:`InvalidSetCode`, and for Scryfall
:class:`SetNotFound`, :class:`ScryfallUnavailable`, :class:`ScryfallBadResponse`.
"""

from __future__ import annotations

import asyncio
import csv
import json
import logging
import re
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from bot.cards.model import Card, basic_land_name, is_basic_land
from bot.cards.parse import (
    MAX_NAME_LENGTH,
    CubeFormatError,
    content_lines,
    decode_upload,
    first_content_line,
    parse_cube_text,
)
from bot.kit.text import clean_name, name_key

__all__ = [
    "MAX_PAGE_BYTES",
    "MAX_PAGES",
    "MAX_SET_CARDS",
    "RARITIES",
    "SCRYFALL_HEADERS",
    "CardSet",
    "ImportProgress",
    "InvalidSetCode",
    "RequestSpacing",
    "ScryfallBadResponse",
    "ScryfallError",
    "ScryfallUnavailable",
    "SetFormatError",
    "SetListError",
    "SetNotFound",
    "fetch_scryfall_set",
    "parse_set_bytes",
    "parse_set_text",
    "validate_set_code",
]

log = logging.getLogger(__name__)

RARITIES = ("common", "uncommon", "rare", "mythic")
MAX_SET_CARDS = 1000
"""Most different cards a set may list (the largest booster sets have about 400)."""
MAX_PAGES = 10
"""Most Scryfall result pages followed (175 cards each, so well above :data:`MAX_SET_CARDS`)."""
MAX_PAGE_BYTES = 8 * 1024 * 1024
"""Largest Scryfall page read (a full page of 175 card objects is about 1 MiB)."""
SCRYFALL_HEADERS = {
    "User-Agent": "mtg-async-bot/0.1 (Discord bot; 421 set import)",
    "Accept": "application/json;q=0.9,*/*;q=0.8",
}
_MAX_PROBLEMS_SHOWN = 10
_SET_CODE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$")
_SCRYFALL_CODE_RE = re.compile(r"^[A-Za-z0-9]{2,8}$")
_BASIC = "basic"
_RARITY_WORDS = {
    "c": "common",
    "common": "common",
    "u": "uncommon",
    "uncommon": "uncommon",
    "r": "rare",
    "rare": "rare",
    "m": "mythic",
    "mythic": "mythic",
    "mythic rare": "mythic",
    "l": _BASIC,
    "land": _BASIC,
    "basic": _BASIC,
    "basic land": _BASIC,
}
# Scryfall's two other rarities: "special" (e.g. timeshifted sheets) and "bonus" cards are one
# per booster sheet like rares, so they count as rares (one copy).
_SCRYFALL_RARITIES = {**{r: r for r in RARITIES}, "special": "rare", "bonus": "rare"}
_CSV_NAME_HEADERS = frozenset({"name", "card name", "card", "cardname"})


# --------------------------------------------------------------------------- errors


class SetListError(ValueError):
    """A set list could not be had; ``message`` (and ``str()``) is fit to show the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SetFormatError(SetListError):
    """An uploaded set list could not be read."""


class InvalidSetCode(SetListError):
    """The set code is not usable (checked before anything is read or fetched)."""


class ScryfallError(SetListError):
    """Base class of the Scryfall import errors."""


class SetNotFound(ScryfallError):
    pass


class ScryfallUnavailable(ScryfallError):
    pass


class ScryfallBadResponse(ScryfallError):
    pass


# --------------------------------------------------------------------------- the set


@dataclass(frozen=True)
class CardSet:
    """One set: ``cards`` (one entry per name, rarity one of :data:`RARITIES`, no basic lands)
    and ``basics`` (the basic land names the set contains, possibly none).

    ``code`` identifies the set within a league (lower case); ``source`` is ``"text"``,
    ``"csv"`` or ``"scryfall"``.
    """

    code: str
    name: str
    cards: tuple[Card, ...]
    basics: tuple[str, ...] = ()
    source: str = "text"

    def rarity_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(RARITIES, 0)
        for card in self.cards:
            counts[card.rarity or "common"] += 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what a service stores); :meth:`from_dict` reverses it."""
        cards = []
        for card in self.cards:
            entry: dict[str, Any] = {"name": card.name, "rarity": card.rarity}
            for key in ("colour", "type_line", "mana_value"):
                if getattr(card, key) is not None:
                    entry[key] = getattr(card, key)
            cards.append(entry)
        return {
            "code": self.code,
            "name": self.name,
            "source": self.source,
            "cards": cards,
            "basics": list(self.basics),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CardSet:
        cards = tuple(
            Card(
                name=c["name"],
                rarity=c["rarity"],
                colour=c.get("colour"),
                type_line=c.get("type_line"),
                mana_value=c.get("mana_value"),
            )
            for c in data["cards"]
        )
        return cls(
            code=data["code"],
            name=data["name"],
            cards=cards,
            basics=tuple(data.get("basics", ())),
            source=data.get("source", "text"),
        )


def validate_set_code(code: str) -> str:
    """The code, stripped and lower-cased, or :class:`InvalidSetCode`."""
    cleaned = code.strip() if isinstance(code, str) else ""
    if not _SET_CODE_RE.match(cleaned):
        raise InvalidSetCode(
            "A set code is 1–20 letters, digits, '-' or '_' (e.g. 'ala' for Shards of Alara)."
        )
    return cleaned.lower()


class _SetBuilder:
    """Collects cards by name, separating basic lands and catching conflicting duplicates."""

    def __init__(self) -> None:
        self.cards: dict[str, Card] = {}  # name_key -> card
        self.basics: dict[str, str] = {}  # name_key -> name
        self.first_seen: dict[str, str] = {}  # name_key -> where it was first listed

    def add(self, name: str, rarity: str | None, where: str, card: Card | None = None) -> str | None:
        """Add one card; return a problem sentence instead when the entry is not usable."""
        name = clean_name(name)
        if not name:
            return f"{where}: the card name is missing."
        if len(name) > MAX_NAME_LENGTH:
            return f"{where}: the card name is {len(name)} characters long (at most {MAX_NAME_LENGTH})."
        key = name_key(name)
        basic = basic_land_name(name)
        if basic is not None:
            # Any rarity is accepted for a basic: Scryfall and CubeCobra call them common.
            self.basics.setdefault(key, basic)
            return None
        if rarity == _BASIC:
            return f"{where}: {name} is not a basic land, so it needs a rarity (C, U, R or M)."
        if rarity not in RARITIES:
            return f"{where}: {name} has no rarity (C, U, R or M)."
        known = self.cards.get(key)
        if known is not None:
            if known.rarity != rarity:
                earlier = (
                    f" on {self.first_seen[key].lower()}" if self.first_seen[key].startswith("Line") else ""
                )
                return f"{where}: {name} is listed again as {rarity}, but earlier{earlier} as {known.rarity}."
            return None  # the same card twice is harmless: the rarity decides the copies
        if len(self.cards) >= MAX_SET_CARDS:
            raise SetFormatError(
                f"The set lists more than {MAX_SET_CARDS} different cards; is it really one set?"
            )
        base = card or Card(name)
        self.cards[key] = Card(name, rarity, base.colour, base.type_line, base.mana_value)
        self.first_seen[key] = where
        return None

    def result(self, code: str, name: str, source: str) -> CardSet:
        if not self.cards:
            raise SetFormatError("The set lists no cards (basic lands aside).")
        return CardSet(
            code=code,
            name=name,
            cards=tuple(self.cards.values()),
            basics=tuple(self.basics.values()),
            source=source,
        )


def _raise_problems(problems: list[str]) -> None:
    if not problems:
        return
    shown = problems[:_MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    tail = f"\n(and {more} more)" if more else ""
    raise SetFormatError("The set list has problems:\n" + "\n".join(shown) + tail)


def _rarity_hint(raw: str) -> str:
    return f"{raw[:30]!r} is not a rarity: use C, U, R or M (or common, uncommon, rare, mythic)."


# --------------------------------------------------------------------------- uploads


def parse_set_bytes(
    data: bytes, *, code: str, name: str | None = None, filename: str | None = None
) -> CardSet:
    """Parse an uploaded set list (see the module docstring). ``name`` defaults to the code."""
    try:
        text = decode_upload(data, what="set list")
    except CubeFormatError as exc:
        raise SetFormatError(exc.message) from None
    return parse_set_text(text, code=code, name=name, filename=filename)


def parse_set_text(text: str, *, code: str, name: str | None = None, filename: str | None = None) -> CardSet:
    """Parse already-decoded set-list text: plain ``rarity,name`` lines or a CSV with a Rarity column."""
    code = validate_set_code(code)
    display = clean_name(name) if name and clean_name(name) else code.upper()
    if text.startswith("\ufeff"):
        text = text[1:]
    header = first_content_line(text)
    if header is None:
        raise SetFormatError(
            "The set list is empty; give one 'rarity,name' line per card (e.g. 'C,Lightning Bolt')."
        )
    columns = _csv_header(header)
    if columns & _CSV_NAME_HEADERS:
        if "rarity" not in columns:
            raise SetFormatError(
                "The CSV file has no Rarity column; a set list needs each card's rarity "
                "(or use plain 'rarity,name' lines)."
            )
        return _parse_csv(text, code, display)
    return _parse_plain(text, code, display)


def _csv_header(line: str) -> set[str]:
    try:
        return {cell.strip().lower() for cell in next(csv.reader([line]))}
    except (csv.Error, StopIteration):
        return set()


def _parse_plain(text: str, code: str, display: str) -> CardSet:
    builder = _SetBuilder()
    problems: list[str] = []
    for lineno, line in content_lines(enumerate(text.splitlines(), start=1)):
        where = f"Line {lineno}"
        rarity_text, comma, card_name = line.partition(",")
        if not comma:
            problems.append(f"{where}: expected 'rarity,name' (e.g. 'C,Lightning Bolt'), got {line[:60]!r}.")
            continue
        rarity = _RARITY_WORDS.get(" ".join(rarity_text.split()).lower())
        if rarity is None:
            problems.append(f"{where}: {_rarity_hint(rarity_text.strip())}")
            continue
        problem = builder.add(card_name, rarity, where)
        if problem:
            problems.append(problem)
    _raise_problems(problems)
    return builder.result(code, display, "text")


def _parse_csv(text: str, code: str, display: str) -> CardSet:
    try:
        listed = parse_cube_text(text, filename="set.csv")
    except CubeFormatError as exc:
        raise SetFormatError(exc.message) from None
    builder = _SetBuilder()
    problems: list[str] = []
    for card in listed.cards:
        raw = card.rarity or ""
        rarity = _RARITY_WORDS.get(" ".join(raw.split()).lower())
        if rarity is None and not is_basic_land(card.name):
            problems.append(f"{card.name}: {_rarity_hint(raw) if raw else 'the Rarity column is empty.'}")
            continue
        problem = builder.add(card.name, rarity, "CSV", card)
        if problem:
            problems.append(problem)
    _raise_problems(problems)
    return builder.result(code, display, "csv")


# --------------------------------------------------------------------------- Scryfall


@dataclass(frozen=True)
class ImportProgress:
    """Where a Scryfall import stands after a page: ``total_cards`` is Scryfall's own count."""

    pages_loaded: int
    cards_loaded: int
    total_cards: int | None


ProgressCallback = Callable[[ImportProgress], Awaitable[None]]


@dataclass
class RequestSpacing:
    """Keeps requests at least ``interval`` seconds apart across every caller in the process
    (Scryfall asks for 50–100 ms between requests, 10 per second on average)."""

    interval: float = 0.1
    _next_at: float = 0.0
    # One lock per event loop: an asyncio.Lock may only be awaited in the loop it first waited in.
    _locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    async def wait(self) -> None:
        lock = self._locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            now = time.monotonic()
            if self._next_at > now:
                await asyncio.sleep(self._next_at - now)
            self._next_at = max(now, self._next_at) + self.interval


SCRYFALL_SPACING = RequestSpacing()
"""The process-wide spacing every import uses unless told otherwise."""


async def fetch_scryfall_set(
    code: str,
    *,
    base: str,
    session: aiohttp.ClientSession | None = None,
    timeout: float = 60.0,  # noqa: ASYNC109 - bounds the whole import via asyncio.timeout
    progress: ProgressCallback | None = None,
    spacing: RequestSpacing | None = None,
) -> CardSet:
    """Import the booster cards of set ``code`` from Scryfall (``base`` is ``SCRYFALL_BASE``).

    ``timeout`` bounds the whole import (every page). ``progress`` is awaited after each page;
    if it raises, the error is logged and the import goes on (a progress message that cannot be
    edited should not cost the user the import). ``session`` is used if given (and left open).
    """
    code = _validate_scryfall_code(code)
    base = base.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"Scryfall base must be an http(s) URL, not {base!r}")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    own_session = session is None
    client = session or aiohttp.ClientSession()
    try:
        async with asyncio.timeout(timeout):
            return await _import(client, URL(base), code, progress, spacing or SCRYFALL_SPACING)
    except TimeoutError:
        raise ScryfallUnavailable(
            f"Scryfall did not answer within {timeout:g} seconds; try again later."
        ) from None
    except aiohttp.ClientError:
        raise ScryfallUnavailable("Could not reach Scryfall; try again later.") from None
    finally:
        if own_session:
            await client.close()


def _validate_scryfall_code(code: str) -> str:
    cleaned = code.strip() if isinstance(code, str) else ""
    if not _SCRYFALL_CODE_RE.match(cleaned):
        raise InvalidSetCode(
            "A Scryfall set code is 2–8 letters or digits, e.g. 'ala' for Shards of Alara "
            "(it is in the set's address on scryfall.com/sets)."
        )
    return cleaned.lower()


async def _import(
    session: aiohttp.ClientSession,
    base: URL,
    code: str,
    progress: ProgressCallback | None,
    spacing: RequestSpacing,
) -> CardSet:
    url = (base / "cards" / "search").with_query({"q": f"e:{code} is:booster", "unique": "cards"})
    builder = _SetBuilder()
    set_name = code.upper()
    pages = 0
    while True:
        await spacing.wait()
        page = await _get_page(session, url, code, first=pages == 0)
        cards = _page_cards(page, code)
        if pages == 0 and cards and isinstance(cards[0].get("set_name"), str):
            set_name = clean_name(cards[0]["set_name"]) or set_name
        for card in cards:
            _add_scryfall_card(builder, card)
        pages += 1
        if progress is not None:
            await _report_progress(
                progress, ImportProgress(pages, len(builder.cards) + len(builder.basics), _total(page))
            )
        if page.get("has_more") is not True:
            break
        if pages >= MAX_PAGES:
            raise ScryfallBadResponse(
                f"Scryfall has more than {MAX_PAGES} pages of cards for '{code}'; that is not one set."
            )
        url = _next_page(page, base)
    if not builder.cards:
        raise SetNotFound(f"Scryfall lists no booster cards (basic lands aside) for the set '{code}'.")
    return builder.result(code, set_name, "scryfall")


async def _get_page(session: aiohttp.ClientSession, url: URL, code: str, *, first: bool) -> dict[str, Any]:
    async with session.get(url, headers=SCRYFALL_HEADERS) as resp:
        status = resp.status
        body = await _read_bounded(resp)
    payload = _json_or_none(body)
    if status in (400, 404) and first:
        # Our query only varies by the set code, so "no match" or "bad request" means the code.
        raise SetNotFound(
            f"Scryfall knows no booster cards for the set code '{code}'. Check the code on scryfall.com/sets."
        )
    if status == 429 or status >= 500:
        raise ScryfallUnavailable(f"Scryfall is not answering properly (HTTP {status}); try again later.")
    if status != 200:
        raise ScryfallBadResponse(f"Scryfall refused the request (HTTP {status}).")
    if (
        not isinstance(payload, dict)
        or payload.get("object") != "list"
        or not isinstance(payload.get("data"), list)
    ):
        raise ScryfallBadResponse(
            "Scryfall sent something that is not a card list (the site may be having trouble)."
        )
    warnings = payload.get("warnings")
    if warnings:
        # Scryfall ignores an unknown "e:" term with a warning and would search every set.
        detail = str(warnings[0])[:200] if isinstance(warnings, list) else ""
        raise SetNotFound(f"Scryfall does not know the set code '{code}' ({detail}).")
    return payload


async def _read_bounded(resp: aiohttp.ClientResponse) -> bytes:
    if resp.content_length is not None and resp.content_length > MAX_PAGE_BYTES:
        raise ScryfallBadResponse("Scryfall sent a page that is too large.")
    chunks: list[bytes] = []
    total = 0
    async for chunk in resp.content.iter_chunked(64 * 1024):
        total += len(chunk)
        if total > MAX_PAGE_BYTES:
            raise ScryfallBadResponse("Scryfall sent a page that is too large.")
        chunks.append(chunk)
    return b"".join(chunks)


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None


def _page_cards(page: Mapping[str, Any], code: str) -> list[Mapping[str, Any]]:
    cards = []
    for entry in page["data"]:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise ScryfallBadResponse("Scryfall sent a card without a name.")
        if str(entry.get("set", "")).lower() != code:
            raise ScryfallBadResponse(f"Scryfall sent {entry['name'][:80]} from another set than '{code}'.")
        cards.append(entry)
    return cards


def _add_scryfall_card(builder: _SetBuilder, entry: Mapping[str, Any]) -> None:
    rarity = _SCRYFALL_RARITIES.get(str(entry.get("rarity", "")).lower())
    name = entry["name"]
    if rarity is None and not is_basic_land(name):
        raise ScryfallBadResponse(
            f"Scryfall gave {name[:80]} an unknown rarity {str(entry.get('rarity'))[:20]!r}."
        )
    card = Card(
        name=name,
        colour=_colour(entry.get("colors")),
        type_line=entry.get("type_line") if isinstance(entry.get("type_line"), str) else None,
        mana_value=float(entry["cmc"]) if isinstance(entry.get("cmc"), int | float) else None,
    )
    problem = builder.add(name, rarity, "Scryfall", card)
    if problem:
        raise ScryfallBadResponse(problem)


def _colour(colors: Any) -> str | None:
    if not isinstance(colors, list):
        return None  # double-faced cards keep their colours on the faces: unknown here
    letters = "".join(c for c in "WUBRG" if c in colors)
    return letters or "C"


def _total(page: Mapping[str, Any]) -> int | None:
    total = page.get("total_cards")
    return total if isinstance(total, int) and not isinstance(total, bool) else None


def _next_page(page: Mapping[str, Any], base: URL) -> URL:
    raw = page.get("next_page")
    if not isinstance(raw, str):
        raise ScryfallBadResponse("Scryfall said more cards follow but gave no next page.")
    url = URL(raw, encoded=True)
    # Only ever follow links on the configured host: a page must not send us elsewhere.
    if url.origin() != base.origin():
        raise ScryfallBadResponse("Scryfall's next page points to another site.")
    return url


async def _report_progress(progress: ProgressCallback, status: ImportProgress) -> None:
    try:
        await progress(status)
    except Exception:
        log.exception("421 set import: the progress callback failed; the import goes on")
