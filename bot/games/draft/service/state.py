"""A draft pod as the services see it: loaded with its seats and documents, and shown as views.

The pod row carries two documents: `state`, the engine's (`DraftState.to_dict`, every pack and
the picks per seat), and `bookkeeping`, this package's (each seat's pick clock, and when the pick
timer's deadline is armed for).

The pods' documents are the kit's (`GAMES`, a `documents.Documents`: `load`, `decode`, `running`,
`playing`, `call`, `commit`), on statements of their own. A pick is the hottest write the bot has,
so a pod is loaded and saved with SQLAlchemy Core, not the ORM: `GAMES.load` reads the pod and its
seats in one statement (each document decoded once, not once per seat row) into plain `PodRow`s and
`SeatRow`s, and `GAMES.commit` writes the pod row back in one UPDATE with the new pick rows, plus the
seats whose columns changed. The ORM's identity map and unit of work cost several times what the
statements themselves do here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, make_dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, bindparam, cast, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import rules as engine
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.games.draft.service import variants
from bot.kit import deadlines, documents, outbox, shown, tables
from bot.kit.errors import Conflict, NotFound, PermissionDenied, engine_refusals
from bot.kit.events import Payload
from bot.store.prepared import Prepared

STATUSES = tables.Statuses(running="drafting", finished="complete")
NOUN = "draft"
BOOKKEEPING_VERSION = 1
TIMER = "draft.timer"  # the deadline of a pod's pick timer (key: the pod id)
# Bot drafters seated from the start (`/draft start bots:N`) have seat rows with user ids -1..-N:
# a Discord id (a snowflake) is never negative, so no player (nor any test's) can have one.


def is_bot_user(user_id: int) -> bool:
    """A seat seated for a bot drafter from the start (never a Discord user: no DM, no ping)."""
    return user_id < 0


def bot_user_id(number: int) -> int:
    """The user id of bot drafter `number` (1-based): "Bot 1" is -1."""
    return -number


def seat_name(user_id: int) -> str:
    """How a message names a seat's player: "Bot 2", or a mention (that pings nobody unless allowed)."""
    return f"Bot {-user_id}" if is_bot_user(user_id) else f"<@{user_id}>"


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    user_id: int
    seat: int | None
    picks: int
    is_bot: bool
    dm_closed: bool
    queued: int  # packs waiting for this seat (its head included)
    has_head: bool
    waiting_since: datetime | None
    last_pick_at: datetime | None
    timeouts: int


@dataclass(frozen=True)
class PodView(tables.TableView):
    cube_name: str
    packs: int
    pack_size: int
    pick_timer_seconds: int | None
    turns: int | None
    pick_mode: str
    seats: tuple[SeatView, ...]  # join order in the lobby; seat order once drafting
    booster: str | None = None  # a set draft's collation (`bot.cards.boosters`); none for a cube
    variant: str | None = None  # a draft variant (`variants`); none for a booster draft
    offer: int | None = None  # a Rotisserie's cards on offer (none: the whole cube)
    teams: int | None = None  # `/draft start teams:2`: the drafters sit alternately in two teams

    @property
    def player_ids(self) -> list[int]:
        return [seat.user_id for seat in self.seats]

    @property
    def is_full(self) -> bool:
        return len(self.seats) >= self.max_seats

    def seat_of(self, user_id: int) -> SeatView | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)

    def round_of(self, seat: SeatView) -> int:
        return min(seat.picks // self.pack_size, self.packs - 1)

    @property
    def total_picks(self) -> int:
        return len(self.seats) * self.packs * self.pack_size


@dataclass(frozen=True)
class PackPrompt(Payload):
    """Show pack `pack_id`, as it is after `pack_pick` picks, to `user_id` (a `PACK` row's payload
    is a `deliveries.PackPost`, this with what else the row says)."""

    pod_id: int
    guild_id: int
    channel_id: int
    user_id: int
    seat: int
    pack_id: int
    pack_pick: int
    round: int
    pick_number: int
    pack_size: int
    packs: int
    cards: tuple[str, ...]
    queued_behind: int
    pick_mode: str
    dm_closed: bool
    direction: str

    def to_payload(self) -> dict:
        """What the codec writes (`events.encode`: a test holds them equal), without its generic
        walk: a pick queues one or two of these."""
        return {**self.__dict__, "cards": list(self.cards)}


@dataclass(frozen=True)
class SeatWait:
    """What a seat has to pick from now, for answering a click on a pack it can't pick from:
    `PACK` (a pack, shown on its newest pack message), `WAITING` (none yet: it waits on the
    players `on`, the first of them holding its next pack), `DONE` (all its picks made, the
    draft goes on), `BOT` (a bot plays it) or `OVER` (the draft is complete)."""

    PACK, WAITING, DONE, BOT, OVER = "pack", "waiting", "done", "bot", "over"
    state: str
    pod_id: int
    on: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """Where the player stands (names without pinging: `<@id>` in a message that pings nobody)."""
        if self.state == self.PACK:
            return "Your current pack is in your newest pack message."
        if self.state == self.WAITING:
            if not self.on:
                return "You have no pack right now: the next one reaches you when the others pass it."
            chain = ", who is waiting on ".join(seat_name(user_id) for user_id in self.on)
            return f"You have no pack right now: you are waiting on {chain}."
        if self.state == self.DONE:
            return ("You have made all your picks: the draft goes on with the others, and when it ends your pack "
                    "message turns into your pool (`/draft pool` shows it now).")
        if self.state == self.BOT:
            return "A bot plays your seat now: `/draft rejoin` takes it back (what it picked stays in your pool)."
        return (f"Draft #{self.pod_id} is over: your pool is in your pack message, and `/draft pool` shows it "
                "(`/draft export` for deck files).")

    @property
    def refusal(self) -> str:
        """The answer to a pick from a pack the seat can't pick from (any more)."""
        if self.state in (self.BOT, self.OVER):
            return self.text
        return f"Already picked: that pack has moved on. {self.text}"


MAX_WAITED_ON = 3  # players named in a wait (the one holding the next pack, then whom they wait on)


def seat_wait(pod: Pod, seat: int) -> SeatWait:
    pod_id, state = pod.row.id, pod.state
    if pod.row.status != STATUSES.running or state is None:
        return SeatWait(SeatWait.OVER, pod_id)
    if pod.by_seat(seat).is_bot:
        return SeatWait(SeatWait.BOT, pod_id)
    if state.head(seat) is not None:
        return SeatWait(SeatWait.PACK, pod_id)
    if state.picks_by_seat[seat] >= pod.config.picks_per_seat:
        return SeatWait(SeatWait.DONE, pod_id)
    # The seat holding the next pack; if it can't pick from it yet (it waits for a pack itself, or
    # a bot plays it, which always waits), whom it waits on, and so on.
    on: list[int] = []
    seen, current = {seat}, seat
    while len(on) < MAX_WAITED_ON and (upstream := state.next_pack_from(current)) is not None and upstream not in seen:
        seen.add(upstream)
        row = pod.by_seat(upstream)
        if not row.is_bot:
            on.append(row.user_id)
        if state.head(upstream) is not None:
            break
        current = upstream
    return SeatWait(SeatWait.WAITING, pod_id, tuple(on))


# --- the loaded pod --------------------------------------------------------------------------


@dataclass
class SeatClock:
    """The part of a seat that changes with picks, kept in the pod's bookkeeping document."""

    waiting_since: datetime | None = None  # when the seat's current pack became its head
    reminded: bool = False  # reminded about that pack (pick timers)
    last_pick_at: datetime | None = None
    notice: int | None = None  # the outbox row of the player's latest "next pack" notice (deleted by the next one)

    def to_dict(self) -> dict:
        data = {"waiting_since": _iso(self.waiting_since), "reminded": self.reminded,
                "last_pick_at": _iso(self.last_pick_at)}
        if self.notice is not None:
            data["notice"] = self.notice
        return data

    @classmethod
    def from_dict(cls, data: dict) -> SeatClock:
        return cls(_parse_iso(data.get("waiting_since")), bool(data.get("reminded")), _parse_iso(data.get("last_pick_at")),
                   data.get("notice"))


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _parse_iso(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass
class Pod(documents.Game[Any, Any, engine.DraftState]):
    """A loaded pod (the kit's `Game`): its row (a `PodRow`; a `DraftPod` in the lobby's views), its
    seats (`SeatRow`s: by seat number once drafting, join order in the lobby), the engine's state,
    and the bookkeeping document decoded: each seat's pick clock and when the pick timer is armed for."""

    clocks: list[SeatClock] = field(default_factory=list)  # by seat number, once drafting
    timer_due: datetime | None = None  # when the pick-timer deadline is armed for (None: not armed)
    # The seats' changeable columns as loaded (`GAMES.commit` writes the seats whose columns changed).
    loaded_seats: list[tuple] = field(default_factory=list)
    new_picks: list[dict] = field(default_factory=list)  # pick rows not written yet (`GAMES.commit` writes them)
    # The seats' packs wanted now, not written yet (`bot.kit.shown` records `pack:<seat>`: `GAMES.commit`).
    new_wants: dict[str, int] = field(default_factory=dict)

    def by_seat(self, seat: int) -> Any:
        return self.seats[seat]

    @property
    def config(self) -> engine.DraftConfig:
        return engine.DraftConfig(len(self.seats), self.row.packs, self.row.pack_size)

    async def write_picks(self, session: AsyncSession) -> None:
        """Write the pick rows made so far (before anything reads this pod's picks)."""
        for pick in self.new_picks:
            await _INSERT_PICK.run(session, pick)
        self.new_picks.clear()


_PODS, _SEATS = DraftPod.__table__, DraftSeat.__table__
_SEAT_MARKS = ("timeouts", "is_bot", "dm_closed")  # the seat columns a draft changes
# Not loaded: the cube (only bot picks and pools need it, `pools.cube_info`), the two documents
# (read as text, below), and times no draft use case reads (each costs a conversion per seat row).
_POD_COLUMNS = [c for c in _PODS.c if c.key not in ("card_info", "state", "bookkeeping", "created_at", "started_at")]
_POD_NAMES = [c.key for c in _POD_COLUMNS]
_SEAT_NAMES = [c.key for c in _SEATS.c]
# A row's columns as attributes, loaded with Core (see the module's docstring). A pod's has every
# column of `DraftPod` but `card_info`, `created_at` and `started_at`; its documents are decoded.
PodRow = make_dataclass("PodRow", [*_POD_NAMES, "state", "bookkeeping"], slots=True)
SeatRow = make_dataclass("SeatRow", _SEAT_NAMES, slots=True)
_LOAD_QUERY = (
    select(
        *_POD_COLUMNS,
        # The documents as text, decoded once here: as JSON they would be decoded once per seat row
        # (by asyncpg itself on PostgreSQL).
        cast(_PODS.c.state, Text).label("state_text"),
        cast(_PODS.c.bookkeeping, Text).label("bookkeeping_text"),
        *(c.label(f"seat_{c.key}") for c in _SEATS.c),
    )
    .select_from(_PODS.outerjoin(_SEATS, _SEATS.c.pod_id == _PODS.c.id))
    .where(_PODS.c.id == bindparam("pod_id"))
    .order_by(_SEATS.c.seat.is_(None), _SEATS.c.seat, _SEATS.c.joined_at, _SEATS.c.id)  # as `tables.load_rows`
)
_LOAD = Prepared(_LOAD_QUERY)
_LOAD_LOCKED = Prepared(_LOAD_QUERY.with_for_update(of=_PODS))
_SEAT_ID = len(_POD_NAMES) + 2 + _SEAT_NAMES.index("id")  # in a loaded row
_PICK_COLUMNS = ("pod_id", "guild_id", "seat", "round", "pick_number", "pack_id", "pack_pick", "card", "sequence",
                 "source", "picked_at")
_INSERT_PICK = Prepared(insert(DraftPick.__table__).values({c: bindparam(c) for c in _PICK_COLUMNS}))
_SAVE_POD_QUERY = (
    update(_PODS)
    .where(_PODS.c.id == bindparam("pod_id"))
    .values(state=bindparam("state"), bookkeeping=bindparam("bookkeeping"), version=bindparam("version"),
            status=bindparam("status"), finished_at=bindparam("finished_at"))
)
_SAVE_POD = Prepared(_SAVE_POD_QUERY)
# PostgreSQL: WITH new_pick AS (INSERT INTO draft_picks ...) UPDATE draft_pods ... (a data-changing
# CTE runs whether or not the statement reads it).
_SAVE_POD_AND_PICK = Prepared(_SAVE_POD_QUERY.add_cte(
    insert(DraftPick.__table__).values({c: bindparam(f"pick_{c}") for c in _PICK_COLUMNS}).cte("new_pick")
))


MAX_WANTS_IN_SAVE = 2  # a pick moves the picker's pack and, at most, the next seat's
_SAVES_WITH_WANTS: dict[int, Prepared] = {}


def _save_pod_pick_and_wants(wants: int) -> Prepared:
    """PostgreSQL: the pod's UPDATE with its new pick and `wants` seats' shown records as CTEs
    (`bot.kit.shown.wanted_upsert`): a pick's records cost it no round trip."""
    found = _SAVES_WITH_WANTS.get(wants)
    if found is None:
        found = _SAVES_WITH_WANTS[wants] = Prepared(_SAVE_POD_QUERY.add_cte(
            insert(DraftPick.__table__).values({c: bindparam(f"pick_{c}") for c in _PICK_COLUMNS}).cte("new_pick")
        ).add_cte(shown.wanted_upsert("postgresql", wants).cte("new_wants")))
    return found


def _seat_marks(seat: Any) -> tuple:
    return seat.timeouts, seat.is_bot, seat.dm_closed  # _SEAT_MARKS


def _document(text: str | dict | None) -> dict | None:
    return json.loads(text) if isinstance(text, str) else text


class _NotAPlayer(Exception):
    """The draft engine knows no players (its seats are the pod's rows): never raised."""


def _seat_in_state(state: engine.DraftState, user_id: int) -> int:
    raise TypeError("A draft's seats are its seat rows: PodDocuments.playing finds the actor's.")


class PodDocuments(documents.Documents[Any, Any, engine.DraftState]):
    """The kit's documents for draft pods, on the pick path's statements (see the module's
    docstring): `load` reads the pod and its seats with Core in one statement, each document decoded
    once; `commit` writes the pod in one UPDATE with its new pick rows and changed seats, then queues
    what it owes. The engine's state takes its config from the pod's columns; the bookkeeping is
    decoded into the pod's seat clocks and timer."""

    async def load(self, session: AsyncSession, table_id: int, *, lock: bool = True) -> Pod:
        if not 0 < table_id <= tables.MAX_ID:
            raise NotFound(f"There is no {NOUN} #{table_id}.")
        rows = await (_LOAD_LOCKED if lock else _LOAD).rows(session, {"pod_id": table_id})
        if not rows:
            raise NotFound(f"There is no {NOUN} #{table_id}.")
        width = len(_POD_NAMES)
        first = rows[0]
        row = PodRow(*first[:width], _document(first[width]), _document(first[width + 1]))
        return self.game(row, [SeatRow(*r[width + 2:]) for r in rows if r[_SEAT_ID] is not None])

    def decode(self, loaded: tables.Loaded) -> Pod:
        """A pod from rows loaded by the shared table lifecycle (views of lobbies)."""
        return self.game(loaded.row, loaded.seats)

    def game(self, row: Any, seats: Sequence[Any] = ()) -> Pod:
        seats = list(seats)
        marks = [_seat_marks(seat) for seat in seats]
        if row.state is None:
            return Pod(row, seats, None, loaded_seats=marks)
        bookkeeping = row.bookkeeping or {}
        clocks = [SeatClock.from_dict(clock) for clock in bookkeeping.get("seats", [])]
        return Pod(row, seats, variants.decode(row, len(seats)), bookkeeping, clocks=clocks,
                   timer_due=_parse_iso(bookkeeping.get("timer_due")), loaded_seats=marks)

    def playing(self, game: Pod, actor: tables.Actor) -> tuple[engine.DraftState, Any]:  # type: ignore[override]
        """A player's action: the pod's own server (or a DM), drafting, and the actor's seat row."""
        tables.check_same_server(self.noun, game.row, actor)
        state = self.running(game)
        row = game.seat_of(actor.user_id)
        if row is None or row.seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        return state, row

    def save(self, game: Pod, **columns: Any) -> int:  # type: ignore[override]
        """The row's documents and `columns` as `commit` writes them; the version moves on."""
        assert game.state is not None
        row = game.row
        row.version += 1
        row.state = game.state.to_dict()
        game.bookkeeping = row.bookkeeping = {
            "v": BOOKKEEPING_VERSION,
            "seats": [clock.to_dict() for clock in game.clocks],
            "timer_due": _iso(game.timer_due),
        }
        for name, value in columns.items():
            setattr(row, name, value)
        return row.version

    async def commit(self, session: AsyncSession, game: Pod, events: Sequence[Any] = (), *,  # type: ignore[override]
                     also: Sequence[outbox.Message] = (), **columns: Any) -> int:
        """Write the pod row (both documents, status, one more `version`), its new pick rows and the
        seats that changed, and queue `also`. On PostgreSQL a lone new pick goes in the pod's UPDATE
        statement (one round trip fewer per pick). Returns the new version."""
        version = self.save(game, **columns)
        row = game.row
        values = {
            "pod_id": row.id, "state": row.state, "bookkeeping": row.bookkeeping, "version": version,
            "status": row.status, "finished_at": row.finished_at,
        }
        wants, game.new_wants = game.new_wants, {}
        if len(game.new_picks) == 1 and session.bind.dialect.name == "postgresql":
            pick = {f"pick_{k}": v for k, v in game.new_picks.pop().items()}
            if 0 < len(wants) <= MAX_WANTS_IN_SAVE:  # the seats' records in the same statement too
                await _save_pod_pick_and_wants(len(wants)).run(
                    session, values | pick | shown.wanted_params(shown_owner(row.id), wants))
                wants = {}
            else:
                await _SAVE_POD_AND_PICK.run(session, values | pick)
        else:
            await game.write_picks(session)
            await _SAVE_POD.run(session, values)
        await shown.want_quietly(session, shown_owner(row.id), wants)
        for index, seat in enumerate(game.seats):
            now, before = _seat_marks(seat), game.loaded_seats[index]
            if now != before:
                changed = {key: value for key, value, old in zip(_SEAT_MARKS, now, before, strict=True) if value != old}
                await session.execute(update(_SEATS).where(_SEATS.c.id == seat.id).values(**changed))
                game.loaded_seats[index] = now
        if also:
            await outbox.queue(session, *also)
        return version


def pod_view(pod: Pod) -> PodView:
    state = pod.state
    seats = []
    for row in pod.seats:
        queued, has_head, picks, clock = 0, False, 0, SeatClock()
        if state is not None and row.seat is not None:
            queued = len(state.queue(row.seat))
            has_head = state.head(row.seat) is not None
            picks = state.picks_by_seat[row.seat]
            clock = pod.clocks[row.seat]
        seats.append(
            SeatView(row.user_id, row.seat, picks, row.is_bot, row.dm_closed, queued, has_head,
                     clock.waiting_since, clock.last_pick_at, row.timeouts)
        )
    r = pod.row
    return PodView(
        **tables.view_columns(r), cube_name=r.cube_name, packs=r.packs, pack_size=r.pack_size,
        pick_timer_seconds=r.pick_timer_seconds, turns=r.turns, pick_mode=r.pick_mode, seats=tuple(seats),
        booster=r.booster, variant=r.variant, offer=r.offer, teams=(r.follow_options or {}).get("teams"),
    )


def view_of(loaded: tables.Loaded) -> PodView:
    return pod_view(GAMES.decode(loaded))


def prompt_for(pod: Pod, seat: int) -> PackPrompt | None:
    """What the seat must pick from now (None: nothing, or a bot plays the seat)."""
    state = pod.state
    assert state is not None
    head = state.head(seat)
    row = pod.by_seat(seat)
    if head is None or row.is_bot:
        return None
    r = pod.row
    return PackPrompt(
        pod_id=r.id, guild_id=r.guild_id, channel_id=r.channel_id, user_id=row.user_id, seat=seat,
        pack_id=head.pack_id, pack_pick=head.picks_made, round=head.round,
        pick_number=state.picks_by_seat[seat] - head.round * r.pack_size + 1, pack_size=r.pack_size, packs=r.packs,
        cards=tuple(head.cards), queued_behind=len(state.queue(seat)) - 1, pick_mode=r.pick_mode,
        dm_closed=row.dm_closed, direction=engine.direction_name(head.round),
    )


# --- the table spec and the pods' documents ----------------------------------------------------------


def _players_problem(count: int) -> str | None:
    if count < engine.MIN_SEATS:
        return f"A draft needs at least {engine.MIN_SEATS} players; {count} joined so far."
    return None


async def _dealt_by_the_lobby(session: AsyncSession, loaded: tables.Loaded, now: datetime) -> Any:
    raise NotImplementedError("a draft begins through `service.lobby.SPEC`, whose `begin` deals")


async def _cancelled(session: AsyncSession, loaded: tables.Loaded, was_running: bool) -> None:
    if was_running:
        await deadlines.disarm(session, TIMER, loaded.row.id)
        # No pack is wanted any more (a late send asks: the pod is not running).
        await shown.retire(session, shown_owner(loaded.row.id))


def shown_owner(pod_id: int) -> shown.Owner:
    """Whose records of shown messages a pod's are (`bot.kit.shown`: which pack each seat's DMs show)."""
    return shown.Owner("draft", pod_id)


# The pods' table, to load and show them. `lobby.SPEC` is the same with the deal that begins a pod:
# the deal runs the picking use cases, which read this module.
TABLE = tables.TableSpec(
    kind="draft", noun=NOUN, title="Draft", model=DraftPod, seat_model=DraftSeat, view=view_of, begin=_dealt_by_the_lobby,
    players_problem=_players_problem, statuses=STATUSES, on_cancel=_cancelled,
)
GAMES = PodDocuments(
    TABLE, engine.DraftState, seat_of=_seat_in_state,
    refusals=engine_refusals(engine.DraftError, _NotAPlayer, explain=lambda error: Conflict(str(error))),
    not_running=documents.NotRunning(lobby="That draft has not started yet.",
                                     finished="That draft is not running any more.",
                                     cancelled="That draft is not running any more."),
)
