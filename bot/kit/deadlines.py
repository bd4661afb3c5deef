"""Work due at a time, in one table indexed by due time: pick timers now; chess-clock flag falls,
phase timers and lobby expiry as formats need them.

A use case arms a deadline in its own transaction (`arm`, which moves an armed one) and disarms it
when the work is no longer needed. The sweeper (`run_due`) asks only for rows that are due, so its
cost follows the work that is due, not the number of running games; it leases each row before
running its kind's handler, so a handler that crashes is retried after the lease, and a handler
disarms or re-arms its row in the transaction that does the work.

Each kind's handler is declared by the service that owns it, in a `Handlers` collection its
package's declaration carries (`Format.deadlines`); the bot builds its table of every kind's
handler from those when it starts (`Handlers(*collections)`) and gives it to `run_due`: importing a
module registers nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.db import Database, notify_after_commit
from bot.store.models import Deadline
from bot.store.outage import log_failure
from bot.store.types import utcnow

log = logging.getLogger(__name__)
TOPIC = "deadlines"
LEASE = timedelta(seconds=60)


@dataclass(frozen=True)
class Due:
    kind: str
    key: str
    due_at: datetime
    payload: dict | None


Handler = Callable[[Database, Due, datetime], Awaitable[object]]


class Handlers:
    """Deadline handlers, one per kind (`handles`, a decorator; `add`); merged with others by
    `Handlers(*collections)`. A kind has one handler: a second one for it is refused."""

    def __init__(self, *included: Handlers) -> None:
        self._by_kind: dict[str, Handler] = {}
        for collection in included:
            for kind, handler in collection._by_kind.items():
                self.add(kind, handler)

    def handles(self, kind: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.add(kind, handler)
            return handler

        return register

    def add(self, kind: str, handler: Handler) -> None:
        taken = self._by_kind.get(kind)
        if taken is not None and taken is not handler:  # the same collection twice is fine
            raise ValueError(f"The deadline kind {kind!r} already has a handler ({_name(taken)}), "
                             f"so {_name(handler)} can't have it.")
        self._by_kind[kind] = handler

    def of(self, kind: str) -> Handler | None:
        return self._by_kind.get(kind)

    def __contains__(self, kind: object) -> bool:
        return kind in self._by_kind

    def kinds(self) -> set[str]:
        return set(self._by_kind)


def _name(handler: Handler) -> str:
    handler = getattr(handler, "func", handler)  # a functools.partial
    return f"{getattr(handler, '__module__', '?')}.{getattr(handler, '__qualname__', handler)}"


async def arm(session: AsyncSession, kind: str, key: str | int, due_at: datetime, payload: dict | None = None) -> None:
    """Make (kind, key) due at `due_at`, replacing an earlier arming."""
    key = str(key)
    moved = await session.execute(
        update(Deadline)
        .where(Deadline.kind == kind, Deadline.key == key)
        .values(due_at=due_at, payload=payload)
        .execution_options(synchronize_session=False)
    )
    if not moved.rowcount:
        session.add(Deadline(kind=kind, key=key, due_at=due_at, payload=payload))
    notify_after_commit(session, TOPIC, due_at)


async def disarm(session: AsyncSession, kind: str, key: str | int) -> None:
    await session.execute(delete(Deadline).where(Deadline.kind == kind, Deadline.key == str(key)))


async def due_at(session: AsyncSession, kind: str, key: str | int) -> datetime | None:
    query = select(Deadline.due_at).where(Deadline.kind == kind, Deadline.key == str(key))
    return (await session.execute(query)).scalar_one_or_none()


async def next_due_at(db: Database) -> datetime | None:
    async with db.read() as session:
        return (await session.execute(select(Deadline.due_at).order_by(Deadline.due_at).limit(1))).scalar_one_or_none()


async def _take_due(db: Database, now: datetime, limit: int, kinds: tuple[str, ...] | None) -> list[Due]:
    due = Deadline.due_at <= now
    if kinds is not None:
        due = due & Deadline.kind.in_(kinds)
    async with db.read() as session:  # nothing due is the common case: no write lock for it
        if (await session.execute(select(Deadline.id).where(due).limit(1))).first() is None:
            return []
    async with db.write() as session:
        rows = (
            await session.execute(select(Deadline).where(due).order_by(Deadline.due_at).limit(limit))
        ).scalars().all()
        taken = [Due(row.kind, row.key, row.due_at, row.payload) for row in rows]
        for row in rows:
            row.due_at = now + LEASE  # the handler disarms or re-arms it; a crash retries after the lease
        return taken


async def run_due(
    db: Database, handlers: Handlers, *, now: datetime | None = None, limit: int = 200,
    kinds: tuple[str, ...] | None = None,
) -> list:
    """Run the handler (of `handlers`) of every deadline that is due (of `kinds`, if given); returns
    what the handlers returned, in order."""
    now = now or utcnow()
    results = []
    for due in await _take_due(db, now, limit, kinds):
        handler = handlers.of(due.kind)
        if handler is None:
            log.error("no handler for deadline kind %s (key %s); it will be retried", due.kind, due.key)
            continue
        try:
            results.append(await handler(db, due, now))
        except Exception as error:
            log_failure(log, logging.ERROR, error, "deadline %s %s failed; it will be retried", due.kind, due.key)
    return results
