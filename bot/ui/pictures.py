"""Pictures of cards (Pillow): a pack as a lettered grid, a pool by colour and mana value.

Pure rendering: tiles in (see `bot.cards.images`), PNG bytes out. The layout functions are public
so a test (or a reader of the picture) can find each card: `grid_boxes` gives where tile i is.
"""

from __future__ import annotations

import functools
import io
import math
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
POOL_TILE = (160, 223)
POOL_PEEK = 0.16  # the share of a pool card left visible under the next one (its name)
CURVE = ("0–1", "2", "3", "4", "5", "6+")


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


def pool_picture(groups: Sequence[tuple[str, Sequence[PoolCard]]]) -> bytes:
    """One band per group (colour), its cards in columns by mana value (0–1, 2, … 6+), each column
    a pile in which every card shows its name bar."""
    width, height = POOL_TILE
    peek = max(1, int(height * POOL_PEEK))
    header = 34
    bands = []
    for name, cards in groups:
        columns: list[list[PoolCard]] = [[] for _ in CURVE]
        for card in cards:
            columns[curve_column(card.mana_value)].append(card)
        tallest = max(len(column) for column in columns)
        bands.append((name, len(cards), columns, header + height + peek * (tallest - 1) + GAP))
    canvas_width = GAP + len(CURVE) * (width + GAP)
    canvas = Image.new("RGB", (canvas_width, GAP + sum(band[3] for band in bands)), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    font, small = _font(24), _font(18)
    top = GAP
    for name, count, columns, band_height in bands:
        draw.text((GAP, top + 4), f"{name} ({count})", font=font, fill=LABEL_COLOUR)
        for index, column in enumerate(columns):
            left = GAP + index * (width + GAP)
            if column:
                draw.text((left + width - 4, top + 8), CURVE[index], font=small, fill=(181, 186, 193), anchor="ra")
            for depth, card in enumerate(column):
                canvas.paste(card.tile.resize(POOL_TILE, Image.Resampling.BILINEAR), (left, top + header + depth * peek))
        top += band_height
    return _png(canvas)
