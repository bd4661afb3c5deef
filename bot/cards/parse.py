"""The one reader of card lists: cubes (uploads, CubeCobra exports, the project's shipped-cube
files), 421 set lists' CSV and decklists (Turnabout's, 421's). Pure functions, no I/O.

:func:`read_card_list` reads a list as its main part and its sideboard, by one rule (below);
:func:`read_decklist` reads an uploaded decklist the same way; a cube is a list's main part
(:func:`parse_cube_text`, :func:`parse_cube_bytes`, which enforce the size limits). Every problem
is a :class:`CubeFormatError` whose message can be shown to the user as is.

**The sideboard rule** (:func:`split_sideboard`, the same for every list; a format decides what a
sideboard means: a cube leaves it out, 421 leaves it out and says so, Turnabout refuses it):

1. the lines under a sideboard heading (a line of its own, a colon allowed: ``Sideboard``,
   ``Side board``, ``Side``, ``Companion``, ``Commander``, ``Maybeboard``, ``Maybe``,
   ``Considering``) until a main heading (``Deck``, ``Main``, ``Maindeck``, ``Main deck``,
   ``Mainboard``);
2. every line that starts with ``SB:`` (MTGO's and Cockatrice's mark);
3. in a list with neither, what follows its first blank line when at least
   :data:`CONSTRUCTED_DECK` cards come before it and at most :data:`MOST_SIDEBOARD` after it (MTGO's
   and Draftmancer's text export: the deck, a blank line, its sideboard). A list cut by blank lines
   in any other way (a cube's colour sections) is one list.

An Arena export's ``About`` heading and the ``Name …`` lines under it (until a blank line) are
neither part: they are skipped.

Recognised formats (detected from the content, with the file name as a hint):

* **plain text** — one card per line, optionally with a quantity (``2 Card``, ``2x Card``);
  ``#`` and ``//`` comment lines, blank lines and headings are ignored; the sideboard is
  split off by the rule above. A trailing Arena-style set code (``Lightning Bolt (M10) 146``) is
  dropped. CubeCobra's plain-text export is this format.
* **CSV** — CubeCobra's export (``name,CMC,Type,Color,Set,…,maybeboard,…``, also the
  older capitalised ``Name,CMC,Type,Color,…``). Rows whose ``maybeboard`` is true are
  skipped; an optional ``count``/``quantity`` column repeats a card; an optional ``rating``
  (or ``elo``) column gives the cards' ratings (any scale: higher is better).
* **CubeCobra JSON** — ``{"cards": {"mainboard": [{"details": {...}}]}}``; also a
  top-level ``mainboard`` or ``cards`` list, a bare list, and entries with ``name`` directly
  or plain strings. A card's ``rating``, else its ``elo`` (CubeCobra's pick-based rating, in
  ``details``), is kept as its rating.
* **shipped cube** (see ``cubes/README.md``) — ``# key: value`` header lines, then a
  tab-separated header row starting with ``name`` and one card per line.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from bot.cards.model import BASIC_LAND_NAMES, Card, CardList, is_basic_land

__all__ = [
    "BASIC_LAND_NAMES",
    "MAX_BYTES",
    "MAX_CARDS",
    "MAX_NAME_LENGTH",
    "CONSTRUCTED_DECK",
    "MOST_SIDEBOARD",
    "CubeFormatError",
    "ReadList",
    "content_lines",
    "decode_upload",
    "first_content_line",
    "is_basic_land",
    "normalise_name",
    "parse_cube_bytes",
    "parse_cube_json",
    "parse_cube_text",
    "parse_shipped_text",
    "read_card_list",
    "read_decklist",
    "split_sideboard",
]

MAX_BYTES = 1024 * 1024
"""Largest accepted upload (1 MiB)."""
MAX_CARDS = 5000
"""Most cards (after expanding quantities) a list may hold."""
MAX_NAME_LENGTH = 200
"""Longest accepted card name (the longest real one is about 140 characters)."""

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# C0/C1 control characters other than tab/newline/carriage return, plus U+FFFD.
_UNPRINTABLE_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_UNPRINTABLE_RATIO = 0.10

_QTY_RE = re.compile(r"^(\d{1,3})\s*[xX]?\s+(\S.*)$")
_SET_SUFFIX_RE = re.compile(r"\s+\([A-Z0-9]{2,6}\)(?:\s+[A-Za-z0-9★-]+)?$")
_SB_PREFIX_RE = re.compile(r"^SB:\s*", re.IGNORECASE)
_MAIN_HEADINGS = frozenset({"deck", "main", "maindeck", "main deck", "mainboard"})
_SIDE_HEADINGS = frozenset(
    {"sideboard", "side board", "side", "companion", "commander", "maybeboard", "maybe", "considering"}
)
# The boards of a CSV or JSON list that are not in it (its other boards are its cards).
_SKIP_BOARDS = frozenset({"maybeboard", "maybe", "considering"})
_ABOUT_HEADING = "about"  # Arena's "About / Name My Deck" lines before the deck
CONSTRUCTED_DECK = 60
"""The fewest cards before a blank line for what follows it to be a sideboard (rule 3)."""
MOST_SIDEBOARD = 15
"""The most cards after that blank line for them to be a sideboard (a constructed sideboard's most)."""

_NAME_COLUMNS = ("name", "card name", "card", "cardname")
_COUNT_COLUMNS = ("count", "quantity", "qty")
_KNOWN_CSV_COLUMNS = frozenset(
    {
        *_NAME_COLUMNS,
        *_COUNT_COLUMNS,
        "cmc",
        "mana value",
        "type",
        "type line",
        "color",
        "colour",
        "set",
        "edition",
        "collector number",
        "rarity",
        "color category",
        "status",
        "finish",
        "maybeboard",
        "image url",
        "image back url",
        "tags",
        "notes",
        "mtgo id",
        "rating",
        "elo",
    }
)
_TRUE_WORDS = frozenset({"true", "yes", "y", "1", "x"})
_COLOUR_WORDS = {
    "white": "W",
    "blue": "U",
    "black": "B",
    "red": "R",
    "green": "G",
    "colorless": "C",
    "colourless": "C",
}


Line = tuple[int, str]  # (line number, the line)


class CubeFormatError(ValueError):
    """A cube list could not be read. ``str(error)`` is a message fit to show the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# ---------------------------------------------------------------------------------------
# helpers


def normalise_name(name: str) -> str:
    """Strip and collapse inner whitespace; the case is kept as given."""
    return " ".join(name.split())


def _fmt_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


def _colour(value: Any) -> str | None:
    """Normalise a colour given as letters (``"ub"``), words (``"Blue"``) or a list."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        if not value:
            return "C"
        value = "".join(str(v) for v in value)
    text = str(value).strip()
    if not text:
        return None
    tokens = [t for t in re.split(r"[^A-Za-z]+", text) if t]
    if all(set(t.upper()) <= set("WUBRGC") for t in tokens):
        letters = {c for t in tokens for c in t.upper()}
    else:
        letters = {_COLOUR_WORDS[t.lower()] for t in tokens if t.lower() in _COLOUR_WORDS}
    ordered = "".join(c for c in "WUBRG" if c in letters)
    if ordered:
        return ordered
    if "C" in letters:
        return "C"
    return None


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip()) if not isinstance(value, int | float) else float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0 or number > 1_000_000:
        return None
    return number


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


class _Collector:
    """Accumulates cards, enforcing the name and card-count limits."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.cards: list[Card] = []

    def add(self, card: Card, quantity: int = 1, where: str = "") -> None:
        name = normalise_name(card.name)
        if not name or quantity <= 0:
            return
        if len(name) > MAX_NAME_LENGTH:
            raise CubeFormatError(
                f"{where}a card name is {len(name)} characters long (at most {MAX_NAME_LENGTH} "
                "are allowed). Is this really a cube list?"
            )
        if len(self.cards) + quantity > MAX_CARDS:
            raise CubeFormatError(
                f"The list has more than {MAX_CARDS} cards; a cube may have at most {MAX_CARDS}."
            )
        if name != card.name:
            card = replace(card, name=name)
        self.cards.extend([card] * quantity)

    def result(self, empty_message: str | None = None) -> CardList:
        if not self.cards:
            raise CubeFormatError(empty_message or "No card names were found in the list.")
        return CardList(cards=self.cards, source=self.source)


# ---------------------------------------------------------------------------------------
# entry points


def decode_upload(data: bytes, what: str = "cube list") -> str:
    """Check an uploaded card-list file and decode it as UTF-8 text.

    Enforces :data:`MAX_BYTES`, strips a UTF-8 BOM and refuses UTF-16, empty and binary files
    with a :class:`CubeFormatError`; ``what`` names the kind of list in those messages. Shared by
    every parser of uploaded lists (cubes here, 421 set lists in :mod:`bot.cards.sets`).
    """
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise TypeError("decode_upload expects bytes")
    size = len(data)
    if size > MAX_BYTES:
        raise CubeFormatError(
            f"The file is too big ({_fmt_size(size)}); a {what} may be at most {_fmt_size(MAX_BYTES)}."
        )
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    elif data.startswith(_UTF16_BOMS):
        raise CubeFormatError(
            "The file is UTF-16 text, not UTF-8. Save it as UTF-8 (plain text or CSV) and try again."
        )
    if not data.strip():
        raise CubeFormatError("The file is empty; upload a list with one card name per line.")
    not_text = f"That looks like a binary file, not a text list. Upload a .txt, .csv or .json {what}."
    if b"\x00" in data:
        raise CubeFormatError(not_text)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CubeFormatError(
            f"The file is not UTF-8 text (undecodable byte at position {exc.start}). "
            "Save it as UTF-8 and try again."
        ) from None
    unprintable = len(_UNPRINTABLE_RE.findall(text))
    if unprintable and unprintable > _UNPRINTABLE_RATIO * len(text):
        raise CubeFormatError(not_text)
    return text


def parse_cube_bytes(data: bytes, filename: str | None = None) -> CardList:
    """Parse an uploaded cube list, enforcing :data:`MAX_BYTES` and :data:`MAX_CARDS`.

    Raises :class:`CubeFormatError` (with a user-facing message) for anything that is not a
    readable cube list.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError("parse_cube_bytes expects bytes")
    return parse_cube_text(decode_upload(data), filename=filename)


@dataclass(frozen=True)
class ReadList:
    """A card list as read: its main part and its sideboard (the sideboard rule, module docstring).
    JSON, CSV and shipped lists carry no sideboard (their boards are fields: CubeCobra's maybeboard
    is skipped)."""

    main: CardList
    sideboard: tuple[Card, ...] = ()


def parse_cube_text(text: str, filename: str | None = None) -> CardList:
    """Parse already-decoded text as a cube: the list's main part (see the module docstring)."""
    return read_card_list(text, filename).main


def read_decklist(data: str | bytes) -> ReadList:
    """An uploaded (or typed) decklist: its main deck and its sideboard, by the one rule; bytes are
    checked and decoded as every upload is (:func:`decode_upload`)."""
    text = data if isinstance(data, str) else decode_upload(bytes(data), what="decklist")
    return read_card_list(text)


def read_card_list(text: str, filename: str | None = None) -> ReadList:
    """Read already-decoded text, detecting the format (see the module docstring)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise CubeFormatError("The list is empty; give one card name per line.")
    suffix = PurePath(filename).suffix.lower() if filename else ""
    stripped = text.lstrip()

    if suffix == ".json" or stripped.startswith("{"):
        return ReadList(parse_cube_json(_load_json(text)))
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            pass  # a text list that happens to start with "[": fall through
        except RecursionError:
            raise CubeFormatError("The JSON is nested too deeply to be a cube list.") from None
        else:
            return ReadList(parse_cube_json(data))

    first = first_content_line(text)
    if first is not None and "\t" in first and first.split("\t", 1)[0].strip().lower() == "name":
        return ReadList(parse_shipped_text(text)[1])

    if suffix in (".csv",) or (first is not None and _looks_like_csv_header(first)):
        return ReadList(_parse_csv(text))
    return _parse_plain(text)


# ---------------------------------------------------------------------------------------
# plain text


def content_lines(lines: Iterable[Line]) -> Iterator[Line]:
    """The numbered lines of a list that say something (stripped): no blank line, no ``#`` or ``//``
    comment. Every plain-text list (cubes, decklists, 421's set lists) is read from these."""
    return ((number, line.strip()) for number, line in lines if _is_content(line))


def first_content_line(text: str) -> str | None:
    """The first line that says something (stripped), or None."""
    return next((line for _, line in content_lines(enumerate(text.splitlines(), start=1))), None)


def _heading(line: str) -> str:
    return line.strip().rstrip(":").strip().lower()


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("#", "//"))


def _quantity(line: str) -> int:
    found = _QTY_RE.match(line.strip())
    return int(found.group(1)) if found else 1


def split_sideboard(text: str) -> tuple[list[Line], list[Line]]:
    """A plain-text list's lines as (main part, sideboard), each line with its number, by the
    sideboard rule (the module docstring); headings and ``SB:`` marks are left out."""
    main: list[Line] = []
    side: list[Line] = []
    section, marked = "main", False
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _heading(line)
        if heading in _MAIN_HEADINGS:
            section, marked = "main", True
        elif heading in _SIDE_HEADINGS:
            section, marked = "side", True
        elif heading == _ABOUT_HEADING:
            section = "about"
        elif section == "about":
            section = "about" if line.strip() else "main"
        elif _SB_PREFIX_RE.match(line.strip()):
            marked = True
            side.append((number, _SB_PREFIX_RE.sub("", line.strip())))
        else:
            (main if section == "main" else side).append((number, line))
    if not marked:
        return _split_at_blank_line(main)
    return main, side


def _split_at_blank_line(lines: list[Line]) -> tuple[list[Line], list[Line]]:
    """Rule 3: the part after the first blank line that follows cards, when it is a sideboard."""
    before = 0
    for index, (_, line) in enumerate(lines):
        if not line.strip() and before:
            after = sum(_quantity(rest) for _, rest in lines[index:] if _is_content(rest))
            if before >= CONSTRUCTED_DECK and 0 < after <= MOST_SIDEBOARD:
                return lines[:index], lines[index:]
            break
        if _is_content(line):
            before += _quantity(line)
    return lines, []


def _plain_cards(lines: list[Line], out: _Collector) -> _Collector:
    for lineno, line in content_lines(lines):
        quantity = 1
        m = _QTY_RE.match(line)
        if m:
            quantity = int(m.group(1))
            line = m.group(2)
        line = _SET_SUFFIX_RE.sub("", line)
        out.add(Card(line), quantity, where=f"Line {lineno}: ")
    return out


def _parse_plain(text: str) -> ReadList:
    main, side = split_sideboard(text)
    try:
        sideboard = tuple(_plain_cards(side, _Collector("text")).cards)
    except CubeFormatError:  # an unreadable sideboard is left out all the same
        sideboard = tuple(Card(raw.strip()[:MAX_NAME_LENGTH]) for _, raw in side if _is_content(raw))
    read = _plain_cards(main, _Collector("text"))
    if not read.cards and sideboard:
        raise CubeFormatError("The list has no cards outside its sideboard.")
    return ReadList(read.result(), sideboard)


# ---------------------------------------------------------------------------------------
# CSV


def _csv_cells(line: str) -> list[str]:
    try:
        return [c.strip().lower() for c in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return []


def _looks_like_csv_header(line: str) -> bool:
    cells = _csv_cells(line)
    if len(cells) < 2:
        return False
    known = sum(1 for c in cells if c in _KNOWN_CSV_COLUMNS)
    return known >= 2 or any(c in _NAME_COLUMNS for c in cells)


def _parse_csv(text: str) -> CardList:
    out = _Collector("csv")
    reader = csv.reader(io.StringIO(text))
    try:
        header: list[str] | None = None
        for row in reader:
            if any(cell.strip() for cell in row):
                header = row
                break
        if header is None:
            raise CubeFormatError("The CSV file has no rows.")
        columns: dict[str, int] = {}
        for i, cell in enumerate(header):
            columns.setdefault(cell.strip().lower(), i)
        name_idx = next((columns[c] for c in _NAME_COLUMNS if c in columns), None)
        if name_idx is None:
            shown = ", ".join(h.strip() for h in header[:8] if h.strip())
            raise CubeFormatError(
                "The CSV file has no name column (its header row is: "
                f"{shown[:200] or 'empty'}). The first row must name the columns and one of them "
                "must be called 'name', as in a CubeCobra CSV export."
            )

        def col(*names: str) -> int | None:
            return next((columns[n] for n in names if n in columns), None)

        cmc_idx = col("cmc", "mana value", "mana_value", "mv")
        type_idx = col("type", "type line", "type_line")
        colour_idx = col("color", "colour")
        category_idx = col("color category", "colour category")
        rarity_idx = col("rarity")
        rating_idx = col("rating", "elo")
        maybe_idx = col("maybeboard")
        board_idx = col("board")
        count_idx = col(*_COUNT_COLUMNS)

        def cell(row: list[str], idx: int | None) -> str:
            if idx is None or idx >= len(row):
                return ""
            return row[idx].strip()

        for row in reader:
            name = cell(row, name_idx)
            if not name:
                continue
            if cell(row, maybe_idx).lower() in _TRUE_WORDS:
                continue
            if cell(row, board_idx).lower() in _SKIP_BOARDS:
                continue
            quantity = 1
            raw_count = cell(row, count_idx)
            if raw_count:
                if not raw_count.isdigit() or len(raw_count) > 4:
                    raise CubeFormatError(
                        f"CSV line {reader.line_num}: the count {raw_count[:20]!r} is not a whole number."
                    )
                quantity = int(raw_count)
            colour = _colour(cell(row, colour_idx))
            if colour is None and cell(row, category_idx).lower() in ("colorless", "colourless", "c"):
                colour = "C"
            card = Card(
                name=name,
                rarity=_text_or_none(cell(row, rarity_idx).lower()),
                colour=colour,
                type_line=_text_or_none(cell(row, type_idx)),
                mana_value=_number(cell(row, cmc_idx)),
                rating=_number(cell(row, rating_idx)),
            )
            out.add(card, quantity, where=f"CSV line {reader.line_num}: ")
    except csv.Error as exc:
        raise CubeFormatError(f"The CSV file is malformed near line {reader.line_num}: {exc}.") from None
    return out.result("The CSV file has a header row but no cards.")


# ---------------------------------------------------------------------------------------
# JSON


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CubeFormatError(
            f"The file looks like JSON but is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})."
        ) from None
    except RecursionError:
        raise CubeFormatError("The JSON is nested too deeply to be a cube list.") from None


def _json_entries(data: Any) -> Iterable[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        cards = data.get("cards")
        if isinstance(cards, Mapping) and isinstance(cards.get("mainboard"), list):
            return cards["mainboard"]
        if isinstance(cards, list):
            return cards
        if isinstance(data.get("mainboard"), list):
            return data["mainboard"]
    raise CubeFormatError(
        "The JSON does not contain a card list. Expected a CubeCobra cube "
        '({"cards": {"mainboard": [...]}}), a "mainboard" or "cards" list, or a list of names.'
    )


def parse_cube_json(data: Any) -> CardList:
    """Build a card list from decoded CubeCobra-style JSON (see the module docstring)."""
    out = _Collector("cubecobra-json")
    entries = _json_entries(data)
    unnamed = 0
    for i, entry in enumerate(entries, start=1):
        where = f"Card {i}: "
        if isinstance(entry, str):
            out.add(Card(entry), where=where)
            continue
        if not isinstance(entry, Mapping):
            unnamed += 1
            continue
        if entry.get("maybeboard") is True or str(entry.get("board", "")).lower() in _SKIP_BOARDS:
            continue
        details = entry.get("details")
        if not isinstance(details, Mapping):
            details = {}
        name = details.get("name") or entry.get("name")
        if not isinstance(name, str) or not name.strip():
            unnamed += 1
            continue

        def pick(*keys: str, _entry: Mapping[str, Any] = entry, _details: Mapping[str, Any] = details) -> Any:
            for key in keys:
                for source in (_entry, _details):
                    value = source.get(key)
                    if value not in (None, ""):
                        return value
            return None

        type_line = pick("type_line", "type")
        rarity = pick("rarity")
        quantity = pick("quantity", "count")
        card = Card(
            name=name,
            rarity=_text_or_none(rarity.lower()) if isinstance(rarity, str) else None,
            colour=_colour(pick("colors", "colours", "color_identity")),
            type_line=_text_or_none(type_line) if isinstance(type_line, str) else None,
            mana_value=_number(pick("cmc", "mana_value")),
            rating=_number(pick("rating", "elo")),
        )
        qty = 1
        if isinstance(quantity, int) and not isinstance(quantity, bool) and 0 <= quantity <= 9999:
            qty = quantity
        out.add(card, qty, where=where)
    if unnamed and not out.cards:
        raise CubeFormatError(f"The JSON lists {unnamed} cards but none of them has a name.")
    return out.result("The JSON card list is empty.")


# ---------------------------------------------------------------------------------------
# shipped cubes (cubes/README.md)

_META_RE = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_ -]*?)\s*:\s*(.*?)\s*$")
_SHIPPED_COLUMNS = {
    "name": "name",
    "colour": "colour",
    "color": "colour",
    "type": "type_line",
    "type_line": "type_line",
    "mana_value": "mana_value",
    "mv": "mana_value",
    "cmc": "mana_value",
    "rarity": "rarity",
    "rating": "rating",
}
_VALID_COLOUR_RE = re.compile(r"^(?:C|[WUBRG]{1,5})$")


def parse_shipped_text(text: str) -> tuple[dict[str, str], CardList]:
    """Parse a shipped-cube file: ``# key: value`` header lines, a tab-separated header row
    (``name`` first), then one card per line. Returns ``(metadata, cards)``.

    Stricter than the upload formats: a malformed value is an error with its line number.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    meta: dict[str, str] = {}
    out = _Collector("shipped")
    fields: list[str | None] | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            m = _META_RE.match(line.strip())
            if m and fields is None:
                meta[m.group(1).strip().lower()] = m.group(2)
            continue
        cells = [c.strip() for c in line.split("\t")]
        if fields is None:
            fields = [_SHIPPED_COLUMNS.get(c.lower()) for c in cells]
            if not fields or fields[0] != "name":
                raise CubeFormatError(f"Line {lineno}: the header row must start with 'name'.")
            continue
        values: dict[str, str] = {}
        for key, value in zip(fields, cells, strict=False):
            if key is not None and value:
                values[key] = value
        name = values.get("name", "")
        if not name:
            raise CubeFormatError(f"Line {lineno}: the card name is missing.")
        colour = values.get("colour")
        if colour is not None:
            letters = colour.upper()
            if not _VALID_COLOUR_RE.match(letters) or len(set(letters)) != len(letters):
                raise CubeFormatError(f"Line {lineno}: {colour!r} is not a colour (use WUBRG letters or C).")
            colour = _colour(letters)
        numbers: dict[str, float | None] = {}
        for key in ("mana_value", "rating"):
            value = values.get(key)
            numbers[key] = _number(value) if value is not None else None
            if value is not None and numbers[key] is None:
                raise CubeFormatError(f"Line {lineno}: {key} {value!r} is not a number.")
        out.add(
            Card(
                name=name,
                rarity=values.get("rarity", "").lower() or None,
                colour=colour,
                type_line=values.get("type_line"),
                mana_value=numbers["mana_value"],
                rating=numbers["rating"],
            ),
            where=f"Line {lineno}: ",
        )
    if fields is None:
        raise CubeFormatError("The cube file has no header row (name<TAB>colour<TAB>…).")
    return meta, out.result("The cube file lists no cards.")
