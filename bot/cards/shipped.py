"""The cubes shipped with the bot (``<repo>/cubes/*.tsv``, format in ``cubes/README.md``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from bot.cards.model import CardList, is_basic_land
from bot.cards.parse import CubeFormatError, parse_shipped_text

__all__ = ["SHIPPED_DIR", "ShippedCube", "ShippedCubeError", "load_shipped_cubes"]

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "cubes"
_FORMATS = frozenset({"goldfish", "battler", "any"})


class ShippedCubeError(ValueError):
    """A shipped cube file is inconsistent (a packaging bug, not a user error)."""


@dataclass
class ShippedCube:
    key: str
    title: str
    description: str
    singleton: bool
    size: int
    cards: CardList
    format: str = "any"


def _parse_bool(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ShippedCubeError(f"{where}: singleton must be true or false, not {value!r}")


def _load_file(path: Path) -> ShippedCube:
    where = path.name
    try:
        meta, cards = parse_shipped_text(path.read_text(encoding="utf-8"))
    except CubeFormatError as exc:
        raise ShippedCubeError(f"{where}: {exc}") from None
    key = meta.get("key") or path.stem
    singleton = _parse_bool(meta.get("singleton", "false"), where)
    size_text = meta.get("size")
    size = len(cards)
    if size_text is not None:
        if not size_text.isdigit():
            raise ShippedCubeError(f"{where}: size must be a whole number, not {size_text!r}")
        if int(size_text) != size:
            raise ShippedCubeError(
                f"{where}: the header says size {size_text} but the file lists {size} cards"
            )
    fmt = meta.get("format", "any").strip().lower()
    if fmt not in _FORMATS:
        raise ShippedCubeError(f"{where}: format must be one of {sorted(_FORMATS)}, not {fmt!r}")
    if singleton and not cards.is_singleton():
        raise ShippedCubeError(f"{where}: the cube says it is singleton but a card appears twice")
    if any(is_basic_land(name) for name in cards.names()):
        raise ShippedCubeError(f"{where}: shipped cubes must not list basic lands")
    return ShippedCube(
        key=key,
        title=meta.get("title", key),
        description=meta.get("description", ""),
        singleton=singleton,
        size=size,
        cards=cards,
        format=fmt,
    )


@functools.lru_cache(maxsize=8)
def _load_dir(directory: Path) -> dict[str, ShippedCube]:
    cubes: dict[str, ShippedCube] = {}
    for path in sorted(directory.glob("*.tsv")):
        cube = _load_file(path)
        if cube.key in cubes:
            raise ShippedCubeError(f"{path.name}: the key {cube.key!r} is used twice")
        cubes[cube.key] = cube
    return cubes


def load_shipped_cubes(directory: Path | str = SHIPPED_DIR) -> dict[str, ShippedCube]:
    """All shipped cubes by key (files are read once per directory and cached).

    Raises :class:`ShippedCubeError` when a file contradicts its own header (size,
    singleton, format) or lists a basic land.
    """
    return dict(_load_dir(Path(directory).resolve()))
