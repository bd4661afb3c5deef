"""The per-guild cube registry: shipped cubes (every guild) plus uploads and CubeCobra imports.

Adding and removing a server's cubes is for its organizers, judged from an `Actor` like every
other use case (`bot.kit.tables.is_organizer`)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from bot.cards.model import Card, CardList
from bot.cards.shipped import load_shipped_cubes
from bot.kit import card_data, tables
from bot.kit.errors import Conflict, NotFound, UserError
from bot.kit.tables import Actor
from bot.kit.text import clean_name, escape, name_key
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
    id: int | None = None  # None for a shipped cube

    @property
    def ref(self) -> str:
        """What identifies the cube without its name (a page button's key): `id:<id>` for a
        server's cube, `shipped:<key>` for a shipped one."""
        return f"shipped:{self.source_ref.removeprefix('cubes/')}" if self.id is None else f"id:{self.id}"


@dataclass(frozen=True)
class CubeDetail(CubeSummary):
    cards: tuple[Card, ...] = ()

    @property
    def names(self) -> list[str]:
        return [card.name for card in self.cards]


def _shipped() -> dict[str, CubeDetail]:
    """Shipped cubes by name key, so they compare with typed names like any other cube."""
    return {
        name_key(key): CubeDetail(
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
    """The name as stored (cleaned), or a UserError."""
    name = clean_name(name)
    if not NAME_PATTERN.match(name):
        raise UserError(
            "A cube name is 1–50 characters: letters, digits, spaces, `-`, `_`, `'` and `.` "
            f"(got {escape(repr(name[:60]))})."
        )
    if name_key(name) in _shipped():
        raise Conflict(f"**{escape(name)}** is the name of a shipped cube; pick another name.")
    return name


def _not_found(name: str) -> NotFound:
    return NotFound(f"No cube called **{escape(clean_name(name))}** here. `/cube list` shows the cubes you can use.")


def _name_taken(name: str) -> Conflict:
    return Conflict(f"There is already a cube called **{escape(name)}**; remove it first or pick another name.")


def _card_to_json(card: Card) -> dict:
    return {key: value for key, value in asdict(card).items() if value is not None}


def _detail(row: Cube) -> CubeDetail:
    return CubeDetail(
        name=row.name,
        size=row.card_count,
        source=row.source,
        source_ref=row.source_ref,
        description=row.description,
        id=row.id,
        cards=tuple(Card(**entry) for entry in row.cards),
    )


async def list_cubes(db: Database, guild_id: int) -> list[CubeSummary]:
    shipped = [CubeSummary(c.name, c.size, c.source, c.source_ref, c.description) for c in _shipped().values()]
    async with db.read() as session:
        rows = await session.execute(
            select(Cube.name, Cube.card_count, Cube.source, Cube.source_ref, Cube.description, Cube.id)
            .where(Cube.guild_id == guild_id)
            .order_by(Cube.name_key)
        )
        own = [CubeSummary(*row) for row in rows]
    return shipped + own


async def get_cube(db: Database, guild_id: int, name: str) -> CubeDetail:
    """A shipped cube or one of this server's, by name in any case or Unicode form."""
    key = name_key(name)
    shipped = _shipped().get(key)
    if shipped is not None:
        return shipped
    async with db.read() as session:
        row = (
            await session.execute(select(Cube).where(Cube.guild_id == guild_id, Cube.name_key == key))
        ).scalar_one_or_none()
    if row is None:
        raise _not_found(name)
    return _detail(row)


async def get_cube_by_ref(db: Database, guild_id: int, ref: str) -> CubeDetail:
    """The cube a :attr:`CubeSummary.ref` names (a page button's key), or a clear NotFound.

    Page buttons posted before refs existed carry the cube's name instead: looked up by name."""
    kind, _, value = ref.partition(":")
    if kind not in ("id", "shipped"):
        return await get_cube(db, guild_id, ref)
    if kind == "shipped" and name_key(value) in _shipped():
        return _shipped()[name_key(value)]
    row = None
    if kind == "id" and value.isdigit() and int(value) < 2**63:
        async with db.read() as session:
            row = await session.get(Cube, int(value))
    if row is None or row.guild_id != guild_id:
        raise NotFound("That cube is no longer here (it was removed). `/cube list` shows the cubes you can use.")
    return _detail(row)


async def _require_organizer(session, actor: Actor, what: str) -> int:
    if actor.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    await tables.require_organizer(session, actor, actor.guild_id, what)
    return actor.guild_id


async def check_organizer(db: Database, actor: Actor, what: str) -> int:
    """The actor's server, if they are one of its organizers (who may `what`: "add cubes"), else the
    refusal `add_cube` and `remove_cube` would give; checked before anything slower."""
    async with db.read() as session:
        return await _require_organizer(session, actor, what)


async def _name_is_taken(session, guild_id: int, name: str) -> bool:
    clash = await session.execute(select(Cube.id).where(Cube.guild_id == guild_id, Cube.name_key == name_key(name)))
    return clash.first() is not None


async def ensure_name_free(db: Database, guild_id: int, name: str) -> str:
    """The cleaned name, or the error :func:`add_cube` would give for it (checked before a slow import)."""
    name = validate_cube_name(name)
    async with db.read() as session:
        if await _name_is_taken(session, guild_id, name):
            raise _name_taken(name)
    return name


async def add_cube(
    db: Database,
    actor: Actor,
    name: str,
    cards: CardList,
    *,
    source: str,
    source_ref: str | None,
    complete_later: bool = False,
) -> CubeSummary:
    """Save a cube in the actor's server (organizers only). `complete_later`: its card data is
    incomplete (Scryfall was unreachable), so the sweeper asks Scryfall again later
    (`card_data.COMPLETE`)."""
    name = validate_cube_name(name)
    if len(cards) == 0:
        raise UserError("That list has no cards.")
    try:
        async with db.write() as session:
            guild_id = await _require_organizer(session, actor, "add cubes")
            count = (await session.execute(select(func.count()).where(Cube.guild_id == guild_id))).scalar_one()
            if count >= MAX_CUBES_PER_GUILD:
                raise UserError(f"This server already has {MAX_CUBES_PER_GUILD} cubes; remove one first.")
            if await _name_is_taken(session, guild_id, name):
                raise _name_taken(name)
            cube = Cube(
                guild_id=guild_id,
                name=name,
                name_key=name_key(name),
                source=source,
                source_ref=source_ref,
                card_count=len(cards),
                cards=[_card_to_json(card) for card in cards.cards],
                created_by=actor.user_id,
            )
            session.add(cube)
            await session.flush()
            if complete_later:
                await card_data.arm_completion(session, cube.id)
    except IntegrityError:
        # Two uploads of the same name raced; the unique constraint let exactly one through.
        raise _name_taken(name) from None
    return CubeSummary(name, len(cards), source, source_ref, id=cube.id)


async def remove_cube(db: Database, actor: Actor, name: str) -> None:
    """Remove one of the actor's server's cubes (organizers only)."""
    key = name_key(name)
    if key in _shipped():
        raise UserError(f"**{escape(_shipped()[key].name)}** is a shipped cube and can't be removed.")
    async with db.write() as session:
        guild_id = await _require_organizer(session, actor, "remove cubes")
        result = await session.execute(delete(Cube).where(Cube.guild_id == guild_id, Cube.name_key == key))
    if result.rowcount == 0:
        raise _not_found(name)


async def cube_names(db: Database, guild_id: int, prefix: str = "", limit: int = 25) -> list[str]:
    """Names for autocomplete: shipped first, then the guild's, that contain what was typed
    (compared by name key: any case, any Unicode form)."""
    needle = name_key(prefix)
    names = [summary.name for summary in await list_cubes(db, guild_id)]
    return [name for name in names if needle in name_key(name)][:limit]
