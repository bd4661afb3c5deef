"""The cubes shipped in cubes/: they parse, match their headers and suit their formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cards.model import is_basic_land
from bot.cards.parse import parse_cube_bytes, parse_shipped_text
from bot.cards.shipped import SHIPPED_DIR, ShippedCubeError, load_shipped_cubes

MINIMUM_SIZES = {"goldfish": 240, "battler": 200}
FILES = sorted(SHIPPED_DIR.glob("*.tsv"))


def test_shipped_dir_is_the_repo_cubes_directory() -> None:
    assert SHIPPED_DIR == Path(__file__).resolve().parents[2] / "cubes"
    assert {path.stem for path in FILES} >= set(MINIMUM_SIZES)


def test_load_shipped_cubes_is_cached_and_complete() -> None:
    cubes = load_shipped_cubes()
    assert set(cubes) >= set(MINIMUM_SIZES)
    again = load_shipped_cubes()
    assert again is not cubes  # a fresh dict each time ...
    assert all(again[key] is cubes[key] for key in cubes)  # ... over cached cubes


@pytest.mark.parametrize("key", sorted(MINIMUM_SIZES))
def test_shipped_cube_sizes_singleton_and_no_basics(key: str) -> None:
    cube = load_shipped_cubes()[key]
    assert cube.key == key
    assert cube.title and cube.description
    assert cube.format == key
    assert cube.singleton
    assert cube.size == len(cube.cards) >= MINIMUM_SIZES[key]
    names = cube.cards.names()
    assert len({name.casefold() for name in names}) == len(names)
    assert cube.cards.is_singleton(ignore_basics=False)
    assert not [name for name in names if is_basic_land(name)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_shipped_file_parses_and_matches_its_header(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    meta, cards = parse_shipped_text(text)
    assert int(meta["size"]) == len(cards)
    if meta.get("singleton") == "true":
        assert cards.is_singleton()
    for card in cards.cards:
        assert card.name == card.name.strip()
        assert card.colour is not None and card.type_line and card.rarity
        assert card.mana_value is not None and 0 <= card.mana_value <= 16
        assert card.rating is not None and 1 <= card.rating <= 5
        assert card.rarity in {"common", "uncommon", "rare", "mythic"}
    # an upload of the same file reads the same cards
    assert parse_cube_bytes(path.read_bytes(), filename=path.name).names() == cards.names()


def test_goldfish_cube_is_balanced_across_colours() -> None:
    cube = load_shipped_cubes()["goldfish"]
    counts = {c: sum(1 for card in cube.cards.cards if card.colour == c) for c in "WUBRG"}
    assert min(counts.values()) >= 30, counts


def _write(tmp_path: Path, body: str, header: str = "# key: t\n# singleton: true\n") -> Path:
    (tmp_path / "t.tsv").write_text(header + "name\ttype\n" + body, encoding="utf-8")
    return tmp_path


def test_loader_rejects_wrong_size(tmp_path: Path) -> None:
    directory = _write(tmp_path, "Opt\tInstant\n", "# size: 2\n")
    with pytest.raises(ShippedCubeError, match="size 2 but the file lists 1"):
        load_shipped_cubes(directory)


def test_loader_rejects_duplicates_in_singleton_cube(tmp_path: Path) -> None:
    with pytest.raises(ShippedCubeError, match="appears twice"):
        load_shipped_cubes(_write(tmp_path, "Opt\tInstant\nOpt\tInstant\n"))


def test_loader_rejects_basics(tmp_path: Path) -> None:
    with pytest.raises(ShippedCubeError, match="basic lands"):
        load_shipped_cubes(_write(tmp_path, "Opt\tInstant\nSnow-Covered Island\tBasic Land\n"))


def test_loader_defaults(tmp_path: Path) -> None:
    cubes = load_shipped_cubes(_write(tmp_path, "Opt\tInstant\n", header=""))
    cube = cubes["t"]
    assert (cube.title, cube.description, cube.singleton, cube.size, cube.format) == (
        "t",
        "",
        False,
        1,
        "any",
    )
