"""Game documents, once for every format: load a row (locked) with its seats, decode the engine's
state, save it with ``version + 1``, and the checks and the commit every use case begins and ends
with. A format makes one `Documents` next to its `TableSpec` and keeps only its use cases:

    GAMES = documents.Documents(SPEC, engine.TurnaboutState, refusals=…, seat_of=engine.seat_of, …)

    async with db.write() as session:
        game = await GAMES.load(session, event_id)          # row locked, seats, decoded state
        state, seat = GAMES.playing(game, actor)             # its server, running, the actor's seat
                                                             # (an organizer's action: GAMES.managing)
        events = GAMES.call(engine.report_game, state, seat, …)   # engine refusals -> UserError
        await GAMES.commit(session, game, events)           # saved; its announcement queued

The format keeps its *words* (`NotRunning`, the engine's refusal texts); the kit owns the mechanics.
`RowDocuments` is the same for a row without a table's seats and lifecycle (the chess clock).

An engine state is a `Document`: `to_dict()` with its `SCHEMA_VERSION`, `from_dict()`. The row's
`bookkeeping` (the service's own document, when the model has one) travels with the state as a
private copy in `Game.bookkeeping` and is written back by `save` when it changed. A format names its
dataclass (`Documents(..., bookkeeping=VortexBook)`, declared in its `Format` too): the document is
then decoded to it by the kit's codec (`bot.kit.events.decode`, a field added later takes its
default) and encoded back when saved; without one it stays a dict.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, Self, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import outbox, tables
from bot.kit.errors import NotFound, UserError
from bot.kit.events import Payload, decode, encode


class Document(Protocol):
    """An engine state: its own codec, with its schema version inside."""

    def to_dict(self) -> dict: ...

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self: ...


RowT = TypeVar("RowT")
SeatT = TypeVar("SeatT")
StateT = TypeVar("StateT", bound=Document)
Refusals = Callable[..., Any]  # `errors.engine_refusals(...)`: call(fn, *args, **kwargs)


@dataclass
class Game(Generic[RowT, SeatT, StateT]):
    """One loaded row: the row itself (locked when loaded so), its seats (seat order once seated,
    join order before), the decoded state (None before it begins) and a private copy of its
    bookkeeping document."""

    row: RowT
    seats: list[SeatT]
    state: StateT | None
    bookkeeping: Any = field(default_factory=dict)  # a dict, or the format's bookkeeping dataclass
    # What a use case tells its announcement beyond the state (e.g. whom a dispute calls); never saved.
    extra: dict = field(default_factory=dict)

    @property
    def id(self) -> int:
        return self.row.id  # type: ignore[attr-defined]

    @property
    def version(self) -> int:
        return self.row.version  # type: ignore[attr-defined]

    @property
    def user_ids(self) -> list[int]:
        """The players by seat once the state has them, else the seats' users."""
        players = getattr(self.state, "players", None)
        if players is not None:
            return [p.user_id for p in players]
        return [s.user_id for s in self.seats]  # type: ignore[attr-defined]

    def seat_of(self, user_id: int) -> SeatT | None:
        return next((s for s in self.seats if s.user_id == user_id), None)  # type: ignore[attr-defined]

    def channel(self, kind: str, payload: Payload | dict, *, channel_id: int | None = None) -> outbox.Message:
        """A post in the table's channel (or in `channel_id` of its server)."""
        row: Any = self.row
        return outbox.Message(kind, _data(payload), channel_id=channel_id or row.channel_id, guild_id=row.guild_id)

    def dm(self, kind: str, payload: Payload | dict, user_id: int) -> outbox.Message:
        """A DM to `user_id`, about this table."""
        return outbox.Message(kind, _data(payload), user_id=user_id, guild_id=self.row.guild_id)  # type: ignore[attr-defined]


def _data(payload: Payload | dict) -> dict:
    return payload.to_payload() if isinstance(payload, Payload) else payload


class RowDocuments(Generic[RowT, StateT]):
    """The documents of one model's rows: `model.state` holds a `state` document (and
    `model.bookkeeping`, if the model has it, the service's own)."""

    def __init__(self, model: type[RowT], state: type[StateT], *, noun: str, refusals: Refusals,
                 bookkeeping: type | None = None) -> None:
        self.model = model
        self.state = state
        self.bookkeeping = bookkeeping  # the dataclass of `model.bookkeeping`, or None: a plain dict
        self.noun = noun
        self.call = refusals  # run an engine operation: its refusals become UserErrors

    async def load(self, session: AsyncSession, row_id: int, *, lock: bool = True) -> Game[RowT, Any, StateT]:
        """The row (`lock`: held until the transaction ends) and its decoded state."""
        if not 0 < row_id <= tables.MAX_ID:
            raise NotFound(f"There is no {self.noun} #{row_id}.")
        model: Any = self.model
        query = select(model).where(model.id == row_id)
        if lock:
            query = query.with_for_update()
        row = (await session.execute(query)).scalar_one_or_none()
        if row is None:
            raise NotFound(f"There is no {self.noun} #{row_id}.")
        return self.game(row)

    def game(self, row: RowT, seats: Sequence[SeatT] = ()) -> Game[RowT, SeatT, StateT]:
        data = row.state  # type: ignore[attr-defined]
        state = self.state.from_dict(copy.deepcopy(data)) if data else None
        return Game(row, list(seats), state, self.read_bookkeeping(getattr(row, "bookkeeping", None)))

    def read_bookkeeping(self, data: dict | None) -> Any:
        """A row's bookkeeping document: its dataclass if the format has one, else a private dict."""
        if self.bookkeeping is not None:
            return decode(data or {}, self.bookkeeping)
        return copy.deepcopy(data or {})

    def save(self, game: Game[RowT, Any, StateT], **columns: Any) -> int:
        """Write the state (and the bookkeeping, if it changed) and `columns`; the version moves
        on. Returns the new version."""
        row: Any = game.row
        row.state = None if game.state is None else game.state.to_dict()
        kept = encode(game.bookkeeping) if self.bookkeeping is not None else game.bookkeeping
        if hasattr(row, "bookkeeping") and kept != (row.bookkeeping or {}):
            row.bookkeeping = copy.deepcopy(kept)  # a new dict: the JSON column sees the change
        row.version += 1
        for name, value in columns.items():
            setattr(row, name, value)
        return row.version

    def write_bookkeeping(self, game: Game[RowT, Any, StateT]) -> None:
        """Write the bookkeeping alone, not the state: the version stays (what a message shows, say)."""
        row: Any = game.row
        kept = encode(game.bookkeeping) if self.bookkeeping is not None else game.bookkeeping
        row.bookkeeping = copy.deepcopy(kept)  # a new dict: the JSON column sees the change

    def copy(self, state: StateT | None) -> StateT | None:
        """A private copy of a state (for a view handed out of the transaction)."""
        return None if state is None else self.state.from_dict(copy.deepcopy(state.to_dict()))


@dataclass(frozen=True)
class NotRunning:
    """What a format says when an action needs its table running and it is not."""

    lobby: str  # not begun yet (the lobby is open)
    finished: str  # over
    cancelled: str  # cancelled by an organizer


@dataclass(frozen=True)
class Announcer(Generic[RowT, SeatT, StateT]):
    """How a format's channel hears about an action: which engine events are public, and the
    payload (a snapshot) its `kind` renders them from."""

    kind: str
    public: tuple[type, ...]
    payload: Callable[[Game[RowT, SeatT, StateT], list], Payload]


class Documents(RowDocuments[RowT, StateT], Generic[RowT, SeatT, StateT]):
    """The documents of one format's tables (`spec`): load with the seats, the running check, the
    actor's seat, and the commit that saves and announces."""

    def __init__(
        self, spec: tables.TableSpec, state: type[StateT], *, refusals: Refusals, seat_of: Callable[[StateT, int], int],
        not_running: NotRunning | None = None, announce: Announcer[RowT, SeatT, StateT] | None = None,
        bookkeeping: type | None = None,
    ) -> None:
        super().__init__(spec.model, state, noun=spec.noun, refusals=refusals, bookkeeping=bookkeeping)
        self.spec = spec
        self.seat_of = seat_of
        noun = spec.noun
        self.not_running = not_running or NotRunning(
            f"That {noun} has not begun yet.", f"That {noun} is over.", f"That {noun} was cancelled.")
        self.announce = announce

    async def load(self, session: AsyncSession, table_id: int, *, lock: bool = True) -> Game[RowT, SeatT, StateT]:
        """The table and its seats in one statement (`lock`: held until the transaction ends)."""
        return self.decode(await tables.load(session, self.spec, table_id, lock=lock))

    def decode(self, loaded: tables.Loaded) -> Game[RowT, SeatT, StateT]:
        return self.game(loaded.row, loaded.seats)

    def running(self, game: Game[RowT, SeatT, StateT]) -> StateT:
        """The state of a running table, else the format's refusal (not begun, over, cancelled)."""
        status, statuses = game.row.status, self.spec.statuses  # type: ignore[attr-defined]
        if status == statuses.lobby:
            raise UserError(self.not_running.lobby)
        if status != statuses.running or game.state is None:
            raise UserError(self.not_running.finished if status == statuses.finished else self.not_running.cancelled)
        return game.state

    def seat(self, state: StateT, user_id: int) -> int:
        """The user's seat, through the engine's refusal (a non-player: PermissionDenied)."""
        return self.call(self.seat_of, state, user_id)

    def playing(self, game: Game[RowT, SeatT, StateT], actor: tables.Actor) -> tuple[StateT, int]:
        """A player's action: the table's own server (or a DM), running, and the actor's seat."""
        tables.check_same_server(self.noun, game.row, actor)
        state = self.running(game)
        return state, self.seat(state, actor.user_id)

    async def managing(self, session: AsyncSession, game: Game[RowT, SeatT, StateT], actor: tables.Actor) -> StateT:
        """An organizer's action: the table's organizer or an organizer of its server, and running."""
        await tables.require_manager(session, self.noun, game.row, actor)
        return self.running(game)

    def announcement(self, game: Game[RowT, SeatT, StateT], events: Sequence[Any]) -> outbox.Message | None:
        """The channel's message for the public ones of `events` (None: nothing to tell)."""
        if self.announce is None:
            return None
        public = [e for e in events if isinstance(e, self.announce.public)]
        return game.channel(self.announce.kind, self.announce.payload(game, public)) if public else None

    async def commit(
        self, session: AsyncSession, game: Game[RowT, SeatT, StateT], events: Sequence[Any], *,
        also: Sequence[outbox.Message] = (), **columns: Any,
    ) -> int:
        """Save an action (state, bookkeeping, `columns`) and queue what it owes, in this
        transaction: the announcement of its public events, then `also`. Returns the new version."""
        version = self.save(game, **columns)
        announced = self.announcement(game, events)
        messages = [announced, *also] if announced is not None else list(also)
        if messages:
            await outbox.queue(session, *messages)
        return version
