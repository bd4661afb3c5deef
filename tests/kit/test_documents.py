"""Game documents (`bot.kit.documents`) on real SQLite and PostgreSQL databases: a table loaded with
its seats and its decoded state, saved with the version moving on (the bookkeeping only when it
changed), the format's refusals when it is not running or the actor plays elsewhere, and the commit
that queues the announcement of the public events as a typed payload. A format of the tests' own,
with its tables made for the test: the kit needs no real format."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import ForeignKey, MetaData, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.kit import documents, events, tables
from bot.kit.errors import NotFound, PermissionDenied, UserError, engine_refusals
from bot.kit.events import Payload
from bot.store.models import OutboxMessage, SeatColumns, TableColumns
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, player

KIND = "kittest"
SCHEMA_VERSION = 1


class KitBase(DeclarativeBase):
    metadata = MetaData()


class KitTable(TableColumns, KitBase):
    __tablename__ = "kit_test_tables"


class KitSeat(SeatColumns, KitBase):
    __tablename__ = "kit_test_seats"

    table_id: Mapped[int] = mapped_column(ForeignKey("kit_test_tables.id", ondelete="CASCADE"), index=True)


# --- the tests' engine --------------------------------------------------------------------------


class Refused(ValueError):
    pass


class NotAPlayer(Refused):
    pass


@dataclass
class Player:
    seat: int
    user_id: int
    score: int = 0


@dataclass
class State:
    players: list[Player]
    round: int = 0

    def to_dict(self) -> dict:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        assert data["v"] == SCHEMA_VERSION
        return events.decode({k: v for k, v in data.items() if k != "v"}, cls)


@dataclass(frozen=True)
class Event(events.Event, family="kittest"):
    pass


@dataclass(frozen=True)
class Scored(Event):
    seat: int
    points: int


@dataclass(frozen=True)
class Private(Event):  # the channel never hears about it
    seat: int


def seat_of(state: State, user_id: int) -> int:
    for p in state.players:
        if p.user_id == user_id:
            return p.seat
    raise NotAPlayer("You are not playing here.")


def score(state: State, seat: int, points: int) -> list[Event]:
    if points < 0:
        raise Refused("Points are never negative.")
    state.players[seat].score += points
    return [Scored(seat, points), Private(seat)]


@dataclass(frozen=True)
class Announcement(Payload):
    table_id: int
    users: tuple[int, ...]
    events: tuple[Event, ...]


# --- the format's documents, made for each test (a spec registered for good would reach other tests) ----


@dataclass
class Format:
    spec: tables.TableSpec
    games: documents.Documents[KitTable, KitSeat, State]
    rows: documents.RowDocuments[KitTable, State] = field(init=False)

    def __post_init__(self) -> None:
        self.rows = documents.RowDocuments(KitTable, State, noun="kit table", refusals=self.games.call)


@pytest.fixture
async def kit(db) -> AsyncIterator[Format]:
    async with db.engine.begin() as connection:
        await connection.run_sync(KitBase.metadata.create_all)

    async def begin(session, seated: tables.Loaded, now: datetime) -> None:
        game = fmt.games.decode(seated)
        game.state = State([Player(s.seat, s.user_id) for s in game.seats])
        await fmt.games.commit(session, game, [])

    spec = tables.TableSpec(
        kind=KIND, noun="kit table", title="Kit table", model=KitTable, seat_model=KitSeat, view=lambda loaded: loaded,
        begin=begin, players_problem=lambda n: None if n >= 2 else "Two players, please.",
    )
    announce = documents.Announcer(
        "kittest.announce", (Scored,),
        lambda game, public: Announcement(game.id, tuple(game.user_ids), tuple(public)),
    )
    games = documents.Documents(
        spec, State, refusals=engine_refusals(Refused, NotAPlayer), seat_of=seat_of, announce=announce,
        not_running=documents.NotRunning("Not yet!", "All over.", "Called off."),
    )
    fmt = Format(spec, games)
    yield fmt


async def running_table(db, kit: Format, users=(1001, 1002), channel: int = CHANNEL) -> int:
    async with db.write() as session:
        table_id = (await tables.create(session, kit.spec, actor=ORG, channel_id=channel, max_seats=4)).row.id
    for user in users:
        await tables.join(db, kit.spec, table_id, player(user))
    await tables.begin(db, kit.spec, table_id, ORG)
    return table_id


async def announcements(db) -> list[Announcement]:
    async with db.read() as session:
        rows = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == "kittest.announce")
                                      .order_by(OutboxMessage.id))).scalars().all()
    return [Announcement.from_payload(row.payload) for row in rows]


async def test_load_decode_commit_and_the_version(db, kit):
    table_id = await running_table(db, kit)
    async with db.write() as session:
        game = await kit.games.load(session, table_id)
        assert game.version == 1 and [s.user_id for s in game.seats] == game.user_ids
        state, seat = kit.games.playing(game, player(1002))
        events_ = kit.games.call(score, state, seat, 3)
        assert await kit.games.commit(session, game, events_) == 2
    async with db.read() as session:
        again = await kit.games.load(session, table_id, lock=False)
    assert again.version == 2 and again.state.players[seat].score == 3 and again.state.players[1 - seat].score == 0
    assert again.state is not game.state and again.row.bookkeeping is None  # bookkeeping untouched: not written
    # Only the public events are announced, as the engine's own classes.
    [news] = await announcements(db)
    assert news == Announcement(table_id, tuple(again.user_ids), (Scored(seat, 3),))


async def test_bookkeeping_is_a_private_copy_written_when_it_changed(db, kit):
    table_id = await running_table(db, kit)
    async with db.write() as session:
        game = await kit.games.load(session, table_id)
        game.bookkeeping.setdefault("claims", {})["a"] = {"by": 1001}
        assert game.row.bookkeeping is None  # a copy until saved
        kit.games.save(game, max_seats=3)
    async with db.read() as session:
        saved = await kit.games.load(session, table_id, lock=False)
    assert saved.bookkeeping == {"claims": {"a": {"by": 1001}}} and saved.row.max_seats == 3 and saved.version == 2
    assert await announcements(db) == []  # a save alone queues nothing


async def test_refusals_in_the_formats_words(db, kit):
    async with db.write() as session:
        table_id = (await tables.create(session, kit.spec, actor=ORG, channel_id=CHANNEL, max_seats=4)).row.id
    async with db.read() as session:
        lobby = await kit.games.load(session, table_id, lock=False)
    assert lobby.state is None and lobby.seats == []
    with pytest.raises(UserError, match="Not yet!"):
        kit.games.running(lobby)
    for missing in (0, -1, 2**63, table_id + 1):
        with pytest.raises(NotFound, match=f"There is no kit table #{missing}"):
            async with db.read() as session:
                await kit.games.load(session, missing, lock=False)

    table_id = await running_table(db, kit, channel=CHANNEL + 1)
    async with db.write() as session:
        game = await kit.games.load(session, table_id)
        with pytest.raises(PermissionDenied, match="another server"):
            kit.games.playing(game, player(1001, OTHER_GUILD))
        with pytest.raises(PermissionDenied, match="not playing here"):
            kit.games.playing(game, player(1009))
        state, seat = kit.games.playing(game, player(1001, None))  # from a DM: judged by seat
        with pytest.raises(PermissionDenied, match="organizer"):
            await kit.games.managing(session, game, player(1001))
        assert await kit.games.managing(session, game, ORG) is game.state
        with pytest.raises(UserError, match="never negative"):
            kit.games.call(score, state, seat, -1)
    await tables.cancel(db, kit.spec, table_id, ORG)
    async with db.read() as session:
        with pytest.raises(UserError, match="Called off."):
            kit.games.running(await kit.games.load(session, table_id, lock=False))
        game = await kit.games.load(session, table_id, lock=False)
    game.row.status = kit.spec.statuses.finished
    with pytest.raises(UserError, match="All over."):
        kit.games.running(game)


async def test_a_row_without_seats(db, kit):
    table_id = await running_table(db, kit)
    async with db.write() as session:
        row_game = await kit.rows.load(session, table_id)
        assert row_game.seats == [] and sorted(p.user_id for p in row_game.state.players) == [1001, 1002]
        row_game.state.round = 7
        kit.rows.save(row_game)
    async with db.read() as session:
        assert (await kit.rows.load(session, table_id, lock=False)).state.round == 7
        with pytest.raises(NotFound):
            await kit.rows.load(session, table_id + 1, lock=False)
    assert GUILD == (await tables.get(db, kit.spec, table_id)).row.guild_id
    found = await tables.find(db, kit.spec, guild_id=GUILD, channel_id=CHANNEL, user_id=1)
    assert found.row.id == table_id
    assert await tables.find(db, kit.spec, guild_id=GUILD, channel_id=CHANNEL + 1, user_id=1) is None
