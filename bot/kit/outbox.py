"""The messages the bot owes (the outbox), as rows written with the change that causes them.

A use case queues a message in its own write transaction (`queue`): a pack DM in the pick that
passed the pack, the final standings in the report that ended the game. After the commit, the
process that queued it sends it at once (`bot.outbox.Outbox`, notified through
`notify_after_commit`); the row is marked sent once Discord accepted it. If the process dies in
between, or Discord fails, the sweeper sends it later (`due`): rows are leased for
`IMMEDIATE_LEASE` to their sending process, then retried with backoff. Permanent failures (a 4xx
other than 429) are marked failed once and never retried; a closed DM runs its kind's fallback.
A channel post Discord refuses for a missing permission (403) whose payload names someone to tell
(`telling`, e.g. the organizer who ended the event whose results it posts) queues, once, a
`CANNOT_POST` notice to them: in their reply if it is still open, else by DM.

Kinds name how a row is rendered (`bot.outbox`) and, here, what its delivery changes in the
database (`on_sent`, `on_dm_closed` hooks, run in the transaction that settles the row).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import bindparam, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.events import Payload
from bot.store.db import Database, notify_after_commit
from bot.store.models import OutboxMessage
from bot.store.prepared import Prepared
from bot.store.types import utcnow

PENDING, SENT, FAILED, SKIPPED = "pending", "sent", "failed", "skipped"
TOPIC = "outbox"
# A DM (or reply) telling someone a channel post was refused for a missing permission (CannotPost).
CANNOT_POST = "outbox.cannot_post"
TELL = "tell_if_refused"  # the payload key `telling` adds
# The queuing process owns a fresh row this long; after that the sweeper may take it.
IMMEDIATE_LEASE = timedelta(seconds=60)
# A row the sweeper took is leased this long before another attempt (a crash mid-send).
SWEEP_LEASE = timedelta(seconds=120)
BACKOFF_SECONDS = (15, 30, 60, 120, 300, 600, 1800, 3600)
MAX_ATTEMPTS = 10
KEEP_SETTLED = timedelta(days=7)
# A restart shows again what was recorded as shown in an interaction response this long before it
# (`show_in_place`); after a longer downtime the player's old message says the pack moved on, and
# the format's resend command shows it.
SHOW_AGAIN_WITHIN = timedelta(minutes=15)
_ROWS = OutboxMessage.__table__
_QUEUED_COLUMNS = ("kind", "guild_id", "channel_id", "user_id", "payload", "status", "attempts", "next_attempt_at",
                   "created_at")
_INSERT_ONE = Prepared(insert(_ROWS).values({c: bindparam(c) for c in _QUEUED_COLUMNS}).returning(_ROWS.c.id))
_INSERT_MANY = insert(_ROWS).returning(_ROWS.c.id, sort_by_parameter_order=True)


@dataclass(frozen=True)
class Message:
    """What to send: a DM (`user_id`) or a channel post (`channel_id`), rendered by `kind`."""

    kind: str
    payload: dict = field(default_factory=dict)
    user_id: int | None = None
    channel_id: int | None = None
    guild_id: int | None = None


@dataclass(frozen=True)
class CannotPost(Payload):
    """A channel post refused for a missing permission (Discord's `code`), told to whom it names."""

    channel_id: int
    guild_id: int | None
    what: str  # the post, in a sentence ("the results of Vortex #3"), user text escaped
    code: int


@dataclass(frozen=True)
class DmsClosed(Payload):
    """In a table's channel: this player's DMs are closed (the format's kind says what could not
    reach them: `bot.kit.delivery.Renderers.dms_closed`)."""

    user_id: int


@dataclass(frozen=True)
class Queued:
    id: int
    message: Message
    attempts: int
    created_at: datetime

    @property
    def kind(self) -> str:
        return self.message.kind

    @property
    def payload(self) -> dict:
        return self.message.payload


# Hooks a kind runs in the transaction that settles its row: `on_sent(session, queued, channel_id,
# message_id)` records which message shows it; `on_dm_closed(session, queued)` queues the fallback.
SentHook = Callable[[AsyncSession, Queued, int, int], Awaitable[None]]
ClosedHook = Callable[[AsyncSession, Queued], Awaitable[None]]
_on_sent: dict[str, SentHook] = {}
_on_dm_closed: dict[str, ClosedHook] = {}
_parked_when_closed: set[str] = set()
PARKED = timedelta(days=365)  # a parked row waits for the next start of the bot


def on_sent(kind: str, hook: SentHook) -> None:
    _on_sent[kind] = hook


def on_dm_closed(kind: str, hook: ClosedHook, *, retry_at_startup: bool = False) -> None:
    """`hook` runs when Discord refuses the DM (50007). With `retry_at_startup` the row is parked,
    not failed: the next start of the bot tries it again (the player may have opened their DMs)."""
    _on_dm_closed[kind] = hook
    if retry_at_startup:
        _parked_when_closed.add(kind)


# --- queuing (inside a use case's transaction) -------------------------------------------------


def telling(payload: dict, user_id: int, what: str) -> dict:
    """`payload` of a channel post that `user_id` is told about if Discord refuses it for a missing
    permission. `what` names the post in a sentence ("the results of Vortex #3"), user text escaped."""
    return {**payload, TELL: {"user_id": user_id, "what": what}}


async def queue(session: AsyncSession, *messages: Message, hold: bool = False, held: Sequence[Message] = (),
                now: datetime | None = None) -> list[Queued]:
    """Add `messages` to the outbox in this transaction: they are sent after the commit. Rows for
    `held` (or for every message, with `hold`) are queued in the same statement but not sent: the
    caller delivers them itself (e.g. in an interaction response, see `settle`) or the sweeper
    does once the lease ends. Returns the rows in order, `held` last."""
    sent = () if hold else messages
    everything = (*messages, *held)
    if not everything:
        return []
    now = now or utcnow()
    rows = [
        {
            "kind": m.kind, "guild_id": m.guild_id, "channel_id": m.channel_id, "user_id": m.user_id,
            "payload": m.payload, "status": PENDING, "attempts": 0, "next_attempt_at": now + IMMEDIATE_LEASE,
            "created_at": now,
        }
        for m in everything
    ]
    # Core, not the ORM's bulk insert (several times the cost, on every pick that passes a pack).
    if len(rows) == 1:
        ids = [await _INSERT_ONE.scalar(session, rows[0])]
    else:
        ids = (await session.execute(_INSERT_MANY, rows)).scalars().all()
    queued = [Queued(i, m, 0, now) for i, m in zip(ids, everything, strict=True)]
    if sent:
        notify_after_commit(session, TOPIC, *queued[: len(sent)])
    return queued


# --- the sweeper's side ----------------------------------------------------------------------------


def _queued(row: OutboxMessage) -> Queued:
    message = Message(row.kind, row.payload, row.user_id, row.channel_id, row.guild_id)
    return Queued(row.id, message, row.attempts, row.created_at)


async def take_due(db: Database, *, now: datetime | None = None, created_before: datetime | None = None,
                   limit: int = 100) -> list[Queued]:
    """Lease the pending rows that are due (and, at startup, every row queued before the process
    started: none of those can be in flight here) to the caller."""
    now = now or utcnow()
    due = OutboxMessage.next_attempt_at <= now
    if created_before is not None:
        due = or_(due, OutboxMessage.created_at < created_before)
    pending_and_due = select(OutboxMessage.id).where(OutboxMessage.status == PENDING, due)
    async with db.read() as session:  # nothing due is the common case: no write lock for it
        if (await session.execute(pending_and_due.limit(1))).first() is None:
            return []
    return await _lease(db, due, now, limit)


async def take(db: Database, ids: Iterable[int], *, now: datetime | None = None) -> list[Queued]:
    """Lease the rows `ids` that are still pending, due or not (messages owed since an outage,
    sent again as soon as the database is back)."""
    ids = list(ids)
    return await _lease(db, OutboxMessage.id.in_(ids), now or utcnow(), len(ids)) if ids else []


async def _lease(db: Database, which, now: datetime, limit: int) -> list[Queued]:
    async with db.write() as session:
        rows = (
            await session.execute(
                select(OutboxMessage)
                .where(OutboxMessage.status == PENDING, which)
                .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id)
                .limit(limit)
            )
        ).scalars().all()
        for row in rows:
            row.attempts += 1
            row.next_attempt_at = now + SWEEP_LEASE
        return [_queued(row) for row in rows]


async def next_due_at(db: Database) -> datetime | None:
    async with db.read() as session:
        return (
            await session.execute(
                select(OutboxMessage.next_attempt_at)
                .where(OutboxMessage.status == PENDING)
                .order_by(OutboxMessage.next_attempt_at)
                .limit(1)
            )
        ).scalar_one_or_none()


# --- settling rows after a send ---------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one send ended: sent (with the message that shows it), or failed."""

    queued: Queued
    channel_id: int | None = None
    message_id: int | None = None
    retry: bool = False  # a transient failure (5xx, network): try again later
    dm_closed: bool = False  # Discord error 50007: the user accepts no DMs from the bot
    forbidden: int | None = None  # another 403 (Discord's code: 50001 Missing Access, 50013 Missing Permissions)
    skipped: bool = False  # no longer wanted (the state moved on)
    error: str | None = None
    # Shown by the caller in an interaction response, recorded in the transaction that queued it
    # (before Discord shows it): kept with no attempt, so a restart shows it again (`shown_in_place`).
    in_place: bool = False


async def settle(db: Database, outcomes: Iterable[Outcome], *, now: datetime | None = None) -> None:
    """Record how sends ended, in one transaction, running each kind's hooks (which use only the
    session they are given)."""
    outcomes = list(outcomes)
    if not outcomes:
        return
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> None:
        for outcome in outcomes:
            await _settle_one(session, outcome, now)

    # By the writer, like the pick that queued the row: a button pick's next pack is settled right
    # after the interaction shows it, so this runs as often as picks do.
    await db.transact(use_case)


async def settle_in(session: AsyncSession, outcome: Outcome, *, now: datetime | None = None) -> None:
    """`settle` inside the caller's transaction (e.g. a held pack shown in an interaction response)."""
    await _settle_one(session, outcome, now or utcnow())


async def show_in_place(session: AsyncSession, queued: Queued, channel_id: int, message_id: int) -> None:
    """Record, in the transaction that queued it, that the held row `queued` is shown by editing
    `message_id` in the interaction response that follows the commit: one write transaction for the
    change and its record. Until Discord has shown it the record is ahead of Discord, so the row is
    kept as sent with no attempt: after a crash the restart edits the message to it again
    (`shown_in_place`), and a caller whose edit failed sends it anew."""
    await _settle_one(session, Outcome(queued, channel_id=channel_id, message_id=message_id, in_place=True), utcnow())


@dataclass(frozen=True)
class ShownInPlace:
    queued: Queued
    channel_id: int
    message_id: int


async def shown_in_place(db: Database, *, since: datetime, before: datetime, limit: int = 1000) -> list[ShownInPlace]:
    """Rows recorded by `show_in_place` between `since` and `before` (e.g. by a process that died
    before its interaction response showed them)."""
    async with db.read() as session:
        rows = (await session.execute(
            select(OutboxMessage).where(OutboxMessage.status == SENT, OutboxMessage.attempts == 0,
                                        OutboxMessage.created_at >= since, OutboxMessage.created_at < before)
            .order_by(OutboxMessage.id).limit(limit)
        )).scalars().all()
        return [ShownInPlace(_queued(row), row.channel_id, row.message_id) for row in rows if row.message_id is not None]


async def _settle_one(session: AsyncSession, outcome: Outcome, now: datetime) -> None:
    queued = outcome.queued
    values: dict = {"next_attempt_at": now}
    if outcome.message_id is not None:
        values.update(status=SENT, channel_id=outcome.channel_id, message_id=outcome.message_id)
        if (hook := _on_sent.get(queued.kind)) is not None:
            await hook(session, queued, outcome.channel_id, outcome.message_id)
    elif outcome.skipped:
        values.update(status=SKIPPED, error=outcome.error)
    elif outcome.dm_closed and queued.kind in _parked_when_closed:
        values.update(next_attempt_at=now + PARKED, error=outcome.error)
        await _on_dm_closed[queued.kind](session, queued)
    elif outcome.retry and queued.attempts + 1 < MAX_ATTEMPTS:
        delay = BACKOFF_SECONDS[min(queued.attempts, len(BACKOFF_SECONDS) - 1)]
        values.update(next_attempt_at=now + timedelta(seconds=delay), error=(outcome.error or "")[:300])
    else:
        values.update(status=FAILED, error=(outcome.error or "failed")[:300])
        if outcome.dm_closed and (hook := _on_dm_closed.get(queued.kind)) is not None:
            await hook(session, queued)
    settled = await session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == queued.id, OutboxMessage.status == PENDING)
        .values(attempts=0 if outcome.in_place else max(queued.attempts, 1), **values)
        .execution_options(synchronize_session=False)
    )
    if outcome.forbidden is not None and settled.rowcount:  # this settles it: told once
        await _tell_refused(session, queued, outcome.forbidden)


async def _tell_refused(session: AsyncSession, queued: Queued, code: int) -> None:
    """The channel post `queued` was refused for a missing permission: tell whom its payload names."""
    tell, message = queued.payload.get(TELL), queued.message
    if tell is None or message.channel_id is None:
        return
    payload = CannotPost(message.channel_id, message.guild_id, tell["what"], code).to_payload()
    await queue(session, Message(CANNOT_POST, payload, user_id=tell["user_id"], guild_id=message.guild_id))


async def sent_message(db: Database, row_id: int) -> tuple[int, int] | None:
    """(channel id, message id) of the message the row `row_id` sent, if it was sent (and not pruned)."""
    async with db.read() as session:
        row = (await session.execute(
            select(OutboxMessage.channel_id, OutboxMessage.message_id).where(
                OutboxMessage.id == row_id, OutboxMessage.status == SENT)
        )).first()
    return None if row is None or row[1] is None else (row[0], row[1])


async def prune(db: Database, *, now: datetime | None = None) -> int:
    """Forget rows settled more than `KEEP_SETTLED` ago."""
    cutoff = (now or utcnow()) - KEEP_SETTLED
    async with db.write() as session:
        result = await session.execute(
            delete(OutboxMessage).where(
                OutboxMessage.status.in_((SENT, FAILED, SKIPPED)), OutboxMessage.next_attempt_at < cutoff
            )
        )
        return result.rowcount or 0
