"""The names the pages show for players: each member's display name in the server, as the bot last
saw it (remembered from the commands and buttons they use; `bot.server.web` does it)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.text import clean_name
from bot.store.db import Database
from bot.store.models import PlayerName
from bot.store.types import utcnow

NAME_LENGTH = 100
_CHUNK = 500


def unnamed(user_id: int) -> str:
    """A player the bot never saw a name for."""
    return f"Player …{str(user_id)[-4:]}"


async def names_of(session: AsyncSession, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
    """Every one of `user_ids` with a name to show."""
    ids = list(dict.fromkeys(user_ids))
    found: dict[int, str] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = await session.execute(select(PlayerName.user_id, PlayerName.name).where(
            PlayerName.guild_id == guild_id, PlayerName.user_id.in_(ids[start:start + _CHUNK])))
        found.update({user_id: name for user_id, name in rows})
    return {user_id: found.get(user_id) or unnamed(user_id) for user_id in ids}


async def remember(db: Database, guild_id: int, user_id: int, name: str) -> None:
    """Store (or update) a member's display name."""
    name = clean_name(name)[:NAME_LENGTH]
    if not name:
        return
    insert = postgresql_insert if db.backend == "postgresql" else sqlite_insert
    statement = insert(PlayerName).values(guild_id=guild_id, user_id=user_id, name=name, updated_at=utcnow())
    statement = statement.on_conflict_do_update(
        index_elements=["guild_id", "user_id"], set_={"name": name, "updated_at": utcnow()})
    async with db.write() as session:
        await session.execute(statement)


class NameCache:
    """The names this process already stored (so a name is written once, and again when it changes)."""

    def __init__(self, size: int = 20_000) -> None:
        self._seen: OrderedDict[tuple[int, int], str] = OrderedDict()
        self._size = size

    def is_new(self, guild_id: int, user_id: int, name: str) -> bool:
        key = (guild_id, user_id)
        if self._seen.get(key) == name:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = name
        self._seen.move_to_end(key)
        while len(self._seen) > self._size:
            self._seen.popitem(last=False)
        return True

    def forget(self, guild_id: int, user_id: int) -> None:
        self._seen.pop((guild_id, user_id), None)
