"""Which message shows what: one record per thing a table shows in a message with live buttons (a
game's pending pick, an open look or search, a league's take-apart menu), table `shown_messages`.

A thing is named by its owner (the table's kind and id: `Owner`) and a key (e.g. the outbox kind
that shows it, "vortex.look"); its version says which one (the look's number). The record says
which version is wanted now and which Discord message shows it. The rules engines know none of it:
no engine holds a message id.

* `want(session, owner, key, version)`, in the transaction that queues the message: this version is
  the one to show now. A message showing an older version is returned, to be retired.
* `record(session, owner, key, version, channel_id, message_id)`, from the outbox's `on_sent` hook
  (or an interaction that showed it in place): Discord shows it there. The message it replaces (a
  copy sent again, e.g. by a resend command), or this very message if the key has moved on since
  it was queued, is returned, to be retired: **one message per key has live buttons**.
* `retire(session, owner, key)` when the thing is over (a look put back, the game ended): the
  record goes and its message is returned to be retired, but the message the click came from
  (`answered`), which the interaction's answer shows.
* `still_wanted(session, owner, key, version)`: is that version the one to show (for a renderer
  sending long after the commit, after a crash or a retry)?
* `show(…)`: `want` and `record` at once, where the newest rendering is the one wanted (Treasure
  Battler's DMs, versioned by the game's version when rendered).

Retiring a message is the caller's: it queues the edit that takes the buttons off (an outbox row,
in the same transaction), so what the database says is shown and what Discord shows agree once the
outbox has run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, null, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import ShownMessage
from bot.store.prepared import Prepared


@dataclass(frozen=True)
class Owner:
    """The table a record belongs to: its kind ("vortex", "421") and id."""

    kind: str
    id: int


@dataclass(frozen=True)
class Shown:
    """A message that showed version `version` of `key` (`payload`: what redrawing it needs)."""

    key: str
    version: int
    channel_id: int
    message_id: int
    payload: dict | None = None


def _where(owner: Owner, key: str | None = None) -> list:
    where = [ShownMessage.owner_kind == owner.kind, ShownMessage.owner_id == owner.id]
    return where if key is None else [*where, ShownMessage.key == key]


async def _row(session: AsyncSession, owner: Owner, key: str, *, lock: bool = False) -> ShownMessage | None:
    query = select(ShownMessage).where(*_where(owner, key))
    return (await session.execute(query.with_for_update() if lock else query)).scalar_one_or_none()


def _shown(row: ShownMessage) -> Shown | None:
    if row.message_id is None or row.channel_id is None:
        return None
    return Shown(row.key, row.version, row.channel_id, row.message_id, row.payload)


async def want(session: AsyncSession, owner: Owner, key: str, version: int) -> list[Shown]:
    """`version` of `key` is the one to show now (its message is queued in this transaction). A
    message that shows an older version is returned, to be retired; one that shows this version
    stays (the same pick queued again keeps its message until the new one is recorded)."""
    return await want_each(session, owner, {key: version})


async def want_each(session: AsyncSession, owner: Owner, versions: Mapping[str, int]) -> list[Shown]:
    """`want` for several keys of one owner, in one read (a draft's pick moves two seats' packs)."""
    if not versions:
        return []
    query = select(ShownMessage).where(*_where(owner), ShownMessage.key.in_(list(versions)))
    rows = {row.key: row for row in (await session.execute(query)).scalars()}
    older = []
    for key, version in versions.items():
        row = rows.get(key)
        if row is None:
            session.add(ShownMessage(owner_kind=owner.kind, owner_id=owner.id, key=key, version=version))
        elif row.version != version:
            older += [old] if (old := _shown(row)) is not None else []
            row.version, row.channel_id, row.message_id, row.payload = version, None, None, None
    return older


async def record(session: AsyncSession, owner: Owner, key: str, version: int, channel_id: int, message_id: int,
                 payload: dict | None = None) -> list[Shown]:
    """Discord shows version `version` of `key` in `message_id`. Returns what to retire: the message
    this one replaces, or this one itself when `key` no longer wants this version (it moved on, or
    was retired, while the message was on its way)."""
    this = Shown(key, version, channel_id, message_id, payload)
    # Locked: an action that moves the key on meanwhile (`want`, under its table's lock) commits
    # first, and this record then sees the new version.
    row = await _row(session, owner, key, lock=True)
    if row is None or row.version != version:
        return [this]
    old = _shown(row)
    row.channel_id, row.message_id, row.payload = channel_id, message_id, payload
    return [old] if old is not None and old.message_id != message_id else []


async def show(session: AsyncSession, owner: Owner, key: str, version: int, channel_id: int, message_id: int,
               payload: dict | None = None) -> list[Shown]:
    """`want` and `record` at once, for a thing whose newest rendering is the one wanted (Treasure
    Battler's DMs: the version is the game's when it was rendered; a message edited in place by an
    interaction): `message_id` shows `key` unless a newer version is recorded already. Returns what
    to retire, as `record` does."""
    row = await _row(session, owner, key, lock=True)
    if row is not None and row.version > version:
        return [Shown(key, version, channel_id, message_id, payload)]
    older = [m for m in await want(session, owner, key, version) if m.message_id != message_id]  # (re-rendered)
    return older + await record(session, owner, key, version, channel_id, message_id, payload)


async def message_of(session: AsyncSession, owner: Owner, key: str) -> Shown | None:
    """The message that shows `key` now, if one does."""
    row = await _row(session, owner, key)
    return None if row is None else _shown(row)


async def retire(session: AsyncSession, owner: Owner, key: str | None = None, *,
                 answered: int | None = None) -> list[Shown]:
    """`key` (None: every key of `owner`) is over: its records go. Returns their messages to retire,
    but `answered` (the message whose click ended it: the interaction's answer shows the outcome)."""
    rows = (await session.execute(select(ShownMessage).where(*_where(owner, key)))).scalars().all()
    for row in rows:
        await session.delete(row)
    gone = [s for row in rows if (s := _shown(row)) is not None]
    return [s for s in gone if s.message_id != answered]


_INSERTS = {"postgresql": postgresql_insert, "sqlite": sqlite_insert}
_upserts: dict[tuple[str, int], Prepared] = {}  # (dialect, rows): compiled once each


def wanted_upsert(dialect: str, rows: int, prefix: str = "shown_") -> Any:
    """One statement that wants `rows` keys of one owner: inserted, or their version moved on (the
    message that showed the older one forgotten), or left as they are when the version is the same.
    Its parameters (`wanted_params`) start with `prefix`, so a hot path may run it as a CTE of a
    statement of its own (the draft's pick on PostgreSQL: no round trip of its own)."""
    table = ShownMessage.__table__
    statement = _INSERTS[dialect](table).values([
        {"owner_kind": bindparam(f"{prefix}owner_kind"), "owner_id": bindparam(f"{prefix}owner_id"),
         "key": bindparam(f"{prefix}key_{n}"), "version": bindparam(f"{prefix}version_{n}"),
         "channel_id": null(), "message_id": null(), "payload": null()}
        for n in range(rows)])
    return statement.on_conflict_do_update(
        index_elements=[table.c.owner_kind, table.c.owner_id, table.c.key],
        set_={"version": statement.excluded.version, "channel_id": null(), "message_id": null(), "payload": null()},
        where=table.c.version != statement.excluded.version,
    )


def wanted_params(owner: Owner, versions: Mapping[str, int], prefix: str = "shown_") -> dict[str, Any]:
    """The parameters of `wanted_upsert(…, len(versions), prefix)` for these keys."""
    params: dict[str, Any] = {f"{prefix}owner_kind": owner.kind, f"{prefix}owner_id": owner.id}
    for n, (key, version) in enumerate(versions.items()):
        params[f"{prefix}key_{n}"], params[f"{prefix}version_{n}"] = key, version
    return params


async def want_quietly(session: AsyncSession, owner: Owner, versions: Mapping[str, int]) -> None:
    """`want_each` for a format that retires the older messages itself (the draft edits or closes
    them by its own rows): one compiled statement, no read, nothing returned."""
    if not versions:
        return
    dialect = session.bind.dialect.name
    upsert = _upserts.get((dialect, len(versions)))
    if upsert is None:
        upsert = _upserts[(dialect, len(versions))] = Prepared(wanted_upsert(dialect, len(versions)))
    await upsert.run(session, wanted_params(owner, versions))


async def wanted_now(session: AsyncSession, owner: Owner, key: str) -> tuple[int, Shown | None] | None:
    """The version of `key` wanted now and the message recorded as showing it, if any (None: `key`
    has no record: never wanted, retired, or owned by a table older than its records)."""
    row = await _row(session, owner, key)
    return None if row is None else (row.version, _shown(row))


async def still_wanted(session: AsyncSession, owner: Owner, key: str, version: int) -> bool:
    """Is `version` of `key` the one to show now?"""
    row = await _row(session, owner, key)
    return row is not None and row.version == version


async def wanted(session: AsyncSession, owner: Owner) -> dict[str, int]:
    """The version wanted of each key `owner` shows (for a check of every key against the state)."""
    rows = (await session.execute(select(ShownMessage.key, ShownMessage.version).where(*_where(owner)))).all()
    return {key: version for key, version in rows}


async def showing(session: AsyncSession, owner: Owner) -> list[Shown]:
    """The messages recorded as showing something of `owner` now."""
    rows = (await session.execute(select(ShownMessage).where(*_where(owner)).order_by(ShownMessage.key))).scalars()
    return [s for row in rows if (s := _shown(row)) is not None]
