"""The set lists a server keeps (FORMATS.md §5): uploads and Scryfall imports, for 421 leagues and set drafts.

A set is stored under a short **key** (`ala`, `my-set`: 1–20 letters, digits, `-` or `_`, the
same shape as a set code), unique in the server in any case or script, so `/421 start sets:` can
name several at once (`ala, con, arb`) and autocomplete them. Reading the lists (a file's text,
Scryfall's pages) is `bot.cards.sets`; this module stores, finds and removes them. Adding or
removing a set is for organizers (judged in the server that owns the list); anyone may list them.

A league copies the lists it uses when it starts, so removing a set never changes a league.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from bot.cards.sets import CardSet, SetListError, validate_set_code
from bot.kit import tables
from bot.kit.errors import Conflict, NotFound, UserError
from bot.kit.text import escape, name_key
from bot.store.db import Database
from bot.store.models import SetList

MAX_SETS_PER_GUILD = 200
MAX_SETS_PER_LEAGUE = 12  # the Weatherlight saga, the longest sequence in the rule book
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class SetSummary:
    key: str
    name: str
    source: str  # text, csv, scryfall
    source_ref: str | None
    card_count: int


def _summary(row: SetList) -> SetSummary:
    return SetSummary(row.key, row.name, row.source, row.source_ref, row.card_count)


def validate_key(key: str) -> str:
    """The key as stored (lower case), or a UserError saying what a key looks like."""
    try:
        return validate_set_code(key)
    except SetListError:
        raise UserError(
            f"**{escape(str(key)[:40])}** can't name a set: a set's name here is 1–20 letters, digits, "
            "`-` or `_` (like a set code: `ala`, `my-set`)."
        ) from None


def split_keys(text: str) -> list[str]:
    """The set keys in `/421 start sets:` (separated by commas, semicolons or spaces), in order."""
    keys = [validate_key(part) for part in _SEPARATORS.split(text or "") if part]
    if not keys:
        raise UserError("Name at least one set (e.g. `sets: ala, con, arb`).")
    if len(keys) > MAX_SETS_PER_LEAGUE:
        raise UserError(f"A league uses at most {MAX_SETS_PER_LEAGUE} sets; you named {len(keys)}.")
    seen: set[str] = set()
    for key in keys:
        if name_key(key) in seen:
            raise UserError(f"The set `{key}` is named twice.")
        seen.add(name_key(key))
    return keys


_SCRYFALL_CODE = re.compile(r"^[a-z0-9]{2,8}$")


def require_importable(keys: Sequence[str]) -> None:
    """Keys the server has no set for must be Scryfall set codes (`/421 start` imports them)."""
    for key in keys:
        if not _SCRYFALL_CODE.match(key):
            raise NotFound(f"There is no set called `{key}` here, and it is not a Scryfall set code (2–8 letters or "
                           "digits). `/421 set list` shows this server's sets.")


def _not_found(key: str) -> NotFound:
    return NotFound(f"There is no set called `{key}` here. `/421 set list` shows this server's sets.")


async def _row(session, guild_id: int, key: str) -> SetList | None:
    query = select(SetList).where(SetList.guild_id == guild_id, SetList.key_fold == name_key(key))
    return (await session.execute(query)).scalar_one_or_none()


def _taken(key: str) -> Conflict:
    return Conflict(f"This server already has a set called `{key}`; remove it first (`/421 set remove`) or pick "
                    "another name.")


async def ensure_key_free(db: Database, actor: tables.Actor, key: str) -> str:
    """Check what `add_set` would refuse (not an organizer, a bad or taken key) before a file is
    read or Scryfall is asked; returns the key as stored."""
    key = validate_key(key)
    guild_id = _guild(actor)
    async with db.read() as session:
        await tables.require_organizer(session, actor, guild_id, "add set lists")
        if await _row(session, guild_id, key) is not None:
            raise _taken(key)
    return key


async def check_can_manage(db: Database, actor: tables.Actor) -> None:
    """Only organizers add or remove set lists (checked before asking for a confirmation)."""
    async with db.read() as session:
        await tables.require_organizer(session, actor, _guild(actor), "manage set lists")


def _guild(actor: tables.Actor) -> int:
    if actor.guild_id is None:
        raise UserError("Set lists belong to a server: use that command in one.")
    return actor.guild_id


async def add_set(db: Database, actor: tables.Actor, key: str, card_set: CardSet, *, source_ref: str | None) -> SetSummary:
    """Store `card_set` under `key` in the actor's server (organizers)."""
    key = validate_key(key)
    guild_id = _guild(actor)
    stored = dataclasses.replace(card_set, code=key)  # a league knows its sets by their keys
    try:
        async with db.write() as session:
            await tables.require_organizer(session, actor, guild_id, "add set lists")
            count = (await session.execute(select(func.count()).where(SetList.guild_id == guild_id))).scalar_one()
            if count >= MAX_SETS_PER_GUILD:
                raise UserError(f"This server already has {MAX_SETS_PER_GUILD} set lists; remove one first.")
            if await _row(session, guild_id, key) is not None:
                raise _taken(key)
            row = SetList(
                guild_id=guild_id, key=key, key_fold=name_key(key), name=card_set.name[:200], source=card_set.source,
                source_ref=source_ref[:200] if source_ref else None, card_count=len(card_set.cards),
                cards=stored.to_dict(), created_by=actor.user_id,
            )
            session.add(row)
            await session.flush()
            return _summary(row)
    except IntegrityError:
        raise _taken(key) from None  # two adds of one key raced; the unique key let one through


async def list_sets(db: Database, guild_id: int) -> list[SetSummary]:
    async with db.read() as session:
        rows = await session.execute(
            select(SetList).where(SetList.guild_id == guild_id).order_by(SetList.key_fold)
        )
        return [_summary(row) for row in rows.scalars()]


async def missing_keys(db: Database, guild_id: int, keys: Sequence[str]) -> list[str]:
    """The keys this server has no set for (in the order given)."""
    async with db.read() as session:
        rows = await session.execute(
            select(SetList.key_fold).where(
                SetList.guild_id == guild_id, SetList.key_fold.in_([name_key(k) for k in keys])
            )
        )
        known = set(rows.scalars())
    return [key for key in keys if name_key(key) not in known]


async def get_sets(db: Database, guild_id: int, keys: Sequence[str]) -> list[CardSet]:
    """The server's sets named by `keys`, in that order (NotFound for the first unknown one)."""
    async with db.read() as session:
        rows = await session.execute(
            select(SetList.key_fold, SetList.cards).where(
                SetList.guild_id == guild_id, SetList.key_fold.in_([name_key(k) for k in keys])
            )
        )
        found = {fold: cards for fold, cards in rows.all()}
    for key in keys:
        if name_key(key) not in found:
            raise _not_found(key)
    return [CardSet.from_dict(found[name_key(key)]) for key in keys]


async def remove_set(db: Database, actor: tables.Actor, key: str) -> None:
    guild_id, key = _guild(actor), validate_key(key)
    async with db.write() as session:
        await tables.require_organizer(session, actor, guild_id, "remove set lists")
        result = await session.execute(
            delete(SetList).where(SetList.guild_id == guild_id, SetList.key_fold == name_key(key))
        )
    if result.rowcount == 0:
        raise _not_found(key)


async def set_keys(db: Database, guild_id: int, typed: str = "", limit: int = 25) -> list[SetSummary]:
    """The server's sets whose key or name contains what was typed (for autocomplete)."""
    needle = name_key(typed)
    return [s for s in await list_sets(db, guild_id) if needle in name_key(s.key) or needle in name_key(s.name)][:limit]
