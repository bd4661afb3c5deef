"""Pack and pool pictures (Pillow) and the on-disk image cache: layout, markers, size bound, speed."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.cards import pictures
from bot.cards.images import MAX_SIDE, TILE, ImageCache, ImageTooLarge, scale_to_tile
from tests.e2e.fake_scryfall_cards import card_image, huge_png, marker_colour, marker_index


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


# --- hostile images (issue 23): refused before decoding, or decoded reduced ---------------------------


def encoded(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    image.save(out, kind)
    return out.getvalue()


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # the bot ignores it (pytest resets filters)
def test_an_image_past_the_pixel_bound_is_refused_before_it_is_decoded(tmp_path) -> None:
    data = huge_png()
    assert len(data) < 25_000  # 20 KB on the wire, 13,000 × 13,000 pixels
    with pytest.raises(ImageTooLarge, match="13000"):
        scale_to_tile(data)
    cache = ImageCache(tmp_path, max_bytes=10**9)
    with pytest.raises(ImageTooLarge):
        cache.put("https://img/huge.png", data)
    assert not cache.has("https://img/huge.png") and cache.disk_bytes() == 0
    with pytest.raises(ImageTooLarge):  # past Pillow's own bound too (it would refuse it in its own words)
        scale_to_tile(huge_png(20_000))
    with pytest.raises(ImageTooLarge):  # one side past the bound is enough
        scale_to_tile(encoded(Image.new("L", (MAX_SIDE + 1, 10)), "PNG"))


@pytest.mark.parametrize("kind", ["JPEG", "PNG"])
@pytest.mark.parametrize("mode", ["RGB", "P", "1"])
def test_a_large_image_within_the_bound_is_decoded_reduced_and_keeps_its_card(kind: str, mode: str) -> None:
    card = Image.open(io.BytesIO(card_image(9, "Opt", "U", "Instant"))).resize((1490, 2000))  # Scryfall's png × 2
    if mode != "RGB":
        card = card.convert(mode) if mode == "1" else card.quantize(256)
    if kind == "JPEG" and mode != "RGB":
        card = card.convert("L") if mode == "1" else card.convert("RGB")
    tile = scale_to_tile(encoded(card, kind))
    assert tile.size == TILE and tile.mode == "RGB"
    if mode != "1":  # a 1-bit image keeps no colour to read back
        assert marker_index(tile.getpixel((TILE[0] // 2, TILE[1] // 2)), tolerance=8) == 9


PEAK = """
import resource, sys
from bot.cards.images import ImageTooLarge, scale_to_tile
images = [open(path, "rb").read() for path in sys.argv[1:]]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for data in images:
    try:
        scale_to_tile(data)
    except ImageTooLarge:
        pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_no_image_costs_more_than_a_few_mib_to_read(tmp_path) -> None:
    """Peak memory of a fresh process reading the 13,000² PNG and the largest images allowed (an
    RGBA PNG and a JPEG of 2,000 × 2,000): 825 MiB for the first before the bound."""
    noise = Image.frombytes("RGB", (MAX_SIDE, MAX_SIDE), os.urandom(MAX_SIDE * MAX_SIDE * 3))
    files = {"huge.png": huge_png(), "large.png": encoded(noise.convert("RGBA"), "PNG"),
             "large.jpg": encoded(noise, "JPEG")}
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", PEAK, *paths], capture_output=True, text=True, timeout=120,
                         cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    grown_mib = int(run.stdout.strip()) / 1024  # ru_maxrss: KiB on Linux
    assert grown_mib < 48, f"reading the images raised peak memory by {grown_mib:.0f} MiB"
