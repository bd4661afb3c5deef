"""Chess clocks (`/clock`): offer, accept (or decline, withdraw), pass, pause, resume, end, and the
flag fall. One write transaction per action.

A clock is never forced on a player: `start` *offers* it (status `offered`: it does not run and
cannot flag) and it runs only once the opponent accepts it (`act(..., "accept")`). Until then the
offering player may withdraw it and the opponent may decline it. Starting again while a clock
between the two players is live in the channel creates nothing: `start` returns that clock
(`Started.new` False), so the command shows it again with its buttons to whoever runs it (an offer
whose message was lost can still be accepted).

A clock started between two players of an open match knows the game it is for (`ClockGame`,
stored as `game_ref`): a format registers a finder in `GAME_FINDERS` (Turnabout does). The game is
fixed when the clock is offered (the one the player names; when they name none, the first game
without a result, except that while game 1 has none the finder asks which game, `which_game`) and
shown on the offer, so a flag fall decides exactly that game, and only if the event plays with
a clock and this clock has the event's settings (`ClockGame.decides`). An event's clock settings
are the defaults of a clock started for one of its games.

A clock is one `ChessClock` row: the two players (side 0 is `player_a`), the engine's whole state
(`bot.features.clock.rules.ClockState`) and a `version` that every write moves on. Every action loads the
row locked (the shared concurrency rule), reads the real time once (`now`, epoch seconds; tests
pass a fake one), applies the engine, saves the state, and in the same transaction:

* arms the flag-fall deadline (`FLAG`, keyed by the clock id) at the running player's
  `flag_due_at`, or disarms it when the clock stops (paused, ended, flag down); the sweeper runs it
  on time, and at startup after a restart;
* queues the clock message's edit (`SHOW`, rendered from the row as it is then: one edit per
  action, so one per pass) and, for the end and a flag fall, an announcement (`NEWS`).

The clock message itself is posted through the outbox (`POST`) by `start`; Discord's message id
is recorded when Discord accepts it (or from the first button pressed on it).

A flag fall runs `FLAG_FALL_LISTENERS` inside its transaction: a format that cares (Turnabout:
the game is lost on time) registers one there; the announcement says whether a game was recorded.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.features.clock import rules as engine
from bot.features.clock.models import ChessClock
from bot.kit import deadlines, documents, outbox, tables
from bot.kit.errors import Conflict, PermissionDenied, UserError, engine_refusals
from bot.kit.events import Payload, encode
from bot.store.db import Database
from bot.store.types import utcnow

NOUN = "clock"
LIVE = (engine.OFFERED, engine.READY, engine.RUNNING, engine.PAUSED)  # a clock that is not over
ACTIONS = ("pass", "pause", "resume", "end")  # a running clock's buttons
OFFER_ACTIONS = ("accept", "decline", "withdraw")  # an offered clock's buttons

# Outbox kinds (rendered by bot.features.clock.ui) and the deadline kind.
POST = "clock.post"  # the clock message with its buttons (payload: ClockRef)
SHOW = "clock.show"  # edit the clock message to the row's state (payload: ClockEdit)
NEWS = "clock.news"  # an announcement in the channel: the end or a flag fall (payload: ClockNews)
FLAG = "clock_flag"  # deadline: the running player's flag falls

ChessClockRow = ChessClock
FlagFallListener = Callable[[AsyncSession, ChessClockRow], Awaitable[bool | None]]
# Called inside the flag fall's transaction, after the row is saved (status "flagged"); a listener
# may write in the session and returns whether it recorded the game as lost. If one raises, the
# flag fall is rolled back and retried later.
FLAG_FALL_LISTENERS: list[FlagFallListener] = []


@dataclass(frozen=True)
class ClockGame(Payload):
    """The game of a format's event a clock is started for (found by a `GAME_FINDERS` entry)."""

    format: str  # e.g. "turnabout"
    event_id: int
    event_name: str  # "Turnabout #3", for the messages
    match: int
    game: int
    # The event's clock as (mode, minutes, increment), the defaults of a clock for this game; None:
    # the event is played without a clock, so no clock decides its games.
    event_clock: tuple[str, float, float] | None
    decides: bool = False  # a flag fall loses the game: the event has a clock and this clock has its settings


def which_game(event_name: str, match: int) -> UserError:
    """What a format's finder raises when the players did not say which game of their match a clock
    is for and game 1 has no result: the clock would decide a game, so it is not guessed."""
    return UserError(f"Which game of {event_name}, match {match} is this clock for? Game 1 has no result yet, so "
                     "it is not assumed: run `/clock start` again with `game:1` or `game:2`.")


def game_of(row: ChessClockRow) -> ClockGame | None:
    """The game a clock was started for, if any."""
    return ClockGame.from_payload(row.game_ref) if row.game_ref else None


@dataclass(frozen=True)
class ClockRef(Payload):
    """The clock whose message to post."""

    clock_id: int


@dataclass(frozen=True)
class ClockEdit(Payload):
    """The clock message to edit, for the change that made `version`."""

    clock_id: int
    version: int


@dataclass(frozen=True)
class ClockNews(Payload):
    """An announcement in the clock's channel: its end or a flag fall, with both players' time
    left then, and for a flag fall the game it was for and whether it was recorded as lost."""

    clock_id: int
    users: tuple[int, int]
    mode: str
    remaining: tuple[float, float]
    moves: int
    event: engine.FlagFell | engine.ClockEnded | engine.ClockAsked
    game: ClockGame | None = None
    recorded: bool = False

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        # Queued before typed events: {"what": "flag", "side", "at", …} or {"what": "ended", …}.
        if "event" in data:
            return data
        flag = data["what"] == "flag"
        event = engine.FlagFell(data["side"], data["at"]) if flag else engine.ClockEnded(data["remaining"])
        return {**data, "event": encode(event)}


# A finder: (session, guild_id, channel_id, user_a, user_b, game or None) -> the open match's game
# the two players play in this server (the channel's event first), or None. It may refuse a named
# game that cannot take a clock (a UserError).
GameFinder = Callable[[AsyncSession, int, int, int, int, int | None], Awaitable[ClockGame | None]]
GAME_FINDERS: list[GameFinder] = []


@dataclass(frozen=True)
class ClockView:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    started_by: int
    players: tuple[int, int]  # by side
    status: str
    version: int
    state: engine.ClockState  # a private copy
    game: ClockGame | None = None  # the game it was started for, if any

    def user_of(self, side: int) -> int:
        return self.players[side]

    @property
    def live(self) -> bool:
        return self.status in LIVE

    @property
    def offered(self) -> bool:
        return self.status == engine.OFFERED


@dataclass(frozen=True)
class Started:
    """What `/clock start` did: offered a new clock (`new`), or found the two players' live clock
    in the channel (an offer still waiting, or a running clock), which the command shows again."""

    clock: ClockView
    new: bool


@dataclass(frozen=True)
class ActionResult:
    clock: ClockView
    events: tuple[engine.Event, ...]

    @property
    def flag_fell(self) -> bool:
        return any(isinstance(e, engine.FlagFell) for e in self.events)


def flagged_user(row: ChessClockRow) -> int | None:
    """The user whose flag fell on this clock (for listeners), else None."""
    side = CLOCKS.game(row).state.flagged
    return None if side is None else (row.player_a, row.player_b)[side]


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _when(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


CLOCKS: documents.RowDocuments[ChessClock, engine.ClockState] = documents.RowDocuments(
    ChessClock, engine.ClockState, noun=NOUN, refusals=engine_refusals(engine.ClockError, engine.NotAClockPlayer))
Clock = documents.Game[ChessClock, None, engine.ClockState]


def _view(clock: Clock) -> ClockView:
    row, state = clock.row, clock.state
    assert state is not None
    return ClockView(
        id=row.id, guild_id=row.guild_id, channel_id=row.channel_id, message_id=row.message_id,
        started_by=row.started_by, players=(row.player_a, row.player_b), status=row.status, version=row.version,
        state=state, game=game_of(row),
    )


def _save(clock: Clock) -> None:
    """The state and the status it mirrors; a clock that is over is no longer live."""
    state = clock.state
    assert state is not None
    over = {} if state.status in LIVE else {"live": None, "finished_at": clock.row.finished_at or utcnow()}
    CLOCKS.save(clock, status=state.status, **over)


def _news(clock: Clock, event: engine.FlagFell | engine.ClockEnded | engine.ClockAsked, now: float,
          recorded: bool) -> outbox.Message:
    row, state = clock.row, clock.state
    assert state is not None
    flag = isinstance(event, engine.FlagFell)
    news = ClockNews(
        row.id, (row.player_a, row.player_b), state.mode,
        (engine.remaining(state, 0, now), engine.remaining(state, 1, now)), state.moves, event,
        game_of(row) if flag else None, recorded and flag,
    )
    return outbox.Message(NEWS, news.to_payload(), channel_id=row.channel_id, guild_id=row.guild_id)


def _edit(row: ChessClock) -> outbox.Message:
    """The clock message's edit, to show the row as it is when it is sent."""
    return outbox.Message(SHOW, ClockEdit(row.id, row.version).to_payload(), channel_id=row.channel_id,
                          guild_id=row.guild_id)


async def _after(session: AsyncSession, clock: Clock, events: list[engine.Event], now: float) -> None:
    """What every change owes: the deadline moved, the message edit, the listeners, the news."""
    row, state = clock.row, clock.state
    assert state is not None
    due = engine.flag_due_at(state)
    if due is None:
        await deadlines.disarm(session, FLAG, row.id)
    else:
        await deadlines.arm(session, FLAG, row.id, _when(due))
    recorded = False
    if any(isinstance(e, engine.FlagFell) for e in events):
        await session.flush()
        for listener in list(FLAG_FALL_LISTENERS):
            recorded = bool(await listener(session, row)) or recorded
    messages = [_edit(row)] if row.message_id is not None else []
    news = engine.FlagFell | engine.ClockEnded | engine.ClockAsked
    messages += [_news(clock, e, now, recorded) for e in events if isinstance(e, news)]
    await outbox.queue(session, *messages)


def _settings(game: ClockGame | None, mode: str | None, minutes: float | None,
              increment: float | None) -> tuple[str, float, float]:
    """The clock's settings: what the player chose, else the event's clock, else the defaults."""
    default = game.event_clock if game is not None and game.event_clock is not None else (
        "delay", engine.DEFAULT_MINUTES, engine.DEFAULT_INCREMENT)
    return (mode or default[0], default[1] if minutes is None else minutes,
            default[2] if increment is None else increment)


def _same(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return (a[0], float(a[1]), float(a[2])) == (b[0], float(b[1]), float(b[2]))


async def _find_game(session: AsyncSession, guild_id: int, channel_id: int, a: int, b: int,
                     game: int | None) -> ClockGame | None:
    for finder in list(GAME_FINDERS):
        found = await finder(session, guild_id, channel_id, a, b, game)
        if found is not None:
            return found
    if game is not None:
        raise UserError("You two have no open match in this server, so there is no game to choose.")
    return None


async def _live_between(session: AsyncSession, channel_id: int, low: int, high: int) -> ChessClock | None:
    return (await session.execute(
        select(ChessClock).where(
            ChessClock.channel_id == channel_id, ChessClock.player_low == low, ChessClock.player_high == high,
            ChessClock.live.is_not(None),
        ).order_by(ChessClock.id.desc()).limit(1)
    )).scalar_one_or_none()


# --- use cases -------------------------------------------------------------------------------------


async def start(
    db: Database, actor: tables.Actor, *, channel_id: int, opponent_id: int, minutes: float | None = None,
    increment: float | None = None, mode: str | None = None, first: int = 0, game: int | None = None,
    now: float | None = None,
) -> Started:
    """Offer a clock between the actor (side 0) and `opponent_id` (side 1), to run for side `first`
    once the opponent accepts it, and post it. Settings left out come from the event's clock when
    the two play an open match (`game`: which game of it; default the first without a result),
    else the defaults. One live clock per pair of players per channel: if there is one, nothing is
    created and it is returned (`Started.new` False)."""
    if actor.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    if opponent_id == actor.user_id:
        raise UserError("A chess clock is for two players: choose your opponent, not yourself.")
    if first not in (0, 1):
        raise UserError("Choose who plays first: you or your opponent.")
    low, high = sorted((actor.user_id, opponent_id))
    try:
        async with db.write() as session:
            existing = await _live_between(session, channel_id, low, high)
            if existing is not None:
                return Started(_view(CLOCKS.game(existing)), new=False)
            found = await _find_game(session, actor.guild_id, channel_id, actor.user_id, opponent_id, game)
            settings = _settings(found, mode, minutes, increment)
            state = CLOCKS.call(engine.new_clock, *settings, players=[actor.user_id, opponent_id])
            if found is not None:  # it decides the game with the event's clock, and only with it
                event_clock = found.event_clock
                decides = event_clock is not None and _same(settings, event_clock)
                found = replace(found, decides=decides)
            engine.offer(state, 0, first)
            row = ChessClock(
                guild_id=actor.guild_id, channel_id=channel_id, started_by=actor.user_id, player_a=actor.user_id,
                player_b=opponent_id, player_low=low, player_high=high, live=1, status=state.status,
                state=state.to_dict(), version=0, game_ref=found.to_payload() if found is not None else None,
            )
            session.add(row)
            await session.flush()
            await outbox.queue(session, outbox.Message(POST, ClockRef(row.id).to_payload(), channel_id=channel_id,
                                                       guild_id=actor.guild_id))
            return Started(_view(CLOCKS.game(row)), new=True)
    except IntegrityError:
        raise Conflict("You two already have a clock in this channel; run the command again to see it.") from None


async def act(
    db: Database, clock_id: int, actor: tables.Actor, action: str, *, message_id: int | None = None,
    now: float | None = None,
) -> ActionResult:
    """A player presses a button. On an offered clock: `accept` or `decline` (the opponent),
    `withdraw` (the player who offered it). On an accepted one: `pass` (their own running clock),
    `pause`, `resume` or `end` — the player whose move it is only asks to pause or end it, and the
    opponent's press does it (FORMATS.md §3). Only the clock's two players may, and for `pause`,
    `resume` and `end` an organizer of the server who does not play on it; anyone else is refused
    and nothing changes. `message_id` (the channel message the button is on, never an ephemeral
    copy) is recorded if the clock's message is not known yet."""
    if action not in ACTIONS + OFFER_ACTIONS:
        raise UserError(f"Unknown clock action {action!r}.")
    now = _now(now)
    async with db.write() as session:
        clock = await CLOCKS.load(session, clock_id)
        row, state = clock.row, clock.state
        side = await _side_of(session, row, state, actor, action)
        operations = {
            "accept": (engine.accept, side, now), "decline": (engine.decline, side),
            "withdraw": (engine.withdraw, side), "pass": (engine.pass_clock, side, now),
            "pause": (engine.pause, now), "resume": (engine.resume, now), "end": (engine.end, now),
        }
        operation, *arguments = operations[action]
        by = {"by": side} if action in ("pause", "end") else {}
        events = CLOCKS.call(operation, state, *arguments, **by)
        if row.message_id is None and message_id is not None:
            row.message_id = message_id
        _save(clock)
        await _after(session, clock, events, now)
        return ActionResult(_view(clock), tuple(events))


REFEREE_ACTIONS = ("pause", "resume", "end")  # what an organizer who does not play may do


async def _side_of(session: AsyncSession, row: ChessClock, state: engine.ClockState, actor: tables.Actor,
                   action: str) -> int | None:
    """The actor's side on the clock; None for an organizer of the clock's server who does not play
    on it (pausing, resuming or ending it alone); anyone else is refused."""
    tables.check_same_server(NOUN, row, actor)
    if actor.user_id in (row.player_a, row.player_b) or action not in REFEREE_ACTIONS:
        return CLOCKS.call(engine.side_of, state, actor.user_id)
    if not await tables.is_organizer(session, actor, row.guild_id):
        raise PermissionDenied("Only the two players on this clock (or an organizer who does not play on it) can "
                               f"{action} it.")
    return None


async def pass_clock(db: Database, clock_id: int, actor: tables.Actor, **kwargs) -> ActionResult:
    return await act(db, clock_id, actor, "pass", **kwargs)


async def pause(db: Database, clock_id: int, actor: tables.Actor, **kwargs) -> ActionResult:
    return await act(db, clock_id, actor, "pause", **kwargs)


async def resume(db: Database, clock_id: int, actor: tables.Actor, **kwargs) -> ActionResult:
    return await act(db, clock_id, actor, "resume", **kwargs)


async def end(db: Database, clock_id: int, actor: tables.Actor, **kwargs) -> ActionResult:
    return await act(db, clock_id, actor, "end", **kwargs)


async def accept(db: Database, clock_id: int, actor: tables.Actor, **kwargs) -> ActionResult:
    return await act(db, clock_id, actor, "accept", **kwargs)


async def check_player(db: Database, clock_id: int, actor: tables.Actor) -> ClockView:
    """The clock, if the actor is one of its players and it is not over (before asking them to
    confirm an end)."""
    async with db.read() as session:
        clock = await CLOCKS.load(session, clock_id, lock=False)
        tables.check_same_server(NOUN, clock.row, actor)
        view = _view(clock)
    CLOCKS.call(engine.side_of, view.state, actor.user_id)
    if not view.live:
        raise UserError(f"Clock #{clock_id} is already over.")
    if view.offered:
        raise UserError(f"Clock #{clock_id} has not been accepted, so it is not running: withdraw or decline it instead.")
    return view


async def find_live(db: Database, *, guild_id: int | None, channel_id: int | None, user_id: int) -> ClockView | None:
    """The user's newest clock in this channel that is not over (for `/clock end`), else None."""
    if guild_id is None or channel_id is None:
        return None
    async with db.read() as session:
        row = (
            await session.execute(
                select(ChessClock)
                .where(
                    ChessClock.guild_id == guild_id, ChessClock.channel_id == channel_id, ChessClock.live.is_not(None),
                    (ChessClock.player_a == user_id) | (ChessClock.player_b == user_id),
                )
                .order_by(ChessClock.id.desc())
                .limit(1)
            )
        ).scalar_one_or_none()
        return None if row is None else _view(CLOCKS.game(row))


async def get(db: Database, clock_id: int) -> ClockView:
    async with db.read() as session:
        return _view(await CLOCKS.load(session, clock_id, lock=False))


# --- the flag fall and the outbox hooks -------------------------------------------------------------


DEADLINES = deadlines.Handlers()  # the bot adds them to its table (`bot.app`)


@DEADLINES.handles(FLAG)
async def _flag_due(db: Database, due: deadlines.Due, now: datetime) -> int | None:
    """The running player's time is up: record the flag fall (and tell everyone), unless the clock
    moved on since the deadline was armed (then the deadline follows it)."""
    at = now.timestamp()
    async with db.write() as session:
        row = (
            await session.execute(select(ChessClock).where(ChessClock.id == int(due.key)).with_for_update())
        ).scalar_one_or_none()
        if row is None:
            await deadlines.disarm(session, FLAG, due.key)
            return None
        clock = CLOCKS.game(row)
        state = clock.state
        events = engine.check_flag(state, at)
        if not events:
            flag = engine.flag_due_at(state)
            if flag is None:
                await deadlines.disarm(session, FLAG, due.key)
            else:
                await deadlines.arm(session, FLAG, due.key, _when(flag))
            return None
        _save(clock)
        await _after(session, clock, events, at)
        return row.id


async def _record_message(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """The clock's message was posted: remember it, so later changes edit it. A change made while
    the post was on its way (an offer accepted before its message was recorded) queued no edit:
    the message gets one now, showing the clock as it is."""
    row = (await session.execute(
        select(ChessClock).where(ChessClock.id == ClockRef.from_payload(queued.payload).clock_id).with_for_update()
    )).scalar_one_or_none()
    if row is None or row.message_id is not None:
        return
    row.message_id = message_id
    if row.version > 0:
        await outbox.queue(session, _edit(row))


outbox.on_sent(POST, _record_message)


async def still_to_post(db: Database, clock_id: int) -> ClockView | None:
    """The clock, if its message has not been shown yet (a retried post) and it is not an offer
    taken back or declined before it was ever shown, else None."""
    view = await get(db, clock_id)
    if view.message_id is not None or view.status in (engine.WITHDRAWN, engine.DECLINED):
        return None
    return view


async def still_to_show(db: Database, clock_id: int, version: int) -> ClockView | None:
    """The clock for an edit queued at `version`, unless a newer change queued its own edit."""
    view = await get(db, clock_id)
    if view.message_id is None or view.version > version:
        return None
    return view


async def clock_channels(session: AsyncSession, guild_id: int) -> list[tuple[int, str]]:
    """Live clocks post (and are edited) in their channels."""
    rows = await session.execute(select(ChessClock.channel_id).where(ChessClock.guild_id == guild_id, ChessClock.live == 1))
    return [(channel_id, "chess clock") for (channel_id,) in rows]
