"""Pack and pool pictures (Pillow) and the on-disk image cache: layout, markers, size bound, speed."""

from __future__ import annotations

import importlib.util
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

DOCS = Path(__file__).resolve().parents[2] / "docs"


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


# --- pools: piles by mana value, creatures above the other spells, lands apart -------------------------

KINDS = st.sampled_from([pictures.CREATURE, pictures.SPELL, pictures.LAND])
POOL_CARDS = st.lists(st.tuples(st.sampled_from([0, 1, 2, 2.5, 3, 4, 5, 6, 7, 9, 16]), KINDS), max_size=300)


def check_pool_layout(cards: list[tuple[float, str]]) -> pictures.PoolLayout:
    layout = pictures.pool_layout(cards)
    width, height = layout.size
    assert width <= pictures.POOL_MAX[0] and height <= pictures.POOL_MAX[1]
    assert len(layout.boxes) == len(cards)  # every card placed, once
    card_width, card_height = layout.card
    assert pictures.MIN_POOL_CARD_WIDTH <= card_width <= pictures.POOL_TILE[0]
    assert layout.peek >= card_height * 0.12  # the name bar shows
    for box in layout.boxes:
        left, top, right, bottom = box
        assert 0 <= left < right <= width and 0 <= top < bottom <= height  # no pile runs past the picture
        assert (right - left, bottom - top) == layout.card
    # Cards overlap only in a pile (the same left), each one's name bar left uncovered.
    by_left: dict[int, list[int]] = {}
    for box in layout.boxes:
        by_left.setdefault(box[0], []).append(box[1])
    for tops in by_left.values():
        tops.sort()
        assert all(b - a >= layout.peek for a, b in zip(tops, tops[1:], strict=False))
    lefts = sorted(by_left)
    assert all(b - a >= card_width for a, b in zip(lefts, lefts[1:], strict=False))
    kinds = {kind: [box for box, (_mv, k) in zip(layout.boxes, cards, strict=True) if k == kind]
             for kind in (pictures.CREATURE, pictures.SPELL, pictures.LAND)}
    # Creatures above the other spells; lands apart, at the right of everything else.
    if kinds[pictures.CREATURE] and kinds[pictures.SPELL]:
        assert max(b[3] for b in kinds[pictures.CREATURE]) < min(b[1] for b in kinds[pictures.SPELL])
    others = kinds[pictures.CREATURE] + kinds[pictures.SPELL]
    if kinds[pictures.LAND] and others:
        assert max(b[2] for b in others) + pictures.GAP < min(b[0] for b in kinds[pictures.LAND])
    # Columns by mana value: a card of a lower curve column lies left of one of a higher column.
    spells = [(pictures.curve_column(mv), box) for box, (mv, kind) in zip(layout.boxes, cards, strict=True)
              if kind != pictures.LAND]
    for column, box in spells:
        for other_column, other in spells:
            if column < other_column:
                assert box[2] <= other[0]
    # Every row's column header counts its cards.
    texts = {label.text for label in layout.labels}
    for kind, title in ((pictures.CREATURE, "Creatures"), (pictures.SPELL, "Non-creature spells")):
        if kinds[kind]:
            assert f"{title} ({len(kinds[kind])})" in texts
    if kinds[pictures.LAND]:
        assert f"Lands ({len(kinds[pictures.LAND])})" in texts
    return layout


@given(POOL_CARDS)
@settings(max_examples=150, deadline=None)
def test_the_pool_layout_places_every_card_once_within_the_bounds(cards) -> None:
    check_pool_layout(cards)


def test_the_pool_layout_of_one_column_counts_its_cards_per_row() -> None:
    cards = [(2, pictures.CREATURE)] * 3 + [(2, pictures.SPELL), (7, pictures.SPELL), (0, pictures.LAND)]
    layout = check_pool_layout(cards)
    assert {label.text for label in layout.labels} == {
        "Creatures (3)", "2 (3)", "Non-creature spells (2)", "2 (1)", "6+ (1)", "Lands (1)"}
    assert layout.card == pictures.POOL_TILE  # a small pool: cards at their largest
    # One pile of three creatures, each name bar showing above the next card.
    (left, top, *_rest), *_more = layout.boxes
    assert [box[:2] for box in layout.boxes[:3]] == [(left, top + depth * layout.peek) for depth in range(3)]
    assert [pictures.curve_column(mv) for mv in (0, 1, 2, 3, 6, 9)] == [0, 0, 1, 2, 5, 5]


@pytest.mark.parametrize("size", [45, 90, 180])
def test_drafted_pools_fit_with_readable_names(size: int) -> None:
    """A draft's pool (3 packs of 15, and larger): a pool's usual mix of creatures, spells and lands
    along a curve fits 1,200 × 1,600 with cards at least 100 pixels wide."""
    curve = [1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7]
    cards = [(curve[i % len(curve)], pictures.LAND if i % 9 == 8 else (pictures.CREATURE if i % 2 else pictures.SPELL))
             for i in range(size)]
    layout = check_pool_layout(cards)
    assert layout.card[0] >= (100 if size <= 90 else 70)


def test_a_pile_too_tall_for_the_height_is_split_within_its_column() -> None:
    layout = check_pool_layout([(2, pictures.CREATURE)] * 60 + [(2, pictures.SPELL)] * 60)
    assert len({box[0] for box in layout.boxes}) > 1


def test_card_kinds_come_from_the_front_face_of_the_type_line() -> None:
    kind = pictures.card_kind
    assert kind("Legendary Creature — Elf Druid") == kind("Artifact Creature — Golem") == pictures.CREATURE
    assert kind("Basic Land — Island") == kind("Land Creature — Forest Dryad") == kind("Land") == pictures.LAND
    assert kind("Instant") == kind("Sorcery // Sorcery") == kind("Enchantment — Aura") == kind(None) == pictures.SPELL
    assert kind("Sorcery // Land") == pictures.SPELL  # a modal card counts by its front face
    assert kind("Creature — Human Werewolf // Creature — Werewolf") == pictures.CREATURE
    assert kind("Tribal Instant — Landfall") == pictures.SPELL  # whole words only


def test_the_pool_picture_draws_the_cards_where_the_layout_says() -> None:
    """The card at the bottom of each pile shows whole: its art's marker colour says which card it is."""
    cards = [pictures.PoolCard(fake_tile(i), mv, kind) for i, (mv, kind) in enumerate(
        [(1, pictures.CREATURE), (2, pictures.CREATURE), (2, pictures.CREATURE), (3, pictures.SPELL),
         (7, pictures.SPELL), (0, pictures.LAND), (0, pictures.LAND)])]
    png = pictures.pool_picture(cards)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    layout = pictures.pool_layout([(card.mana_value, card.kind) for card in cards])
    assert image.size == layout.size
    for index in (0, 2, 3, 4, 6):  # the last card of each pile
        left, top, right, bottom = layout.boxes[index]
        assert marker_index(image.getpixel(((left + right) // 2, (top + bottom) // 2)), tolerance=8) == index
    # A card covered by the next one still shows its top: its name bar (light), not the next card.
    left, top, right, _bottom = layout.boxes[1]
    assert sum(image.getpixel(((left + right) // 2, top + layout.peek // 2))) > 600


def test_a_90_card_pool_picture_stays_within_the_bounds_and_is_quick() -> None:
    tiles = [fake_tile(i) for i in range(90)]
    cards = [pictures.PoolCard(tile, i % 8, (pictures.CREATURE, pictures.SPELL, pictures.LAND)[i % 3])
             for i, tile in enumerate(tiles)]
    pictures.pool_picture(cards)
    start = time.process_time()  # CPU time: other processes on a busy machine do not count
    png = pictures.pool_picture(cards)
    elapsed = time.process_time() - start
    width, height = Image.open(io.BytesIO(png)).size
    assert width <= pictures.POOL_MAX[0] and height <= pictures.POOL_MAX[1]
    assert elapsed < 0.5


def test_the_pictures_in_the_docs_are_the_renderers_own(tmp_path) -> None:
    """docs/make_pictures.py still runs, and the committed pictures have the sizes it makes now (a
    layout change is seen in the docs once they are made again)."""
    spec = importlib.util.spec_from_file_location("make_pictures", DOCS / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.main(tmp_path)
    assert sorted(made) == ["pack.png", "pool.png"]
    for name, data in made.items():
        image = Image.open(io.BytesIO(data))
        assert image.size == Image.open(DOCS / "images" / name).size, f"docs/images/{name}: run docs/make_pictures.py"
    pool = Image.open(io.BytesIO(made["pool.png"]))
    assert pool.width <= pictures.POOL_MAX[0] and pool.height <= pictures.POOL_MAX[1]


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
    start = time.process_time()  # CPU time: other processes on a busy machine do not count
    for _ in range(5):
        pictures.pack_picture(tiles, labels)
    assert (time.process_time() - start) / 5 < 0.1


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
