"""The life of every game with a lobby, once for all formats: create (one active table per channel),
find here, join, leave, begin, cancel, and who may manage a table.

A format plugs in a `TableSpec`: its table and seat models (which carry `TableColumns` and
`SeatColumns`), its status words, its player-count rule, how to show a table (`view`) and a begin
hook that deals with its engine. The hook runs inside the transaction that seats the players.

Permissions are decided here, from an `Actor` (the user, the server the action came from, and
that member's Manage Server permission and roles there), and always judged in the server that owns
the table: an organizer of another server is nobody here, and a lobby button replayed in another
server is refused.

Concurrency, the same for every format: a write use case loads its table row with `lock=True`
(`SELECT … FOR UPDATE` on PostgreSQL; on SQLite every write transaction already holds the database
lock from its first statement, `BEGIN IMMEDIATE`), so actions on one table never interleave; each
save increments `version`, which messages rendered for an older state use to tell they are stale.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import outbox
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.events import Payload
from bot.store.db import Database
from bot.store.models import GuildSettings
from bot.store.types import utcnow

ViewT = TypeVar("ViewT")

MAX_ID = 2**63 - 1  # database ids are signed 64-bit


@dataclass(frozen=True)
class Actor:
    """Who acts, and from where (facts from Discord; the service decides what they allow)."""

    user_id: int
    guild_id: int | None  # the server the action came from; None in a DM
    manage_guild: bool = False  # the member's Manage Server permission in that server
    role_ids: frozenset[int] = frozenset()  # the member's roles in that server


@dataclass(frozen=True)
class TableView:
    """The shared columns of a table, as every format's view shows them (a format's view adds its own)."""

    id: int
    guild_id: int
    channel_id: int
    organizer_id: int
    lobby_message_id: int | None
    status: str
    max_seats: int


def view_columns(row: Any) -> dict[str, Any]:
    """A table row's shared columns, for building its format's `TableView` subclass."""
    return {name: getattr(row, name) for name in TableView.__dataclass_fields__}


@dataclass(frozen=True)
class Statuses:
    """The words a format stores for the four stages of a table."""

    lobby: str = "lobby"
    running: str = "running"
    finished: str = "finished"
    cancelled: str = "cancelled"

    @property
    def active(self) -> tuple[str, str]:
        return (self.lobby, self.running)

    @property
    def all(self) -> tuple[str, ...]:
        return (self.lobby, self.running, self.finished, self.cancelled)


@dataclass
class Loaded:
    """A table row and its seats (seat order once seated, join order before), from one statement."""

    row: Any  # the format's model (TableColumns)
    seats: list[Any]  # the format's seat model (SeatColumns)

    def seat_of(self, user_id: int) -> Any | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)

    @property
    def user_ids(self) -> list[int]:
        return [seat.user_id for seat in self.seats]


BeginHook = Callable[[AsyncSession, Loaded, datetime], Awaitable[Any]]
CancelHook = Callable[[AsyncSession, Loaded, bool], Awaitable[None]]  # (…, was running)


@dataclass(frozen=True)
class TableSpec:
    kind: str  # "draft", "battler", …: also the leaderboard's format key
    noun: str  # "draft": "That draft has already started."
    title: str  # "Draft": "Draft #12 is already running in this channel"
    model: type
    seat_model: type
    view: Callable[[Loaded], Any]  # how the format shows a table to the cogs
    begin: BeginHook  # deals with the engine once the players are seated
    players_problem: Callable[[int], str | None]  # why this many players cannot begin, if they can't
    statuses: Statuses = field(default_factory=Statuses)
    on_cancel: CancelHook | None = None  # queue what a cancellation owes, drop its deadlines
    full_text: Callable[[Any], str] | None = None  # why a full lobby (its row) takes nobody more
    # The outbox kind that tells the channel a running table was cancelled, in the kit's words
    # (payload: TableRef); None: nothing is told.
    cancel_notice: str | None = None
    name: Callable[[int], str] | None = None  # "Turnabout #3"; default "<title> #<id>"
    # What that notice says happened ("… was cancelled by an organizer: nothing was recorded."), for a
    # format whose organizers end a running table in other words.
    cancelled_as: str = "cancelled by an organizer"

    def name_of(self, table_id: int) -> str:
        return self.name(table_id) if self.name is not None else f"{self.title} #{table_id}"


@dataclass(frozen=True)
class TableRef(Payload):
    """An outbox payload naming a table (the lobby to redraw, the table cancelled)."""

    table_id: int

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        # Rows queued before the kit rendered cancellations named the table by the format's word.
        legacy = next((data[key] for key in ("event_id", "game_id", "league_id") if key in data), None)
        return {"table_id": legacy, **data} if "table_id" not in data and legacy is not None else data


# --- loading ---------------------------------------------------------------------------------------


async def load(session: AsyncSession, spec: TableSpec, table_id: int, *, lock: bool = False) -> Loaded:
    """The table and its seats in one statement (`lock`: held until the transaction ends)."""
    return await load_rows(session, spec.model, spec.seat_model, table_id, noun=spec.noun, lock=lock)


async def load_rows(
    session: AsyncSession, model: type, seat_model: type, table_id: int, *, noun: str, lock: bool = False
) -> Loaded:
    """`load` for a format's own modules, which the spec (defined after them) cannot serve yet."""
    if not 0 < table_id <= MAX_ID:
        raise NotFound(f"There is no {noun} #{table_id}.")
    query = select(model, seat_model).outerjoin(seat_model, seat_model.table_id == model.id).where(model.id == table_id)
    if lock:
        query = query.with_for_update(of=model)
    rows = (await session.execute(query)).all()
    if not rows:
        raise NotFound(f"There is no {noun} #{table_id}.")
    seats = [seat for _, seat in rows if seat is not None]
    seats.sort(key=lambda s: (s.seat if s.seat is not None else MAX_ID, s.joined_at, s.id))
    return Loaded(rows[0][0], seats)


async def get(db: Database, spec: TableSpec, table_id: int) -> Any:
    async with db.read() as session:
        return spec.view(await load(session, spec, table_id))


async def find(
    db: Database, spec: TableSpec, *, guild_id: int | None, channel_id: int | None, user_id: int,
    statuses: tuple[str, ...] | None = None,
) -> Any | None:
    """The view of the table `find_here` finds, or None."""
    table_id = await find_here(db, spec, guild_id=guild_id, channel_id=channel_id, user_id=user_id, statuses=statuses)
    return None if table_id is None else await get(db, spec, table_id)


async def find_here(
    db: Database, spec: TableSpec, *, guild_id: int | None, channel_id: int | None, user_id: int,
    statuses: tuple[str, ...] | None = None,
) -> int | None:
    """The id of this channel's newest table in `statuses`, else the user's newest one (in this
    server, when the action came from one)."""
    statuses = statuses or spec.statuses.active
    model, seat_model = spec.model, spec.seat_model
    async with db.read() as session:
        if guild_id is not None and channel_id is not None:
            here = await session.execute(
                select(model.id)
                .where(model.guild_id == guild_id, model.channel_id == channel_id, model.status.in_(statuses))
                .order_by(model.id.desc())
                .limit(1)
            )
            if (table_id := here.scalar_one_or_none()) is not None:
                return table_id
        query = (
            select(model.id)
            .join(seat_model, seat_model.table_id == model.id)
            .where(seat_model.user_id == user_id, model.status.in_(statuses))
        )
        if guild_id is not None:
            query = query.where(model.guild_id == guild_id)
        return (await session.execute(query.order_by(model.id.desc()).limit(1))).scalar_one_or_none()


@dataclass(frozen=True)
class Elsewhere:
    """A table the user's command did not find here but may have meant: its id, channel and status."""

    table_id: int
    channel_id: int
    status: str


async def find_elsewhere(
    db: Database, spec: TableSpec, *, guild_id: int | None, channel_id: int | None, user_id: int,
    statuses: tuple[str, ...] | None = None,
) -> Elsewhere | None:
    """When `find_here` finds nothing, the table the user may have meant, so the refusal can lead
    somewhere: this server's newest table in `statuses` in another channel (the command was typed in
    the wrong channel), else the newest table of this channel or of the user in another status (an
    event that has ended, or not begun yet)."""
    statuses = statuses or spec.statuses.active
    model, seat_model = spec.model, spec.seat_model
    columns = (model.id, model.channel_id, model.status)
    async with db.read() as session:
        if guild_id is not None:
            other = await session.execute(
                select(*columns).where(model.guild_id == guild_id, model.status.in_(statuses))
                .order_by(model.id.desc()).limit(1)
            )
            if (row := other.first()) is not None:
                return Elsewhere(*row)
        candidates = []
        if guild_id is not None and channel_id is not None:
            here = select(*columns).where(model.guild_id == guild_id, model.channel_id == channel_id)
            candidates.append((await session.execute(here.order_by(model.id.desc()).limit(1))).first())
        mine = select(*columns).join(seat_model, seat_model.table_id == model.id).where(seat_model.user_id == user_id)
        if guild_id is not None:
            mine = mine.where(model.guild_id == guild_id)
        candidates.append((await session.execute(mine.order_by(model.id.desc()).limit(1))).first())
    found = [row for row in candidates if row is not None]
    return Elsewhere(*max(found, key=lambda row: row[0])) if found else None


# --- permissions ------------------------------------------------------------------------------------


async def is_organizer(session: AsyncSession, actor: Actor, guild_id: int) -> bool:
    """Manage Server or the server's organizer role, in `guild_id` itself (never another server)."""
    if actor.guild_id != guild_id:
        return False
    if actor.manage_guild:
        return True
    settings = await session.get(GuildSettings, guild_id)
    return settings is not None and settings.organizer_role_id in actor.role_ids


async def require_organizer(session: AsyncSession, actor: Actor, guild_id: int, what: str) -> None:
    if not await is_organizer(session, actor, guild_id):
        raise PermissionDenied(f"Only organizers can {what} (Manage Server or the organizer role).")


async def can_manage(session: AsyncSession, row: Any, actor: Actor) -> bool:
    """The table's organizer, or an organizer of the server that owns it."""
    return actor.user_id == row.organizer_id or await is_organizer(session, actor, row.guild_id)


async def require_manager(session: AsyncSession, noun: str, row: Any, actor: Actor) -> None:
    check_same_server(noun, row, actor)
    if not await can_manage(session, row, actor):
        raise PermissionDenied(f"Only the {noun}'s organizer (or a server organizer) can do that.")


def check_same_server(noun: str, row: Any, actor: Actor) -> None:
    """Actions from a server act only on that server's tables (DMs are judged by seat instead)."""
    if actor.guild_id is not None and actor.guild_id != row.guild_id:
        raise PermissionDenied(f"That {noun} belongs to another server.")


def check_in_server(noun: str, row: Any, actor: Actor) -> None:
    """Lobby actions happen in the table's own server."""
    if actor.guild_id != row.guild_id:
        raise PermissionDenied(f"That {noun} belongs to another server.")


# --- the lifecycle ------------------------------------------------------------------------------------


async def check_can_create(session: AsyncSession, spec: TableSpec, *, actor: Actor, channel_id: int) -> None:
    """What `create` refuses (not in a server, not an organizer, the channel busy), e.g. checked
    before slow work that a refusal would waste."""
    if actor.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    await require_organizer(session, actor, actor.guild_id, f"start a {spec.noun}")
    model = spec.model
    busy = await session.execute(
        select(model.id).where(
            model.guild_id == actor.guild_id, model.channel_id == channel_id, model.status.in_(spec.statuses.active)
        )
    )
    if (existing := busy.scalars().first()) is not None:
        raise Conflict(f"{spec.title} #{existing} is already running in this channel; finish or cancel it first.")


async def create(
    session: AsyncSession, spec: TableSpec, *, actor: Actor, channel_id: int, seed: int | None = None, **columns: Any
) -> Loaded:
    """Open a lobby in the actor's channel (organizers only; one active table per channel)."""
    await check_can_create(session, spec, actor=actor, channel_id=channel_id)
    model = spec.model
    row = model(
        guild_id=actor.guild_id, channel_id=channel_id, organizer_id=actor.user_id, status=spec.statuses.lobby,
        seed=seed if seed is not None else random.SystemRandom().getrandbits(62), version=0, **columns,
    )
    session.add(row)
    await session.flush()
    return Loaded(row, [])


async def set_lobby_message(db: Database, spec: TableSpec, table_id: int, message_id: int) -> None:
    async with db.write() as session:
        row = await session.get(spec.model, table_id)
        if row is not None:
            row.lobby_message_id = message_id


async def join(db: Database, spec: TableSpec, table_id: int, actor: Actor) -> Any:
    try:
        async with db.write() as session:
            loaded = await load(session, spec, table_id, lock=True)
            row = loaded.row
            check_in_server(spec.noun, row, actor)
            if row.status != spec.statuses.lobby:
                raise Conflict(f"That {spec.noun} has already started; you can't join it now.")
            if loaded.seat_of(actor.user_id) is not None:
                raise Conflict(f"You are already in this {spec.noun}.")
            if len(loaded.seats) >= row.max_seats:
                raise Conflict(spec.full_text(row) if spec.full_text else f"That {spec.noun} is full ({row.max_seats} players).")
            seat = spec.seat_model(table_id=row.id, guild_id=row.guild_id, user_id=actor.user_id)
            session.add(seat)
            await session.flush()
            loaded.seats.append(seat)
            return spec.view(loaded)
    except IntegrityError:
        raise Conflict(f"You are already in this {spec.noun}.") from None


async def leave(db: Database, spec: TableSpec, table_id: int, actor: Actor) -> Any:
    async with db.write() as session:
        loaded = await load(session, spec, table_id, lock=True)
        check_in_server(spec.noun, loaded.row, actor)
        if loaded.row.status != spec.statuses.lobby:
            raise Conflict(f"The {spec.noun} has started: you can't leave it from the lobby.")
        seat = loaded.seat_of(actor.user_id)
        if seat is None:
            raise Conflict(f"You are not in this {spec.noun}.")
        await session.delete(seat)
        loaded.seats.remove(seat)
        return spec.view(loaded)


async def begin(db: Database, spec: TableSpec, table_id: int, actor: Actor, *, now: datetime | None = None) -> Any:
    """Seat the lobby (shuffled with the table's seed) and hand over to the format's begin hook."""
    now = now or utcnow()
    async with db.write() as session:
        loaded = await load(session, spec, table_id, lock=True)
        row = loaded.row
        await require_manager(session, spec.noun, row, actor)
        if row.status != spec.statuses.lobby:
            over = row.status != spec.statuses.running
            raise Conflict(f"That {spec.noun} is over." if over else f"That {spec.noun} has already started.")
        if (problem := spec.players_problem(len(loaded.seats))) is not None:
            raise UserError(problem)
        order = list(loaded.seats)
        random.Random(row.seed).shuffle(order)
        for number, seat in enumerate(order):
            seat.seat = number
        row.status, row.started_at = spec.statuses.running, now
        return await spec.begin(session, Loaded(row, order), now)


def lobby_kind(kind: str) -> str:
    """The outbox kind that redraws a table's lobby message (rendered by the kit, with the format's
    `TableCog` look)."""
    return f"{kind}.lobby"


async def finish(session: AsyncSession, row: Any, *, kind: str, finished: str, now: datetime | None = None) -> None:
    """A running table of format `kind` is over: its status is `finished`, and its lobby message
    (which said it was running) is redrawn after the commit, through the outbox."""
    row.status, row.finished_at = finished, now or utcnow()
    if row.lobby_message_id is not None:
        await outbox.queue(session, _in_channel(row, lobby_kind(kind)))


def _in_channel(row: Any, kind: str) -> outbox.Message:
    return outbox.Message(kind, TableRef(row.id).to_payload(), channel_id=row.channel_id, guild_id=row.guild_id)


async def cancel(db: Database, spec: TableSpec, table_id: int, actor: Actor, *, now: datetime | None = None) -> Any:
    """Cancel a lobby, or end a running table without results (nothing goes to the leaderboard)."""
    async with db.write() as session:
        loaded = await load(session, spec, table_id, lock=True)
        await require_manager(session, spec.noun, loaded.row, actor)
        if loaded.row.status not in spec.statuses.active:
            raise Conflict(f"That {spec.noun} is already {loaded.row.status}.")
        was_running = loaded.row.status == spec.statuses.running
        loaded.row.status, loaded.row.finished_at = spec.statuses.cancelled, now or utcnow()
        loaded.row.version += 1
        if spec.on_cancel is not None:
            await spec.on_cancel(session, loaded, was_running)
        if was_running and spec.cancel_notice is not None:
            await outbox.queue(session, _in_channel(loaded.row, spec.cancel_notice))
        return spec.view(loaded)


@dataclass(frozen=True)
class TableUseCases(Generic[ViewT]):
    """The use cases every table has, bound to its spec: a format's service names them once
    (`get_game = TABLES.get`) instead of writing a wrapper per format."""

    spec: TableSpec

    async def get(self, db: Database, table_id: int) -> ViewT:
        return await get(db, self.spec, table_id)

    async def find(
        self, db: Database, *, guild_id: int | None, channel_id: int | None, user_id: int,
        statuses: tuple[str, ...] | None = None,
    ) -> ViewT | None:
        """The channel's newest table in `statuses` (default: active), else the user's newest one."""
        return await find(db, self.spec, guild_id=guild_id, channel_id=channel_id, user_id=user_id, statuses=statuses)

    async def join(self, db: Database, table_id: int, actor: Actor) -> ViewT:
        return await join(db, self.spec, table_id, actor)

    async def leave(self, db: Database, table_id: int, actor: Actor) -> ViewT:
        return await leave(db, self.spec, table_id, actor)

    async def begin(self, db: Database, table_id: int, actor: Actor) -> Any:
        return await begin(db, self.spec, table_id, actor)

    async def cancel(self, db: Database, table_id: int, actor: Actor) -> ViewT:
        return await cancel(db, self.spec, table_id, actor)
