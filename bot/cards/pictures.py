"""Pictures of cards (Pillow): a pack as a lettered grid, a pool by colour and mana value.

Pure rendering: tiles in (see `bot.cards.images`), PNG bytes out. The layout functions are public
so a test (or a reader of the picture) can find each card: `grid_boxes` gives where tile i is.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from bot.cards.images import TILE

BACKGROUND = (43, 45, 49)  # Discord's dark theme, so the picture sits in the message
LABEL_COLOUR = (242, 243, 245)
BADGE_COLOUR = (88, 101, 242)
GAP = 8
LABEL_HEIGHT = 36  # the strip above each card that carries its letter
MAX_COLUMNS = 5
POOL_TILE = (160, 223)
POOL_PEEK = 0.16  # the share of a pool card left visible under the next one (its name)
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


@dataclass(frozen=True)
class PoolCard:
    tile: Image.Image
    mana_value: float


def curve_column(mana_value: float) -> int:
    return min(max(int(mana_value) - 1, 0), len(CURVE) - 1)


def pool_picture(groups: Sequence[tuple[str, Sequence[PoolCard]]], *, spread: Collection[str] = ()) -> bytes:
    """One band per group (colour), its cards in columns by mana value (0-1, 2, … 6+), each column
    a pile in which every card shows its name bar. Groups named in `spread` (lands) have no curve:
    their cards are dealt across the columns in order."""
    width, height = POOL_TILE
    peek = max(1, int(height * POOL_PEEK))
    title_height, labels_height = 32, 24
    bands = []
    for name, cards in groups:
        columns: list[list[PoolCard]] = [[] for _ in CURVE]
        for index, card in enumerate(cards):
            columns[index % len(CURVE) if name in spread else curve_column(card.mana_value)].append(card)
        tallest = max(len(column) for column in columns)
        band_height = title_height + labels_height + height + peek * (tallest - 1) + GAP
        bands.append((name, len(cards), columns, name not in spread, band_height))
    canvas_width = GAP + len(CURVE) * (width + GAP)
    canvas = Image.new("RGB", (canvas_width, GAP + sum(band[4] for band in bands)), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    font, small = _font(24), _font(18)
    top = GAP
    for name, count, columns, by_curve, band_height in bands:
        draw.text((GAP, top), f"{name} ({count})", font=font, fill=LABEL_COLOUR)
        for index, column in enumerate(columns):
            left = GAP + index * (width + GAP)
            if column and by_curve:
                draw.text((left + 2, top + title_height), CURVE[index], font=small, fill=(181, 186, 193))
            for depth, card in enumerate(column):
                tile = card.tile.resize(POOL_TILE, Image.Resampling.BILINEAR)
                canvas.paste(tile, (left, top + title_height + labels_height + depth * peek))
        top += band_height
    return _png(canvas)
