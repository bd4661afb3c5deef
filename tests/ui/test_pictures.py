"""Pack and pool pictures (Pillow) and the on-disk image cache: layout, markers, size bound, speed."""

from __future__ import annotations

import io
import os
import time

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.cards.images import TILE, ImageCache, scale_to_tile
from bot.ui import pictures
from tests.e2e.fake_scryfall_cards import card_image, marker_colour, marker_index


def fake_tile(index: int) -> Image.Image:
    return scale_to_tile(card_image(index, f"Card {index}", "R", "Instant"))


def read_markers(png: bytes, count: int) -> list[int | None]:
    """Which fake card each grid position shows (its art box's marker colour at the tile's centre)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    found = []
    for left, top, right, bottom in pictures.grid_boxes(count):
        found.append(marker_index(image.getpixel(((left + right) // 2, (top + bottom) // 2))))
    return found


def test_a_pack_picture_holds_the_cards_in_letter_order() -> None:
    tiles = [fake_tile(i) for i in (7, 3, 200, 41)]
    png = pictures.pack_picture(tiles, ["A", "B", "C", "D"])
    assert png.startswith(b"\x89PNG")
    assert read_markers(png, 4) == [7, 3, 200, 41]
    image = Image.open(io.BytesIO(png))
    assert image.size == pictures.grid_size(4)


@given(st.integers(min_value=1, max_value=30))
@settings(max_examples=30, deadline=None)
def test_grid_boxes_never_overlap_and_fit(count: int) -> None:
    boxes = pictures.grid_boxes(count)
    width, height = pictures.grid_size(count)
    assert len(boxes) == count
    for i, (left, top, right, bottom) in enumerate(boxes):
        assert 0 <= left < right <= width and 0 <= top < bottom <= height
        assert (right - left, bottom - top) == TILE
        for other in boxes[i + 1 :]:
            assert right <= other[0] or other[2] <= left or bottom <= other[1] or other[3] <= top
    # Reading order: row by row, left to right.
    assert boxes == sorted(boxes, key=lambda box: (box[1], box[0]))


def test_marker_colours_are_unique_and_read_back() -> None:
    colours = [marker_colour(i) for i in range(4096)]
    assert len(set(colours)) == 4096
    assert all(marker_index(c) == i for i, c in enumerate(colours))
    assert marker_index((255, 255, 255)) is None


def test_pool_picture_bands_by_colour_and_columns_by_mana_value() -> None:
    red = [pictures.PoolCard(fake_tile(i), mv) for i, mv in enumerate([1, 2, 2, 7])]
    blue = [pictures.PoolCard(fake_tile(10), 3)]
    png = pictures.pool_picture([("Red", red), ("Blue", blue)])
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width == pictures.GAP + len(pictures.CURVE) * (pictures.POOL_TILE[0] + pictures.GAP)
    assert [pictures.curve_column(mv) for mv in (0, 1, 2, 3, 6, 9)] == [0, 0, 1, 2, 5, 5]
    assert image.height > 2 * pictures.POOL_TILE[1]


def test_the_cache_stores_tiles_and_keeps_its_bound(tmp_path) -> None:
    cache = ImageCache(tmp_path, max_bytes=10**9)
    data = card_image(5, "Opt", "U", "Instant")
    tile = cache.put("https://img/5.jpg", data)
    assert tile.size == TILE and cache.has("https://img/5.jpg") and not cache.has("https://img/6.jpg")
    fresh = ImageCache(tmp_path, max_bytes=10**9)  # another process, or after a restart
    again = fresh.tile("https://img/5.jpg")
    assert again is not None and marker_index(again.getpixel((TILE[0] // 2, TILE[1] // 2))) == 5
    assert fresh.memory_bytes == TILE[0] * TILE[1] * 3
    assert fresh.tiles(["https://img/5.jpg", "https://img/6.jpg"]) is None
    # A bound of about three files: the least recently used go first.
    one = cache.disk_bytes()
    small = ImageCache(tmp_path / "small", max_bytes=int(one * 3.5))
    for i in range(6):
        small.put(f"https://img/{i}.jpg", card_image(i, f"C{i}", "G", "Instant"))
        path = small.path(f"https://img/{i}.jpg")
        os.utime(path, (1000 + i, 1000 + i))
    kept = [i for i in range(6) if small.path(f"https://img/{i}.jpg").exists()]
    assert kept and kept == list(range(6 - len(kept), 6)) and len(kept) <= 3
    assert small.disk_bytes() <= small.max_bytes


def test_half_written_files_of_a_killed_process_are_swept_up(tmp_path) -> None:
    cache = ImageCache(tmp_path, max_bytes=10**9)
    cache.put("https://img/1.jpg", card_image(1, "Opt", "U", "Instant"))
    stale, fresh = tmp_path / "ab" / "x.part", tmp_path / "ab" / "y.part"
    stale.parent.mkdir(exist_ok=True)
    stale.write_bytes(b"half"), fresh.write_bytes(b"writing")
    os.utime(stale, (1000, 1000))
    again = ImageCache(tmp_path, max_bytes=10**9)
    assert again.disk_bytes() == cache.disk_bytes()
    assert not stale.exists() and fresh.exists()


def test_the_memory_holds_at_most_its_tiles(tmp_path) -> None:
    cache = ImageCache(tmp_path, max_bytes=10**9, memory_tiles=3)
    for i in range(5):
        cache.put(f"https://img/{i}.jpg", card_image(i, "X", "", "Artifact"))
    assert cache.memory_bytes == 3 * TILE[0] * TILE[1] * 3


def test_rendering_a_15_card_pack_takes_under_100_ms() -> None:
    tiles = [fake_tile(i) for i in range(15)]
    labels = [chr(65 + i) for i in range(15)]
    pictures.pack_picture(tiles, labels)  # the font is loaded once
    start = time.perf_counter()
    for _ in range(5):
        pictures.pack_picture(tiles, labels)
    assert (time.perf_counter() - start) / 5 < 0.1
