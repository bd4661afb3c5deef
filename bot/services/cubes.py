"""The per-guild cube registry: shipped cubes (every guild) plus uploads and CubeCobra imports."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from bot.cards.model import Card, CardList
from bot.cards.shipped import load_shipped_cubes
from bot.services.errors import Conflict, NotFound, UserError
from bot.store.db import Database
from bot.store.models import Cube

NAME_PATTERN = re.compile(r"^[\w][\w '\-.]{0,48}[\w.]?$")
MAX_CUBES_PER_GUILD = 100


@dataclass(frozen=True)
class CubeSummary:
    name: str
    size: int
    source: str  # "shipped", "upload", "cubecobra"
    source_ref: str | None
    description: str | None = None


@dataclass(frozen=True)
class CubeDetail(CubeSummary):
    cards: tuple[Card, ...] = ()

    @property
    def names(self) -> list[str]:
        return [card.name for card in self.cards]


def _shipped() -> dict[str, CubeDetail]:
    return {
        key.lower(): CubeDetail(
            name=key,
            size=len(cube.cards),
            source="shipped",
            source_ref=f"cubes/{key}",
            description=cube.description,
            cards=tuple(cube.cards.cards),
        )
        for key, cube in load_shipped_cubes().items()
    }


def validate_cube_name(name: str) -> str:
    name = " ".join(name.split())
    if not NAME_PATTERN.match(name):
        raise UserError(
            "A cube name is 1–50 characters: letters, digits, spaces, `-`, `_`, `'` and `.` "
            f"(got {name[:60]!r})."
        )
    if name.lower() in _shipped():
        raise Conflict(f"`{name}` is the name of a shipped cube; pick another name.")
    return name


def _card_to_json(card: Card) -> dict:
    return {key: value for key, value in asdict(card).items() if value is not None}


def _detail(row: Cube) -> CubeDetail:
    return CubeDetail(
        name=row.name,
        size=row.card_count,
        source=row.source,
        source_ref=row.source_ref,
        description=row.description,
        cards=tuple(Card(**entry) for entry in row.cards),
    )


async def list_cubes(db: Database, guild_id: int) -> list[CubeSummary]:
    shipped = [CubeSummary(c.name, c.size, c.source, c.source_ref, c.description) for c in _shipped().values()]
    async with db.read() as session:
        rows = await session.execute(
            select(Cube.name, Cube.card_count, Cube.source, Cube.source_ref, Cube.description)
            .where(Cube.guild_id == guild_id)
            .order_by(func.lower(Cube.name))
        )
        own = [CubeSummary(*row) for row in rows]
    return shipped + own


async def get_cube(db: Database, guild_id: int, name: str) -> CubeDetail:
    shipped = _shipped().get(name.strip().lower())
    if shipped is not None:
        return shipped
    async with db.read() as session:
        row = (
            await session.execute(
                select(Cube).where(Cube.guild_id == guild_id, func.lower(Cube.name) == name.strip().lower())
            )
        ).scalar_one_or_none()
    if row is None:
        raise NotFound(f"No cube called `{name}` here. `/cube list` shows the cubes you can use.")
    return _detail(row)


async def ensure_name_free(db: Database, guild_id: int, name: str) -> str:
    """The cleaned name, or the error :func:`add_cube` would give for it (checked before a slow import)."""
    name = validate_cube_name(name)
    async with db.read() as session:
        clash = await session.execute(
            select(Cube.id).where(Cube.guild_id == guild_id, func.lower(Cube.name) == name.lower())
        )
        if clash.first() is not None:
            raise Conflict(f"There is already a cube called `{name}`; remove it first or pick another name.")
    return name


async def add_cube(
    db: Database,
    guild_id: int,
    name: str,
    cards: CardList,
    *,
    source: str,
    source_ref: str | None,
    created_by: int,
) -> CubeSummary:
    name = validate_cube_name(name)
    if len(cards) == 0:
        raise UserError("That list has no cards.")
    try:
        async with db.write() as session:
            count = (await session.execute(select(func.count()).where(Cube.guild_id == guild_id))).scalar_one()
            if count >= MAX_CUBES_PER_GUILD:
                raise UserError(f"This server already has {MAX_CUBES_PER_GUILD} cubes; remove one first.")
            clash = await session.execute(
                select(Cube.id).where(Cube.guild_id == guild_id, func.lower(Cube.name) == name.lower())
            )
            if clash.first() is not None:
                raise Conflict(f"There is already a cube called `{name}`; remove it first or pick another name.")
            session.add(
                Cube(
                    guild_id=guild_id,
                    name=name,
                    source=source,
                    source_ref=source_ref,
                    card_count=len(cards),
                    cards=[_card_to_json(card) for card in cards.cards],
                    created_by=created_by,
                )
            )
    except IntegrityError:
        # Two uploads of the same name raced; the unique constraint let exactly one through.
        raise Conflict(f"There is already a cube called `{name}`.") from None
    return CubeSummary(name, len(cards), source, source_ref)


async def remove_cube(db: Database, guild_id: int, name: str) -> None:
    if name.strip().lower() in _shipped():
        raise UserError(f"`{name}` is a shipped cube and can't be removed.")
    async with db.write() as session:
        result = await session.execute(
            delete(Cube).where(Cube.guild_id == guild_id, func.lower(Cube.name) == name.strip().lower())
        )
    if result.rowcount == 0:
        raise NotFound(f"No cube called `{name}` here.")


async def cube_names(db: Database, guild_id: int, prefix: str = "", limit: int = 25) -> list[str]:
    """Names for autocomplete: shipped first, then the guild's, filtered by a case-insensitive substring."""
    needle = prefix.strip().lower()
    names = [summary.name for summary in await list_cubes(db, guild_id)]
    return [name for name in names if needle in name.lower()][:limit]
