"""Treasure Battler games: lobby, setup, reports, draft actions, the end. One write transaction per action.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below). The engine's whole
state (`bot.games.battler.rules.BattlerState`) is the game row's `state` document; what the engine does
not know lives in its `bookkeeping` document, saved with it:

* ``phase_version``: the game version at which the current phase began (older DM buttons are stale);
* ``phase_started_at``: when it began;
* ``seat_versions``: per seat, the version of the player's last private action, or of the start of
  their carousel turn (either makes their older DMs stale);
* ``reports``: pending / disputed mini-game reports, applied to the engine only once confirmed
  (the kit's claims flow, `bot.kit.claims`: the opponent confirms or disputes; an organizer who does
  not play in the game confirms for the absent opponent, asked first, or decides a dispute);
* ``answered``: the last reports answered, how and by whom (a late click on an old copy shows it);
* ``absent``: the seats whose game was confirmed for them while absent, who may still say their
  treasures left until the PLAY phase ends.

Every action loads the game with the kit's documents (`GAMES`: the row locked, its seats, both
documents decoded), applies the engine, writes both documents back with ``version + 1``, and queues
what it owes in the outbox in the same transaction: public announcements, the new phase's private
DMs (in a carousel: the DM of the player whose turn it is, one at a time), the organizer's dispute
call, the final standings.

A DM button carries the game version it was rendered for. It is current unless the phase began or
the player acted after that version (another player's action does not make your DM stale; your own
double click or an older copy of your DM does). The message that shows a player's private DM is
the kit's record (`bot.kit.shown`, key ``<kind>.<user id>``, its version the game's when the DM was
rendered: the newest one recorded wins), written when Discord accepts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.battler import rules as engine
from bot.games.battler.models import BattlerGame, BattlerPlayer
from bot.kit import claims, deadlines, documents, event_results, outbox, shown, tables
from bot.kit.errors import Conflict, InvalidPayload, PermissionDenied, UserError, chosen, engine_refusals
from bot.kit.events import Payload, encode
from bot.kit.server_settings import load_settings_row
from bot.store.db import Database
from bot.store.types import utcnow

if TYPE_CHECKING:
    from bot.features.cubes.service import CubeDetail

STATUSES = tables.Statuses(running="running", finished="over")
ACTIVE = STATUSES.active
NOUN = "game"
MIN_SEATS, MAX_SEATS = 2, 16
SETUP, DRAFT, CAROUSEL = "setup", "draft", "carousel"  # the kinds of private DM
# What a player can say about their mini-game (engine outcomes + "we could not finish a replay").
OUTCOMES = (*engine.OUTCOMES, "unfinishable")
DECISIONS = ("a", "b", "draw", "void")

# Outbox kinds (rendered by bot.games.battler.messages; a running game cancelled and a player's DMs
# closed in the kit's words: SPEC.cancel_notice, delivery.Renderers.dms_closed).
PROMPT = "battler.prompt"  # a player's private setup/draft DM (payload: PrivatePrompt)
ANNOUNCE = "battler.announce"  # public lines for what happened (payload: Announcement)
DISPUTE = "battler.dispute"  # the organizer decides a disputed report (payload: Dispute)
FINAL = "battler.final"  # the final standings, read from the game when sent (payload: TableRef)
ENDED = "battler.ended"  # cancelled by an organizer without a winner (payload: TableRef)
PHASE_OVER = "battler.phase_over"  # a DM of a phase that ended, edited to say so (payload: PhaseOver)
PLAY_DONE = "battler.play_done"  # a PLAY phase's post once the phase is over: its buttons gone (payload: PlayPost)
PLAY_POST = "play"  # the key (`bot.kit.shown`) of the PLAY phase's post, whose buttons report its games
CANCELLED = "cancelled"  # what a DM says the game is in once an organizer cancelled it (`PhaseOver.phase`)
DMS_CLOSED = "battler.dms_closed"  # in the channel: "I can't DM you your choices" (payload: DmsClosed)
RECOVER = "battler.recover"  # deadline: queue what a game owes that no message shows (after upgrades)
# Events players hear about in the channel (the rest is private or bookkeeping).
PUBLIC_EVENTS = (
    engine.ResultReported, engine.ReplayRequired, engine.PlayerPoisoned, engine.PoisonSet, engine.TreasuresChanged,
    engine.PackyardReshuffled, engine.PlayerDied, engine.BecameGhost, engine.PlayerOut, engine.PlayoffStarted,
    engine.GameOver, engine.PhaseChanged, engine.PairingsMade, engine.CarouselStarted, engine.CarouselTurn,
    engine.CarouselPicked, engine.CarouselPassed, engine.CarouselEnded,
)


class StaleMessage(Conflict):
    """A DM button rendered for an older state of the player's view."""

    def __init__(self, game_id: int, user_id: int) -> None:
        super().__init__("That message is out of date; your current one is in your newest DM.")
        self.game_id, self.user_id = game_id, user_id


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class PendingReport:
    """A mini-game report waiting for the opponent's confirmation or, disputed, for the organizer
    (kept in the game's bookkeeping; applied to the engine only once confirmed)."""

    id: int
    a: int  # pairing seats
    b: int
    reporter: int
    claim: str  # "a" | "b" (that seat won) | "draw" | "unfinished"
    conceded_by: int | None
    treasures: tuple[tuple[int, int], ...]  # (seat, treasures left after the game), as the players said
    status: str  # pending | disputed
    disputed_by: int | None = None
    counter_claim: str | None = None

    def winner(self) -> int | None:
        return {"a": self.a, "b": self.b}.get(self.claim)

    def with_treasures(self, seat: int | None, treasures_left: int | None) -> PendingReport:
        """The report with `seat`'s treasures after the game (None: unknown, unchanged)."""
        if seat is None or treasures_left is None:
            return self
        return replace(self, treasures=(*(t for t in self.treasures if t[0] != seat), (seat, treasures_left)))


@dataclass(frozen=True)
class GameView(tables.TableView):
    cube_name: str
    settings: engine.BattlerSettings
    seed: int
    version: int
    player_ids: tuple[int, ...]  # join order in the lobby; seat order once running
    state: engine.BattlerState | None  # a private copy
    reports: tuple[PendingReport, ...] = ()

    def user_of(self, seat: int) -> int:
        return self.player_ids[seat]

    @property
    def is_full(self) -> bool:
        return len(self.player_ids) >= self.max_seats


@dataclass(frozen=True)
class Announcement(Payload):
    """What the channel hears about an action: the events, and who sits where (a snapshot, so it
    can be rendered later, by the outbox, exactly as it was)."""

    game_id: int
    organizer_id: int
    users: tuple[int, ...]
    stage: int
    round: int
    progression: str
    events: tuple[engine.Event, ...]
    ping: tuple[int, ...] = ()  # the users these events call to act (a new phase, their carousel turn)

    def user_of(self, seat: int) -> int:
        return self.users[seat]


@dataclass(frozen=True)
class PlayPost(Payload):
    """A PLAY phase's post (`channel_id`, `message_id`) as it was sent, to show it again without its
    report buttons once the phase is over."""

    channel_id: int
    message_id: int
    news: Announcement


@dataclass(frozen=True)
class PhaseOver(Payload):
    """A player's DM of a phase that has ended (`channel_id`, `message_id`): edited to say which
    phase the game is in now and where to follow it, its buttons gone."""

    game_id: int
    game_channel_id: int
    channel_id: int
    message_id: int
    phase: str


@dataclass(frozen=True, kw_only=True)
class Dispute(Announcement):
    """The call to decide a disputed report, with who sits where: `call`, the organizers who do
    not play in it (None in rows queued before issue 34: the game's organizer)."""

    report: PendingReport
    call: claims.Call | None = None


@dataclass(frozen=True)
class Costs:
    """What each draft action costs now (treasures); None when it can't be done now."""

    trade: int | None = None
    reroll: int | None = None
    shift_basics: int | None = None
    buy_basic: int | None = None

    @classmethod
    def of(cls, state: engine.BattlerState, seat: int) -> Costs:
        return cls(**engine.action_costs(state, seat))


@dataclass(frozen=True)
class PrivatePrompt(Payload):
    """What one player sees in their private DM: the setup choice, their draft phase or their carousel turn."""

    game_id: int
    guild_id: int
    channel_id: int
    user_id: int
    seat: int
    kind: str  # setup | draft | carousel
    version: int
    stage: int
    round: int
    stash: tuple[str, ...]
    pack: tuple[str, ...]
    basics: tuple[str, ...]
    treasures: int
    poison: int
    costs: Costs
    done: bool
    carousel: tuple[str, ...] = ()  # the carousel's cards (carousel turn)
    pick: int = 0  # this pick's number in the carousel (1-based)
    picks: int = 0  # the carousel's number of picks

    @property
    def pool_full(self) -> bool:
        return len(self.stash) >= engine.POOL_MAX


@dataclass(frozen=True)
class Standing:
    placement: int
    user_ids: tuple[int, ...]
    points: float


@dataclass
class ActionResult:
    game: GameView
    events: list[engine.Event] = field(default_factory=list)
    actor_prompt: PrivatePrompt | None = None  # the actor's message, re-rendered in place
    prompts: list[PrivatePrompt] = field(default_factory=list)  # new DMs (a new phase), queued
    report: PendingReport | None = None  # a report waiting for confirmation: the cog posts it
    dispute: PendingReport | None = None  # a disputed report: the organizer is asked (queued)
    applied: PendingReport | None = None  # the report that was just applied
    waiting: PendingReport | None = None  # a disputed report still waiting for the organizer: shown again
    call: claims.Call | None = None  # whom a disputed report calls (with `dispute` or `waiting`)
    for_absent: int | None = None  # the organizer who confirmed `applied` for the absent opponent
    treasures_after: int | None = None  # an absent player's treasures, said after their game was confirmed
    finished: bool = False  # the game is over (its standings are queued)
    words: claims.Words | None = None  # a report answered or decided: what its message says from then on

    @property
    def phase_changed(self) -> bool:
        return any(isinstance(e, engine.PhaseChanged) for e in self.events)


@dataclass(frozen=True)
class FinalResult:
    game: GameView
    standings: list[Standing]
    post_channel_id: int


# --- the game's documents --------------------------------------------------------------------------

Loaded = documents.Game[BattlerGame, BattlerPlayer, engine.BattlerState]


def _settings(row: BattlerGame) -> engine.BattlerSettings:
    return engine.BattlerSettings(**row.settings)  # the constructor reads a lobby's old carousel boolean too


@dataclass
class BattlerBook:
    """What the service keeps beside the engine's state (the row's `bookkeeping` document): the
    version its phase began at and each seat's latest turn (a DM rendered before either is out of
    date), when the phase began, the seats confirmed absent whose treasures after their game may
    still be said (seat -> that report's number), and the kit's claims (`claims.Book`)."""

    phase_version: int = 0
    phase_started_at: str | None = None
    seat_versions: dict[str, int] = field(default_factory=dict)
    absent: dict[str, int] = field(default_factory=dict)
    claim_book: dict = field(default_factory=dict)

    def seat_moved(self, seat: int, version: int) -> None:
        """The seat's older DMs are stale from `version` on."""
        self.seat_versions[str(seat)] = version

    def changed_since(self, seat: int) -> int:
        return max(self.phase_version, self.seat_versions.get(str(seat), 0))


def _book(loaded: Loaded) -> claims.Book:
    """The kit keeps the reports (`claims.Claim`s, whose typed result is a `PendingReport`, its id
    the claim's number), one open per pairing, cleared when a phase ends."""
    return claims.Book(loaded.bookkeeping)


def _open_reports(loaded: Loaded) -> list[PendingReport]:
    return [c.result_as(PendingReport) for c in _book(loaded).waiting()]


def _keep(loaded: Loaded, report_: PendingReport) -> claims.Claim:
    status = claims.DISPUTED if report_.status == "disputed" else claims.REPORTED
    disputer = loaded.user_ids[report_.disputed_by] if report_.disputed_by is not None else None
    return _book(loaded).put(claims.Claim(report_.id, f"{report_.a}-{report_.b}", 0, _users(loaded, report_),
                                          loaded.user_ids[report_.reporter], encode(report_), status, by=disputer))


def _view(loaded: Loaded) -> GameView:
    row = loaded.row
    return GameView(
        **tables.view_columns(row), cube_name=row.cube_name, settings=_settings(row), seed=row.seed,
        version=row.version, player_ids=tuple(loaded.user_ids), state=GAMES.copy(loaded.state),
        reports=tuple(_open_reports(loaded)),
    )


def _view_of(loaded: tables.Loaded) -> GameView:
    return _view(GAMES.decode(loaded))


def _prompt(loaded: Loaded, seat: int) -> PrivatePrompt | None:
    """The player's private view now (None when the phase has no private choice for them)."""
    state = loaded.state
    assert state is not None
    p = state.players[seat]
    carousel: dict = {}
    if state.phase == engine.SETUP:
        kind = SETUP
    elif state.phase == engine.DRAFT and p.status in (engine.ALIVE, engine.GHOST):
        kind = DRAFT
    elif engine.carousel_picker(state) == seat:
        kind = CAROUSEL
        carousel = {"carousel": tuple(state.carousel_cards), "pick": state.carousel_turn + 1,
                    "picks": len(state.carousel_order)}
    else:
        return None
    row = loaded.row
    return PrivatePrompt(
        game_id=row.id, guild_id=row.guild_id, channel_id=row.channel_id, user_id=p.user_id, seat=seat, kind=kind,
        version=loaded.version, stage=state.stage, round=state.round, stash=tuple(p.stash), pack=tuple(p.pack),
        basics=tuple(p.basics), treasures=p.treasures, poison=p.poison,
        costs=Costs.of(state, seat), done=p.done, **carousel,
    )


def _announcement(loaded: Loaded, events: list[engine.Event], kind: type[Announcement] = Announcement,
                  **more: Any) -> Announcement:
    """The channel's snapshot of `events` (or, `kind`, another payload that shows who sits where)."""
    state = loaded.state
    assert state is not None
    return kind(loaded.id, loaded.row.organizer_id, tuple(loaded.user_ids), state.stage, state.round,
                state.settings.progression, tuple(events), _called(state, events), **more)


def _called(state: engine.BattlerState, events: list[engine.Event]) -> tuple[int, ...]:
    """The users whose turn these events begin (pinged): the paired players of a new PLAY phase,
    everyone drafting in a new DRAFT phase, the player whose carousel pick it is."""
    seats: list[int] = []
    for e in events:
        if isinstance(e, engine.PairingsMade):
            seats += [seat for pairing in e.pairings for seat in pairing.seats()]
        elif isinstance(e, engine.PhaseChanged) and e.phase == engine.DRAFT:
            seats += [p.seat for p in engine.players_in_play(state)]
        elif isinstance(e, engine.CarouselTurn):
            seats.append(e.seat)
    return tuple(dict.fromkeys(state.players[seat].user_id for seat in seats))


def _phase_over(loaded: Loaded, dm: shown.Shown, phase: str | None = None) -> outbox.Message:
    """The edit of a message whose phase is over: a player's DM says so (`phase`: what the game is
    in now, its phase by default, or "cancelled"), the PLAY post loses its report buttons."""
    row, state = loaded.row, loaded.state
    assert state is not None
    if dm.key == PLAY_POST:
        post = PlayPost(dm.channel_id, dm.message_id, Announcement.from_payload(dm.payload or {}))
        return outbox.Message(PLAY_DONE, post.to_payload(), channel_id=dm.channel_id, guild_id=row.guild_id)
    user_id = int(dm.key.rsplit(".", 1)[1])
    payload = PhaseOver(row.id, row.channel_id, dm.channel_id, dm.message_id, phase or state.phase)
    return outbox.Message(PHASE_OVER, payload.to_payload(), user_id=user_id, guild_id=row.guild_id)


async def _cancelled(session: AsyncSession, seated: tables.Loaded, was_running: bool) -> None:
    """A running game cancelled: every DM with buttons says so and loses them, and so does the
    PLAY post (the kit tells the channel: `cancel_notice`)."""
    if not was_running:
        return
    loaded = GAMES.decode(seated)
    ended = await shown.retire(session, shown.Owner(SPEC.kind, loaded.row.id))
    await outbox.queue(session, *(_phase_over(loaded, m, CANCELLED) for m in ended))


def _prompt_message(prompt: PrivatePrompt) -> outbox.Message:
    return outbox.Message(PROMPT, prompt.to_payload(), user_id=prompt.user_id, guild_id=prompt.guild_id)


async def _commit(
    session: AsyncSession, loaded: Loaded, events: list[engine.Event], *, actor_seat: int | None = None,
    answered: int | None = None, told: Callable[[engine.Event], bool] = lambda event: False,
) -> list[PrivatePrompt]:
    """Save an action's state and queue what it owes: its announcement, the new phase's DMs (or the
    DM of the player whose carousel turn begins), and at the end the standings (with the
    leaderboard rows, in this very transaction). `actor_seat`'s own DM is re-rendered in place
    (`answered`: its message, which the interaction's answer edits). When a phase ends, every other
    DM of it says so (nobody keeps "waiting for the other players"). The events `told` already (a
    result its report's message now shows) are left out of the announcement: one post per piece of news."""
    new_phase = any(isinstance(e, engine.PhaseChanged) for e in events)
    over: list[outbox.Message] = []
    if new_phase:
        await claims.end_all(session, RULES, loaded)  # first: their records go before the DMs'
        ended = await shown.retire(session, shown.Owner(SPEC.kind, loaded.row.id), answered=answered)
        over = [_phase_over(loaded, m) for m in ended]
        book = loaded.bookkeeping
        book.phase_version, book.phase_started_at = loaded.version + 1, utcnow().isoformat()
        book.absent = {}  # a new phase: treasures of the last one can't be said any more
        turns = []
    else:
        turns = [e.seat for e in events if isinstance(e, engine.CarouselTurn) and e.seat != actor_seat]
    for seat in turns:  # the player's older DMs are stale from now on
        loaded.bookkeeping.seat_moved(seat, loaded.version + 1)
    if any(isinstance(e, engine.GameOver) for e in events):
        await tables.finish(session, loaded.row, kind=SPEC.kind, finished=STATUSES.finished)
    await GAMES.commit(session, loaded, [e for e in events if not told(e)])
    # The DMs show the saved version (their buttons carry it).
    seats = range(len(loaded.state.players)) if new_phase else dict.fromkeys(turns)
    prompts = [p for seat in seats if (p := _prompt(loaded, seat)) is not None]
    messages = [*over, *(_prompt_message(p) for p in prompts)]
    if loaded.row.status == STATUSES.finished:
        messages.append(await _finish(session, loaded))
    await outbox.queue(session, *messages)
    return prompts


async def _finish(session: AsyncSession, loaded: Loaded) -> outbox.Message:
    """Game over: results go to the leaderboard; the standings post is owed to its channel."""
    row = loaded.row
    await event_results.record_results(
        session, guild_id=row.guild_id, format="battler", event_id=row.id, event_name=_event_name(row),
        results=_placements(loaded.state),
    )
    return await _finish_post(session, loaded)


def _event_name(row: BattlerGame) -> str:
    return f"Treasure Battler #{row.id} ({row.cube_name})"


def _placements(state: engine.BattlerState) -> list[event_results.Placement]:
    places: list[tuple[int, int]] = []
    place = 1
    for group in engine.standings(state):
        places.extend((state.players[seat].user_id, place) for seat in group)
        place += len(group)
    return event_results.placed(places)


def standings_of(game: GameView) -> list[Standing]:
    """Engine standings as placements (winner, or everyone still in, first)."""
    assert game.state is not None
    by_place: dict[int, list[event_results.Placement]] = {}
    for placement in _placements(game.state):
        by_place.setdefault(placement.placement, []).append(placement)
    return [
        Standing(place, tuple(p.user_id for p in group), group[0].points) for place, group in sorted(by_place.items())
    ]


# --- lobby -------------------------------------------------------------------------------------


def _players_problem(count: int) -> str | None:
    if count < MIN_SEATS or count % 2:
        return f"Treasure Battler needs an even number of players (at least 2); {count} joined so far."
    return None


async def _deal(session: AsyncSession, seated: tables.Loaded, now: datetime) -> ActionResult:
    """The players are seated (shuffled with the game's seed): deal the setup packs, DM everyone."""
    loaded = GAMES.decode(seated)
    row = loaded.row
    order = loaded.user_ids
    loaded.state = GAMES.call(engine.new_game, list(row.cube_cards), order, seed=row.seed, settings=_settings(row))
    loaded.bookkeeping = BattlerBook(phase_version=loaded.version + 1, phase_started_at=now.isoformat())
    GAMES.save(loaded)
    prompts = [p for seat in range(len(order)) if (p := _prompt(loaded, seat)) is not None]
    await outbox.queue(session, *(_prompt_message(p) for p in prompts))
    return ActionResult(_view(loaded), prompts=prompts)


SPEC = tables.TableSpec(
    kind="battler", noun=NOUN, title="Treasure Battler", model=BattlerGame, seat_model=BattlerPlayer, view=_view_of,
    begin=_deal, players_problem=_players_problem, statuses=STATUSES, cancel_notice=ENDED,
    cancelled_as="cancelled by an organizer without a winner", on_cancel=_cancelled,
)
GAMES: documents.Documents[BattlerGame, BattlerPlayer, engine.BattlerState] = documents.Documents(
    SPEC, engine.BattlerState, refusals=engine_refusals(engine.BattlerError, engine.NotAPlayer), seat_of=engine.seat_of,
    not_running=documents.NotRunning(lobby="That game has not begun yet.", finished="That game is over.",
                                     cancelled="That game was cancelled."),
    announce=documents.Announcer(ANNOUNCE, PUBLIC_EVENTS, _announcement), bookkeeping=BattlerBook,
)


async def create_game(
    db: Database, actor: tables.Actor, *, channel_id: int, cube: CubeDetail, progression: str = "fibonacci",
    max_seats: int = 8, interest: int | None = None, streak: bool = False, carousel: str = "off",
    carousel_from: str = "packpile", seed: int | None = None,
) -> GameView:
    if not MIN_SEATS <= max_seats <= MAX_SEATS or max_seats % 2:
        raise UserError(f"Seats must be an even number from {MIN_SEATS} to {MAX_SEATS}.")
    settings = GAMES.call(
        engine.BattlerSettings, progression=progression, interest_threshold=interest, win_streak=streak,
        carousel=carousel, carousel_from=carousel_from,
    )
    need = engine.MIN_CARDS_PER_PLAYER * MIN_SEATS
    if cube.size < need:
        raise UserError(f"Cube **{cube.name}** has {cube.size} cards; Treasure Battler needs at least {need}.")
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, cube_name=cube.name, max_seats=max_seats,
            settings=encode(settings), cube_cards=list(cube.names),
        )
        return _view_of(loaded)


# The lobby's use cases, as every table has them (cancel: a lobby, or a running game without a winner).
TABLES = tables.TableUseCases[GameView](SPEC)
get_game, find_game, join, leave, begin, cancel = (
    TABLES.get, TABLES.find, TABLES.join, TABLES.leave, TABLES.begin, TABLES.cancel)


# --- private actions (setup and draft DMs) ------------------------------------------------------


def _dm_key(kind: str, user_id: int) -> str:
    """The key of a player's private DM of `kind` in the kit's record of shown messages."""
    return f"{kind}.{user_id}"


async def _shown_dm(session: AsyncSession, game_id: int, user_id: int, kind: str) -> shown.Shown | None:
    return await shown.message_of(session, shown.Owner(SPEC.kind, game_id), _dm_key(kind, user_id))


async def _latest_message_version(session: AsyncSession, game_id: int, user_id: int, kind: str) -> int | None:
    message = await _shown_dm(session, game_id, user_id, kind)
    return None if message is None else message.version


def _changed_since(loaded: Loaded, seat: int) -> int:
    return loaded.bookkeeping.changed_since(seat)


def _check_current(loaded: Loaded, seat: int, version: int) -> None:
    """A DM rendered at `version` is current unless the phase began, or the player acted, after it
    (a version the game has not reached yet no message of ours carries)."""
    if version > loaded.version:
        raise InvalidPayload()
    if version < _changed_since(loaded, seat):
        raise StaleMessage(loaded.row.id, loaded.state.players[seat].user_id)


async def current_prompt(db: Database, game_id: int, user_id: int) -> PrivatePrompt | None:
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        if loaded.row.status != STATUSES.running or loaded.state is None:
            return None
        return _prompt(loaded, GAMES.seat(loaded.state, user_id))


async def resend(db: Database, game_id: int, user_id: int) -> outbox.Queued | None:
    """Queue the player's current DM again (held: the caller sends it and reports the outcome)."""
    prompt = await current_prompt(db, game_id, user_id)
    if prompt is None:
        return None
    async with db.write() as session:
        return (await outbox.queue(session, _prompt_message(prompt), hold=True))[0]


async def still_wanted(db: Database, prompt: PrivatePrompt) -> bool:
    """Is this DM still the player's current one, with no message showing it? (For sends made long
    after their commit: after a crash, or a retry.)"""
    async with db.read() as session:
        loaded = await GAMES.load(session, prompt.game_id, lock=False)
        if loaded.row.status != STATUSES.running or loaded.state is None or _prompt(loaded, prompt.seat) is None:
            return False
        if not _changed_since(loaded, prompt.seat) <= prompt.version <= loaded.version:
            return False
        latest = await _latest_message_version(session, prompt.game_id, prompt.user_id, prompt.kind)
        return latest is None or latest < _changed_since(loaded, prompt.seat)


async def shown_in(db: Database, game_id: int, user_id: int) -> tuple[PrivatePrompt | None, int | None]:
    """The player's current prompt and the message already showing it (None if no DM shows it yet)."""
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        if loaded.row.status != STATUSES.running or loaded.state is None:
            return None, None
        seat = GAMES.seat(loaded.state, user_id)
        prompt = _prompt(loaded, seat)
        if prompt is None:
            return None, None
        message = await _shown_dm(session, game_id, user_id, prompt.kind)
        current = message is not None and message.version >= _changed_since(loaded, seat)
        return prompt, message.message_id if current else None


async def checked_prompt(db: Database, game_id: int, user_id: int, seat: int, version: int) -> PrivatePrompt:
    """The prompt a DM button belongs to, if it is still current (for UI-only steps like choosing a card)."""
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        state = GAMES.running(loaded)
        if GAMES.seat(state, user_id) != seat:
            raise PermissionDenied("That message is not yours.")
        prompt = _prompt(loaded, seat)
        if prompt is None:
            raise StaleMessage(game_id, user_id)
        _check_current(loaded, seat, version)
        return prompt


async def private_action(
    db: Database,
    game_id: int,
    user_id: int,
    move: Move,
    *,
    seat: int,
    version: int,
    channel_id: int | None = None,
    message_id: int | None = None,
) -> ActionResult:
    """A button, menu or form of a setup/draft/carousel DM: `move` (one of the moves below, named by
    the component's handler) applied to the player's seat.

    `version` is the version the message was rendered for; `message_id` is that message, which the
    caller re-renders in place (recorded here, in the same transaction, for the new version).
    """
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = GAMES.running(loaded)
        if GAMES.seat(state, user_id) != seat:
            raise PermissionDenied("That message is not yours.")
        _check_current(loaded, seat, version)
        events = GAMES.call(move, state, seat)
        loaded.bookkeeping.seat_moved(seat, loaded.version + 1)
        prompts = await _commit(session, loaded, events, actor_seat=seat, answered=message_id)
        result = ActionResult(_view(loaded), events=list(events), prompts=prompts, finished=state.phase == engine.OVER)
        if not result.phase_changed:
            result.actor_prompt = _prompt(loaded, seat)
            prompt = result.actor_prompt
            if prompt is not None and message_id is not None and channel_id is not None:
                await shown.show(session, shown.Owner(SPEC.kind, loaded.row.id), _dm_key(prompt.kind, prompt.user_id),
                                 loaded.version, channel_id, message_id)
        return result


# --- the moves of a DM (indexes are positions in the lists the DM showed, checked against the state) ---

Move = Callable[[engine.BattlerState, int], list[engine.Event]]  # (state, seat) -> events


def choose_basics(basics: list[str]) -> Move:
    """Setup: the two basic lands chosen."""
    return lambda state, seat: engine.choose_basics(state, seat, basics)


def trade(stash_index: int, pack_index: int) -> Move:
    """Setup: a stash card for a pack card."""
    def move(state: engine.BattlerState, seat: int) -> list[engine.Event]:
        player = state.player(seat)
        return engine.trade(state, seat, chosen(player.stash, stash_index), chosen(player.pack, pack_index))
    return move


def reroll() -> Move:
    return engine.reroll


def shift_basics(basics: list[str]) -> Move:
    return lambda state, seat: engine.shift_basics(state, seat, basics)


def buy(basic_type: str) -> Move:
    """Draft: a basic land of that type."""
    return lambda state, seat: engine.buy_basic(state, seat, basic_type)


def done() -> Move:
    return engine.done


def take(carousel_index: int, stash_index: int | None = None) -> Move:
    """Carousel: a card, giving a stash card back when the pool is full."""
    def move(state: engine.BattlerState, seat: int) -> list[engine.Event]:
        card = chosen(state.carousel_cards, carousel_index)
        give_back = chosen(state.player(seat).stash, stash_index) if stash_index is not None else None
        return engine.carousel_pick(state, seat, card, give_back)
    return move


def pass_carousel() -> Move:
    return engine.carousel_pass


async def force_end_draft(db: Database, game_id: int, actor: tables.Actor) -> ActionResult:
    """An organizer ends the DRAFT phase for everyone, or the carousel (each pick left made at random)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = await GAMES.managing(session, loaded, actor)
        force = engine.force_end_carousel if state.phase == engine.CAROUSEL else engine.force_end_draft
        events = GAMES.call(force, state)
        prompts = await _commit(session, loaded, events)
        return ActionResult(_view(loaded), events=list(events), prompts=prompts, finished=state.phase == engine.OVER)


# --- outbox hooks and recovery --------------------------------------------------------------------


async def _record_message(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """Remember that `message_id` shows the prompt (a re-send of the same version replaces the record;
    one of an older version than the one recorded changes nothing)."""
    prompt = PrivatePrompt.from_payload(queued.payload)
    await shown.show(session, shown.Owner(SPEC.kind, prompt.game_id), _dm_key(prompt.kind, prompt.user_id),
                     prompt.version, channel_id, message_id)


async def record_shown(db: Database, prompt: PrivatePrompt, *, channel_id: int, message_id: int) -> None:
    """`message_id` shows `prompt` (a message whose outbox row is unknown: tests, tools)."""
    async with db.write() as session:
        await _record_message(session, outbox.Queued(0, _prompt_message(prompt), 0, utcnow()), channel_id, message_id)


async def _dms_closed(session: AsyncSession, queued: outbox.Queued) -> None:
    prompt = PrivatePrompt.from_payload(queued.payload)
    notice = outbox.Message(DMS_CLOSED, outbox.DmsClosed(prompt.user_id).to_payload(), channel_id=prompt.channel_id,
                            guild_id=prompt.guild_id)
    await outbox.queue(session, notice)


outbox.on_sent(PROMPT, _record_message)


async def _record_play_post(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """A PLAY phase's post was sent: the game remembers it (`bot.kit.shown`), to take its report
    buttons off when the phase ends; if it has ended already, at once."""
    news = Announcement.from_payload(queued.payload)
    if not any(isinstance(e, engine.PairingsMade) for e in news.events):
        return
    try:
        loaded = await GAMES.load(session, news.game_id)
    except UserError:  # the game is gone: nothing to keep
        return
    state, this = loaded.state, shown.Shown(PLAY_POST, 0, channel_id, message_id, news.to_payload())
    playing = (loaded.row.status == STATUSES.running and state is not None and state.phase == engine.PLAY
               and (state.stage, state.round) == (news.stage, news.round))
    if not playing:
        await outbox.queue(session, _phase_over(loaded, this))
        return
    owner = shown.Owner(SPEC.kind, loaded.id)
    await shown.want(session, owner, PLAY_POST, loaded.bookkeeping.phase_version)
    older = await shown.record(session, owner, PLAY_POST, loaded.bookkeeping.phase_version, channel_id, message_id,
                               payload=this.payload)
    await outbox.queue(session, *(_phase_over(loaded, m) for m in older if m.message_id != message_id))


outbox.on_sent(ANNOUNCE, _record_play_post)
outbox.on_dm_closed(PROMPT, _dms_closed, retry_at_startup=True)


DEADLINES = deadlines.Handlers()  # carried by its `FORMAT`


@DEADLINES.handles(RECOVER)
async def _recover(db: Database, due: deadlines.Due, now: datetime) -> None:
    """Queue the DMs of a running game's phase that no message shows, or a finished game's standings."""
    async with db.write() as session:
        loaded = await GAMES.load(session, int(due.key))
        messages: list[outbox.Message] = []
        if loaded.row.status == STATUSES.running and loaded.state is not None:
            for seat in range(len(loaded.state.players)):
                prompt = _prompt(loaded, seat)
                if prompt is None:
                    continue
                latest = await _latest_message_version(session, loaded.row.id, prompt.user_id, prompt.kind)
                if latest is None or latest < _changed_since(loaded, seat):
                    messages.append(_prompt_message(prompt))
        elif loaded.row.status == STATUSES.finished:
            messages.append(await _finish_post(session, loaded))
        await outbox.queue(session, *messages)
        await deadlines.disarm(session, RECOVER, due.key)


async def _finish_post(session: AsyncSession, loaded: Loaded) -> outbox.Message:
    settings = await load_settings_row(session, loaded.row.guild_id)
    channel = settings.leaderboard_channel_id if settings and settings.leaderboard_channel_id else loaded.row.channel_id
    # Nobody ended it (the last player standing did): its organizer is told if it can't be posted.
    payload = outbox.telling(tables.TableRef(loaded.id).to_payload(), loaded.row.organizer_id,
                             f"the results of Treasure Battler #{loaded.id}")
    return loaded.channel(FINAL, payload, channel_id=channel)


# --- reports (PLAY phase) ----------------------------------------------------------------------


def _claim_of(pairing: engine.Pairing, seat: int, outcome: str) -> tuple[str, int | None]:
    mine = "a" if seat == pairing.a else "b"
    theirs = "b" if mine == "a" else "a"
    return {
        "won": (mine, None),
        "lost": (theirs, None),
        "conceded": (theirs, seat),
        "opponent_conceded": (mine, pairing.other(seat)),
        "draw": ("draw", None),
        "unfinishable": ("unfinished", None),
    }[outcome]


def _open_pairing(state: engine.BattlerState, seat: int) -> engine.Pairing:
    if state.phase != engine.PLAY:
        raise UserError(f"You can't report now: the game is in the {state.phase.upper()} phase.")
    pairing = next((pr for pr in state.pairings if seat in pr.seats()), None)
    if pairing is None:
        if state.players[seat].status in (engine.OUT, engine.PLAYOFF):
            raise UserError("You have been eliminated.")
        raise UserError("You have no game in this phase.")
    if pairing.result is not None:
        raise UserError("Your game in this phase has already been reported and confirmed.")
    return pairing


def _apply_claim(state: engine.BattlerState, report_: PendingReport) -> list[engine.Event]:
    a, b = report_.a, report_.b
    pairing = next((pr for pr in state.pairings if pr.seats() == (a, b) and pr.result is None), None)
    if pairing is None:
        raise engine.InvalidAction("That game has already been settled.")
    treasures = dict(report_.treasures)
    claim = report_.claim
    if claim == "unfinished":
        events = engine.report_treasures(state, a, treasures[a]) if a in treasures else []
        if b in treasures:
            events += engine.report_treasures(state, b, treasures[b])
        return events + engine.cannot_finish(state, a)
    if claim == "draw":
        return engine.report(state, a, "draw", treasures=treasures)
    if report_.conceded_by is not None:
        return engine.report(state, report_.conceded_by, "conceded", treasures=treasures)
    return engine.report(state, a if claim == "a" else b, "won", treasures=treasures)


def _dry_run(state: engine.BattlerState, report_: PendingReport) -> None:
    GAMES.call(_apply_claim, GAMES.copy(state), report_)


async def report(
    db: Database, game_id: int, actor: tables.Actor, outcome: str, *, treasures_left: int | None = None
) -> ActionResult:
    """A player reports their mini-game. The first report waits for the opponent; a matching report by
    the opponent confirms it (and is applied), a different one makes it a dispute for the organizer."""
    if outcome not in OUTCOMES:
        raise UserError(f"Unknown result {outcome!r}; use one of {', '.join(OUTCOMES)}.")
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state, seat = GAMES.playing(loaded, actor)
        if str(seat) in loaded.bookkeeping.absent and treasures_left is not None:
            return await _treasures_after(session, loaded, seat, treasures_left)
        pairing = _open_pairing(state, seat)
        claim, conceded_by = _claim_of(pairing, seat, outcome)
        book = _book(loaded)
        treasures = ((seat, treasures_left),) if treasures_left is not None else ()
        new = PendingReport(book.next_number(), pairing.a, pairing.b, seat, claim, conceded_by, treasures, "pending")
        users = _users(loaded, new)
        met = book.report(f"{new.a}-{new.b}", 0, users, actor.user_id, new,
                          same=lambda waiting: waiting.result_as(PendingReport).claim == claim)
        existing = met.claim.result_as(PendingReport)
        if met.how == claims.DISPUTED:
            # Still the organizer's to decide: shown again (its message may be lost), with this
            # player's count of treasures kept for the decision.
            if treasures_left is not None:
                existing = existing.with_treasures(seat, treasures_left)
                _dry_run(state, existing)
                _keep(loaded, existing)
                GAMES.save(loaded)
            return ActionResult(_view(loaded), waiting=existing, call=await _referees(session, loaded, existing))
        if met.how in (claims.AGREED, claims.CONTRARY):  # the opponent's answer, by their own report
            merged = existing.with_treasures(seat, treasures_left)
            if conceded_by is not None:
                merged = replace(merged, conceded_by=conceded_by)
            if met.how == claims.AGREED:
                _dry_run(state, merged)
                await claims.close(session, RULES, loaded, met.claim)
                return await _apply_report(session, loaded, merged, ended=met.claim)
            merged = replace(merged, status="disputed", disputed_by=seat, counter_claim=claim)
            await claims.close(session, RULES, loaded, _book(loaded).dispute(met.claim, actor.user_id))
            _keep(loaded, merged)
            return await _disputed(session, loaded, merged)
        if met.how == claims.AGAIN:  # their own waiting report, said again: replaced by this one (its copies say so)
            await claims.close(session, RULES, loaded, book.end(met.claim, claims.AGAIN_SHOWN))
            book.add(f"{new.a}-{new.b}", 0, users, actor.user_id, new)
        _dry_run(state, new)
        GAMES.save(loaded)
        return ActionResult(_view(loaded), report=new)


async def _treasures_after(session: AsyncSession, loaded: Loaded, seat: int, treasures_left: int) -> ActionResult:
    """A player whose game was confirmed while they were absent says their treasures left after it
    (their result stands), once, until the PLAY phase ends."""
    state = loaded.state
    assert state is not None
    events = GAMES.call(engine.report_treasures_after, state, seat, treasures_left)
    loaded.bookkeeping.absent.pop(str(seat))
    await _commit(session, loaded, events)
    return ActionResult(_view(loaded), events=list(events), treasures_after=state.players[seat].treasures)


def _told_by_report(event: engine.Event) -> bool:
    """A win its report's message already shows ("✅ Report #1: <@1> beat <@2>, confirmed by <@2>"): the
    channel is not told it again (a draw or an unfinishable game is, with what it costs both)."""
    return isinstance(event, engine.ResultReported) and event.result in ("a", "b")


def _users(loaded: Loaded, report_: PendingReport) -> tuple[int, int]:
    return loaded.user_ids[report_.a], loaded.user_ids[report_.b]


async def _referees(session: AsyncSession, loaded: Loaded, report_: PendingReport) -> claims.Call:
    return await claims.dispute_call(session, loaded.row, _users(loaded, report_))


async def _apply_report(session: AsyncSession, loaded: Loaded, report_: PendingReport, *,
                        ended: claims.Claim) -> ActionResult:
    """`report_` counts: applied to the game (`ended`: its claim, as the kit's book ended it)."""
    state = loaded.state
    assert state is not None
    events = GAMES.call(_apply_claim, state, report_)
    prompts = await _commit(session, loaded, events, told=_told_by_report)
    return ActionResult(_view(loaded), events=list(events), prompts=prompts, applied=report_,
                        finished=state.phase == engine.OVER, words=claims.words(RULES, loaded, ended))


async def _disputed(session: AsyncSession, loaded: Loaded, report_: PendingReport) -> ActionResult:
    """Save a disputed report and call the organizers who do not play in the game to decide it (in
    the game's channel)."""
    GAMES.save(loaded)
    call = await _referees(session, loaded, report_)
    await outbox.queue(session, loaded.channel(DISPUTE, _announcement(loaded, [], Dispute, report=report_, call=call)))
    return ActionResult(_view(loaded), dispute=report_, call=call)


def _answering_seat(state: engine.BattlerState, pending: PendingReport, user_id: int) -> int | None:
    """The seat of the reporter's opponent if `user_id` is them (theirs to confirm or dispute)."""
    seat = next((p.seat for p in state.players if p.user_id == user_id), None)
    return seat if seat in (pending.a, pending.b) and seat != pending.reporter else None


async def treasures_asked(db: Database, game_id: int, report_id: int, user_id: int) -> int | None:
    """The user's treasures before the game, if answering this waiting report is theirs (the
    reporter's opponent): their Confirm or Dispute asks how many they have left after it. None
    when it is not theirs (an organizer confirms for an absent opponent without a count; anyone
    else is refused)."""
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        state = GAMES.running(loaded)
        pending = _pending(loaded, report_id)
        seat = _answering_seat(state, pending, user_id)
        if seat is None or pending.status != "pending":
            return None
        return state.players[seat].treasures


def _pending(loaded: Loaded, report_id: int) -> PendingReport:
    found = _book(loaded).find(report_id)
    if found is None:
        raise Conflict("That report is no longer waiting: it was confirmed, replaced or decided.")
    return found.result_as(PendingReport)


class _Rules:
    """Battler's results for the kit's claims flow: a claim's result is a `PendingReport` (its id the
    claim's number); the opponent adds their treasures after the game when they answer."""

    noun = NOUN
    kind = SPEC.kind

    def table(self, loaded: Loaded) -> str:
        return _event_name(loaded.row)

    def what(self, claim: claims.Claim) -> str:
        return f"report #{claim.number}"

    def title(self, loaded: Loaded, claim: claims.Claim) -> str:
        return f"Report #{claim.number}"

    def reads(self, loaded: Loaded, claim: claims.Claim) -> str:
        report_ = claim.result_as(PendingReport)
        return f"**{said(loaded.user_ids.__getitem__, report_, report_.claim)}**"

    def words(self, loaded: Loaded, claim: claims.Claim) -> str:
        report_ = claim.result_as(PendingReport)
        users = loaded.user_ids
        if report_.claim == "draw":
            said = f"<@{users[report_.a]}> and <@{users[report_.b]}> drew"
        elif report_.claim == "unfinished":
            said = "the replayed game could not be finished"
        else:
            winner, loser = (report_.a, report_.b) if report_.claim == "a" else (report_.b, report_.a)
            said = f"<@{users[winner]}> beat <@{users[loser]}>"
        return f"report #{claim.number}, {said}"

    def until(self, loaded: Loaded, claim: claims.Claim) -> str:
        seat = loaded.user_ids.index(claim.absent) if claim.absent in loaded.user_ids else None
        treasures = ("Until then you can still say your treasures left after the game: `/battler report` with your "
                     "result and `treasures_left`." if str(seat) in loaded.bookkeeping.absent else
                     "The PLAY phase is over, so your treasures stay as they were.")
        return f"If that is wrong, tell an organizer who does not play in your game at once. {treasures}"


RULES = _Rules()


def said(user_of: Callable[[int], int], report_: PendingReport, claim: str | None) -> str:
    """What a report (or its opponent's `counter_claim`) says, with mentions: "<@1> beat <@2> (conceded)"."""
    if claim == "draw":
        return "a draw"
    if claim == "unfinished":
        return "the replayed game cannot be finished"
    win, lose = (report_.a, report_.b) if claim == "a" else (report_.b, report_.a)
    how = " (conceded)" if report_.conceded_by is not None and claim == report_.claim else ""
    return f"<@{user_of(win)}> beat <@{user_of(lose)}>{how}"


def _adding(loaded: Loaded, actor: tables.Actor, treasures_left: int | None, *, disputed: bool = False):
    """What the one who answers a report adds to it: the opponent their treasures after the game (and
    a dispute its mark); an organizer confirming for the absent opponent adds nothing."""

    def add(claim: claims.Claim, role: str) -> PendingReport:
        pending = claim.result_as(PendingReport)
        if role != claims.OPPONENT:
            if treasures_left is not None:
                raise UserError("Only the reporter's opponent tells their treasures when confirming.")
            return pending
        seat = loaded.user_ids.index(actor.user_id)
        pending = pending.with_treasures(seat, treasures_left)
        return replace(pending, status="disputed", disputed_by=seat) if disputed else pending

    return add


async def confirm_report(
    db: Database, game_id: int, report_id: int, actor: tables.Actor, *, treasures_left: int | None = None,
    for_absent: bool = False, answered_in: int | None = None,
) -> ActionResult:
    """The opponent confirms a pending report: it is applied to the game. The opponent says how many
    treasures they have left after the game (`treasures_left`, which their Confirm asks them), as the
    reporter did in their report. An organizer who does not play in the game confirms it for the
    absent opponent (`for_absent`, asked first: without it, `AbsentConfirmNeeded`), without a count:
    the opponent is told by DM, and may still say their treasures until the PLAY phase ends."""

    async def apply(session: AsyncSession, loaded: Loaded, ended: claims.Claim) -> ActionResult:
        if ended.absent is not None:
            loaded.bookkeeping.absent[str(loaded.user_ids.index(ended.absent))] = report_id
        await claims.close(session, RULES, loaded, ended, answered_in=None if ended.absent else answered_in)
        result = await _apply_report(session, loaded, ended.result_as(PendingReport), ended=ended)
        return replace(result, for_absent=actor.user_id) if ended.absent is not None else result

    return await claims.confirmed(db, GAMES, RULES, game_id, report_id, actor, for_absent=for_absent, apply=apply,
                                  round=_running, adding=lambda loaded: _adding(loaded, actor, treasures_left))


async def dispute_report(
    db: Database, game_id: int, report_id: int, actor: tables.Actor, *, treasures_left: int | None = None,
    answered_in: int | None = None,
) -> ActionResult:
    """The opponent disputes a pending report (with their treasures after the game, for the
    decision): the organizers who do not play in the game are called to decide it."""

    async def apply(session: AsyncSession, loaded: Loaded, answer: claims.Answer) -> ActionResult:
        disputed = answer.claim.result_as(PendingReport)
        _dry_run(GAMES.running(loaded), disputed)  # a count the engine refuses is refused now, not at the decision
        await claims.close(session, RULES, loaded, answer.claim, answered_in=answered_in)
        result = await _disputed(session, loaded, disputed)
        return replace(result, words=claims.words(RULES, loaded, answer.claim))

    return await claims.disputed(db, GAMES, RULES, game_id, report_id, actor, apply=apply, round=_running,
                                 adding=lambda loaded: _adding(loaded, actor, treasures_left, disputed=True))


def _running(loaded: Loaded) -> int:
    """A report of a running game (its reports have no rounds: a phase's are cleared when it ends)."""
    GAMES.running(loaded)
    return 0


def _kept_concession(pending: PendingReport, decision: str) -> int | None:
    """A decision keeps the report's concession when it names the same winner (the conceder lost)."""
    if pending.conceded_by is None or decision not in ("a", "b"):
        return None
    loser = pending.b if decision == "a" else pending.a
    return pending.conceded_by if pending.conceded_by == loser else None


async def decide_report(
    db: Database, game_id: int, report_id: int, decision: str, actor: tables.Actor, *, answered_in: int | None = None,
) -> ActionResult:
    """An organizer who does not play in the game decides a (disputed) report through the kit's decide
    step (`claims.decide`): seat a won, seat b won, a draw, or void (report again)."""
    if decision not in DECISIONS:
        raise UserError(f"Unknown decision {decision!r}.")
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = GAMES.running(loaded)
        claim = _book(loaded).find(report_id)
        pending = claim.result_as(PendingReport) if claim is not None else None
        decided = pending if pending is None or decision == "void" else replace(
            pending, claim=decision, conceded_by=_kept_concession(pending, decision))
        ended = await claims.decide(session, RULES, loaded, claim, actor, match=f"report #{report_id}'s game",
                                    result=decided, how=claims.VOID if decision == "void" else claims.DECIDE,
                                    answered_in=answered_in)
        if decision == "void":
            GAMES.save(loaded)
            return ActionResult(_view(loaded), words=claims.words(RULES, loaded, ended))
        _dry_run(state, decided)
        return await _apply_report(session, loaded, decided, ended=ended)


# --- the disputed report's call: recorded as a copy with the decide buttons ------------------------


async def _record_call(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    call = Dispute.from_payload(queued.payload)
    try:
        await claims.showing(session, GAMES, RULES, call.game_id, call.report.id, channel_id=channel_id,
                             message_id=message_id, status=claims.DISPUTED)
    except UserError:  # the game is gone: nothing to keep
        return


outbox.on_sent(DISPUTE, _record_call)


async def report_shown(db: Database, game_id: int, report_: PendingReport, channel_id: int, message_id: int) -> None:
    """A public message shows `report_` with its buttons (a report's answer, or a dispute shown again):
    kept by the kit, so its buttons go once it no longer waits for them (at once, if it already does not)."""
    status = claims.DISPUTED if report_.status == "disputed" else claims.REPORTED
    await claims.shown_in(db, GAMES, RULES, game_id, report_.id, channel_id=channel_id, message_id=message_id,
                          status=status)


# --- the end -----------------------------------------------------------------------------------


async def final_result(db: Database, game_id: int) -> FinalResult:
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        post = await _finish_post(session, loaded)
        game = _view(loaded)
        return FinalResult(game, standings_of(game) if game.state else [], post.channel_id)
