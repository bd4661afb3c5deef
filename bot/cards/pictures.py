"""Pictures of cards (Pillow): a pack as a lettered grid, a pool in piles by mana value and type.

Pure rendering: tiles in (see `bot.cards.images`), PNG bytes out. The layout functions are public
so a test (or a reader of the picture) can find each card: `grid_boxes` gives where tile i is.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from bot.cards.images import TILE

BACKGROUND = (43, 45, 49)  # Discord's dark theme, so the picture sits in the message
LABEL_COLOUR = (242, 243, 245)
BADGE_COLOUR = (88, 101, 242)
GAP = 8
LABEL_HEIGHT = 36  # the strip above each card that carries its letter
MAX_COLUMNS = 5
CURVE = ("0-1", "2", "3", "4", "5", "6+")  # ASCII: the built-in font has no en dash


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def grid_columns(count: int) -> int:
    return max(1, min(count, MAX_COLUMNS if count <= 20 else math.ceil(math.sqrt(count * 1.5))))


def grid_size(count: int) -> tuple[int, int]:
    columns = grid_columns(count)
    rows = math.ceil(count / columns) if count else 1
    return GAP + columns * (TILE[0] + GAP), GAP + rows * (LABEL_HEIGHT + TILE[1] + GAP)


def grid_boxes(count: int) -> list[tuple[int, int, int, int]]:
    """Where each card's tile lies in a pack picture of `count` cards: (left, top, right, bottom),
    row by row, in pack (letter) order."""
    columns = grid_columns(count)
    boxes = []
    for index in range(count):
        row, column = divmod(index, columns)
        left = GAP + column * (TILE[0] + GAP)
        top = GAP + row * (LABEL_HEIGHT + TILE[1] + GAP) + LABEL_HEIGHT
        boxes.append((left, top, left + TILE[0], top + TILE[1]))
    return boxes


def pack_picture(tiles: Sequence[Image.Image], labels: Sequence[str]) -> bytes:
    """The pack's cards in a grid, each under its letter (A, B, … as the reactions and buttons)."""
    canvas = Image.new("RGB", grid_size(len(tiles)), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    font = _font(28)
    for tile, label, box in zip(tiles, labels, grid_boxes(len(tiles)), strict=True):
        canvas.paste(tile if tile.size == TILE else tile.resize(TILE), box[:2])
        _badge(draw, label, box[0] + TILE[0] // 2, box[1] - LABEL_HEIGHT // 2, font)
    return _png(canvas)


@functools.lru_cache(maxsize=256)
def placeholder_tile(name: str) -> Image.Image:
    """A card Scryfall has no image of (a custom card, a typo): its name on a plain card."""
    tile = Image.new("RGB", TILE, (30, 31, 34))
    draw = ImageDraw.Draw(tile)
    draw.rounded_rectangle((4, 4, TILE[0] - 5, TILE[1] - 5), radius=12, fill=(64, 66, 73), outline=(120, 124, 133), width=2)
    font = _font(20)
    lines, line = [], ""
    for word in name.split():
        candidate = f"{line} {word}".strip()
        if line and draw.textlength(candidate, font=font) > TILE[0] - 28:
            lines.append(line)
            candidate = word
        line = candidate
    lines.append(line)
    draw.multiline_text((TILE[0] // 2, TILE[1] // 2), "\n".join(lines[:8]), font=font, fill=LABEL_COLOUR,
                        anchor="mm", align="center")
    return tile


def _badge(draw: ImageDraw.ImageDraw, label: str, centre_x: int, centre_y: int, font) -> None:
    half_height = LABEL_HEIGHT // 2 - 3
    half_width = max(half_height, int(draw.textlength(label, font=font)) // 2 + 10)
    draw.rounded_rectangle(
        (centre_x - half_width, centre_y - half_height, centre_x + half_width, centre_y + half_height),
        radius=half_height, fill=BADGE_COLOUR,
    )
    draw.text((centre_x, centre_y), label, font=font, fill=LABEL_COLOUR, anchor="mm")


def _png(canvas: Image.Image) -> bytes:
    out = io.BytesIO()
    canvas.save(out, "PNG", compress_level=1)  # level 1: a fifth of the time of the default, ~10% bigger
    return out.getvalue()


# --- pools ----------------------------------------------------------------------------------------------
#
# As Draftmancer and Arena's deck builder show a pool: a column per mana value (0-1, 2, 3, 4, 5, 6+),
# each a pile of overlapping cards in which every card's name bar shows; creatures in the upper row,
# the other spells in the lower one, the lands apart in a column of their own at the right. The
# picture stays within POOL_MAX (width, height) whatever the pool: the cards get smaller, and a pile
# too tall for the height is split into piles side by side within its column.

CREATURE, SPELL, LAND = "creature", "spell", "land"
POOL_MAX = (1200, 1600)
POOL_TILE = (160, 223)  # the largest a pool card is drawn (the tile's 224 × 312 shape)
POOL_PEEK = 0.14  # the share of a pool card left visible under the next one (its name bar)
MIN_POOL_CARD_WIDTH = 48
LAND_GAP = 3 * GAP  # the lands stand apart, past a line
_WORD = {CREATURE: re.compile(r"\bCreature\b"), LAND: re.compile(r"\bLand\b")}


@dataclass(frozen=True)
class PoolCard:
    tile: Image.Image
    mana_value: float
    kind: str = SPELL  # CREATURE, SPELL or LAND (see `card_kind`)


def card_kind(type_line: str | None) -> str:
    """Where a card goes in the pool picture, by its (front face's) type line: a land (even a land
    creature) among the lands, a creature among the creatures, anything else among the spells."""
    front = (type_line or "").split("//")[0]
    if _WORD[LAND].search(front):
        return LAND
    return CREATURE if _WORD[CREATURE].search(front) else SPELL


def curve_column(mana_value: float) -> int:
    return min(max(int(mana_value) - 1, 0), len(CURVE) - 1)


POOL_ROWS = ((CREATURE, "Creatures"), (SPELL, "Non-creature spells"))  # then the lands, apart
LANDS = "Lands"
Pile = tuple[str, int]  # (kind, curve column); every land in (LAND, 0)


def pool_pile(mana_value: float, kind: str) -> Pile:
    """Where a card of a pool goes: its row (creatures, other spells) and curve column, or the lands."""
    return (LAND, 0) if kind == LAND else (kind, curve_column(mana_value))


def pool_piles(cards: Sequence[tuple[float, str]]) -> dict[Pile, list[int]]:
    """The pool's cards, each (mana value, kind), by pile: their indexes, in pool order (the order a
    pile keeps, top to bottom). What the pool picture draws, and the web pages show."""
    piles: dict[Pile, list[int]] = {}
    for index, (mana_value, kind) in enumerate(cards):
        piles.setdefault(pool_pile(mana_value, kind), []).append(index)
    return piles


Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Label:
    x: int
    y: int
    text: str
    anchor: str = "la"  # Pillow's text anchor: "la" left, "ra" right (of x), top at y


@dataclass(frozen=True)
class PoolLayout:
    """Where everything of a pool picture goes: `boxes[i]` is card i's (left, top, right, bottom),
    in the order given; a card drawn later covers the lower part of the one above it in its pile."""

    size: tuple[int, int]
    card: tuple[int, int]
    peek: int
    boxes: tuple[Box, ...]
    labels: tuple[Label, ...]
    font_size: int
    divider: tuple[int, int, int, int] | None  # the line between the spells and the lands


def _piles(count: int, limit: int) -> int:
    return max(1, math.ceil(count / limit)) if count else 0


def pool_layout(cards: Sequence[tuple[float, str]]) -> PoolLayout:
    """The layout of a pool picture of `cards`, each (mana value, kind), in pool order (which each
    pile keeps, top to bottom). Within POOL_MAX for any pool of up to about 1,000 cards."""
    if not cards:
        height, peek, font_size, _line = _pool_metrics(POOL_TILE[0])
        return PoolLayout((POOL_TILE[0] + 2 * GAP, 2 * GAP), (POOL_TILE[0], height), peek, (), (), font_size, None)
    piles = pool_piles(cards)
    counts = {(kind, column): len(piles.get((kind, column), ())) for kind, _title in POOL_ROWS
              for column in range(len(CURVE))}
    lands = len(piles.get((LAND, 0), ()))
    rows = list(POOL_ROWS)
    rows = [(kind, title) for kind, title in rows if any(counts[kind, c] for c in range(len(CURVE)))]
    columns = [c for c in range(len(CURVE)) if any(counts[kind, c] for kind, _title in rows)]
    longest = max([lands, *counts.values()])
    candidates = [_pool_size(counts, rows, columns, lands, limit) for limit in range(max(longest, 1), 0, -1)]
    usable = [size for size in candidates if size[0] >= MIN_POOL_CARD_WIDTH] or candidates[:1]
    fitting = [size for size in usable if size[-1] <= POOL_MAX[1]]
    # The largest cards that fit (then the fewest piles).
    width, limit, _height = max(fitting, key=lambda size: size[:2]) if fitting else min(usable, key=lambda size: size[-1])
    return _pool_place(cards, counts, rows, columns, lands, limit, width)


def _pool_metrics(width: int) -> tuple[int, int, int, int]:
    """A pool card of `width`: its height, the peek, the font size and a label line's height."""
    height = round(width * TILE[1] / TILE[0])
    font_size = max(11, min(18, width // 9))
    return height, max(1, round(height * POOL_PEEK)), font_size, font_size + 8


def _pool_piles(counts, rows, columns, lands, limit) -> tuple[dict[int, int], int]:
    piles = {c: max(_piles(counts[kind, c], limit) for kind, _title in rows) for c in columns}
    # The lands' column runs the height of both rows: its piles may be as long as theirs together.
    return piles, _piles(lands, limit * max(len(rows), 1))


def _pool_size(counts, rows, columns, lands, limit) -> tuple[int, int, int]:
    """(card width, pile limit, picture height) for piles of at most `limit` cards."""
    piles, land_piles = _pool_piles(counts, rows, columns, lands, limit)
    total = sum(piles.values()) + land_piles
    spare = POOL_MAX[0] - GAP * (total + 1) - (LAND_GAP if land_piles and columns else 0)
    width = min(POOL_TILE[0], spare // total)
    height, peek, _font_size, line = _pool_metrics(width)
    tallest = {kind: max((math.ceil(counts[kind, c] / piles[c]) for c in columns), default=0) for kind, _title in rows}
    rows_height = sum(2 * line + height + peek * (tallest[kind] - 1) + GAP for kind, _title in rows)
    land_height = 2 * line + height + peek * (math.ceil(lands / land_piles) - 1) + GAP if land_piles else 0
    return width, limit, GAP + max(rows_height, land_height)


def _pool_place(cards, counts, rows, columns, lands, limit, width) -> PoolLayout:
    height, peek, font_size, line = _pool_metrics(width)
    piles, land_piles = _pool_piles(counts, rows, columns, lands, limit)
    step = width + GAP
    lefts, left = {}, GAP
    for c in columns:
        lefts[c] = left
        left += piles[c] * step
    labels: list[Label] = []
    divider = None
    if land_piles:
        if columns:
            left += LAND_GAP
            divider = (left - LAND_GAP // 2 - GAP // 2, GAP, left - LAND_GAP // 2 - GAP // 2, 0)
        lefts[LAND] = left
        left += land_piles * step
    canvas_width = left
    # Row tops: a title line, a line of column headers, then the piles.
    tops, top = {}, GAP
    for kind, title in rows:
        total = sum(counts[kind, c] for c in columns)
        labels.append(Label(GAP, top, f"{title} ({total})"))
        for c in columns:
            if counts[kind, c]:
                labels.append(Label(lefts[c], top + line, f"{CURVE[c]} ({counts[kind, c]})"))
        tops[kind] = top + 2 * line
        tallest = max(math.ceil(counts[kind, c] / piles[c]) for c in columns if counts[kind, c])
        top = tops[kind] + height + peek * (tallest - 1) + GAP
    bottom = top
    if land_piles:
        labels.append(Label(canvas_width - GAP, GAP + line, f"{LANDS} ({lands})", "ra"))
        tops[LAND] = GAP + 2 * line
        bottom = max(bottom, tops[LAND] + height + peek * (math.ceil(lands / land_piles) - 1) + GAP)
    # Each column's cards, in order, dealt into its piles: the first pile filled first.
    seen: dict[tuple[str, int], int] = {}
    boxes = []
    for mana_value, kind in cards:
        key = pool_pile(mana_value, kind)
        index = seen[key] = seen.get(key, -1) + 1
        count, pile_count = (lands, land_piles) if kind == LAND else (counts[key], piles[key[1]])
        per_pile = math.ceil(count / pile_count)
        pile, depth = divmod(index, per_pile)
        card_left = lefts[LAND if kind == LAND else key[1]] + pile * step
        card_top = tops[kind] + depth * peek
        boxes.append((card_left, card_top, card_left + width, card_top + height))
    if divider is not None:
        divider = (divider[0], divider[1], divider[2], bottom - GAP)
    return PoolLayout((canvas_width, bottom), (width, height), peek, tuple(boxes), tuple(labels), font_size, divider)


def pool_picture(cards: Sequence[PoolCard]) -> bytes:
    """The pool as `pool_layout` lays it out (see above), from each card's tile."""
    layout = pool_layout([(card.mana_value, card.kind) for card in cards])
    canvas = Image.new("RGB", layout.size, BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    font = _font(layout.font_size)
    width, height = layout.card
    order = sorted(range(len(cards)), key=lambda i: (layout.boxes[i][0], layout.boxes[i][1]))
    for index, after in zip(order, [*order[1:], None], strict=True):
        left, top, _right, bottom = layout.boxes[index]
        # Only what the next card of the pile leaves uncovered is scaled: a fifth of the work.
        shown = height
        if after is not None and layout.boxes[after][0] == left and layout.boxes[after][1] < bottom:
            shown = layout.boxes[after][1] - top
        tile = cards[index].tile
        box = (0, 0, tile.width, tile.height * shown / height)
        canvas.paste(tile.resize((width, shown), Image.Resampling.BILINEAR, box=box), (left, top))
    for label in layout.labels:
        draw.text((label.x, label.y), label.text, font=font, fill=LABEL_COLOUR, anchor=label.anchor)
    if layout.divider is not None:
        draw.line(layout.divider, fill=(78, 80, 88), width=2)
    return _png(canvas)
