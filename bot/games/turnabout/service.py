"""Turnabout events: registration, Swiss rounds, game reports, drops, the end and the ratings.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below) and **is the
registration**: `register` seats a player with a deck name, a scoring option and an optional
decklist (checked against the deck rules), `leave` withdraws, and `begin` closes registration
(at least 4 players). From then on the whole event is the engine's document
(`bot.games.turnabout.rules.TurnaboutState`, the row's `state`): players, matches, games, reports.

Every action loads the event row locked, applies the engine (whose refusals become `UserError`s
that change nothing), saves the document with ``version + 1`` and queues what it owes in the
outbox in the same transaction: pairings and match results in the channel, an opponent's decklist
by DM (public to the opponent for game 1), a dispute call to the organizer, the final ranking and
rating awards to the leaderboard channel (written to the leaderboard in that very transaction).

Ratings across events are the leaderboard rows of format ``turnabout``: `points` are the shared
placement points, `score` is the event's rating award (FORMATS.md §3), summed by `ratings`.

The chess clock's entry points (`bot.kit.clock.service` calls them in its own transactions):
`clock_game` tells a clock started between two players of an open match which game it is for and
the event's clock settings; `record_flag_fall` records exactly that game as lost on time when its
clock's flag falls, and only in an event played with a clock.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards.scryfall_api import ScryfallClient
from bot.games.turnabout import rules as engine
from bot.games.turnabout.models import TurnaboutEvent, TurnaboutSeat
from bot.kit import card_data, leaderboard, outbox, tables
from bot.kit.clock import service as clock
from bot.kit.errors import Conflict, PermissionDenied, UserError, engine_refusals
from bot.kit.guild_config import load_settings_row
from bot.store.db import Database
from bot.store.models import EventResult
from bot.store.types import utcnow

KIND = "turnabout"
NOUN = "event"
STATUSES = tables.Statuses(lobby="registration", running="running", finished="ended", cancelled="cancelled")
ACTIVE = STATUSES.active
CLOCK_MODES = ("off", "delay", "bronstein")
RESULTS = ("won", "lost", "draw")  # a report, from the reporter's side

# Outbox kinds (rendered by bot.games.turnabout.messages).
ANNOUNCE = "turnabout.announce"  # public lines for what happened (payload: Announcement)
DECKLIST = "turnabout.decklist"  # DM: the opponent's decklist for game 1
FINAL = "turnabout.final"  # the final ranking and rating awards (payload: Announcement with EventEnded)
ENDED = "turnabout.cancelled"  # cancelled by an organizer: nothing recorded

# Engine events that the channel hears about (a report and its confirmation are the report message
# itself, posted and then edited by the cog).
PUBLIC_EVENTS = (
    engine.RegistrationClosed, engine.RoundPaired, engine.GameDisputed, engine.GameDecided,
    engine.GameLostOnTime, engine.MatchFinished, engine.RoundFinished, engine.PlayerDropped,
)


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class Registration:
    user_id: int
    deck: str
    scoring: str
    cards: int | None  # size of the checked decklist, if one was attached


@dataclass(frozen=True)
class EventView:
    id: int
    guild_id: int
    channel_id: int
    organizer_id: int
    lobby_message_id: int | None
    status: str
    max_seats: int
    settings: engine.Settings
    version: int
    registrations: tuple[Registration, ...]  # join order in registration; seat order once running
    state: engine.TurnaboutState | None  # a private copy, once registration closed

    @property
    def player_ids(self) -> tuple[int, ...]:
        return tuple(r.user_id for r in self.registrations)

    def user_of(self, seat: int) -> int:
        assert self.state is not None
        return self.state.players[seat].user_id


@dataclass(frozen=True)
class Announcement:
    """What the channel hears: the events (as plain dicts, with their type) and who sits where,
    a snapshot so the outbox renders it later exactly as it was."""

    event_id: int
    organizer_id: int
    users: tuple[int, ...]
    decks: tuple[str, ...]
    scoring: tuple[str, ...]
    rounds: int
    events: tuple[dict, ...]
    ping: tuple[int, ...] = ()

    def user_of(self, seat: int) -> int:
        return self.users[seat]

    def to_payload(self) -> dict:
        data = asdict(self)
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}

    @classmethod
    def from_payload(cls, p: dict) -> Announcement:
        return cls(p["event_id"], p["organizer_id"], tuple(p["users"]), tuple(p["decks"]), tuple(p["scoring"]),
                   p["rounds"], tuple(p["events"]), tuple(p.get("ping", ())))


@dataclass(frozen=True)
class PendingGame:
    """A game report waiting for the opponent (the cog posts it with Confirm / Dispute)."""

    event_id: int
    match: int
    game: int
    reporter: int  # user ids
    opponent: int
    winner: int | None
    value: int | None
    measure: str | None  # "life", "library" or "poison" (the losing deck's option); None: a draw
    match_points: int  # what the winner would score


@dataclass
class Outcome:
    event: EventView
    events: list[engine.Event] = field(default_factory=list)
    pending: PendingGame | None = None  # a report that waits for confirmation
    repeated: bool = False  # the player's own waiting report, unchanged (to show again)
    differs: bool = False  # ... and what they reported this time is not what it says
    game: int | None = None  # the game a report was about

    @property
    def confirmed(self) -> bool:
        """A report answered (confirmed) by the opponent's own matching report."""
        return any(isinstance(e, engine.GameConfirmed) for e in self.events)

    @property
    def disputed(self) -> bool:
        return any(isinstance(e, engine.GameDisputed) for e in self.events)

    @property
    def match_finished(self) -> engine.MatchResult | None:
        return next((e.result for e in self.events if isinstance(e, engine.MatchFinished)), None)


@dataclass(frozen=True)
class Rating:
    rank: int
    user_id: int
    rating: float
    events: int


# --- loading and saving ----------------------------------------------------------------------


@dataclass
class _Loaded:
    row: TurnaboutEvent
    seats: list[TurnaboutSeat]
    state: engine.TurnaboutState | None


def _decode(loaded: tables.Loaded) -> _Loaded:
    row = loaded.row
    state = engine.TurnaboutState.from_dict(copy.deepcopy(row.state)) if row.state else None
    return _Loaded(row, loaded.seats, state)


async def _load(session: AsyncSession, event_id: int, *, lock: bool = True) -> _Loaded:
    return _decode(await tables.load_rows(session, TurnaboutEvent, TurnaboutSeat, event_id, noun=NOUN, lock=lock))


def _save(loaded: _Loaded, **values: Any) -> None:
    row = loaded.row
    row.state = None if loaded.state is None else loaded.state.to_dict()
    row.version += 1
    for key, value in values.items():
        setattr(row, key, value)


def _settings(row: TurnaboutEvent) -> engine.Settings:
    data = dict(row.settings)
    data["scoring_options"] = list(data.get("scoring_options", engine.SCORING_OPTIONS))
    return engine.Settings(**data)


def _view(loaded: _Loaded) -> EventView:
    row, state = loaded.row, loaded.state
    if state is not None:
        regs = tuple(
            Registration(p.user_id, p.deck, p.scoring, sum(c for c, _ in p.decklist) if p.decklist else None)
            for p in state.players
        )
    else:
        regs = tuple(
            Registration(s.user_id, s.deck, s.scoring, sum(c for c, _ in s.decklist) if s.decklist else None)
            for s in loaded.seats
        )
    return EventView(
        id=row.id, guild_id=row.guild_id, channel_id=row.channel_id, organizer_id=row.organizer_id,
        lobby_message_id=row.lobby_message_id, status=row.status, max_seats=row.max_seats, settings=_settings(row),
        version=row.version, registrations=regs,
        state=None if state is None else engine.TurnaboutState.from_dict(copy.deepcopy(state.to_dict())),
    )


def _view_of(loaded: tables.Loaded) -> EventView:
    return _view(_decode(loaded))


# Engine operations; their refusals become UserErrors (non-players: PermissionDenied).
_engine_call = engine_refusals(engine.TurnaboutError, engine.NotAPlayer)


def _running(loaded: _Loaded) -> engine.TurnaboutState:
    status = loaded.row.status
    if status == STATUSES.lobby:
        raise UserError("Registration is still open: an organizer closes it with `/turnabout begin` first.")
    if status != STATUSES.running or loaded.state is None:
        raise UserError("That event has ended." if status == STATUSES.finished else "That event was cancelled.")
    return loaded.state


def _seat(state: engine.TurnaboutState, user_id: int) -> int:
    return _engine_call(engine.seat_of, state, user_id)


def _announcement(loaded: _Loaded, events: list[engine.Event], ping: tuple[int, ...] = ()) -> Announcement:
    state = loaded.state
    assert state is not None
    return Announcement(
        loaded.row.id, loaded.row.organizer_id, tuple(p.user_id for p in state.players),
        tuple(p.deck for p in state.players), tuple(p.scoring for p in state.players), state.settings.rounds,
        tuple(event_dict(e) for e in events), ping,
    )


def event_dict(event: engine.Event) -> dict:
    """An engine event as a JSON document: its fields (nested ones as dicts/lists) and its type."""
    return {"type": type(event).__name__, **asdict(event)}


def _channel(loaded: _Loaded, kind: str, payload: dict, channel_id: int | None = None) -> outbox.Message:
    return outbox.Message(kind, payload, channel_id=channel_id or loaded.row.channel_id, guild_id=loaded.row.guild_id)


def _called(state: engine.TurnaboutState, events: list[engine.Event]) -> tuple[int, ...]:
    """The users these events call to act: the paired players of a new round."""
    users: list[int] = []
    for e in events:
        if isinstance(e, engine.RoundPaired):
            users += [state.players[seat].user_id for plan in e.matches for seat in (plan.a, plan.b)]
    return tuple(dict.fromkeys(users))


async def _commit(session: AsyncSession, loaded: _Loaded, events: list[engine.Event], **values: Any) -> None:
    """Save an action's state and queue its announcement (and, for a dispute, the organizer's call)."""
    _save(loaded, **values)
    state = loaded.state
    assert state is not None
    messages: list[outbox.Message] = []
    public = [e for e in events if isinstance(e, PUBLIC_EVENTS)]
    if public:
        ping = _called(state, public)
        if any(isinstance(e, engine.GameDisputed) for e in public):
            ping = (*ping, loaded.row.organizer_id)
        messages.append(_channel(loaded, ANNOUNCE, _announcement(loaded, public, ping).to_payload()))
    for e in events:
        if isinstance(e, engine.RoundPaired):
            messages += _decklist_dms(loaded, e)
    await outbox.queue(session, *messages)


def _decklist_dms(loaded: _Loaded, paired: engine.RoundPaired) -> list[outbox.Message]:
    """Each player whose opponent registered a list gets it by DM: they play that deck in game 1."""
    state = loaded.state
    assert state is not None
    out = []
    for plan in paired.matches:
        for me, them in ((plan.a, plan.b), (plan.b, plan.a)):
            deck = state.players[them]
            if deck.decklist:
                payload = {
                    "event_id": loaded.row.id, "match": plan.match, "round": paired.round, "owner": deck.user_id,
                    "deck": deck.deck, "scoring": deck.scoring, "cards": deck.decklist,
                }
                out.append(outbox.Message(DECKLIST, payload, user_id=state.players[me].user_id,
                                          guild_id=loaded.row.guild_id))
    return out


# --- registration (the lobby) -------------------------------------------------------------------


def _players_problem(count: int) -> str | None:
    if count < engine.MIN_PLAYERS:
        return f"A Turnabout event needs at least {engine.MIN_PLAYERS} registered players; {count} so far."
    return None


def _registered_state(row: TurnaboutEvent, seats: list[TurnaboutSeat]) -> engine.TurnaboutState:
    """An engine event holding `seats`' registrations, in their order (lists are already checked)."""
    state = engine.new_event(row.seed, _settings(row))
    for seat in seats:
        engine.register(state, seat.user_id, seat.deck, seat.scoring)
        state.players[-1].decklist = [list(line) for line in seat.decklist] if seat.decklist else None
    return state


async def _close_registration(
    session: AsyncSession, seated: tables.Loaded, now: datetime, *, rounds: int | None = None
) -> Outcome:
    """Begin: the registrations (seated with the event's seed) become the engine's players;
    `rounds`, if given, is the event's number of rounds from now on."""
    loaded = _decode(seated)
    if rounds is not None:
        loaded.row.settings = {**loaded.row.settings, "rounds": rounds}
    loaded.state = _engine_call(_registered_state, loaded.row, loaded.seats)
    try:
        events = engine.close_registration(loaded.state)
    except engine.TooManyRounds as error:
        raise UserError(f"{error} Begin with `/turnabout begin rounds:{error.most}` (or fewer), or wait until "
                        f"{error.needed} players have registered.") from None
    await _commit(session, loaded, events)
    return Outcome(_view(loaded), list(events))


async def _cancelled(session: AsyncSession, seated: tables.Loaded, was_running: bool) -> None:
    if was_running:
        row = seated.row
        await outbox.queue(session, outbox.Message(ENDED, {"event_id": row.id}, channel_id=row.channel_id,
                                                   guild_id=row.guild_id))


SPEC = tables.TableSpec(
    kind=KIND, noun=NOUN, title="Turnabout event", model=TurnaboutEvent, seat_model=TurnaboutSeat, view=_view_of,
    begin=_close_registration, players_problem=_players_problem, statuses=STATUSES, on_cancel=_cancelled,
)


async def create_event(
    db: Database, actor: tables.Actor, *, channel_id: int, rounds: int = engine.DEFAULT_ROUNDS, clock: str = "off",
    clock_minutes: float | None = None, clock_increment: float | None = None, bye_vp: int = engine.VP_PER_MATCH,
    seed: int | None = None,
) -> EventView:
    """Open registration in the channel (organizers). `clock` is the default chess clock the
    players start with `/clock` (off, delay or bronstein)."""
    if clock not in CLOCK_MODES:
        raise UserError(f"The clock is one of {', '.join(CLOCK_MODES)}.")
    settings = engine.Settings(rounds=rounds, bye_vp=bye_vp, clock=clock != "off",
                               clock_mode=clock if clock != "off" else "delay")
    if clock_minutes is not None:
        settings.clock_minutes = clock_minutes
    if clock_increment is not None:
        settings.clock_increment = clock_increment
    _engine_call(engine.new_event, 0, settings)  # validates every setting
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, max_seats=engine.MAX_PLAYERS,
            settings=asdict(settings),
        )
        return _view_of(loaded)


async def get_event(db: Database, event_id: int) -> EventView:
    return await tables.get(db, SPEC, event_id)


async def _oracle(db: Database, scryfall: ScryfallClient | None, decklist: str | bytes) -> dict[str, engine.OracleText]:
    """The Oracle text of the list's cards where it is known: the card table, and Scryfall for the
    names the table lacks (asked before the transaction, never inside it)."""
    found = await card_data.oracle_texts(db, scryfall, engine.decklist_names(decklist))
    return {name: engine.OracleText(card.name, card.oracle_text or "") for name, card in found.items()}


async def register(
    db: Database, event_id: int, actor: tables.Actor, *, deck: str, scoring: str = engine.DEFAULT_OPTION,
    decklist: str | bytes | None = None, scryfall: ScryfallClient | None = None,
) -> tuple[EventView, Registration, bool]:
    """Register (or, while registration is open, re-register) a deck: (event, registration, updated).
    A decklist is checked against the deck rules, its cards judged by their Oracle text where the
    card table (or Scryfall, with `scryfall`) knows it; every problem is reported at once."""
    oracle = await _oracle(db, scryfall, decklist) if decklist is not None else None
    async with db.write() as session:
        loaded = await _load(session, event_id)
        row = loaded.row
        tables.check_in_server(NOUN, row, actor)
        if row.status != STATUSES.lobby:
            raise Conflict("Registration for that event is closed.")
        mine = next((s for s in loaded.seats if s.user_id == actor.user_id), None)
        # The engine checks the name, the option, name clashes and the list, on the registrations so far.
        scratch = _engine_call(_registered_state, row, [s for s in loaded.seats if s is not mine])
        try:
            [registered] = engine.register(scratch, actor.user_id, deck, scoring, decklist, oracle=oracle)
        except engine.DeckRejected as error:
            shown = error.problems[:20]
            more = len(error.problems) - len(shown)
            raise UserError("Your decklist is not legal for Turnabout:\n" + "\n".join(
                [f"• {problem}" for problem in shown] + ([f"… and {more} more."] if more else []))) from None
        except engine.TurnaboutError as error:
            raise UserError(str(error)) from None
        cards = scratch.players[registered.seat].decklist
        updated = mine is not None
        if mine is None:
            mine = TurnaboutSeat(event_id=row.id, guild_id=row.guild_id, user_id=actor.user_id, joined_at=utcnow())
            session.add(mine)
            loaded.seats.append(mine)
        mine.deck, mine.scoring, mine.decklist = registered.deck, registered.scoring, cards
        row.version += 1
        await session.flush()
        reg = Registration(actor.user_id, registered.deck, registered.scoring, registered.cards)
        return _view(loaded), reg, updated


async def leave(db: Database, event_id: int, actor: tables.Actor) -> EventView:
    return await tables.leave(db, SPEC, event_id, actor)


async def begin(db: Database, event_id: int, actor: tables.Actor, *, rounds: int | None = None) -> Outcome:
    """Close registration (organizers); `rounds` changes the number of rounds as it closes. Never
    more rounds than the players can play without a rematch (refused, saying the most)."""
    spec = SPEC if rounds is None else replace(SPEC, begin=partial(_close_registration, rounds=rounds))
    return await tables.begin(db, spec, event_id, actor)


async def cancel(db: Database, event_id: int, actor: tables.Actor) -> EventView:
    return await tables.cancel(db, SPEC, event_id, actor)


# --- rounds ----------------------------------------------------------------------------------


async def pair(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """Organizer: pair the next round (Swiss on VP, no rematch when avoidable, bye to the lowest)."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        state = _running(loaded)
        events = _engine_call(engine.pair_next_round, state)
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


def _winner_seat(match: engine.Match, seat: int, result: str) -> int | None:
    if result not in RESULTS:
        raise UserError(f"Unknown result {result!r}; use one of {', '.join(RESULTS)}.")
    return None if result == "draw" else seat if result == "won" else match.other(seat)


def _pending(loaded: _Loaded, match: engine.Match, game: engine.Game) -> PendingGame:
    """A report waiting for confirmation, as stored (to show it, the first time or again)."""
    state = loaded.state
    assert state is not None and game.reported_by is not None
    reporter = game.reported_by
    winner = game.winner
    measure = engine.value_needed(state, match.number, game.number, winner) if winner is not None else None
    points = engine.reported_points(state, match, game)
    return PendingGame(
        loaded.row.id, match.number, game.number, state.players[reporter].user_id,
        state.players[match.other(reporter)].user_id, None if winner is None else state.players[winner].user_id,
        game.value, measure, max(points),
    )


async def report(
    db: Database, event_id: int, actor: tables.Actor, *, result: str, value: int | None = None,
    game: int | None = None,
) -> Outcome:
    """A player reports a game of their current match: won / lost / draw, and the number the losing
    deck's option needs (the winner's life, library or poison). The opponent confirms or disputes,
    with the report's buttons or by reporting it too: a matching report confirms, a different one
    disputes. Reporting again a report of one's own that waits changes nothing and returns it
    (`Outcome.repeated`), so it can be shown again with its buttons (its first message may be lost)."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        state = _running(loaded)
        seat = _seat(state, actor.user_id)
        match = engine.current_match(state, seat)
        if match is None:
            raise UserError("You have no match in the current round.")
        if match.b is None:
            raise UserError("You have a bye this round: there is no game to report.")
        winner = _winner_seat(match, seat, result)
        target = _engine_call(engine.report_target, state, seat, game=game, match=match.number)
        if target.status == engine.REPORTED and target.reported_by == seat:
            claim = (winner, value if winner is not None else None)
            differs = claim != (target.winner, target.value) and not (winner == target.winner and value is None)
            return Outcome(_view(loaded), [], _pending(loaded, match, target), repeated=True, differs=differs,
                           game=target.number)
        if target.status in (engine.PENDING, engine.FLAGGED) and winner is not None and value is None:
            measure = _engine_call(engine.value_needed, state, match.number, target.number, winner)
            raise UserError(f"Game {target.number} needs the winner's {_MEASURE_WORDS[measure]} (`number`), "
                            f"by the losing deck's option.")
        events = _engine_call(engine.report_game, state, seat, winner=winner, value=value, game=target.number,
                              match=match.number)
        await _commit(session, loaded, events)
        reported = next((e for e in events if isinstance(e, engine.GameReported)), None)
        pending = None
        if reported is not None and reported.needs_confirmation_by is not None:
            pending = _pending(loaded, match, target)
        return Outcome(_view(loaded), list(events), pending, game=target.number)


_MEASURE_WORDS = {"life": "life total", "library": "number of cards left in the library", "poison": "poison counters"}


async def confirm(db: Database, event_id: int, match: int, game: int, actor: tables.Actor) -> Outcome:
    """The reporter's opponent confirms a report; an organizer's confirmation makes it their decision."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        state = _running(loaded)
        m = _engine_call(state.match, match)
        if m.b is None or game not in (1, 2):
            raise UserError(f"Match {match} has no game {game}.")
        g = m.games[game - 1]
        seat = next((p.seat for p in state.players if p.user_id == actor.user_id), None)
        if seat in m.seats():  # a player of the match, organizer or not, never confirms their own report
            if g.reported_by == seat:
                raise UserError("You cannot confirm your own report; your opponent must.")
            events = _engine_call(engine.confirm_game, state, seat, game=game, match=match)
        elif await tables.can_manage(session, loaded.row, actor):
            if g.status not in (engine.REPORTED, engine.DISPUTED):
                raise Conflict(f"Game {game} of match {match} has no report waiting ({g.status}).")
            events = _engine_call(engine.decide_game, state, match, game, winner=g.winner, value=g.value,
                                  note="report confirmed by an organizer")
        else:
            raise PermissionDenied("Only the reporter's opponent or an organizer can confirm this report.")
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


async def dispute(db: Database, event_id: int, match: int, game: int, actor: tables.Actor, reason: str = "") -> Outcome:
    """The reporter's opponent disputes: the game waits for an organizer (`settle`)."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        state = _running(loaded)
        seat = _seat(state, actor.user_id)
        events = _engine_call(engine.dispute_game, state, seat, game=game, match=match, reason=reason)
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


async def settle(
    db: Database, event_id: int, actor: tables.Actor, *, match: int, game: int, winner_id: int | None,
    value: int | None = None, note: str = "",
) -> Outcome:
    """Organizer: decide a game (a dispute, a flag fall, a no-show); final at once, and may override a
    finished game until the event ends. `winner_id` None: a drawn game."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        state = _running(loaded)
        m = _engine_call(state.match, match)
        winner = None
        if winner_id is not None:
            winner = next((s for s in m.seats() if state.players[s].user_id == winner_id), None)
            if winner is None:
                raise UserError(f"<@{winner_id}> is not playing in match {match}.")
        if winner is not None and value is None:
            measure = _engine_call(engine.value_needed, state, match, game, winner)
            raise UserError(f"Deciding this game needs the winner's {_MEASURE_WORDS[measure]} (`number`).")
        events = _engine_call(engine.decide_game, state, match, game, winner=winner, value=value, note=note)
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


async def drop(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """A player leaves the event: not paired again (a match in progress must still be finished).
    During registration this withdraws the registration."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        if loaded.row.status == STATUSES.lobby:
            raise UserError("Registration is still open: use `/turnabout leave` to withdraw.")
        state = _running(loaded)
        seat = _seat(state, actor.user_id)
        events = _engine_call(engine.drop, state, seat)
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


# --- the end -------------------------------------------------------------------------------------


async def end(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """Organizer: the final ranking and the rating awards, to the leaderboard and its channel."""
    async with db.write() as session:
        loaded = await _load(session, event_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        state = _running(loaded)
        events = _engine_call(engine.end_event, state)
        [ended] = [e for e in events if isinstance(e, engine.EventEnded)]
        _save(loaded)
        await tables.finish(session, loaded.row, kind=SPEC.kind, finished=STATUSES.finished)
        row = loaded.row
        n = len(ended.placings)
        await leaderboard.record_results(
            session, guild_id=row.guild_id, format=KIND, event_id=row.id, event_name=event_name(row.id),
            results=[
                leaderboard.Placement(p.user_id, p.position, leaderboard.placement_points(p.position, n), p.award)
                for p in ended.placings
            ],
        )
        settings = await load_settings_row(session, row.guild_id)
        channel = settings.leaderboard_channel_id if settings and settings.leaderboard_channel_id else row.channel_id
        payload = outbox.telling(_announcement(loaded, list(events)).to_payload(), actor.user_id,
                                 f"the final ranking of {event_name(row.id)}")
        await outbox.queue(session, _channel(loaded, FINAL, payload, channel_id=channel))
        return Outcome(_view(loaded), list(events))


def event_name(event_id: int) -> str:
    return f"Turnabout #{event_id}"


# --- queries ----------------------------------------------------------------------------------------


async def find_event(
    db: Database, *, guild_id: int | None, channel_id: int | None, user_id: int, statuses: tuple[str, ...] = ACTIVE
) -> EventView | None:
    event_id = await tables.find_here(db, SPEC, guild_id=guild_id, channel_id=channel_id, user_id=user_id,
                                      statuses=statuses)
    return None if event_id is None else await get_event(db, event_id)


async def answered_report(db: Database, event_id: int, match: int, game: int, guild_id: int | None) -> str | None:
    """For a report message's button that was refused: the game's status if its report no longer
    waits (final or disputed: the message is out of date), else None (the refusal stands)."""
    try:
        event = await get_event(db, event_id)
        m = event.state.match(match) if event.state is not None else None
    except (UserError, engine.TurnaboutError):
        return None
    if m is None or event.guild_id != guild_id or m.b is None or game not in (1, 2):
        return None
    status = m.games[game - 1].status
    return status if status in (engine.FINAL, engine.DISPUTED) else None


async def ratings(db: Database, guild_id: int) -> list[Rating]:
    """The server's accumulated Turnabout ratings: every finished event's award, summed per player."""
    async with db.read() as session:
        rows = (
            await session.execute(
                select(EventResult.user_id, func.sum(EventResult.score), func.count(EventResult.id))
                .where(EventResult.guild_id == guild_id, EventResult.format == KIND)
                .group_by(EventResult.user_id)
            )
        ).all()
    ordered = sorted(rows, key=lambda r: (-(r[1] or 0.0), r[0]))
    return [Rating(i, user_id, float(total or 0.0), count) for i, (user_id, total, count) in enumerate(ordered, 1)]


# --- the chess clock's entry points ------------------------------------------------------------------


async def _running_events_of(session: AsyncSession, guild_id: int, channel_id: int, users: tuple[int, ...]) -> list[int]:
    """This server's running events where every one of `users` is registered, the channel's first."""
    query = (
        select(TurnaboutEvent.id)
        .join(TurnaboutSeat, TurnaboutSeat.event_id == TurnaboutEvent.id)
        .where(TurnaboutEvent.guild_id == guild_id, TurnaboutEvent.status == STATUSES.running,
               TurnaboutSeat.user_id.in_(users))
        .group_by(TurnaboutEvent.id, TurnaboutEvent.channel_id)
        .having(func.count(TurnaboutSeat.id) == len(set(users)))
        .order_by((TurnaboutEvent.channel_id == channel_id).desc(), TurnaboutEvent.id.desc())
    )
    return list((await session.execute(query)).scalars().all())


def _open_match(state: engine.TurnaboutState, a: int, b: int) -> engine.Match | None:
    """The current round's unfinished match of the users `a` and `b` against each other, if any."""
    try:
        seat_a, seat_b = engine.seat_of(state, a), engine.seat_of(state, b)
    except engine.TurnaboutError:
        return None
    match = engine.current_match(state, seat_a)
    if match is None or match.b is None or match.finished or seat_b not in match.seats():
        return None
    return match


async def clock_game(session: AsyncSession, guild_id: int, channel_id: int, a: int, b: int,
                     game: int | None) -> clock.ClockGame | None:
    """For `/clock start` between `a` and `b`: the game of their open match it is for — `game`, or
    the first game without a result — with the event's clock settings (None when the event is
    played without a clock). None when they play no open match here."""
    for event_id in await _running_events_of(session, guild_id, channel_id, (a, b)):
        loaded = await _load(session, event_id, lock=False)
        state = loaded.state
        if state is None or (match := _open_match(state, a, b)) is None:
            continue
        if game is not None:
            chosen = match.games[game - 1]
            if chosen.status != engine.PENDING:
                raise UserError(f"Game {game} of match {match.number} already has a result ({chosen.status}): "
                                "a clock cannot decide it.")
        else:
            chosen = next((g for g in match.games if g.status == engine.PENDING), None)
            if chosen is None:
                return None  # both games have a result: the clock is only informal
        s = state.settings
        event_clock = (s.clock_mode, s.clock_minutes, s.clock_increment) if s.clock else None
        return clock.ClockGame(KIND, event_id, event_name(event_id), match.number, chosen.number, event_clock)
    return None


async def record_flag_fall(session: AsyncSession, *, event_id: int, match: int, game: int, loser_id: int) -> bool:
    """Inside the caller's transaction: record `game` of `match` as lost on time by `loser_id` — a
    report that still needs the winner's number and the opponent's confirmation, and that an
    organizer may override — and queue the announcement. Only that game, only while it has no
    result, and only in a running event played with a clock. Returns whether it was recorded."""
    loaded = await _load(session, event_id)
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None:
        return False
    try:
        loser = engine.seat_of(state, loser_id)
        m = state.match(match)
        if m.b is None or loser not in m.seats() or game not in (1, 2) or m.games[game - 1].status != engine.PENDING:
            return False
        events = engine.flag_fell(state, match, game, loser)
    except engine.TurnaboutError:
        return False
    await _commit(session, loaded, events)
    return True


async def _on_clock_flag_fall(session: AsyncSession, row: Any) -> bool:
    """A `/clock` started for a game of an event with a clock ran out: that game is lost on time."""
    game = clock.ClockGame.from_dict(row.game_ref)
    loser = clock.flagged_user(row)
    if game is None or game.format != KIND or not game.decides or loser is None:
        return False
    return await record_flag_fall(session, event_id=game.event_id, match=game.match, game=game.game, loser_id=loser)


if _on_clock_flag_fall not in clock.FLAG_FALL_LISTENERS:
    clock.FLAG_FALL_LISTENERS.append(_on_clock_flag_fall)
if clock_game not in clock.GAME_FINDERS:
    clock.GAME_FINDERS.append(clock_game)
