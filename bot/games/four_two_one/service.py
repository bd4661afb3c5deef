"""421 leagues (FORMATS.md §5): the lobby, decks built from the shared pool, reports confirmed by
the opponent, the loser's options A–D, set additions, taking decks apart, the winner.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below): an organizer opens
it with the league's sets (copied from the server's set lists, `bot.features.sets.service`) and its
target score; 2–6 players join, a one-set league at most 3 (FORMATS.md: "only two or three
players"); begin seats them with the league's seed and hands the rest to the engine
(`bot.games.four_two_one.rules`), whose document is the row's `state`.

Every action is one write transaction: load the league with the kit's documents (`GAMES`: the row
locked, its seats, the decoded state), apply the engine (whose refusals become `UserError`s that
change nothing), save the document with `version + 1`, and queue in the outbox what the channel
hears (`Announcement`, its engine events typed): each round's pairings and bye, the results, the
options chosen, each set addition and take-apart, who must act next (the one player pinged), and
the winner. A league that reaches its target finishes in the same transaction: its results go to
the leaderboard (format `421`: placement points, the league score as `score`).

A match report follows the kit's claims flow (`bot.kit.claims`): it waits for the opponent
(`report` -> `confirm` / `dispute`); the kit keeps the reports (`claims.Book`, a `claims.Claim` each:
its result is the winner's user id, None for a draw), one open per match, each with its own number so
a button of an older report never confirms a newer one.
Nobody confirms their own report (an organizer who plays neither); the opponent's matching report
confirms it too, and a report repeated while it waits is shown again with its buttons (its first
message may be lost). An organizer who does not play in the match confirms only for the absent
opponent (`for_absent`, asked first; the opponent is told by DM). A disputed report stays as the
match's dispute until the players report again or an organizer who does not play in
the match settles it (`settle`); the dispute calls them, and the announcement names them (`Decided`).

Nothing live-looking does nothing: the public messages that show a waiting report with its buttons
are the kit's records (`claim_shown`, `claims.shown_in`) and the kit edits them once it no longer
waits, whichever way (`claims.close`: what was reported and what became of it, no buttons); the announcement carrying the
take-apart menu is recorded as what shows it once Discord has it (`on_sent`, the kit's
`bot.kit.shown`, key `MENU`: one copy has the menu, an older one loses it) and edited without the
menu once nobody is to take decks apart (`MENU_DONE`).

A decklist is read by the one card-list reader (`bot.cards.parse.read_decklist`), its sideboard
left out by its one sideboard rule (Arena's `Sideboard` and `Companion` sections, `SB:` lines,
MTGO's part after a blank line, as Turnabout reads them); the reply says how many cards it ignored.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards import parse as card_lists
from bot.cards.parse import CubeFormatError
from bot.cards.sets import CardSet
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one.models import FourTwoOneLeague, FourTwoOneSeat
from bot.kit import claims, documents, event_results, outbox, tables
from bot.kit import shown as shown_records  # (`shown` names a claim's messages here)
from bot.kit.errors import Conflict, UserError, engine_refusals
from bot.kit.events import Payload, decode, encode
from bot.kit.server_settings import load_settings_row
from bot.kit.text import escape, plural
from bot.store.db import Database

KIND = "421"  # also the leaderboard's format key and the command group
NOUN = "league"
STATUSES = tables.Statuses()
RESULTS = ("won", "lost", "draw")  # a report, from the reporter's side
DEFAULT_TARGET, MAX_TARGET = 21, 1000
# When the later sets join (FORMATS.md §5 and its Variants): "decks", the standard schedule by deck
# count (sets at decks 6, 11, 16 …; Lorwyn–Shadowmoor with four sets), or "saga", the Weatherlight
# saga's blocks of three sets, each block after the first once a player has `points` more points.
SCHEDULES = ("decks", "saga")
DEFAULT_SAGA_POINTS = 10
MAX_ERROR_CHARS = 1900  # a refused decklist's explanation, within one Discord message

# Outbox kinds (rendered by bot.games.four_two_one.ui, a cancellation by the kit: SPEC.cancel_notice).
ANNOUNCE = "421.announce"  # what happened and who acts next (payload: Announcement)
FINAL = "421.final"  # the final standings (payload: Announcement with LeagueWon or LeagueEnded)
CANCELLED = "421.cancelled"  # cancelled by an organizer while running: the kit's text (TableRef)
# Edits of messages whose step is done, so nothing live-looking does nothing:
MENU_DONE = "421.menu_done"  # the announcement that carried the take-apart menu, without it (ShownMenu)
MENU = "421.menu"  # the key of the announcement showing the take-apart menu (`bot.kit.shown`)
ROUND = "421.round"  # the key of a round's post, whose buttons report and choose (version: the round)
CHOOSING = "421.choosing"  # the key of the announcement calling a loser to choose, with its button


# --- views returned to the cogs --------------------------------------------------------------------


@dataclass(frozen=True)
class SetInfo:
    key: str
    name: str
    cards: int


@dataclass(frozen=True)
class Schedule:
    """When the later sets join: `kind` (one of SCHEDULES), the saga's points per block, and the
    engine's resolved schedule (the deck limit with the first set, then each addition)."""

    kind: str
    points: int | None
    first_deck_limit: int
    additions: tuple[engine.SetAddition, ...]

    @classmethod
    def of(cls, n_sets: int, kind: str = "decks", points: int | None = None) -> Schedule:
        if kind == "saga":
            points = points or DEFAULT_SAGA_POINTS
            first, additions = engine.saga_schedule(n_sets, points)
        else:
            points = None
            first, additions = engine.default_schedule(n_sets)
        return cls(kind, points, first, tuple(additions))

    def settings(self, target_score: int) -> engine.LeagueSettings:
        return engine.LeagueSettings(target_score=target_score, first_deck_limit=self.first_deck_limit,
                                     additions=list(self.additions))


@dataclass(frozen=True)
class LeagueView(tables.TableView):
    version: int
    target_score: int
    sets: tuple[SetInfo, ...]
    players: tuple[int, ...]  # user ids: join order in the lobby, seat order once running
    state: engine.LeagueState | None  # once the league has begun
    schedule: Schedule | None = None
    disputes: tuple[str, ...] = ()  # this round's matches whose report was disputed (an organizer may settle)

    def user_of(self, seat: int) -> int:
        return self.players[seat]


@dataclass(frozen=True)
class Claim:
    """A match report waiting for the opponent (the cog posts it with Confirm / Dispute)."""

    league_id: int
    number: int  # this report's own number (the buttons carry it)
    round: int
    match: str
    reporter: int  # user ids
    opponent: int
    winner: int | None  # None: a draw


@dataclass
class Outcome:
    league: LeagueView
    events: list[engine.Event] = field(default_factory=list)
    claim: Claim | None = None
    again: bool = False  # `claim` was already waiting: shown again (its first message may be lost)
    call: claims.Call | None = None  # a dispute: the referees it calls
    words: claims.Words | None = None  # a report answered: what its message says from then on
    ignored: int = 0  # a decklist's sideboard cards, left out


@dataclass(frozen=True)
class Decided:
    """An organizer who decided a match result instead of its players: "confirmed" a waiting
    report for the absent opponent (`absent`), or "settled" a dispute."""

    by: int
    how: str
    absent: int | None = None


@dataclass(frozen=True)
class Announcement(Payload):
    """What the channel hears: the engine's events, a snapshot so a late send shows what happened
    then, with who sits where and whom to ping."""

    league_id: int
    users: tuple[int, ...]
    events: tuple[engine.Event, ...]
    ping: tuple[int, ...] = ()
    take_apart: tuple[int, ...] = ()  # the decks one may take apart, when a take-apart is awaited
    scores: tuple[int, ...] = ()  # by seat, after these events
    version: int = 0
    decided: Decided | None = None  # who decided the match result among these events, if an organizer did

    def user_of(self, seat: int) -> int:
        return self.users[seat]

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        # Queued before typed events: the organizer who decided a result rode on its MatchReported.
        if "decided" in data:
            return data
        decided = next((e["decided"] for e in data.get("events", ()) if isinstance(e, dict) and e.get("decided")), None)
        return {**data, "decided": decided}


@dataclass(frozen=True)
class ShownMenu(Payload):
    """The announcement that carries the take-apart menu, as posted: once the take-apart is done (or
    the league over), the message is edited to the same text without the menu."""

    channel_id: int
    message_id: int
    news: Announcement


@dataclass(frozen=True)
class ChosenSchedule:
    """When the later sets join, as the organizer chose it at the start (`Schedule.of` resolves it)."""

    kind: str = "decks"
    points: int | None = None


@dataclass
class LeagueBook:
    """What the service keeps beside the engine's state (the row's `bookkeeping` document): the
    schedule chosen and the kit's claims (`claims.Book`)."""

    schedule: ChosenSchedule = field(default_factory=ChosenSchedule)
    claim_book: dict = field(default_factory=dict)


class DeckProblems(UserError):
    """A decklist the league refused; `str()` lists every problem (within one message)."""


def league_name(league_id: int) -> str:
    return f"421 league #{league_id}"


# --- the league's documents ------------------------------------------------------------------------

Loaded = documents.Game[FourTwoOneLeague, FourTwoOneSeat, engine.LeagueState]


def _book(loaded: Loaded) -> claims.Book:
    return claims.Book(loaded.bookkeeping)


def _schedule(loaded: Loaded) -> Schedule:
    """The league's schedule of set additions, as its organizer chose it at the start."""
    chosen = loaded.bookkeeping.schedule
    return Schedule.of(len(loaded.row.set_names), chosen.kind, chosen.points)


def _view(loaded: Loaded) -> LeagueView:
    row = loaded.row
    return LeagueView(
        **tables.view_columns(row), version=row.version, target_score=row.target_score,
        sets=decode(row.set_names, tuple[SetInfo, ...]), players=tuple(loaded.user_ids), state=loaded.state,
        schedule=_schedule(loaded), disputes=_disputes(loaded),
    )


def _disputes(loaded: Loaded) -> tuple[str, ...]:
    state = loaded.state
    if state is None:
        return ()
    return tuple(sorted(c.key for c in _book(loaded).waiting() if c.status == claims.DISPUTED and c.round == state.round))


def _view_of(loaded: tables.Loaded) -> LeagueView:
    return _view(GAMES.decode(loaded))


def _explain(error: Exception) -> UserError:
    return DeckProblems(_deck_problems_text(error)) if isinstance(error, engine.DeckRejected) else UserError(str(error))


def _deck_problems_text(error: engine.DeckRejected) -> str:
    """Every problem of a refused decklist, as many as one message holds (the rest counted)."""
    lines = ([error.size_problem] if error.size_problem else []) + [p.message for p in error.problems]
    text = "That deck can't be used; nothing was changed:"
    for shown, line in enumerate(lines):
        more = f"\n- …and {plural(len(lines) - shown, 'more problem')}" if shown < len(lines) - 1 else ""
        entry = f"\n- {line[:400]}"
        if len(text) + len(entry) + len(more) > MAX_ERROR_CHARS:
            return text + f"\n- …and {plural(len(lines) - shown, 'more problem')}"
        text += entry
    return text


def _called(state: engine.LeagueState, events: list[engine.Event]) -> tuple[int, ...]:
    """The users these events call to act: the one who must act next (the last step asked for;
    earlier ones are done), a new round's players and the player who sits it out (told of the bye)."""
    pending = [e.seat for e in events if isinstance(e, engine.ActionPending)][-1:]
    rounds = [e for e in events if isinstance(e, engine.RoundStarted)]
    playing = [seat for e in rounds for _, a, b in e.matches for seat in (a, b)]
    sitting_out = [e.bye for e in rounds if e.bye is not None]
    return tuple(dict.fromkeys(state.players[s].user_id for s in pending + playing + sitting_out))


def _announcement(loaded: Loaded, events: list[engine.Event], decided: Decided | None = None) -> Announcement:
    """The announcement of `events`; `decided` names the organizer who decided a match result
    instead of the opponent."""
    state = loaded.state
    assert state is not None
    step = state.step
    take_apart = tuple(d.id for d in engine.unused_decks(state)) if step and step.kind == engine.TAKE_APART else ()
    return Announcement(
        loaded.id, tuple(p.user_id for p in state.players), tuple(events), _called(state, events), take_apart,
        tuple(p.score for p in state.players), loaded.version, decided,
    )


def _owner(league_id: int) -> shown_records.Owner:
    return shown_records.Owner(KIND, league_id)


def _without_menu(loaded: Loaded, message: shown_records.Shown) -> outbox.Message:
    menu = ShownMenu(message.channel_id, message.message_id, Announcement.from_payload(message.payload or {}))
    return loaded.channel(MENU_DONE, menu, channel_id=message.channel_id)


def live_parts(news: Announcement) -> list[tuple[str, int]]:
    """What an announcement carries that a player acts on (`bot.kit.shown` key and version): the
    take-apart menu, a new round's report and choose buttons, or a loser's call to choose."""
    parts = [(MENU, 0)] if len(news.take_apart) >= 2 else []
    rounds = [e.round for e in news.events if isinstance(e, engine.RoundStarted)]
    if rounds:
        parts.append((ROUND, rounds[-1]))
    elif any(isinstance(e, engine.ActionPending) and e.kind == engine.CHOOSE for e in news.events):
        parts.append((CHOOSING, 0))
    return parts


def _still_live(loaded: Loaded, key: str, version: int) -> bool:
    """Is that part of an announcement still to be acted on: decks to take apart, the round it
    began still the league's, a loser to choose?"""
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None:
        return False
    if key == ROUND:
        return state.round == version
    return state.step is not None and state.step.kind == (engine.TAKE_APART if key == MENU else engine.CHOOSE)


async def _menu_done(session: AsyncSession, loaded: Loaded) -> list[outbox.Message]:
    """The edits that take the buttons and menus off the announcements that carried them once
    nothing there is to be done (their records go): nobody is to take decks apart or to choose, the
    round is over or the league."""
    owner, done = _owner(loaded.id), []
    for key, version in (await shown_records.wanted(session, owner)).items():
        if key in (MENU, ROUND, CHOOSING) and not _still_live(loaded, key, version):
            done += await shown_records.retire(session, owner, key)
    return [_without_menu(loaded, m) for m in done]


async def _commit(session: AsyncSession, loaded: Loaded, events: list[engine.Event], decided: Decided | None = None,
                  *, ended_by: int | None = None) -> None:
    """Save an action's state, queue its announcement, and finish the league if it was won (or
    ended by the organizer `ended_by`). Messages whose step is over lose their buttons and menus:
    the take-apart menu once nobody is to take decks apart, waiting reports' once the league is over."""
    over = any(isinstance(e, engine.LeagueWon | engine.LeagueEnded) for e in events)
    edits: list[outbox.Message] = []
    if over:
        await claims.end_all(session, RULES, loaded)
        await tables.finish(session, loaded.row, kind=SPEC.kind, finished=STATUSES.finished)
    edits += await _menu_done(session, loaded)
    GAMES.save(loaded)
    await outbox.queue(session, *edits)
    # The end is told by the final standings (below), not also as a line of news: one post per piece of news.
    told = [e for e in events if not isinstance(e, engine.LeagueWon | engine.LeagueEnded)]
    if told:  # after the save: the snapshot has the league's new version
        await outbox.queue(session, loaded.channel(ANNOUNCE, _announcement(loaded, told, decided)))
    if over:
        await _record_results(session, loaded, events, ended_by or loaded.row.organizer_id)


async def _record_results(session: AsyncSession, loaded: Loaded, events: list[engine.Event], ended_by: int) -> None:
    """The final standings to the leaderboard, in the transaction that ends the league, and posted in
    the league's channel (its winner pinged, once) and in the results channel if it is another;
    `ended_by` is told if they can't be posted (the league's organizer when it was won)."""
    state, row = loaded.state, loaded.row
    assert state is not None
    placings = event_results.rank_by_score({p.user_id: float(p.score) for p in state.players})
    await event_results.record_results(session, guild_id=row.guild_id, format=KIND, event_id=row.id,
                                     event_name=league_name(row.id), results=placings)
    final = [e for e in events if isinstance(e, engine.LeagueWon | engine.LeagueEnded)]
    winners = [e.seat if isinstance(e, engine.LeagueWon) else e.winner for e in final]
    news = replace(_announcement(loaded, final), ping=tuple(state.players[s].user_id for s in winners if s is not None))
    what = f"the final standings of {league_name(row.id)}"
    posts = [loaded.channel(FINAL, outbox.telling(news.to_payload(), ended_by, what))]
    settings = await load_settings_row(session, row.guild_id)
    board = settings.leaderboard_channel_id if settings else None
    if board and board != row.channel_id:  # a copy for the results channel, pinging nobody
        quiet = outbox.telling(replace(news, ping=()).to_payload(), ended_by, what)
        posts.append(loaded.channel(FINAL, quiet, channel_id=board))
    await outbox.queue(session, *posts)


# --- the lobby --------------------------------------------------------------------------------------------


def _players_problem(count: int) -> str | None:
    if count < engine.MIN_PLAYERS:
        return f"A 421 league needs at least {engine.MIN_PLAYERS} players; {count} so far."
    return None


def _full_text(row: FourTwoOneLeague) -> str:
    if row.max_seats == engine.MAX_PLAYERS_ONE_SET:
        return (f"That league is full: with only one set, 421 is for two or three players "
                f"(only 5 decks exist). Start a league with a second set for up to {engine.MAX_PLAYERS}.")
    return f"That league is full: 421 is for at most {row.max_seats} players."


async def _begin(session: AsyncSession, seated: tables.Loaded, now: datetime) -> Outcome:
    """Begin: the seated players (shuffled with the league's seed) start building, seat 1 first."""
    loaded = GAMES.decode(seated)
    row = loaded.row
    lists = (await session.execute(select(FourTwoOneLeague.set_lists).where(FourTwoOneLeague.id == row.id))).scalar_one()
    names = [seat.name or f"Player {number + 1}" for number, seat in enumerate(loaded.seats)]
    loaded.state = GAMES.call(
        engine.new_league, [CardSet.from_dict(s) for s in lists], [s.user_id for s in loaded.seats],
        seed=row.seed, names=names, settings=_schedule(loaded).settings(row.target_score),
    )
    step = engine.pending_actions(loaded.state)[0]
    events: list[engine.Event] = [engine.ActionPending(step.kind, step.seats[0], None, step.deck_number,
                                                          step.deck_id)]
    await _commit(session, loaded, events)
    return Outcome(_view(loaded), events)


async def _cancelled(session: AsyncSession, seated: tables.Loaded, was_running: bool) -> None:
    """A cancelled league's waiting reports go, and their messages' buttons, and the take-apart menu
    (the kit tells the channel: `cancel_notice`)."""
    loaded = GAMES.decode(seated)
    edits: list[outbox.Message] = []
    if loaded.state is not None:
        await claims.end_all(session, RULES, loaded)
    edits += await _menu_done(session, loaded)
    GAMES.write_bookkeeping(loaded)
    await outbox.queue(session, *edits)


async def _record_menu(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """An announcement was posted: if it carries the take-apart menu, a round's buttons or a call to
    choose, the league remembers the message (`bot.kit.shown`), to take them off once that is done;
    if it is done already, at once. An older copy (a former round's post) loses them: one message
    has each."""
    news = Announcement.from_payload(queued.payload)
    parts = live_parts(news)
    if not parts:
        return
    try:
        loaded = await GAMES.load(session, news.league_id)
    except UserError:  # the league is gone: nothing to keep
        return
    this = shown_records.Shown(parts[0][0], parts[0][1], channel_id, message_id, news.to_payload())
    if not all(_still_live(loaded, key, version) for key, version in parts):
        await outbox.queue(session, _without_menu(loaded, this))
        return
    owner, older = _owner(loaded.id), []
    for key, version in parts:  # wanted while still to be done (checked under the league's lock)
        older += await shown_records.want(session, owner, key, version)
        older += await shown_records.record(session, owner, key, version, channel_id, message_id, payload=this.payload)
    await outbox.queue(session, *(_without_menu(loaded, m) for m in older if m.message_id != message_id))


outbox.on_sent(ANNOUNCE, _record_menu)


SPEC = tables.TableSpec(
    kind=KIND, noun=NOUN, title="421 league", model=FourTwoOneLeague, seat_model=FourTwoOneSeat, view=_view_of,
    begin=_begin, players_problem=_players_problem, on_cancel=_cancelled, full_text=_full_text,
    cancel_notice=CANCELLED, name=league_name,
)
# Engine operations run through GAMES.call: their refusals become UserErrors (a refused decklist:
# DeckProblems; non-players: PermissionDenied).
GAMES: documents.Documents[FourTwoOneLeague, FourTwoOneSeat, engine.LeagueState] = documents.Documents(
    SPEC, engine.LeagueState, refusals=engine_refusals(engine.FourTwoOneError, engine.NotAPlayer, _explain),
    seat_of=engine.seat_of,
    not_running=documents.NotRunning(
        lobby="The league has not begun yet: an organizer begins it once everyone has joined.",
        finished="That league is over.", cancelled="That league was cancelled."),
    bookkeeping=LeagueBook,
)


async def check_can_start(db: Database, actor: tables.Actor, *, channel_id: int) -> None:
    """What `create_league` would refuse about who and where, before any set is imported."""
    async with db.read() as session:
        await tables.check_can_create(session, SPEC, actor=actor, channel_id=channel_id)


def check_schedule(n_sets: int, target_score: int, kind: str | None, points: int | None) -> Schedule:
    """The schedule an organizer asked for (`kind` None: the saga if `points` are given, else the
    standard one), or a UserError saying why it cannot be played."""
    kind = kind or ("saga" if points is not None else "decks")
    if kind != "saga" and points is not None:
        raise UserError("`block_points` is for the Weatherlight saga: choose `new_sets: Weatherlight saga`, or "
                        "leave `block_points` out.")
    if kind not in SCHEDULES:
        raise UserError(f"Choose when new sets join: {' or '.join(SCHEDULES)}.")
    if points is not None and not 1 <= points <= MAX_TARGET:
        raise UserError(f"The points per block are 1 to {MAX_TARGET}.")
    schedule = Schedule.of(n_sets, kind, points)
    gate = max((a.min_score for a in schedule.additions), default=0)
    if gate > target_score:
        raise UserError(f"With {n_sets} sets the last block opens at {plural(gate, 'point')}, above the target score "
                        f"({target_score}): it could never join. Raise `target` or lower `block_points`.")
    return schedule


async def create_league(
    db: Database, actor: tables.Actor, *, channel_id: int, sets: list[CardSet], target_score: int = DEFAULT_TARGET,
    seed: int | None = None, schedule: str = "decks", saga_points: int | None = None,
) -> LeagueView:
    """Open a lobby in the channel (organizers) with `sets`, the first being the large set, and the
    schedule of their additions (`schedule`, `saga_points`: see SCHEDULES)."""
    if not 1 <= target_score <= MAX_TARGET:
        raise UserError(f"The target score is 1 to {MAX_TARGET}.")
    if not sets:
        raise UserError("A league needs at least one set.")
    chosen = check_schedule(len(sets), target_score, schedule, saga_points)
    # The engine checks the sets (rarities, duplicates) as it would at the start.
    GAMES.call(engine.new_league, sets, [1, 2], seed=0, settings=chosen.settings(target_score))
    names = encode([SetInfo(s.code, s.name, len(s.cards)) for s in sets])
    max_seats = engine.MAX_PLAYERS_ONE_SET if len(sets) == 1 else engine.MAX_PLAYERS
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, max_seats=max_seats,
            target_score=target_score, set_names=names, set_lists=[s.to_dict() for s in sets],
            bookkeeping=encode(LeagueBook(ChosenSchedule(chosen.kind, chosen.points))),
        )
        return _view_of(loaded)


async def remember_name(db: Database, league_id: int, user_id: int, name: str) -> None:
    """The name a player joined with (the engine's messages use it; mentions are the UI's)."""
    async with db.write() as session:
        await session.execute(
            update(FourTwoOneSeat)
            .where(FourTwoOneSeat.league_id == league_id, FourTwoOneSeat.user_id == user_id,
                   FourTwoOneSeat.seat.is_(None))
            .values(name=name[:100])
        )


TABLES = tables.TableUseCases[LeagueView](SPEC)
get_league, find_league = TABLES.get, TABLES.find


# --- decks ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decklist:
    """A decklist as read: one name per card of the deck, and how many cards of its sideboard (or
    companion, maybeboard) were left out."""

    names: list[str]
    ignored: int = 0


def read_decklist(data: str | bytes) -> Decklist:
    """A decklist (``4 Card Name`` lines, an Arena, MTGO or CubeCobra export) as one name per card of
    its main deck, read by the one card-list reader (`bot.cards.parse.read_decklist`, its sideboard
    rule); the sideboard is left out (and counted)."""
    try:
        read = card_lists.read_decklist(data)
    except CubeFormatError as error:
        raise UserError(f"I can't read that decklist: {error}") from None
    return Decklist(read.main.names(), len(read.sideboard))


async def _deck_action(db: Database, league_id: int, actor: tables.Actor, operation, *args, ignored: int = 0) -> Outcome:
    async with db.write() as session:
        loaded = await GAMES.load(session, league_id)
        state, seat = GAMES.playing(loaded, actor)
        try:
            events = GAMES.call(operation, state, seat, *args)
        except DeckProblems as problems:
            if ignored:
                raise DeckProblems(f"{problems}\n{_sideboard_note(ignored)}") from None
            raise
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), events, ignored=ignored)


def _sideboard_note(ignored: int) -> str:
    """Why a refused list's card count leaves its sideboard out."""
    return f"(The sideboard, {plural(ignored, 'card')}, was not read: a 421 deck is its 60 cards.)"


async def build(db: Database, league_id: int, actor: tables.Actor, decklist: str | bytes) -> Outcome:
    """The deck the actor is due to build: exactly 60 cards, all available in the pool (a
    sideboard is ignored: `Outcome.ignored` counts its cards)."""
    read = read_decklist(decklist)
    return await _deck_action(db, league_id, actor, engine.build_deck, read.names, ignored=read.ignored)


async def alter(db: Database, league_id: int, actor: tables.Actor, decklist: str | bytes) -> Outcome:
    """Option A: the actor's deck becomes this list (what it drops returns to the pool; a
    sideboard is ignored)."""
    read = read_decklist(decklist)
    return await _deck_action(db, league_id, actor, engine.alter_deck, read.names, ignored=read.ignored)


async def take_apart(db: Database, league_id: int, actor: tables.Actor, deck_ids: list[int]) -> Outcome:
    """Before building over the deck limit: two decks nobody is using go back to the pool."""
    return await _deck_action(db, league_id, actor, engine.take_apart, deck_ids)


async def check_step(db: Database, league_id: int, actor: tables.Actor, kind: str) -> LeagueView:
    """Refuse (as the action itself would) unless the actor is the one due to `kind` (build or
    alter) now: checked before a form is shown, so nobody types 60 cards for nothing."""
    async with db.read() as session:
        loaded = await GAMES.load(session, league_id, lock=False)
    state, seat = GAMES.playing(loaded, actor)
    GAMES.call(engine.require_turn, state, seat, kind)
    return _view(loaded)


# --- matches ------------------------------------------------------------------------------------------


def _claim_of(loaded: Loaded, entry: claims.Claim) -> Claim:
    """A report as the league shows it (its buttons carry its number)."""
    return Claim(loaded.id, entry.number, entry.round, entry.key, entry.reporter, entry.opponent,
                 entry.result_as(int | None))


def _outcome_for(seat: int, winner: int | None) -> str:
    return "draw" if winner is None else ("won" if winner == seat else "lost")


async def report(db: Database, league_id: int, actor: tables.Actor, *, result: str) -> Outcome:
    """A player reports their match (won / lost / draw, from their side); the opponent confirms.
    The opponent reporting the same result confirms it. While a report waits, the reporter's same
    report and any report of the opponent's show it again (`again`), with its buttons; a rejected
    report (a dispute) is replaced by the next one."""
    if result not in RESULTS:
        raise UserError(f"Report one of {', '.join(RESULTS)}.")
    async with db.write() as session:
        loaded = await GAMES.load(session, league_id)
        state, seat = GAMES.playing(loaded, actor)
        # The engine judges the report (round begun, not sitting out, not reported yet) on a copy.
        GAMES.call(engine.report, copy.deepcopy(state), seat, result)
        match = engine.current_match(state, seat)
        assert match is not None
        opponent = match.b if seat == match.a else match.a
        winner = {"won": actor.user_id, "lost": state.players[opponent].user_id, "draw": None}[result]
        players = [state.players[s].user_id for s in match.seats()]
        book = _book(loaded)
        met = book.report(match.label, state.round, players, actor.user_id, winner,
                          same=lambda claim: claim.result_as(int | None) == winner)
        if met.how == claims.AGREED:
            return await _apply_claim(session, loaded, met.claim)
        if met.how == claims.AGAIN and met.differs:
            reported = _claim_of(loaded, met.claim)
            raise Conflict(f"Your report of Match {match.label} ({_claim_words(reported)}) is waiting for "
                           f"<@{reported.opponent}>. It can't be changed: they confirm or dispute it (then "
                           "report again). Report the same result to show it again with its buttons.")
        if met.how in (claims.AGAIN, claims.CONTRARY):
            return Outcome(_view(loaded), [], _claim_of(loaded, met.claim), again=True)
        entry = met.claim if met.how == claims.NEW else book.add(match.label, state.round, players, actor.user_id, winner)
        GAMES.save(loaded)
        return Outcome(_view(loaded), [], _claim_of(loaded, entry))


def _claim_words(claim: Claim) -> str:
    return "a draw" if claim.winner is None else f"that <@{claim.winner}> won"


class _Rules:
    """421's results for the kit's claims flow: a claim's result is the winner's user id (None: a draw)."""

    noun = NOUN
    kind = KIND

    def table(self, loaded: Loaded) -> str:
        return league_name(loaded.id)

    def title(self, loaded: Loaded, claim: claims.Claim) -> str:
        return f"{league_name(loaded.id)}, round {claim.round}, Match {claim.key}"

    def reads(self, loaded: Loaded, claim: claims.Claim) -> str:
        winner = claim.result_as(int | None)
        return "a **draw**" if winner is None else f"**<@{winner}> won**"

    def what(self, claim: claims.Claim) -> str:
        return f"Match {claim.key}"

    def words(self, loaded: Loaded, claim: claims.Claim) -> str:
        winner = claim.result_as(int | None)
        return (f"round {claim.round}, Match {claim.key}: {'a draw' if winner is None else f'<@{winner}> won'}, as "
                f"<@{claim.reporter}> reported it")

    def until(self, loaded: Loaded, claim: claims.Claim) -> str:
        return ("If that is wrong, tell an organizer who does not play in your match at once, before the next round "
                "begins: the result has counted since it was confirmed.")


RULES = _Rules()


async def _apply_claim(session: AsyncSession, loaded: Loaded, entry: claims.Claim, decided: Decided | None = None, *,
                       answered_in: int | None = None) -> Outcome:
    """The report `entry` counts (ended by the kit: how, by whom); its messages lose their buttons."""
    state = loaded.state
    assert state is not None
    claim = _claim_of(loaded, entry)
    await claims.close(session, RULES, loaded, entry, answered_in=answered_in)
    seat = next(p.seat for p in state.players if p.user_id == entry.reporter)
    events = GAMES.call(engine.report, state, seat, _outcome_for(entry.reporter, claim.winner))
    await _commit(session, loaded, events, decided)
    return Outcome(_view(loaded), events, claim=claim if entry.how == "confirm" else None,
                   words=claims.words(RULES, loaded, entry))


def _round(loaded: Loaded) -> int:
    return GAMES.running(loaded).round


async def confirm(db: Database, league_id: int, number: int, actor: tables.Actor, *,
                  answered_in: int | None = None, for_absent: bool = False) -> Outcome:
    """The opponent confirms a waiting report: the result counts. An organizer who does not play in
    the match confirms it for the absent opponent (`for_absent`, asked first: without it,
    `AbsentConfirmNeeded`), who is told by DM. `answered_in`: the message pressed, which the cog edits
    (not for an absent player: the press answered a question, every message is edited here)."""

    async def apply(session: AsyncSession, loaded: Loaded, entry: claims.Claim) -> Outcome:
        if entry.absent is None:
            return await _apply_claim(session, loaded, entry, answered_in=answered_in)
        return await _apply_claim(session, loaded, entry, Decided(actor.user_id, "confirmed", entry.absent))

    return await claims.confirmed(db, GAMES, RULES, league_id, number, actor, for_absent=for_absent, apply=apply,
                                  round=_round)


async def dispute(db: Database, league_id: int, number: int, actor: tables.Actor, *,
                  answered_in: int | None = None) -> Outcome:
    """The opponent disputes a waiting report: nothing counts, and the match is disputed until its
    players report again or an organizer who does not play in it settles it (`Outcome.call`: whom
    the dispute calls)."""

    async def apply(session: AsyncSession, loaded: Loaded, answer: claims.Answer) -> Outcome:
        await claims.close(session, RULES, loaded, answer.claim, answered_in=answered_in)
        GAMES.save(loaded)
        return Outcome(_view(loaded), claim=_claim_of(loaded, answer.claim), call=answer.call,
                       words=claims.words(RULES, loaded, answer.claim))

    return await claims.disputed(db, GAMES, RULES, league_id, number, actor, apply=apply, round=_round)


async def claim_shown(db: Database, claim: Claim, channel_id: int, message_id: int) -> None:
    """A public message shows the waiting report `claim` with its buttons: the kit's record, so the
    buttons go once it no longer waits (whichever way it ends); at once if it no longer does."""

    def plays(loaded: Loaded, entry: claims.Claim) -> bool:
        state = loaded.state
        return state is not None and entry.round == state.round and loaded.row.status == STATUSES.running

    await claims.shown_in(db, GAMES, RULES, claim.league_id, claim.number, channel_id=channel_id,
                          message_id=message_id, waits=plays)


async def settle(db: Database, league_id: int, actor: tables.Actor, *, match: str, winner_id: int | None) -> Outcome:
    """Organizer: decide a disputed match (a disputed report) of this round: `winner_id` won, or a
    draw (None). An organizer who plays in the match cannot; the announcement names the organizer."""
    async with db.write() as session:
        loaded = await GAMES.load(session, league_id)
        state = await GAMES.managing(session, loaded, actor)
        label = match.strip().upper()
        m = next((x for x in state.matches if x.label == label), None)
        if m is None:
            labels = ", ".join(x.label for x in state.matches) or "none"
            raise UserError(f"There is no Match {escape(match)} in round {state.round} (matches: {labels}).")
        entry = _book(loaded).of(label)
        if m.result is not None or entry is None or entry.round != state.round or entry.status != claims.DISPUTED:
            raise UserError(f"Match {label} has no dispute to settle: its players report it (`/421 report`) and the "
                            "opponent confirms.")
        await claims.decide(session, RULES, loaded, entry, actor, match=f"Match {label}", what="settle it",
                            result=winner_id)
        if winner_id is not None and winner_id not in entry.players:
            raise UserError(f"<@{winner_id}> is not playing in Match {label}.")
        events = GAMES.call(engine.report, state, m.a, _outcome_for(state.players[m.a].user_id, winner_id))
        await _commit(session, loaded, events, Decided(actor.user_id, "settled"))
        return Outcome(_view(loaded), events)


async def choose(db: Database, league_id: int, actor: tables.Actor, option: str, deck_id: int | None = None) -> Outcome:
    """The loser's option: A alter, B new deck, C claim set-aside deck `deck_id`, D the winner rebuilds."""
    async with db.write() as session:
        loaded = await GAMES.load(session, league_id)
        state, seat = GAMES.playing(loaded, actor)
        events = GAMES.call(engine.choose, state, seat, option, deck_id=deck_id)
        await _commit(session, loaded, events)
        return Outcome(_view(loaded), events)


# --- the end ---------------------------------------------------------------------------------------------


async def end(db: Database, league_id: int, actor: tables.Actor) -> Outcome:
    """Organizer: end the league now; the standings go to the leaderboard (the sole leader wins)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, league_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        if loaded.row.status == STATUSES.lobby:
            raise UserError("The league has not begun: cancel it instead (`/421 cancel`).")
        state = GAMES.running(loaded)
        events = GAMES.call(engine.end_league, state)
        await _commit(session, loaded, events, ended_by=actor.user_id)
        return Outcome(_view(loaded), events)
