"""Turnabout events: registration, Swiss rounds, game reports, drops, the end and the ratings.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below) and **is the
registration**: `join` seats a player with a deck name, a scoring option and an optional
decklist (checked against the deck rules; joining again changes them), `leave` withdraws, and
`begin` closes registration
(at least 4 players). From then on the whole event is the engine's document
(`bot.games.turnabout.rules.TurnaboutState`, the row's `state`): players, matches, games, reports.

Every action loads the event with the kit's documents (`GAMES`: the row locked, its seats, the
decoded state), applies the engine (whose refusals become `UserError`s that change nothing), saves
the document with ``version + 1`` and queues what it owes in the outbox in the same transaction: pairings and match results in the channel, an opponent's decklist
by DM (public to the opponent for game 1), a dispute call to the organizer, the final ranking and
rating awards to the leaderboard channel (written to the leaderboard in that very transaction).

Ratings across events are the leaderboard rows of format ``turnabout``: `points` are the shared
placement points, `score` is the event's rating award (FORMATS.md §3); a player's rating is the sum
of their awards, kept with their all-time leaderboard totals (`score_total`, added to in the
closing transaction) and read by `ratings` and `rating_totals`.

The chess clock's entry points (`bot.features.clock.service` calls them in its own transactions):
`clock_game` tells a clock started between two players of an open match which game it is for and
the event's clock settings; `record_flag_fall` records exactly that game as lost on time when its
clock's flag falls, and only in an event played with a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards.scryfall_api import ScryfallClient
from bot.features.clock import service as clock
from bot.games.turnabout import decklists
from bot.games.turnabout import rules as engine
from bot.games.turnabout.models import TurnaboutEvent, TurnaboutSeat
from bot.kit import card_data, claims, documents, event_results, outbox, tables
from bot.kit.errors import Conflict, UserError, engine_refusals
from bot.kit.events import Payload, decode
from bot.kit.server_settings import load_settings_row
from bot.store.db import Database
from bot.store.models import LeaderboardTotal
from bot.store.types import utcnow

KIND = "turnabout"
NOUN = "event"
STATUSES = tables.Statuses(lobby="registration", running="running", finished="ended", cancelled="cancelled")
ACTIVE = STATUSES.active
CLOCK_MODES = ("off", "delay", "bronstein")
RESULTS = ("won", "lost", "draw")  # a report, from the reporter's side

# Outbox kinds (rendered by bot.games.turnabout.ui, a cancellation by the kit: SPEC.cancel_notice).
ANNOUNCE = "turnabout.announce"  # public lines for what happened (payload: Announcement)
DECKLIST = "turnabout.decklist"  # DM: the opponent's decklist for game 1 (payload: Decklist)
FINAL = "turnabout.final"  # the final ranking and rating awards (payload: Announcement with EventEnded)
ENDED = "turnabout.cancelled"  # cancelled by an organizer while running: the kit's text (TableRef)
REPORT_DONE = "turnabout.report_done"  # edit: a report message answered elsewhere loses its buttons (ReportDone)

# Engine events that the channel hears about (a report and its confirmation are the report message
# itself, posted and then edited by the cog).
PUBLIC_EVENTS = (
    engine.RegistrationClosed, engine.RoundPaired, engine.GameDisputed, engine.GameDecided,
    engine.GameLostOnTime, engine.MatchFinished, engine.RoundFinished, engine.PlayerDropped, engine.RoundsCut,
)


def event_name(event_id: int) -> str:
    return f"Turnabout #{event_id}"


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class Registration:
    user_id: int
    deck: str
    scoring: str
    cards: int | None  # size of the checked decklist, if one was attached


@dataclass(frozen=True)
class EventView(tables.TableView):
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
class Announcement(Payload):
    """What the channel hears: the engine's events and who sits where, a snapshot so the outbox
    renders it later exactly as it was."""

    event_id: int
    organizer_id: int
    users: tuple[int, ...]
    decks: tuple[str, ...]
    scoring: tuple[str, ...]
    rounds: int
    events: tuple[engine.Event, ...]
    ping: tuple[int, ...] = ()
    call: claims.Call | None = None  # whom a dispute among these events calls (None: the organizer)
    decided_by: int | None = None  # the organizer who decided a game among these events

    def user_of(self, seat: int) -> int:
        return self.users[seat]


@dataclass(frozen=True)
class Decklist(Payload):
    """The opponent's decklist, by DM: the player plays that deck in game 1 of their match."""

    event_id: int
    match: int
    round: int
    owner: int  # whose deck it is
    deck: str
    scoring: str
    cards: tuple[tuple[int, str], ...]  # (count, card name)


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
    claim: int = 0  # the kit's claim number (its buttons carry it)


@dataclass(frozen=True)
class ReportDone(Payload):
    """A game whose report was answered, as its report message shows it from then on (without
    buttons): who won with what number and how it was settled.
    `channel_id`/`message_id`: the message to edit (0 when the cog edits the message pressed)."""

    event_id: int
    match: int
    game: int
    status: str  # engine.FINAL or engine.DISPUTED
    decided: bool  # an organizer's decision
    winner: int | None  # user ids; winner None: a draw
    value: int | None
    measure: str | None  # "life", "library" or "poison"
    match_points: int  # the winner's
    reporter: int | None  # who reported it (a disputed report)
    by: int | None = None  # who confirmed or disputed it, when known
    by_report: bool = False  # confirmed by the opponent's own matching report
    unopposed: bool = False  # reported by `by`, final at once: their opponent has dropped
    for_absent: int | None = None  # the organizer who confirmed it for `by`, who was absent
    channel_id: int = 0
    message_id: int = 0


@dataclass
class Outcome:
    event: EventView
    events: list[engine.Event] = field(default_factory=list)
    pending: PendingGame | None = None  # a report that waits for confirmation
    repeated: bool = False  # the player's own waiting report, unchanged (to show again)
    differs: bool = False  # ... and what they reported this time is not what it says
    game: int | None = None  # the game a report was about
    done: ReportDone | None = None  # the answered report, as its message shows it now (a report's: when none does)

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


# --- the event's documents ------------------------------------------------------------------------

Loaded = documents.Game[TurnaboutEvent, TurnaboutSeat, engine.TurnaboutState]


def _settings(row: TurnaboutEvent) -> engine.Settings:
    return decode(row.settings, engine.Settings)


def _view(loaded: Loaded) -> EventView:
    players = loaded.state.players if loaded.state is not None else loaded.seats
    registrations = tuple(
        Registration(p.user_id, p.deck, p.scoring, sum(c for c, _ in p.decklist) if p.decklist else None)
        for p in players
    )
    return EventView(
        **tables.view_columns(loaded.row), settings=_settings(loaded.row), version=loaded.version,
        registrations=registrations, state=GAMES.copy(loaded.state),
    )


def _view_of(loaded: tables.Loaded) -> EventView:
    return _view(GAMES.decode(loaded))


def _announcement(loaded: Loaded, events: list[engine.Event]) -> Announcement:
    """The channel's snapshot of `events`, pinging only whom they call to act: the players of a new
    round who must play and the player with its bye; for a dispute the referees (the organizer,
    unless they play in that match: `claims.dispute_call`, found by the use case), and the organizer
    when a round is complete (they pair the next one, or end the event)."""
    state, row = loaded.state, loaded.row
    assert state is not None
    ping = []
    call: claims.Call | None = loaded.extra.get("call")
    for e in events:
        if isinstance(e, engine.RoundPaired):
            seats = [seat for plan in e.matches for seat in (plan.a, plan.b)]
            ping += [state.players[seat].user_id for seat in (*seats, *([e.bye] if e.bye is not None else []))]
        elif isinstance(e, engine.GameDisputed):
            ping += call.users if call is not None else [row.organizer_id]
        elif isinstance(e, engine.RoundFinished | engine.RoundsCut):
            ping.append(row.organizer_id)
    return Announcement(
        row.id, row.organizer_id, tuple(p.user_id for p in state.players), tuple(p.deck for p in state.players),
        tuple(p.scoring for p in state.players), state.settings.rounds, tuple(events), tuple(dict.fromkeys(ping)), call,
        loaded.extra.get("decided_by"),
    )


def _match_users(state: engine.TurnaboutState, match: engine.Match) -> tuple[int, ...]:
    return tuple(state.players[seat].user_id for seat in match.seats())


async def _call_referees(session: AsyncSession, loaded: Loaded, match: engine.Match) -> None:
    """A dispute in `match` calls the referees: kept for the announcement (`_announcement`)."""
    assert loaded.state is not None
    loaded.extra["call"] = await claims.dispute_call(session, loaded.row, _match_users(loaded.state, match))


def _decklist_dms(loaded: Loaded, events: list[engine.Event]) -> list[outbox.Message]:
    """For a new round: each player whose opponent registered a list gets it by DM (they play that
    deck in game 1)."""
    state = loaded.state
    assert state is not None
    out = []
    for paired in (e for e in events if isinstance(e, engine.RoundPaired)):
        for plan in paired.matches:
            for me, them in ((plan.a, plan.b), (plan.b, plan.a)):
                deck = state.players[them]
                if deck.decklist:
                    cards = tuple((count, name) for count, name in deck.decklist)
                    dm = Decklist(loaded.id, plan.match, paired.round, deck.user_id, deck.deck, deck.scoring, cards)
                    out.append(loaded.dm(DECKLIST, dm, state.players[me].user_id))
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
    loaded = GAMES.decode(seated)
    if rounds is not None:
        loaded.row.settings = {**loaded.row.settings, "rounds": rounds}
    loaded.state = GAMES.call(_registered_state, loaded.row, loaded.seats)
    try:
        events = engine.close_registration(loaded.state)
    except engine.TooManyRounds as error:
        raise UserError(f"{error} Begin with `/turnabout begin rounds:{error.most}` (or fewer), or wait until "
                        f"{error.needed} players have joined.") from None
    await GAMES.commit(session, loaded, events)
    return Outcome(_view(loaded), list(events))


SPEC = tables.TableSpec(
    kind=KIND, noun=NOUN, title="Turnabout event", model=TurnaboutEvent, seat_model=TurnaboutSeat, view=_view_of,
    begin=_close_registration, players_problem=_players_problem, statuses=STATUSES, cancel_notice=ENDED,
    name=event_name,
)
GAMES: documents.Documents[TurnaboutEvent, TurnaboutSeat, engine.TurnaboutState] = documents.Documents(
    SPEC, engine.TurnaboutState, refusals=engine_refusals(engine.TurnaboutError, engine.NotAPlayer),
    seat_of=engine.seat_of,
    not_running=documents.NotRunning(
        lobby="Registration is still open: an organizer closes it with `/turnabout begin` first.",
        finished="That event has ended.", cancelled="That event was cancelled."),
    announce=documents.Announcer(ANNOUNCE, PUBLIC_EVENTS, _announcement),
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
    if clock == "off" and (clock_minutes is not None or clock_increment is not None):
        raise UserError("The clock's minutes and increment need clock:delay or clock:bronstein.")
    settings = engine.Settings(rounds=rounds, bye_vp=bye_vp, clock=clock != "off",
                               clock_mode=clock if clock != "off" else "delay")
    if clock_minutes is not None:
        settings.clock_minutes = clock_minutes
    if clock_increment is not None:
        settings.clock_increment = clock_increment
    GAMES.call(engine.new_event, 0, settings)  # validates every setting
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, max_seats=engine.MAX_PLAYERS,
            settings=asdict(settings),
        )
        return _view_of(loaded)


TABLES = tables.TableUseCases[EventView](SPEC)
get_event, find_event, leave, cancel = TABLES.get, TABLES.find, TABLES.leave, TABLES.cancel


async def _oracle(db: Database, scryfall: ScryfallClient | None, decklist: str | bytes) -> dict[str, decklists.OracleText]:
    """The Oracle text of the list's cards where it is known: the card table, and Scryfall for the
    names the table lacks (asked before the transaction, never inside it)."""
    found = await card_data.oracle_texts(db, scryfall, decklists.decklist_names(decklist))
    return {name: decklists.OracleText(card.name, card.oracle_text or "") for name, card in found.items()}


async def join(
    db: Database, event_id: int, actor: tables.Actor, *, deck: str, scoring: str = engine.DEFAULT_OPTION,
    decklist: str | bytes | None = None, scryfall: ScryfallClient | None = None,
) -> tuple[EventView, Registration, bool]:
    """Join with a deck (or, while registration is open, join again to change it): (event,
    registration, updated).
    A decklist is checked against the deck rules, its cards judged by their Oracle text where the
    card table (or Scryfall, with `scryfall`) knows it; every problem is reported at once."""
    oracle = await _oracle(db, scryfall, decklist) if decklist is not None else None
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        row = loaded.row
        tables.check_in_server(NOUN, row, actor)
        if row.status != STATUSES.lobby:
            raise Conflict("Registration for that event is closed.")
        mine = next((s for s in loaded.seats if s.user_id == actor.user_id), None)
        # The list is checked by the deck rules, then the engine checks the name, the option and name
        # clashes, on the registrations so far.
        scratch = GAMES.call(_registered_state, row, [s for s in loaded.seats if s is not mine])
        try:
            checked = decklists.checked(decklist, oracle=oracle) if decklist is not None else None
            [registered] = engine.register(scratch, actor.user_id, deck, scoring, checked)
        except decklists.DeckRejected as error:
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


async def begin(db: Database, event_id: int, actor: tables.Actor, *, rounds: int | None = None) -> Outcome:
    """Close registration (organizers); `rounds` changes the number of rounds as it closes. Never
    more rounds than the players can play without a rematch (refused, saying the most)."""
    spec = SPEC if rounds is None else replace(SPEC, begin=partial(_close_registration, rounds=rounds))
    return await tables.begin(db, spec, event_id, actor)




# --- rounds ----------------------------------------------------------------------------------


async def pair(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """Organizer: pair the next round (Swiss on VP, no rematch when avoidable, bye to the lowest)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        state = await GAMES.managing(session, loaded, actor)
        events = GAMES.call(engine.pair_next_round, state)
        await GAMES.commit(session, loaded, events, also=_decklist_dms(loaded, events))
        return Outcome(_view(loaded), list(events))


def _winner_seat(match: engine.Match, seat: int, result: str) -> int | None:
    if result not in RESULTS:
        raise UserError(f"Unknown result {result!r}; use one of {', '.join(RESULTS)}.")
    return None if result == "draw" else seat if result == "won" else match.other(seat)


def _pending(loaded: Loaded, match: engine.Match, game: engine.Game) -> PendingGame:
    """A report waiting for confirmation, as stored (to show it, the first time or again)."""
    state = loaded.state
    claim = _book(loaded).of(_key(match.number, game.number))
    assert state is not None and game.reported_by is not None and claim is not None
    reporter = game.reported_by
    winner = game.winner
    measure = engine.value_needed(state, match.number, game.number, winner) if winner is not None else None
    points = engine.reported_points(state, match, game)
    return PendingGame(
        loaded.row.id, match.number, game.number, state.players[reporter].user_id,
        state.players[match.other(reporter)].user_id, None if winner is None else state.players[winner].user_id,
        game.value, measure, max(points), claim.number,
    )


@dataclass(frozen=True)
class Reported:
    """A game's result as its report says it: the kit's claim result for Turnabout (`claims.Claim`,
    keyed "match.game", kept with the messages that show it until the game no longer waits)."""

    game: int
    winner: int | None  # user id; None: a draw
    value: int | None


def _key(match: int, game: int) -> str:
    return f"{match}.{game}"


def _book(loaded: Loaded) -> claims.Book:
    return claims.Book(loaded.bookkeeping)


def _claimed(loaded: Loaded, match: engine.Match, game: engine.Game, reporter: int) -> None:
    """A report that waits for the opponent: the kit keeps it, with its messages (`record_report_message`)."""
    state = loaded.state
    assert state is not None
    winner = state.players[game.winner].user_id if game.winner is not None else None
    _book(loaded).add(_key(match.number, game.number), match.round, _match_users(state, match), reporter,
                      Reported(game.number, winner, game.value))


def _report_done(loaded: Loaded, match: engine.Match, game: engine.Game, **extra: Any) -> ReportDone:
    """`game` of `match` as its answered report message shows it (see `ReportDone`)."""
    state = loaded.state
    assert state is not None

    def user(seat: int) -> int:
        return state.players[seat].user_id

    winner = game.winner
    measure = engine.value_needed(state, match.number, game.number, winner) if winner is not None else None
    if game.status == engine.FINAL and not game.decided and game.confirmed_by is not None:
        extra = {"by": user(game.confirmed_by), **extra}
    elif game.status == engine.DISPUTED and game.reported_by is not None:
        extra = {"by": user(match.other(game.reported_by)), **extra}
    return ReportDone(
        loaded.row.id, match.number, game.number, game.status, game.decided, None if winner is None else user(winner),
        game.value, measure, max(engine.reported_points(state, match, game)),
        user(game.reported_by) if game.reported_by is not None else None, **extra,
    )


def _retire_reports(loaded: Loaded, *, shown: int | None = None, **answered: Any) -> list[outbox.Message]:
    """Edits for the report messages of every claim whose game no longer waits for its answer (final
    or disputed, here or by any other way): each shows the result and loses its Confirm / Dispute
    buttons, and the kit's claim ends. `shown`: the message the cog edits itself (the one whose
    button was pressed); `answered`: who answered it and how (`ReportDone.by`, `by_report`)."""
    state = loaded.state
    assert state is not None
    book, out = _book(loaded), []
    for claim in book.waiting():
        match, game = (int(part) for part in claim.key.split("."))
        m = state.match(match)
        g = m.games[game - 1]
        if g.status == engine.REPORTED:
            continue
        how = "dispute" if g.status == engine.DISPUTED else "decide" if g.decided else "confirm"
        organizer = answered.get("for_absent")  # who confirmed for the absent `by`
        book.end(claim, how, organizer or answered.get("by"), answered.get("by") if organizer else None)
        out += _closing(loaded, claim, shown, **answered)
    return out


def _closing(loaded: Loaded, claim: claims.Claim, shown: int | None, **answered: Any) -> list[outbox.Message]:
    """The edits of `claim`'s messages (but `shown`, the cog's) once its game no longer waits."""
    assert loaded.state is not None
    match, game = (int(part) for part in claim.key.split("."))
    m = loaded.state.match(match)
    return [loaded.channel(REPORT_DONE, _report_done(loaded, m, m.games[game - 1], channel_id=channel_id,
                                                     message_id=message_id, **answered), channel_id=channel_id)
            for channel_id, message_id in claims.closing(claim, shown)]


async def record_report_message(db: Database, event_id: int, claim: int, *, channel_id: int, message_id: int) -> None:
    """The cog posted report `claim` (the kit's number) in `message_id`: remembered, so the message
    loses its buttons once the report is answered in any way (or at once, if it already was)."""

    def edits(loaded: Loaded, ended: claims.Claim | None, messages: tuple[tuple[int, int], ...]) -> list:
        if ended is None or ended.status == claims.REPORTED:  # forgotten, or the oldest copies of one that waits
            return []
        return _closing(loaded, replace(ended, shown=messages), None)

    def plays(loaded: Loaded, waiting: claims.Claim) -> bool:
        return loaded.row.status == STATUSES.running and loaded.state is not None

    await claims.shown(db, GAMES, event_id, claim, channel_id=channel_id, message_id=message_id, edits=edits,
                       waits=plays)


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
        loaded = await GAMES.load(session, event_id)
        state, seat = GAMES.playing(loaded, actor)
        match = engine.current_match(state, seat)
        if match is None:
            raise UserError("You have no match in the current round.")
        if match.b is None:
            raise UserError("You have a bye this round: there is no game to report.")
        winner = _winner_seat(match, seat, result)
        target = GAMES.call(engine.report_target, state, seat, game=game, match=match.number)
        if target.status == engine.REPORTED and target.reported_by == seat:
            claim = (winner, value if winner is not None else None)
            differs = claim != (target.winner, target.value) and not (winner == target.winner and value is None)
            return Outcome(_view(loaded), [], _pending(loaded, match, target), repeated=True, differs=differs,
                           game=target.number)
        if target.status in (engine.PENDING, engine.FLAGGED) and winner is not None and value is None:
            measure = GAMES.call(engine.value_needed, state, match.number, target.number, winner)
            raise UserError(f"Game {target.number} needs the winner's {_MEASURE_WORDS[measure]} (`number`), "
                            f"by the losing deck's option.")
        events = GAMES.call(engine.report_game, state, seat, winner=winner, value=value, game=target.number,
                              match=match.number)
        if any(isinstance(e, engine.GameDisputed) for e in events):
            await _call_referees(session, loaded, match)
        matched = any(isinstance(e, engine.GameConfirmed) for e in events)
        waiting = _book(loaded).of(_key(match.number, target.number))
        shown = matched and waiting is not None and bool(waiting.shown)  # a message of it shows the result
        reported = next((e for e in events if isinstance(e, engine.GameReported)), None)
        pending = None
        if reported is not None and reported.needs_confirmation_by is not None:
            _claimed(loaded, match, target, actor.user_id)
            pending = _pending(loaded, match, target)
        await GAMES.commit(session, loaded, events, also=_retire_reports(loaded, by=actor.user_id, by_report=matched))
        done = None
        if matched and not shown:
            done = _report_done(loaded, match, target, by=actor.user_id, by_report=True)
        elif reported is not None and reported.needs_confirmation_by is None:
            done = _report_done(loaded, match, target, by=actor.user_id, unopposed=True)
        return Outcome(_view(loaded), list(events), pending, game=target.number, done=done)


_MEASURE_WORDS = {"life": "life total", "library": "number of cards left in the library", "poison": "poison counters"}


async def confirm(db: Database, event_id: int, match: int, game: int, actor: tables.Actor, *,
                  message_id: int | None = None, for_absent: bool = False) -> Outcome:
    """The reporter's opponent confirms a report. An organizer who does not play in the match may
    confirm it for the absent opponent (`for_absent`, asked first: without it, `AbsentConfirmNeeded`);
    the opponent is told by DM. `message_id`: the report message pressed (the cog shows
    `Outcome.done` in it; any other copy, and every copy when confirmed for the absent, is edited
    through the outbox)."""

    async def apply(session: AsyncSession, loaded: Loaded, ended: claims.Claim) -> Outcome:
        state, m, g = _reported_game(loaded, actor, match, game)  # its claim ended in the kit's book
        seat = engine.seat_of(state, ended.absent if ended.absent is not None else actor.user_id)
        events = GAMES.call(engine.confirm_game, state, seat, game=game, match=match)
        answered: dict[str, Any] = {"by": actor.user_id}
        if ended.absent is not None:
            answered = {"by": ended.absent, "for_absent": actor.user_id}
        shown = message_id if ended.absent is None else None
        also = [*_closing(loaded, ended, shown, **answered), *_retire_reports(loaded, shown=shown, **answered)]
        await GAMES.commit(session, loaded, events, also=also)
        return Outcome(_view(loaded), list(events), done=_report_done(loaded, m, g, **answered))

    return await claims.confirmed(db, GAMES, RULES, event_id, _claim_number(actor, match, game), actor,
                                  for_absent=for_absent, apply=apply)


def _claim_number(actor: tables.Actor, match: int, game: int) -> Callable[[Loaded], int]:
    """The number of the claim of game `game` of match `match` (its buttons name the game)."""
    return lambda loaded: _waiting(loaded, actor, match, game)[3].number


def _reported_game(loaded: Loaded, actor: tables.Actor, match: int,
                   game: int) -> tuple[engine.TurnaboutState, engine.Match, engine.Game]:
    tables.check_same_server(NOUN, loaded.row, actor)
    state = GAMES.running(loaded)
    m = GAMES.call(state.match, match)
    if m.b is None or game not in (1, 2):
        raise UserError(f"Match {match} has no game {game}.")
    return state, m, m.games[game - 1]


def _waiting(loaded: Loaded, actor: tables.Actor, match: int,
             game: int) -> tuple[engine.TurnaboutState, engine.Match, engine.Game, claims.Claim]:
    """Game `game` of match `match` and the kit's claim of its report, which waits for an answer."""
    state, m, g = _reported_game(loaded, actor, match, game)
    claim = _book(loaded).of(_key(match, game))
    if claim is None or g.status != engine.REPORTED:
        raise Conflict(f"Game {game} of match {match} has no report waiting ({g.status}): an organizer who does not "
                       f"play in it decides it with `/turnabout settle match:{match} game:{game}`.")
    return state, m, g, claim


class _Rules:
    """Turnabout's results for the kit's claims flow: a claim's result is a `Reported` game, keyed
    "match.game"."""

    noun = NOUN

    def table(self, loaded: Loaded) -> str:
        return event_name(loaded.id)

    def what(self, claim: claims.Claim) -> str:
        match, game = claim.key.split(".")
        return f"match {match}, game {game}"

    def words(self, loaded: Loaded, claim: claims.Claim) -> str:
        state = loaded.state
        assert state is not None
        reported = claim.result_as(Reported)
        winner = "a draw"
        if reported.winner is not None:
            match, game = (int(part) for part in claim.key.split("."))
            measure = engine.value_needed(state, match, game, engine.seat_of(state, reported.winner))
            number = f" ({_MEASURE_WORDS[measure]}: {reported.value})" if reported.value is not None else ""
            winner = f"<@{reported.winner}> won{number}"
        return f"{self.what(claim)}: {winner}, as <@{claim.reporter}> reported it"

    def until(self, loaded: Loaded, claim: claims.Claim) -> str:
        match, game = claim.key.split(".")
        return (f"If that is wrong, tell an organizer who does not play in your match before round {claim.round + 1} is "
                f"paired: they correct it with `/turnabout settle match:{match} game:{game}`.")


RULES = _Rules()


async def dispute(db: Database, event_id: int, match: int, game: int, actor: tables.Actor, reason: str = "", *,
                  message_id: int | None = None) -> Outcome:
    """The reporter's opponent disputes: the game waits for an organizer who does not play in it
    (`settle`), whom the channel calls."""

    async def apply(session: AsyncSession, loaded: Loaded, answer: claims.Answer) -> Outcome:
        state, m, _ = _reported_game(loaded, actor, match, game)  # its claim disputed in the kit's book
        seat = engine.seat_of(state, actor.user_id)
        events = GAMES.call(engine.dispute_game, state, seat, game=game, match=match, reason=reason)
        loaded.extra["call"] = answer.call
        also = [*_closing(loaded, answer.claim, message_id, by=actor.user_id),
                *_retire_reports(loaded, shown=message_id, by=actor.user_id)]
        await GAMES.commit(session, loaded, events, also=also)
        return Outcome(_view(loaded), list(events), done=_report_done(loaded, m, m.games[game - 1], by=actor.user_id))

    return await claims.disputed(db, GAMES, RULES, event_id, _claim_number(actor, match, game), actor, apply=apply)


async def settle(
    db: Database, event_id: int, actor: tables.Actor, *, match: int, game: int, winner_id: int | None,
    value: int | None = None, note: str = "",
) -> Outcome:
    """Organizer who does not play in the match: decide a game (a dispute, a flag fall, a no-show);
    final at once, and may override a finished game until the event ends. `winner_id` None: a
    drawn game. The channel names the organizer."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        state = await GAMES.managing(session, loaded, actor)
        m = GAMES.call(state.match, match)
        await claims.require_referee(session, NOUN, loaded.row, actor, players=_match_users(state, m),
                                     match=f"match {match}", what="settle it")
        winner = None
        if winner_id is not None:
            winner = next((s for s in m.seats() if state.players[s].user_id == winner_id), None)
            if winner is None:
                raise UserError(f"<@{winner_id}> is not playing in match {match}.")
        if winner is not None and value is None:
            measure = GAMES.call(engine.value_needed, state, match, game, winner)
            raise UserError(f"Deciding this game needs the winner's {_MEASURE_WORDS[measure]} (`number`).")
        events = GAMES.call(engine.decide_game, state, match, game, winner=winner, value=value, note=note)
        loaded.extra["decided_by"] = actor.user_id
        await GAMES.commit(session, loaded, events, also=_retire_reports(loaded, by=actor.user_id))
        return Outcome(_view(loaded), list(events))


async def drop(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """A player leaves the event: not paired again (a match in progress must still be finished).
    During registration `leave` withdraws instead."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        if loaded.row.status == STATUSES.lobby:
            raise UserError("Registration is still open: use `/turnabout leave` to withdraw.")
        state = GAMES.running(loaded)
        seat = GAMES.seat(state, actor.user_id)
        events = GAMES.call(engine.drop, state, seat)
        await GAMES.commit(session, loaded, events)
        return Outcome(_view(loaded), list(events))


# --- the end -------------------------------------------------------------------------------------


async def end(db: Database, event_id: int, actor: tables.Actor) -> Outcome:
    """Organizer: the final ranking and the rating awards, to the leaderboard and its channel."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        state = await GAMES.managing(session, loaded, actor)
        events = GAMES.call(engine.end_event, state)
        [ended] = [e for e in events if isinstance(e, engine.EventEnded)]
        GAMES.save(loaded)
        await tables.finish(session, loaded.row, kind=SPEC.kind, finished=STATUSES.finished)
        row = loaded.row
        await event_results.record_results(
            session, guild_id=row.guild_id, format=KIND, event_id=row.id, event_name=event_name(row.id),
            results=event_results.placed([(p.user_id, p.position) for p in ended.placings],
                                       {p.user_id: p.award for p in ended.placings}),
        )
        # The event's channel hears it, the winner pinged there; the results channel gets a copy that
        # pings nobody, so a winner hears it once.
        winners = tuple(p.user_id for p in ended.placings if p.position == 1)
        news = _announcement(loaded, list(events))
        what = f"the final ranking of {event_name(row.id)}"
        posts = [loaded.channel(FINAL, outbox.telling(replace(news, ping=winners).to_payload(), actor.user_id, what))]
        settings = await load_settings_row(session, row.guild_id)
        board = settings.leaderboard_channel_id if settings else None
        if board and board != row.channel_id:
            copy = replace(news, ping=())
            posts.append(loaded.channel(FINAL, outbox.telling(copy.to_payload(), actor.user_id, what), channel_id=board))
        await outbox.queue(session, *posts)
        return Outcome(_view(loaded), list(events))


# --- queries ----------------------------------------------------------------------------------------




async def claim_game(db: Database, event_id: int, number: int) -> tuple[int, int]:
    """The match and game of claim `number` (waiting, or ended lately: a late click), for its buttons."""
    async with db.read() as session:
        book = _book(await GAMES.load(session, event_id, lock=False))
        claim = book.find(number) or book.ended(number)
    if claim is None:
        raise Conflict("That report is no longer waiting: it was confirmed, disputed or replaced.")
    match, game = claim.key.split(".")
    return int(match), int(game)


async def answered_report(db: Database, event_id: int, match: int, game: int, guild_id: int | None) -> ReportDone | None:
    """For a report message's button that was refused: the game as an answered report shows it, if
    its report no longer waits (final or disputed: the message is an out-of-date copy), else None
    (the refusal stands)."""
    async with db.read() as session:
        try:
            loaded = await GAMES.load(session, event_id, lock=False)
        except UserError:
            return None
        state = loaded.state
        if state is None or loaded.row.guild_id != guild_id or not 1 <= match <= len(state.matches):
            return None
        m = state.match(match)
        if m.b is None or game not in (1, 2) or m.games[game - 1].status not in (engine.FINAL, engine.DISPUTED):
            return None
        return _report_done(loaded, m, m.games[game - 1])


async def ratings(db: Database, guild_id: int) -> list[Rating]:
    """The server's accumulated Turnabout ratings: every finished event's award, summed per player
    (kept as they go: a row per player, `rating_totals`)."""
    async with db.read() as session:
        rows = await rating_totals(session, guild_id)
    ordered = sorted(rows.items(), key=lambda item: (-item[1][0], item[0]))
    return [Rating(i, user_id, rating, count) for i, (user_id, (rating, count)) in enumerate(ordered, 1)]


async def rating_totals(session: AsyncSession, guild_id: int,
                        user_ids: Collection[int] | None = None) -> dict[int, tuple[float, int]]:
    """{user: (rating, events)} of the server's players (or of `user_ids` only): the score sums of
    their all-time Turnabout leaderboard totals, to which each event's end adds its awards
    (`event_results.record_results`, in the closing transaction)."""
    kept = LeaderboardTotal.__table__.c
    query = select(kept.user_id, kept.score_total, kept.events).where(
        kept.guild_id == guild_id, kept.period == event_results.ALL_TIME_TOTALS, kept.format == KIND)
    if user_ids is not None:
        query = query.where(kept.user_id.in_(list(user_ids)))
    return {user_id: (float(total), count) for user_id, total, count in await session.execute(query)}


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
    the game without a result (while neither has one in an event with a clock, the player is asked
    which) — with the event's
    clock settings (None when the event is
    played without a clock). None when they play no open match here."""
    for event_id in await _running_events_of(session, guild_id, channel_id, (a, b)):
        loaded = await GAMES.load(session, event_id, lock=False)
        state = loaded.state
        if state is None or (match := _open_match(state, a, b)) is None:
            continue
        if game is not None:
            chosen = match.games[game - 1]
            if chosen.status != engine.PENDING:
                raise UserError(f"Game {game} of match {match.number} already has a result ({chosen.status}): "
                                "a clock cannot decide it.")
        elif state.settings.clock and all(g.status == engine.PENDING for g in match.games):
            raise clock.which_game(event_name(event_id), match.number)  # it decides a game: game 2 may be the one
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
    loaded = await GAMES.load(session, event_id)
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
    await GAMES.commit(session, loaded, events)
    return True


async def _on_clock_flag_fall(session: AsyncSession, row: Any) -> bool:
    """A `/clock` started for a game of an event with a clock ran out: that game is lost on time."""
    game = clock.game_of(row)
    loser = clock.flagged_user(row)
    if game is None or game.format != KIND or not game.decides or loser is None:
        return False
    return await record_flag_fall(session, event_id=game.event_id, match=game.match, game=game.game, loser_id=loser)


if _on_clock_flag_fall not in clock.FLAG_FALL_LISTENERS:
    clock.FLAG_FALL_LISTENERS.append(_on_clock_flag_fall)
if clock_game not in clock.GAME_FINDERS:
    clock.GAME_FINDERS.append(clock_game)
