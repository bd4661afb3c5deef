"""Turnabout events: registration, Swiss rounds, game reports, drops, the end and the ratings.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below) and **is the
registration**: `join` seats a player with a deck name, a scoring option and an optional
decklist (checked against the deck rules; joining again changes them), `leave` withdraws, and
`begin` closes registration
(at least 4 players). From then on the whole event is the engine's document
(`bot.games.turnabout.rules.TurnaboutState`, the row's `state`): players, matches, games, reports.

Every action loads the event with the kit's documents (`GAMES`: the row locked, its seats, the
decoded state), applies the engine (whose refusals become `UserError`s that change nothing), saves
the document with ``version + 1`` and queues what it owes in the outbox in the same transaction:
pairings and match results in the channel, an opponent's decklist by DM (public to the opponent for
game 1), a dispute call to the referees, the final ranking and rating awards to the leaderboard
channel (written to the leaderboard in that very transaction).

A game's report follows the kit's claims flow (`bot.kit.claims`): it waits in the kit's book
(`claims.Book` in the row's bookkeeping, one `claims.Claim` per game keyed "match.game", its result
a `Reported`), not in the engine, until its opponent confirms it (or reports the same: it counts by
itself), disputes it (or reports otherwise: both reports go to the referees), or an organizer who
does not play in the match confirms it for the absent opponent or settles the game. The engine gets
the result once it counts (`engine.record_game`) or is decided (`engine.decide_game`).

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
from bot.kit.events import Payload, decode, encode
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
# A report's messages are the kit's records (`claims.shown_in`), edited by the kit once the report no longer
# waits (`claims.close`, the kit's outbox kind `claims.answered`).

# Engine events that the channel hears about (a report and its answer are the report message itself,
# posted and then edited by the cog; a dispute is announced, calling the referees).
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


@dataclass
class Outcome:
    event: EventView
    events: list[engine.Event] = field(default_factory=list)
    pending: PendingGame | None = None  # a report that waits for confirmation
    repeated: bool = False  # the player's own waiting report, unchanged (to show again)
    differs: bool = False  # ... and what they reported this time is not what it says
    game: int | None = None  # the game a report was about
    words: claims.Words | None = None  # the answered report, as its message says it now (a report's: when none does)

    @property
    def confirmed(self) -> bool:
        """A report that counts now (matched by the opponent's own report, or unopposed)."""
        return any(isinstance(e, engine.GameRecorded) for e in self.events)

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


# --- reports: the kit's claims flow (`bot.kit.claims`) --------------------------------------------------
# A report waits in the kit's book (one `claims.Claim` per game, keyed "match.game", its result a
# `Reported`); the engine sees a game's result only once it counts (`engine.record_game`) or an
# organizer decides it (`engine.decide_game`).


@dataclass(frozen=True)
class Reported:
    """A game's result as its report says it: the kit's claim result for Turnabout."""

    game: int
    winner: int | None  # user id; None: a draw
    value: int | None


def agrees(waiting: Reported, reported: Reported) -> bool:
    """A report says what the waiting one says: the same winner (or a draw), and the same number if
    it gives one (the opponent reporting their loss needs none)."""
    return waiting.winner == reported.winner and reported.value in (None, waiting.value)


def _key(match: int, game: int) -> str:
    return f"{match}.{game}"


def _game_of(claim: claims.Claim) -> tuple[int, int]:
    match, game = claim.key.split(".")
    return int(match), int(game)


def _book(loaded: Loaded) -> claims.Book:
    return claims.Book(loaded.bookkeeping)


def _disputed_games(loaded: Loaded, match: int) -> tuple[int, ...]:
    """The games of `match` whose report is disputed: they wait for an organizer, not for a report."""
    waiting = (_book(loaded).of(_key(match, game)) for game in (1, 2))
    return tuple(c.result_as(Reported).game for c in waiting if c is not None and c.status == claims.DISPUTED)


def _said(loaded: Loaded, match: int, reporter: int, reported: Reported) -> engine.Report:
    """What `reporter` (user id) reported, as the engine scores it (the game has no result yet)."""
    state = loaded.state
    assert state is not None
    winner = engine.seat_of(state, reported.winner) if reported.winner is not None else None
    return GAMES.call(engine.reported, state, engine.seat_of(state, reporter), winner=winner, value=reported.value,
                      game=reported.game, match=match)


def _scored(loaded: Loaded, match: int, reported: Reported) -> tuple[str | None, int]:
    """What the winner's number measures (None: a draw) and the match points it gives them."""
    state = loaded.state
    assert state is not None
    if reported.winner is None:
        return None, 0
    winner = engine.seat_of(state, reported.winner)
    measure = engine.value_needed(state, match, reported.game, winner)
    return measure, max(engine.reported_points(state, match, reported.game, winner, reported.value))


def _pending(loaded: Loaded, claim: claims.Claim) -> PendingGame:
    """A report waiting for its opponent, as the cog shows it (the first time or again)."""
    match, game = _game_of(claim)
    reported = claim.result_as(Reported)
    measure, points = _scored(loaded, match, reported)
    return PendingGame(loaded.id, match, game, claim.reporter, claim.opponent, reported.winner, reported.value,
                       measure, points, claim.number)


async def report_shown(db: Database, pending: PendingGame, channel_id: int, message_id: int) -> None:
    """The cog posted the waiting report `pending` in `message_id`: the kit's record (`claims.shown_in`),
    so the message loses its buttons once the report is answered in any way (or at once, if it already
    was); an older copy says it was shown again."""

    def plays(loaded: Loaded, waiting: claims.Claim) -> bool:
        return loaded.row.status == STATUSES.running and loaded.state is not None

    await claims.shown_in(db, GAMES, RULES, pending.event_id, pending.claim, channel_id=channel_id,
                          message_id=message_id, waits=plays)


async def _counts(session: AsyncSession, loaded: Loaded, claim: claims.Claim, *, shown: int | None) -> Outcome:
    """`claim` ended (confirmed, or matched by the opponent's report): its result counts in the engine,
    and its messages (but `shown`, the cog's) show it. `Outcome.words`: what it says now, None when a
    message of it says so already (a matching report: the answer is private)."""
    state = loaded.state
    assert state is not None
    match, game = _game_of(claim)
    reported = claim.result_as(Reported)
    winner = engine.seat_of(state, reported.winner) if reported.winner is not None else None
    events = GAMES.call(engine.record_game, state, match, game, winner=winner, value=reported.value)
    await GAMES.commit(session, loaded, events)
    closed = await claims.close(session, RULES, loaded, claim, answered_in=shown)
    said = None if closed and shown is None and claim.how == claims.AGREED else claims.words(RULES, loaded, claim)
    return Outcome(_view(loaded), list(events), game=game, words=said)


async def _disputes(session: AsyncSession, loaded: Loaded, claim: claims.Claim, call: claims.Call,
                    counter: engine.Report | None = None, *, shown: int | None = None) -> Outcome:
    """`claim` disputed (its book entry now says so): the channel hears both sides and calls the
    referees (`call`); its messages (but `shown`, the cog's) say it is disputed."""
    state = loaded.state
    assert state is not None and claim.by is not None
    match, game = _game_of(claim)
    claimed = _said(loaded, match, claim.reporter, claim.result_as(Reported))
    events = [engine.GameDisputed(match, game, engine.seat_of(state, claim.by), "", claimed, counter)]
    loaded.extra["call"] = call
    await GAMES.commit(session, loaded, events)
    await claims.close(session, RULES, loaded, claim, answered_in=shown)
    return Outcome(_view(loaded), list(events), game=game, words=claims.words(RULES, loaded, claim))


async def _unopposed(session: AsyncSession, loaded: Loaded, match: engine.Match, reported: Reported,
                     winner: int | None, reporter: int) -> Outcome:
    """A report against an opponent who has dropped counts at once: nobody is left to confirm it (no
    claim waits; its words are those of one, final as reported)."""
    state = loaded.state
    assert state is not None
    events = GAMES.call(engine.record_game, state, match.number, reported.game, winner=winner, value=reported.value)
    await GAMES.commit(session, loaded, events)
    final = claims.Claim(0, _key(match.number, reported.game), match.round, _match_users(state, match), reporter,
                         encode(reported), claims.CONFIRMED, claims.UNOPPOSED, reporter)
    return Outcome(_view(loaded), list(events), game=reported.game, words=claims.words(RULES, loaded, final))


async def report(
    db: Database, event_id: int, actor: tables.Actor, *, result: str, value: int | None = None,
    game: int | None = None,
) -> Outcome:
    """A player reports a game of their current match: won / lost / draw, and the number the losing
    deck's option needs (the winner's life, library or poison). The report waits for the opponent
    (`Outcome.pending`), who confirms or disputes it with its buttons or reports it too: a matching
    report counts by itself, a different one disputes it (both go to the referees). Reporting again
    a report of one's own that waits changes nothing and returns it (`Outcome.repeated`), so it can
    be shown again with its buttons (its first message may be lost). Against an opponent who has
    dropped, a report counts at once."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        state, seat = GAMES.playing(loaded, actor)
        match = engine.current_match(state, seat)
        if match is None:
            raise UserError("You have no match in the current round.")
        if match.b is None:
            raise UserError("You have a bye this round: there is no game to report.")
        winner = _winner_seat(match, seat, result)
        target = GAMES.call(engine.report_target, state, seat, game=game, match=match.number,
                            disputed=_disputed_games(loaded, match.number)).number
        said = GAMES.call(engine.reported, state, seat, winner=winner, value=value, game=target, match=match.number)
        reported = Reported(target, None if winner is None else state.players[winner].user_id, said.value)
        book, key = _book(loaded), _key(match.number, target)
        waiting = book.of(key)
        if waiting is None and winner is not None and said.value is None:
            raise UserError(f"Game {target} needs the winner's {_MEASURE_WORDS[said.measure or 'life']} (`number`), "
                            "by the losing deck's option.")
        if waiting is None and GAMES.call(engine.answerer, state, match.number, seat) is None:
            return await _unopposed(session, loaded, match, reported, winner, actor.user_id)
        met = book.report(key, match.round, _match_users(state, match), actor.user_id, reported,
                          same=lambda claim: agrees(claim.result_as(Reported), reported))
        if met.how == claims.AGREED:  # its messages show it (else the cog posts it)
            return await _counts(session, loaded, met.claim, shown=None)
        if met.how == claims.CONTRARY:
            call = await claims.dispute_call(session, loaded.row, met.claim.players)
            return await _disputes(session, loaded, book.dispute(met.claim, actor.user_id), call, said)
        if met.how == claims.DISPUTED:
            raise UserError(f"Game {target} of match {match.number} is disputed: an organizer decides it.")
        if met.how == claims.NEW:
            GAMES.save(loaded)
        return Outcome(_view(loaded), [], _pending(loaded, met.claim), repeated=met.how == claims.AGAIN,
                       differs=met.differs, game=target)


MEASURE = {"life": "life", "library": "cards left in library", "poison": "poison counters"}


def result_words(winner: int | None, value: int | None, measure: str | None, match_points: int) -> str:
    """A game's result as a report says it (the kit words the rest: `claims_ui`)."""
    if winner is None:
        return "a **draw** (no match points)"
    number = f" with {value} {MEASURE[measure or 'life']}" if value is not None else ""
    return f"<@{winner}> **won**{number} (**{match_points} match points**)"


_MEASURE_WORDS = {"life": "life total", "library": "number of cards left in the library", "poison": "poison counters"}


def _claim_number(actor: tables.Actor, match: int, game: int) -> Callable[[Loaded], int]:
    """The number of the waiting claim of game `game` of match `match` (its buttons name the game)."""

    def number(loaded: Loaded) -> int:
        tables.check_same_server(NOUN, loaded.row, actor)
        m = GAMES.call(GAMES.running(loaded).match, match)
        if m.b is None or game not in (1, 2):
            raise UserError(f"Match {match} has no game {game}.")
        claim = _book(loaded).of(_key(match, game))
        if claim is None:
            raise Conflict(f"Game {game} of match {match} has no report waiting: an organizer who does not play in it "
                           f"decides it with `/turnabout settle match:{match} game:{game}`.")
        return claim.number

    return number


async def confirm(db: Database, event_id: int, match: int, game: int, actor: tables.Actor, *,
                  message_id: int | None = None, for_absent: bool = False) -> Outcome:
    """The reporter's opponent confirms a report: its result counts. An organizer who does not play
    in the match may confirm it for the absent opponent (`for_absent`, asked first: without it,
    `AbsentConfirmNeeded`); the opponent is told by DM. `message_id`: the report message pressed
    (the cog shows `Outcome.done` in it; any other copy, and every copy when confirmed for the
    absent, is edited through the outbox)."""

    async def apply(session: AsyncSession, loaded: Loaded, ended: claims.Claim) -> Outcome:
        return await _counts(session, loaded, ended, shown=message_id if ended.absent is None else None)

    return await claims.confirmed(db, GAMES, RULES, event_id, _claim_number(actor, match, game), actor,
                                  for_absent=for_absent, apply=apply)


async def dispute(db: Database, event_id: int, match: int, game: int, actor: tables.Actor, *,
                  message_id: int | None = None) -> Outcome:
    """The reporter's opponent disputes: the game waits for an organizer who does not play in it
    (`settle`), whom the channel calls."""

    async def apply(session: AsyncSession, loaded: Loaded, answer: claims.Answer) -> Outcome:
        assert answer.call is not None
        return await _disputes(session, loaded, answer.claim, answer.call, shown=message_id)

    return await claims.disputed(db, GAMES, RULES, event_id, _claim_number(actor, match, game), actor, apply=apply)


class _Rules:
    """Turnabout's results for the kit's claims flow: a claim's result is a `Reported` game, keyed
    "match.game"."""

    noun = NOUN
    kind = KIND

    def table(self, loaded: Loaded) -> str:
        return event_name(loaded.id)

    def title(self, loaded: Loaded, claim: claims.Claim) -> str:
        match, game = _game_of(claim)
        return f"Match {match}, game {game}"

    def reads(self, loaded: Loaded, claim: claims.Claim) -> str:
        reported = claim.result_as(Reported)
        measure, points = _scored(loaded, _game_of(claim)[0], reported)
        return result_words(reported.winner, reported.value, measure, points)

    def what(self, claim: claims.Claim) -> str:
        match, game = _game_of(claim)
        return f"match {match}, game {game}"

    def words(self, loaded: Loaded, claim: claims.Claim) -> str:
        reported = claim.result_as(Reported)
        measure, _ = _scored(loaded, _game_of(claim)[0], reported)
        winner = "a draw"
        if reported.winner is not None:
            number = f" ({_MEASURE_WORDS[measure or 'life']}: {reported.value})" if reported.value is not None else ""
            winner = f"<@{reported.winner}> won{number}"
        return f"{self.what(claim)}: {winner}, as <@{claim.reporter}> reported it"

    def until(self, loaded: Loaded, claim: claims.Claim) -> str:
        match, game = _game_of(claim)
        return (f"If that is wrong, tell an organizer who does not play in your match before round {claim.round + 1} is "
                f"paired: they correct it with `/turnabout settle match:{match} game:{game}`.")


RULES = _Rules()


async def settle(
    db: Database, event_id: int, actor: tables.Actor, *, match: int, game: int, winner_id: int | None,
    value: int | None = None, note: str = "",
) -> Outcome:
    """Organizer who does not play in the match: decide a game (a dispute, a flag fall, a no-show);
    final at once, and may override a finished game until the event ends. `winner_id` None: a
    drawn game. The channel names the organizer; a report of the game that waited ends, decided
    through the kit's decide step (`claims.decide`: its messages say so)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, event_id)
        state = await GAMES.managing(session, loaded, actor)
        m = GAMES.call(state.match, match)
        waiting = _book(loaded).of(_key(match, game))
        where = f"match {match}"
        if waiting is None:  # no report of it: the kit's decide step checks the referee otherwise
            await claims.require_referee(session, NOUN, loaded.row, actor, players=_match_users(state, m),
                                         match=where, what="settle it")
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
        if waiting is not None:  # its messages show the decision (the value as it counts)
            await claims.decide(session, RULES, loaded, waiting, actor, match=where, what="settle it",
                                result=Reported(game, winner_id, m.games[game - 1].value))
        await GAMES.commit(session, loaded, events)
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
    return _game_of(claim)


async def game_claim(db: Database, event_id: int, match: int, game: int) -> int | None:
    """The newest claim of game `game` of match `match` that ended lately, for a report button of before
    the kit's claims (it names its game): a late click on it says what became of that claim."""
    async with db.read() as session:
        try:
            book = _book(await GAMES.load(session, event_id, lock=False))
        except UserError:
            return None
    key = _key(match, game)
    return next((n for n in range(book.next_number() - 1, 0, -1)
                 if (ended := book.ended(n)) is not None and ended.key == key), None)


def game_status(loaded: Loaded, match: int, game: engine.Game) -> str:
    """A game's status as players read it: the engine's, or "reported" / "disputed" while its report
    waits in the kit's book (for its opponent, or for an organizer)."""
    claim = _book(loaded).of(_key(match, game.number))
    if claim is None or game.status == engine.FINAL:
        return game.status
    return claims.DISPUTED if claim.status == claims.DISPUTED else claims.REPORTED


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
    the game without a result, nor a report waiting (while neither has one in an event with a clock,
    the player is asked which) — with the event's clock settings (None when the event is played
    without a clock). None when they play no open match here."""
    for event_id in await _running_events_of(session, guild_id, channel_id, (a, b)):
        loaded = await GAMES.load(session, event_id, lock=False)
        state = loaded.state
        if state is None or (match := _open_match(state, a, b)) is None:
            continue
        status = {g.number: game_status(loaded, match.number, g) for g in match.games}
        if game is not None:
            chosen = match.games[game - 1]
            if status[game] != engine.PENDING:
                raise UserError(f"Game {game} of match {match.number} already has a result ({status[game]}): "
                                "a clock cannot decide it.")
        elif state.settings.clock and all(s == engine.PENDING for s in status.values()):
            raise clock.which_game(event_name(event_id), match.number)  # it decides a game: game 2 may be the one
        else:
            chosen = next((g for g in match.games if status[g.number] == engine.PENDING), None)
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
        if (m.b is None or loser not in m.seats() or game not in (1, 2)
                or game_status(loaded, match, m.games[game - 1]) != engine.PENDING):
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
