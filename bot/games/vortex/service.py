"""Vortex Based Magic games: lobby, the opening hands by DM, draws (one pick at a time by DM), passes,
mulligans, shoe effects, the end. One write transaction per action.

The lobby is the shared table lifecycle (`bot.kit.tables`, `SPEC` below); begin deals with the
engine (`bot.games.vortex.rules`, seeded with the table's seed). The engine's whole state is the game
row's `state` document; what it does not know lives in `bookkeeping`, saved with it:

* ``offer``: how many picks have been offered so far. The pending pick's DM buttons carry its
  number; a button with another number belongs to a pick already made (or never current).
* ``look``: the same for looks at the top of the shoe (their arrange buttons).
* ``search``: the same for searches of the shoe (their DM's menus and buttons).
* ``winner``: the user an organizer declared the winner at the end, if any.

Which DM shows the pending pick, the open look and the open search is the kit's record
(`bot.kit.shown`, keyed by the DM's outbox kind, its version the step's number), written when
Discord accepted the DM. Once that step is over (picked, put back, taken, the shoe changed, the
game ended or was cancelled), its DM is edited to say so, without its buttons (`RETIRE`), so
nothing live-looking does nothing; a DM sent again (`/vortex resend`, a repeated `/vortex draw`)
takes the buttons off the copy before it: one message per step has live buttons.

Every action loads the row locked with the kit's documents (`GAMES`: the row, its seats, the
decoded state and bookkeeping), applies the engine (whose refusals become `UserError`s that change
nothing), writes both documents back with ``version + 1`` and queues what it owes in the outbox in
the same transaction: the public account of what happened (counts
and public cards only: never a card of a hidden zone), the picker's pack by DM, the basic-land choice
by DM when the opening turns are over, the looked-at cards by DM to the one who looked, the shoe (by
name, never in its order) by DM to the one who searches it.

What the channel is told is also appended to the game's public log, a row per event
(`VortexLogEntry`, table ``vortex_log``) in the same transaction: the event page reads it
(`public_log`), since the outbox forgets its sent rows after a few days. Every event is kept (an
action inserts its few rows; the game's row does not grow with the log) and the page shows them
`LOG_LIMIT` at a time, the newest first. Games dealt before the log was kept have none; games whose
log was kept in their bookkeeping (at most 2,000 events) had it moved to rows by migration
``0023_vortex_log_rows``, their dropped events lost.

Nothing waits on a message that may be lost: every DM the player owes an answer to is sent again by
`/vortex resend` (`resend`), and repeating the command of a pending step (`/vortex draw`
with a pick pending, `/vortex shoe action:search` with a search pending) sends its DM again.

Permissions: commands from a server act on that server's games only (`tables.check_same_server`);
DM buttons are judged by seat (only the player the DM belongs to may use it). Ending a game is for
the game's organizer or a server organizer, judged in the game's own server.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, insert, select

from bot.games.vortex import rules as engine
from bot.games.vortex.models import VortexGame, VortexLogEntry, VortexSeat
from bot.kit import documents, event_results, events, outbox, shown, tables
from bot.kit.errors import Conflict, PermissionDenied, UserError, engine_refusals
from bot.kit.events import Payload
from bot.kit.server_settings import load_settings_row
from bot.kit.text import clean_name, escape, name_key
from bot.store.db import Database

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from bot.features.cubes.service import CubeDetail

KIND = "vortex"
NOUN = "game"
STATUSES = tables.Statuses(running="running", finished="over")
ACTIVE = STATUSES.active
SHOE_ACTIONS = ("mill", "look", "reveal", "search", "top", "bottom", "shuffle")
MAX_ARRANGE = 20  # looked-at cards a DM can put back on top or bottom one by one (buttons)

# Outbox kinds (rendered by bot.games.vortex.ui; a cancellation by the kit: SPEC.cancel_notice).
PICK = "vortex.pick"  # DM: the pack to pick from (payload: PickPrompt)
BASICS = "vortex.basics"  # DM: choose 3 basic lands after the opening turns (payload: BasicsPrompt)
LOOK = "vortex.look"  # DM: the top cards of the shoe only that player saw (payload: LookPrompt)
SEARCH = "vortex.search"  # DM: the shoe, by name, to the player searching it (payload: SearchPrompt)
ANNOUNCE = "vortex.announce"  # channel: what happened, counts and public cards only (payload: Announcement)
FINAL = "vortex.final"  # the end: the winner, if any (payload: TableRef)
ENDED = "vortex.ended"  # cancelled by an organizer while running: the kit's text (TableRef)
DMS_CLOSED = "vortex.dms_closed"  # channel: "I can't DM you", the kit's text (payload: outbox.DmsClosed)
RETIRE = "vortex.retire"  # DM edit: a pick's, a look's or a search's message once it is over (payload: Retired)
# What else the kit's record (`bot.kit.shown`) keeps of a game's messages: the channel message that
# tells the opening (edited as it goes), the message of the turn of play now (edited as the turn goes,
# with its Draw, Pass and Play buttons; version: the turn's number), and each player's own DM, the
# "desk" (`desk_key`), which shows their picks and their basic-land choice, edited in place.
OPENING, TURN = "vortex.opening", "vortex.turn"
STEPS = (PICK, LOOK, SEARCH)  # DMs recorded as shown (`bot.kit.shown`), retired when their step is over
LOG_LIMIT = 2000  # public events on a page of the event page's log (the newest first)
ACCOUNT_LIMIT = 500  # log events a channel message of the opening or of a turn is drawn from, at most


@dataclass
class VortexBook:
    """What the service keeps beside the engine's state (the row's `bookkeeping` document): how many
    picks, looks and searches were offered (a DM's buttons carry its number, so an older one is
    refused) and the winner named at the end."""

    offer: int = 0
    look: int = 0
    search: int = 0
    winner: int | None = None
    turn: int = 0  # the turn of play now (`engine.TurnStarted.turn`; 0 before play): its channel message
    turn_seq: int = 0  # the public log's `seq` of that turn's start: its channel message tells from there

    def number_of(self, kind: str) -> int:
        """The number of the latest pick (`PICK`), look (`LOOK`) or search (`SEARCH`)."""
        return {PICK: self.offer, LOOK: self.look, SEARCH: self.search}[kind]


# --- news the engine's events do not tell ------------------------------------------------------------


@dataclass(frozen=True)
class GameBegan(engine.Event):
    """The deal: the turn order and the shoe's size after it."""

    turn_order: tuple[int, ...]
    shoe_size: int


@dataclass(frozen=True)
class Drawing(engine.Event):
    """A draw begins: ``count`` picks, each by DM."""

    seat: int
    count: int


@dataclass(frozen=True)
class Looked(engine.Event):
    """A look at the top of the shoe, in public: who looked and how many cards (the cards are the
    looker's alone: `engine.ShoeLooked`)."""

    seat: int
    count: int


# Events the channel hears about. None of them names a card of a hidden zone: milled, discarded,
# mulliganed and moved cards (a card leaving or entering the hand is shown) are public once moved;
# the rest are counts.
# Revealed cards (ShoeRevealed) and a search's cards when it shows them (onto the battlefield, or
# revealed) are public by the rules.
PUBLIC_EVENTS = (
    GameBegan, Drawing, Looked,
    engine.PhaseChanged, engine.TurnStarted, engine.PackPassed, engine.Replenished, engine.EmptyPackPenalty,
    engine.PackOverflowDiscard, engine.MulliganTaken, engine.Milled, engine.TopArranged, engine.CardsPutIntoShoe,
    engine.ShoeShuffled, engine.ShoeRevealed, engine.SearchBegan, engine.SearchFinished, engine.GameOver,
    engine.CardMoved, engine.LifeChanged,
)


class StaleMessage(Conflict):
    """A DM button of a pick, a look or a basic-land choice that is no longer current."""

    def __init__(self, game_id: int, user_id: int, what: str) -> None:
        super().__init__(what)
        self.game_id, self.user_id = game_id, user_id


# --- payloads and views -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt(Payload):
    """A DM the player owes an answer to: whose it is, in which game."""

    game_id: int
    guild_id: int
    channel_id: int
    user_id: int
    seat: int


@dataclass(frozen=True)
class PickPrompt(Prompt):
    """A pick to make: the picker's pack, by DM. `offer` numbers it (its buttons carry the number)."""

    offer: int
    pack: tuple[str, ...]
    pick_number: int  # within the draw (1-based)
    picks_total: int
    opening_turn: int  # k of `opening_turns` in the opening-hand phase; 0 in normal play
    opening_turns: int
    shoe_size: int
    replenish_to: int  # 7, or 5 after a mulligan this turn
    # A new DM when sent again (True: the player may have lost it) or queued before desks were kept
    # (None); else (False) shown on the player's desk, edited in place.
    again: bool | None = None


@dataclass(frozen=True)
class BasicsPrompt(Prompt):
    """After the opening turns: the player chooses 3 basic lands (their hand so far, to choose by)."""

    hand: tuple[str, ...]
    # A new DM when sent again (True: the player may have lost it) or queued before desks were kept
    # (None); else (False) shown on the player's desk, edited in place.
    again: bool | None = None


@dataclass(frozen=True)
class LookPrompt(Prompt):
    """The top cards of the shoe that only this player saw (top first); `look` numbers the look."""

    look: int
    cards: tuple[str, ...]

    @property
    def can_arrange(self) -> bool:
        return 0 < len(self.cards) <= MAX_ARRANGE


@dataclass(frozen=True)
class SearchPrompt(Prompt):
    """A search of the shoe: the whole shoe by name (sorted, so its order never shows), up to `count`
    cards to take to `to`, those `chosen` so far; `search` numbers the search."""

    search: int
    count: int
    to: str
    reveal: bool
    shoe: tuple[str, ...]
    chosen: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        """The distinct names in the shoe, in the order the DM lists them (its menus' values index this)."""
        return sorted(set(self.shoe), key=lambda card: (name_key(card), card))

    def available(self, name: str) -> int:
        """Copies of `name` in the shoe not chosen yet."""
        return self.shoe.count(name) - self.chosen.count(name)

    @property
    def room(self) -> int:
        return self.count - len(self.chosen)


@dataclass(frozen=True)
class Announcement(Payload):
    """What the channel hears about one action: its public events, the players by seat, and who is
    pinged (the player whose turn of normal play begins); a snapshot, so a late send shows what
    happened then."""

    game_id: int
    users: tuple[int, ...]
    opening_turns: int
    events: tuple[engine.Event, ...]
    ping: tuple[int, ...] = ()
    # The channel message that tells these events: the opening's (0) or turn `turn`'s of play, which
    # tells the public log from `since` on; `opens`: this post begins it (a new message, pinging the
    # player whose turn it is); `redraw`: no news, the message shown as it now stands (the game ended).
    turn: int = -1  # (-1: queued before these messages were kept: the news on its own, as then)
    since: int = 0
    opens: bool = False
    redraw: bool = False

    def user_of(self, seat: int) -> int:
        return self.users[seat]


@dataclass(frozen=True)
class Retired(Payload):
    """A DM that showed pick, look or search number `number` (`kind`), shown again without its
    buttons: its step is over (`OVER`), or it was sent again in a newer DM (`MOVED`)."""

    game_id: int
    kind: str
    number: int
    channel_id: int
    message_id: int
    reason: str = "over"


OVER, MOVED = "over", "moved"  # why a DM was retired (`Retired.reason`)


@dataclass(frozen=True)
class GameView(tables.TableView):
    cube_name: str
    cube_size: int
    seed: int
    version: int
    player_ids: tuple[int, ...]  # join order in the lobby; seat order once running
    state: engine.VortexState | None  # a private copy; show the public parts only (engine.public_status)
    winner_id: int | None = None

    def user_of(self, seat: int) -> int:
        return self.player_ids[seat]

    @property
    def public(self) -> engine.PublicStatus | None:
        return engine.public_status(self.state) if self.state is not None else None


@dataclass(frozen=True)
class HandView:
    """What one player may see: their hand and their own pack (`/vortex hand`)."""

    game: GameView
    private: engine.PrivateView


@dataclass
class ActionResult:
    game: GameView
    events: list[engine.Event] = field(default_factory=list)
    held: outbox.Queued | None = None  # the actor's next pick, held for the caller to show in place
    resent: list[outbox.Queued] = field(default_factory=list)  # a pending step's DM, queued again (held)

    def first(self, kind: type) -> Any:
        return next((e for e in self.events if isinstance(e, kind)), None)


# --- the game's documents ------------------------------------------------------------------------

Loaded = documents.Game[VortexGame, VortexSeat, engine.VortexState]


def _view(loaded: Loaded) -> GameView:
    row = loaded.row
    return GameView(
        **tables.view_columns(row), cube_name=row.cube_name, cube_size=len(row.cube_cards), seed=row.seed,
        version=loaded.version, player_ids=tuple(loaded.user_ids), state=GAMES.copy(loaded.state),
        winner_id=loaded.bookkeeping.winner,
    )


def _view_of(loaded: tables.Loaded) -> GameView:
    return _view(GAMES.decode(loaded))


def _button_seat(loaded: Loaded, user_id: int, seat: int) -> engine.VortexState:
    """A DM button's checks: running, and the button is the clicking player's own."""
    state = GAMES.running(loaded)
    if GAMES.seat(state, user_id) != seat:
        raise PermissionDenied("That message is not yours.")
    return state


# --- prompts (what a player's DM shows now) ---------------------------------------------------------


def _where(loaded: Loaded, seat: int) -> dict:
    row = loaded.row
    user_id = loaded.user_ids[seat]
    return {"game_id": row.id, "guild_id": row.guild_id, "channel_id": row.channel_id, "user_id": user_id, "seat": seat}


def _pick_prompt(loaded: Loaded) -> PickPrompt | None:
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None or state.draft is None:
        return None
    draft = state.draft
    view = engine.private_view(state, draft.seat)
    return PickPrompt(
        **_where(loaded, draft.seat), offer=loaded.bookkeeping.offer, pack=view.pack,
        pick_number=view.pick_number, picks_total=view.picks_total,
        opening_turn=state.turn if state.phase == engine.OPENING else 0, opening_turns=state.opening_turns,
        shoe_size=len(state.shoe), replenish_to=view.replenish_to, again=False,
    )


def _basics_prompt(loaded: Loaded, seat: int) -> BasicsPrompt | None:
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None or state.phase != engine.BASICS:
        return None
    player = state.players[seat]
    if player.opening_basics is not None:
        return None
    return BasicsPrompt(**_where(loaded, seat), hand=tuple(player.hand), again=False)


def _look_prompt(loaded: Loaded) -> LookPrompt | None:
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None or state.look is None:
        return None
    look = state.look
    return LookPrompt(**_where(loaded, look.seat), look=loaded.bookkeeping.look,
                      cards=tuple(state.shoe[: look.count]))


def _search_prompt(loaded: Loaded) -> SearchPrompt | None:
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None or state.search is None:
        return None
    search = state.search
    return SearchPrompt(**_where(loaded, search.seat), search=loaded.bookkeeping.search, count=search.count,
                        to=search.to, reveal=search.reveal, shoe=tuple(sorted(state.shoe, key=lambda c: (name_key(c), c))),
                        chosen=tuple(search.chosen))


def _prompts_of(loaded: Loaded, user_id: int) -> list[tuple[str, Prompt]]:
    """Every DM the player owes an answer to now: their pick, their basic lands, their look, their
    search."""
    state = loaded.state
    if state is None:
        return []
    seat = next((p.seat for p in state.players if p.user_id == user_id), None)
    if seat is None:
        return []
    found: list[tuple[str, Prompt | None]] = [
        (PICK, p if (p := _pick_prompt(loaded)) and p.seat == seat else None),
        (BASICS, _basics_prompt(loaded, seat)),
        (LOOK, p if (p := _look_prompt(loaded)) and p.seat == seat else None),
        (SEARCH, p if (p := _search_prompt(loaded)) and p.seat == seat else None),
    ]
    return [(kind, prompt) for kind, prompt in found if prompt is not None]


def _dm(loaded: Loaded, kind: str, prompt: Prompt) -> outbox.Message:
    return loaded.dm(kind, prompt, prompt.user_id)


def _again(prompt: Prompt) -> Prompt:
    """`prompt` sent again (the first may be lost): a new DM, never an edit of the player's desk."""
    return replace(prompt, again=True) if hasattr(prompt, "again") else prompt


def desk_key(seat: int) -> str:
    """The kit's key (`bot.kit.shown`) of a player's desk: the DM that shows their picks and basic lands."""
    return f"vortex.desk.{seat}"


# --- committing an action --------------------------------------------------------------------------


def _announcement(loaded: Loaded, public: list[engine.Event], turn: int = 0, since: int = 0, opens: bool = False,
                  redraw: bool = False) -> Announcement:
    """The channel's snapshot of `public`, pinging the player whose turn of normal play begins (nobody
    else, ever), told by the opening's message or turn `turn`'s (see `Announcement`)."""
    state = loaded.state
    assert state is not None
    called = tuple(state.players[e.seat].user_id for e in public
                   if isinstance(e, engine.TurnStarted) and e.phase == engine.PLAY)
    return Announcement(loaded.id, tuple(loaded.user_ids), state.opening_turns, tuple(public), called,
                        turn=turn, since=since, opens=opens, redraw=redraw)


def _news(loaded: Loaded, public: list[engine.Event], first: int) -> list[outbox.Message]:
    """The channel's account of an action's `public` events (logged from `seq` `first` on): what
    happened in the turn now goes to that turn's message (the opening's before play), and a turn of
    play that begins opens a message of its own (the only new post, pinging its player). A turn
    that ends with nothing to tell is still redrawn (its buttons go)."""
    book = loaded.bookkeeping
    told: list[outbox.Message] = []
    segment: list[engine.Event] = []
    turn, since, opens = book.turn, book.turn_seq, False
    for seq, event in enumerate(public, first):
        if isinstance(event, engine.TurnStarted) and event.phase == engine.PLAY:
            if segment or turn:
                told.append(loaded.channel(ANNOUNCE, _announcement(loaded, segment, turn, since, opens,
                                                                   redraw=not segment)))
            segment, (turn, since, opens) = [], (event.turn, seq, True)
            book.turn, book.turn_seq = turn, seq
        segment.append(event)
    if segment:
        told.append(loaded.channel(ANNOUNCE, _announcement(loaded, segment, turn, since, opens)))
    return told


def _redraw(loaded: Loaded) -> outbox.Message:
    """The message of the turn now (the opening's before play) shown as it stands: once the game is
    over or cancelled, without its buttons."""
    book = loaded.bookkeeping
    return loaded.channel(ANNOUNCE, _announcement(loaded, [], book.turn, book.turn_seq, redraw=True))


async def _commit(
    session: AsyncSession, loaded: Loaded, events: list[engine.Event], *, notes: tuple[engine.Event, ...] = (),
    quiet: tuple[type, ...] = (), offered: bool = False, hold_for: int | None = None, answered: int | None = None,
    **columns: Any,
) -> outbox.Queued | None:
    """Save an action and queue what it owes: the public account (`notes` first, then the public
    events not `quiet`), a new pick's DM (held when it is `hold_for`'s: the caller shows it in place
    of the message clicked and returns the row), the basic-land DMs once the opening turns are over,
    and a look's or a search's DM."""
    state = loaded.state
    assert state is not None
    offered = offered or any(isinstance(e, engine.PickOffered) for e in events)
    looked = any(isinstance(e, engine.ShoeLooked) for e in events)
    began_search = any(isinstance(e, engine.SearchBegan) for e in events)
    book = loaded.bookkeeping  # one more pick, look or search: its DM's buttons carry the new number
    book.offer, book.look, book.search = book.offer + offered, book.look + looked, book.search + began_search
    also: list[outbox.Message] = []
    if any(isinstance(e, engine.PhaseChanged) and e.phase == engine.BASICS for e in events):
        also += [_dm(loaded, BASICS, p) for seat in range(len(state.players)) if (p := _basics_prompt(loaded, seat))]
    if looked and (look := _look_prompt(loaded)) is not None:
        also.append(_dm(loaded, LOOK, look))
    if began_search and (search := _search_prompt(loaded)) is not None:
        also.append(_dm(loaded, SEARCH, search))
    held = None
    pick = _pick_prompt(loaded) if offered else None
    if pick is not None and pick.seat == hold_for:
        [held] = await outbox.queue(session, _dm(loaded, PICK, pick), hold=True)
    elif pick is not None:
        also.append(_dm(loaded, PICK, pick))
    # Retired first: a desk retired and showing the player's next pick in one commit shows the pick.
    also = [*await _retired(session, loaded, answered), *also]
    told = [*notes, *(e for e in events if not isinstance(e, quiet))]
    public = [e for e in told if isinstance(e, PUBLIC_EVENTS)]
    first = await _keep_log(session, loaded, public)
    await GAMES.commit(session, loaded, [], also=[*_news(loaded, public, first), *also], **columns)
    return held


async def _keep_log(session: AsyncSession, loaded: Loaded, public: list[engine.Event]) -> int:
    """Append to the game's public log (`VortexLogEntry` rows, in the action's transaction) what the
    channel is told (`public`, of `PUBLIC_EVENTS`: counts and public cards only); returns the `seq` of
    the first. The game's row is locked (`GAMES.load`), so its next `seq` is the last one's plus one."""
    if not public:
        return 0
    last = await session.scalar(select(func.max(VortexLogEntry.seq)).where(VortexLogEntry.game_id == loaded.id))
    first = (last or 0) + 1
    await session.execute(insert(VortexLogEntry).values(
        [{"game_id": loaded.id, "seq": first + i, "event": events.encode(e)} for i, e in enumerate(public)]))
    return first


@dataclass(frozen=True)
class PublicLog:
    """One page of a game's public log: its events (oldest first); the page (1: the newest
    `LOG_LIMIT` events, 2: the ones before, ...) and how many there are; and whether events older
    than the oldest page were lost (a game whose log was once kept with it, capped)."""

    events: tuple[engine.Event, ...]
    page: int
    pages: int
    lost: bool


async def public_log(db: Database, game_id: int, page: int = 1) -> PublicLog | None:
    """Page `page` of a game's public log (a page past the oldest is the oldest); None for a game
    dealt before the log was kept (or never dealt). An entry that no longer decodes (a damaged row)
    is left out."""
    of_game = VortexLogEntry.game_id == game_id
    async with db.read() as session:
        first, last = (await session.execute(
            select(func.min(VortexLogEntry.seq), func.max(VortexLogEntry.seq)).where(of_game))).one()
        if last is None:
            return None
        pages = -(-(last - first + 1) // LOG_LIMIT)
        page = min(max(page, 1), pages)
        newest = last - (page - 1) * LOG_LIMIT
        stored = (await session.execute(
            select(VortexLogEntry.event).where(of_game, VortexLogEntry.seq > newest - LOG_LIMIT,
                                               VortexLogEntry.seq <= newest)
            .order_by(VortexLogEntry.seq))).scalars().all()
    kept = []
    for entry in stored:
        try:
            event = events.decode(entry, engine.Event)
        except (events.DecodeError, KeyError, TypeError, ValueError):
            continue
        if isinstance(event, PUBLIC_EVENTS):
            kept.append(event)
    return PublicLog(tuple(kept), page, pages, first > 1)


def _open_step(loaded: Loaded, kind: str) -> int | None:
    """The number of the pick, look or search (`kind`) open now, if any."""
    state = loaded.state
    if loaded.row.status != STATUSES.running or state is None:
        return None
    step = {PICK: state.draft, LOOK: state.look, SEARCH: state.search}[kind]
    return None if step is None else loaded.bookkeeping.number_of(kind)


def _owner(game_id: int) -> shown.Owner:
    return shown.Owner(KIND, game_id)


async def _retired(session: AsyncSession, loaded: Loaded, answered: int | None = None) -> list[outbox.Message]:
    """Bring the records of what the DMs show (`bot.kit.shown`) to the steps open now, and return
    the edits that take the buttons off every DM whose step is over (but `answered`, the message
    whose click ended it: the caller shows the outcome there)."""
    owner = _owner(loaded.id)
    recorded = await shown.wanted(session, owner)
    over: list[shown.Shown] = []
    for kind in STEPS:
        number = _open_step(loaded, kind)
        if number is None and kind in recorded:
            over += await shown.retire(session, owner, kind)
        elif number is not None and recorded.get(kind) != number:
            over += await shown.want(session, owner, kind, number)
    return [_retire(loaded.id, loaded.row.guild_id, s) for s in over if s.message_id != answered]


def _retire(game_id: int, guild_id: int | None, message: shown.Shown, reason: str = OVER) -> outbox.Message:
    retired = Retired(game_id, message.key, message.version, message.channel_id, message.message_id, reason)
    return outbox.Message(RETIRE, retired.to_payload(), channel_id=message.channel_id, guild_id=guild_id)


# --- the lobby -------------------------------------------------------------------------------------


def _players_problem(count: int) -> str | None:
    if not engine.MIN_PLAYERS <= count <= engine.MAX_PLAYERS:
        return f"Vortex Based Magic is for {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS} players; {count} joined so far."
    return None


def smallest_cube(players: int) -> int:
    """Cube cards needed to deal every player and the passed pack 7 (the shoe adds 5 basics per player)."""
    return max(engine.PACK_SIZE * (players + 1) - len(engine.BASIC_TYPES) * players, 0)


async def _deal(session: AsyncSession, seated: tables.Loaded, now: datetime) -> ActionResult:
    """The players are seated (shuffled with the game's seed): shuffle the shoe, deal the packs and
    the passed pack, and offer the first opening pick by DM."""
    loaded = GAMES.decode(seated)
    row = loaded.row
    loaded.state = GAMES.call(engine.new_game, list(row.cube_cards), [s.user_id for s in seated.seats], seed=row.seed)
    loaded.bookkeeping = VortexBook()
    began = GameBegan(tuple(loaded.state.turn_order), len(loaded.state.shoe))
    await _commit(session, loaded, [], notes=(began,), offered=True)
    return ActionResult(_view(loaded))


async def _cancelled(session: AsyncSession, seated: tables.Loaded, was_running: bool) -> None:
    """A running game cancelled: its open pick's, look's, search's and basic lands' DMs lose their
    buttons, and the message of the turn now (the opening's before play) says so."""
    if not was_running:
        return
    loaded = GAMES.decode(seated)
    choosing = _choosing_basics(loaded.state)
    await outbox.queue(session, *await _retired(session, loaded), *await _desks_closed(session, loaded, choosing),
                       _redraw(loaded))


def _choosing_basics(state: engine.VortexState | None) -> list[int]:
    """The seats still choosing their basic lands (their desk shows the land buttons)."""
    if state is None or state.phase != engine.BASICS:
        return []
    return [p.seat for p in state.players if p.opening_basics is None]


async def _desks_closed(session: AsyncSession, loaded: Loaded, seats: list[int]) -> list[outbox.Message]:
    """The desks of `seats`, whose basic lands were still to choose when the game ended or was
    cancelled: their buttons go (a click would do nothing)."""
    owner = _owner(loaded.id)
    return [_retire(loaded.id, loaded.row.guild_id, record)
            for seat in seats for record in await shown.retire(session, owner, desk_key(seat))]


SPEC = tables.TableSpec(
    kind=KIND, noun=NOUN, title="Vortex", model=VortexGame, seat_model=VortexSeat, view=_view_of, begin=_deal,
    players_problem=_players_problem, statuses=STATUSES, cancel_notice=ENDED, on_cancel=_cancelled,
)
GAMES: documents.Documents[VortexGame, VortexSeat, engine.VortexState] = documents.Documents(
    SPEC, engine.VortexState, refusals=engine_refusals(engine.VortexError, engine.NotAPlayer), seat_of=engine.seat_of,
    not_running=documents.NotRunning(
        lobby="That game has not begun yet: an organizer presses Begin in the lobby.",
        finished="That game is over.", cancelled="That game was cancelled."),
    announce=documents.Announcer(ANNOUNCE, PUBLIC_EVENTS, _announcement), bookkeeping=VortexBook,
)


async def create_game(
    db: Database, actor: tables.Actor, *, channel_id: int, cube: CubeDetail, seed: int | None = None
) -> GameView:
    """Open a lobby (organizers; 2–5 players). The cube must deal 7 cards to each seat and the passed pack."""
    need = smallest_cube(engine.MIN_PLAYERS)
    if cube.size < need:
        raise UserError(f"Cube **{cube.name}** has {cube.size} cards; Vortex needs at least {need} "
                        f"({smallest_cube(engine.MAX_PLAYERS)} for {engine.MAX_PLAYERS} players).")
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, cube_name=cube.name,
            max_seats=engine.MAX_PLAYERS, cube_cards=list(cube.names),
        )
        return _view_of(loaded)


TABLES = tables.TableUseCases[GameView](SPEC)
get_game, find_game, begin = TABLES.get, TABLES.find, TABLES.begin


# --- turns: draw, pick, pass, mulligan ---------------------------------------------------------------


async def _act(db: Database, game_id: int, actor: tables.Actor, operation, *args, notes=None,
               pending: str | None = None) -> ActionResult:
    """A player's command: one transaction that runs `operation(state, seat, *args)` on the game and
    commits it (`notes(seat, events)`: lines of news the engine's events do not tell). If the actor
    owes an answer of kind `pending` (the step this command starts: a pick, a search), nothing runs:
    that step's DM is queued again instead (`resent`, held for the caller), as its first may be lost."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state, seat = GAMES.playing(loaded, actor)
        owed = [prompt for kind, prompt in _prompts_of(loaded, actor.user_id) if kind == pending]
        if owed:
            resent = await outbox.queue(session, *(_dm(loaded, pending, _again(prompt)) for prompt in owed),
                                        hold=True)
            return ActionResult(_view(loaded), resent=resent)
        events = GAMES.call(operation, state, seat, *args)
        await _commit(session, loaded, events, notes=notes(seat, events) if notes else ())
        return ActionResult(_view(loaded), list(events))


async def draw(db: Database, game_id: int, actor: tables.Actor, count: int = 1) -> ActionResult:
    """Draw `count` = that many replenish+pick steps; the first pick goes to the player's DMs. With a
    pick of the actor's pending, nothing is drawn: that pick's DM is queued again (`resent`, held
    for the caller to send), since its first one may be lost."""
    return await _act(db, game_id, actor, engine.draw, count, pending=PICK,
                      notes=lambda seat, _: (Drawing(seat, count),))


async def pick(db: Database, game_id: int, user_id: int, *, seat: int, offer: int, index: int,
               message_id: int | None = None) -> ActionResult:
    """A pick button: card `index` of the pack offered as pick `offer`. The player's next pick of the
    same draw is held for the caller to show in place of the clicked message (`message_id`: other
    copies of the pick lose their buttons)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = _button_seat(loaded, user_id, seat)
        current = _pick_prompt(loaded)
        if current is None or current.seat != seat or current.offer != offer:
            mine = current is not None and current.seat == seat
            raise StaleMessage(game_id, user_id, "That pick was already made." + (
                f" Your current pick (pick {current.pick_number} of {current.picks_total}) is in your newest DM."
                if mine else ""))
        events = GAMES.call(engine.pick, state, seat, index)
        # The next replenish of the same draw is not news: the draw was announced when it began.
        held = await _commit(session, loaded, events, quiet=(engine.Replenished,), hold_for=seat,
                             answered=message_id)
        return ActionResult(_view(loaded), list(events), held=held)


async def pass_turn(db: Database, game_id: int, actor: tables.Actor) -> ActionResult:
    """The active player's pass step: they swap packs with the passed pack; the next turn begins."""
    return await _act(db, game_id, actor, engine.pass_turn)


def mulligan_problem(state: engine.VortexState, seat: int) -> str | None:
    """Why `seat` cannot mulligan now (None: they can), without changing anything (asked before the
    confirmation prompt)."""
    try:
        engine.mulligan(GAMES.copy(state), seat)
    except engine.VortexError as error:
        return str(error)
    return None


async def mulligan(db: Database, game_id: int, actor: tables.Actor) -> ActionResult:
    """In your upkeep with 5+ basics in your pack: reveal and exile it; replenish to 5 this turn."""
    return await _act(db, game_id, actor, engine.mulligan)


# --- the shoe ------------------------------------------------------------------------------------------


SEARCH_WORDS = {engine.HAND: "your hand", engine.BATTLEFIELD: "the battlefield", engine.TOP: "the top of the shoe"}


def _shoe_call(state: engine.VortexState, seat: int, action: str, count: int | None, card: str | None,
               to: str | None = None, reveal: bool | None = None):
    """The engine operation for `/vortex shoe` (mill, look, reveal and search take a count; top and
    bottom a card; search also where the cards go and whether they are revealed)."""
    if action not in SHOE_ACTIONS:
        raise UserError(f"Unknown shoe action {action!r}; use one of {', '.join(SHOE_ACTIONS)}.")
    if action != "search" and (to is not None or reveal is not None):
        raise UserError("`to` and `reveal` are for search only.")
    if action in ("top", "bottom"):
        if count is not None or not card:
            raise UserError(f"Name the card from your hand to put on the {action} of the shoe with `card` "
                            "(one card per command; `count` is for mill, look, reveal and search).")
        return engine.put_on_shoe(state, seat, [_zone_card(state, seat, engine.HAND, card)], position=action)
    if card:
        raise UserError("`card` is for top and bottom only.")
    if action == "shuffle":
        if count is not None:
            raise UserError("Shuffling takes no `count`.")
        return engine.shuffle_shoe(state, seat)
    count = 1 if count is None else count
    if action == "search":
        if to is not None and to not in SEARCH_WORDS:
            raise UserError("Searched cards go to your hand, the battlefield or the top of the shoe.")
        return engine.begin_search(state, seat, count, to=to or engine.HAND, reveal=bool(reveal))
    operation = {"mill": engine.mill, "look": engine.look_at_top, "reveal": engine.reveal_top}[action]
    return operation(state, seat, count)


def _zone_card(state: engine.VortexState, seat: int, zone: str, typed: str) -> str:
    """The card of the player's `zone` that `typed` names: the same name in any spelling, or the only
    card whose name starts with it (autocomplete can offer only the first 100 characters of a name)."""
    cards = state.zone(seat, zone)
    place = engine.ZONE_PLACES[zone]
    key = name_key(typed)
    if not key:
        raise UserError(f"Name a card {place}.")
    if any(name_key(card) == key for card in cards):
        return typed
    starting = {card for card in cards if name_key(card).startswith(key)}
    if len(starting) == 1:
        return starting.pop()
    if starting:
        raise UserError(f"Several cards {place} start with **{escape(clean_name(typed))}**: give the whole name.")
    raise UserError(f"**{escape(clean_name(typed))}** is not {place}.")


def zone_cards(game: GameView, user_id: int, zone: str) -> list[str]:
    """The cards of a player's zone (for autocomplete: only what the command can take from there)."""
    if game.state is None or user_id not in game.player_ids or zone not in engine.ZONES:
        return []
    return list(getattr(game.state.players[game.player_ids.index(user_id)], zone))


# --- the table's bookkeeping: cards between zones, life ------------------------------------------------


def _move_call(state: engine.VortexState, seat: int, card: str, source: str, destination: str):
    if source not in engine.ZONES or destination not in engine.ZONES:
        raise UserError("A card moves between your hand, the battlefield, your graveyard and exile.")
    if source == destination:
        raise UserError("Choose two different zones.")
    return engine.move_card(state, seat, _zone_card(state, seat, source, card), source, destination)


async def move(db: Database, game_id: int, actor: tables.Actor, card: str, source: str = engine.HAND,
               destination: str = engine.BATTLEFIELD) -> ActionResult:
    """The player moves one of their cards between their hand, the battlefield, their graveyard and
    exile (the default: plays it from their hand); the channel is told, naming the card."""
    return await _act(db, game_id, actor, _move_call, card, source, destination)


async def life(db: Database, game_id: int, actor: tables.Actor, amount: int) -> ActionResult:
    """The player's life goes up or down by `amount` (damage, life gain); the channel is told."""
    return await _act(db, game_id, actor, engine.adjust_life, amount)


async def shoe(
    db: Database, game_id: int, actor: tables.Actor, action: str, *, count: int | None = None, card: str | None = None,
    to: str | None = None, reveal: bool | None = None,
) -> ActionResult:
    """A library effect, which affects the shoe: mill, look (the cards go to the player by DM), reveal
    the top cards to everyone, search (the shoe goes to the player by DM; they take up to `count`
    cards `to` their hand, the battlefield or the top of the shoe, `reveal`ed or not, and it is
    shuffled), put a card from your hand on top or at the bottom, shuffle. A search repeated while
    the actor's own search is pending sends its DM again (`resent`), since the first may be lost."""
    return await _act(db, game_id, actor, _shoe_call, action, count, card, to, reveal, notes=_looked,
                      pending=SEARCH if action == "search" else None)


def _looked(seat: int, events: list[engine.Event]) -> tuple[Looked, ...]:
    """A look is news (who looked, how many cards), but its cards are the looker's alone."""
    looked = next((e for e in events if isinstance(e, engine.ShoeLooked)), None)
    return (Looked(seat, len(looked.cards)),) if looked else ()


def _current(loaded: Loaded, prompt, seat: int, field: str, number: int, stale: str):
    """`prompt` if it is the seat's and its `field` (the serial its DM buttons carry) is `number`."""
    if prompt is None or prompt.seat != seat or getattr(prompt, field) != number:
        raise StaleMessage(loaded.row.id, loaded.state.players[seat].user_id, stale)
    return prompt


async def _checked(db: Database, game_id: int, user_id: int, seat: int, check, number: int):
    """What a DM button's view-only press shows, if it is still current (`check(loaded, seat, number)`)."""
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        _button_seat(loaded, user_id, seat)
        return check(loaded, seat, number)


def _check_look(loaded: Loaded, seat: int, look: int) -> LookPrompt:
    return _current(loaded, _look_prompt(loaded), seat, "look", look,
                    "Those cards are no longer the top of the shoe as you saw them (the shoe changed): nothing was moved.")


async def checked_look(db: Database, game_id: int, user_id: int, *, seat: int, look: int) -> LookPrompt:
    """The look a DM button belongs to, if it is still current (for the view-only toggles)."""
    return await _checked(db, game_id, user_id, seat, _check_look, look)


async def arrange(db: Database, game_id: int, user_id: int, *, seat: int, look: int, bottom: frozenset[int],
                  message_id: int | None = None) -> ActionResult:
    """Put the looked-at cards back: those in `bottom` under the shoe, the rest on top (both in the
    order seen). `message_id`: the DM clicked (the caller shows the outcome there; other copies of
    the look lose their buttons)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        _button_seat(loaded, user_id, seat)
        prompt = _check_look(loaded, seat, look)
        if not prompt.can_arrange or any(not 0 <= i < len(prompt.cards) for i in bottom):
            raise UserError(f"Choose among the {len(prompt.cards)} cards you looked at.")
        order = range(len(prompt.cards))
        events = GAMES.call(engine.arrange_top, loaded.state, seat, [i for i in order if i not in bottom],
                              [i for i in order if i in bottom])
        await _commit(session, loaded, events, answered=message_id)
        return ActionResult(_view(loaded), list(events))


# --- a search of the shoe ---------------------------------------------------------------------------------


def _check_search(loaded: Loaded, seat: int, search: int) -> SearchPrompt:
    return _current(loaded, _search_prompt(loaded), seat, "search", search, "That search is over.")


async def checked_search(db: Database, game_id: int, user_id: int, *, seat: int, search: int) -> SearchPrompt:
    """The search a DM's page buttons belong to, if it is still open (to turn its pages)."""
    return await _checked(db, game_id, user_id, seat, _check_search, search)


async def _search_step(db: Database, game_id: int, user_id: int, seat: int, search: int, operation,
                       arguments=lambda prompt: ()) -> SearchPrompt:
    """One change to an open search (`operation(state, seat, *arguments(prompt))`), in one transaction."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = _button_seat(loaded, user_id, seat)
        prompt = _check_search(loaded, seat, search)
        GAMES.call(operation, state, seat, *arguments(prompt))
        GAMES.save(loaded)
        prompt = _search_prompt(loaded)
        assert prompt is not None
        return prompt


async def search_choose(db: Database, game_id: int, user_id: int, *, seat: int, search: int,
                        names: list[int]) -> SearchPrompt:
    """The searcher chooses cards: `names` index the DM's list (`SearchPrompt.names`), one copy each."""
    def chosen(prompt: SearchPrompt) -> tuple[list[str]]:
        listed = prompt.names
        if any(not 0 <= i < len(listed) for i in names):
            raise UserError("Choose among the cards the shoe holds.")
        return ([listed[i] for i in names],)

    return await _search_step(db, game_id, user_id, seat, search, engine.search_choose, chosen)


async def search_clear(db: Database, game_id: int, user_id: int, *, seat: int, search: int) -> SearchPrompt:
    """The searcher starts choosing again."""
    return await _search_step(db, game_id, user_id, seat, search, engine.search_clear)


async def finish_search(db: Database, game_id: int, user_id: int, *, seat: int, search: int,
                        message_id: int | None = None) -> ActionResult:
    """The searcher takes what they chose (possibly nothing): the cards move, the shoe is shuffled.
    `message_id`: the DM clicked (the caller shows the outcome there; other copies lose their buttons)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = _button_seat(loaded, user_id, seat)
        _check_search(loaded, seat, search)
        events = GAMES.call(engine.finish_search, state, seat)
        await _commit(session, loaded, events, answered=message_id)
        return ActionResult(_view(loaded), list(events))


# --- the opening hand's basic lands ------------------------------------------------------------------


async def checked_basics(db: Database, game_id: int, user_id: int, *, seat: int) -> BasicsPrompt:
    """The basic-land choice a DM button belongs to, if it is still open (for the view-only steps)."""
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        _button_seat(loaded, user_id, seat)
        prompt = _basics_prompt(loaded, seat)
        if prompt is None:
            raise StaleMessage(game_id, user_id, "Your basic lands are already chosen.")
        return prompt


async def choose_basics(db: Database, game_id: int, user_id: int, *, seat: int, lands: list[str]) -> ActionResult:
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = _button_seat(loaded, user_id, seat)
        if state.phase != engine.OPENING and _basics_prompt(loaded, seat) is None:  # (the engine explains the opening)
            raise StaleMessage(game_id, user_id, "Your basic lands are already chosen.")
        events = GAMES.call(engine.choose_basics, state, seat, lands)
        await _commit(session, loaded, events)
        if state.phase == engine.BASICS:  # the opening's message counts who has chosen (a private step): redrawn
            await outbox.queue(session, _redraw(loaded))
        return ActionResult(_view(loaded), list(events))


# --- what players see ----------------------------------------------------------------------------------


async def hand(db: Database, game_id: int, user_id: int) -> HandView:
    async with db.read() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        if loaded.state is None:
            raise UserError("That game has not begun yet: there are no hands.")
        return HandView(_view(loaded), engine.private_view(loaded.state, GAMES.seat(loaded.state, user_id)))


async def resend(db: Database, game_id: int, user_id: int) -> list[outbox.Queued]:
    """Queue the player's current DMs again (held: the caller sends them and reports the outcome)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id, lock=False)
        if loaded.row.status != STATUSES.running:
            return []
        return await outbox.queue(session, *(_dm(loaded, kind, _again(p)) for kind, p in _prompts_of(loaded, user_id)),
                                  hold=True)


async def still_wanted(db: Database, prompt: Prompt) -> bool:
    """Is this DM still one the player must answer? (For sends long after their commit: after a
    crash, or a retry.)"""
    async with db.read() as session:
        loaded = await GAMES.load(session, prompt.game_id, lock=False)
        return any(p == replace(prompt, again=False) if hasattr(prompt, "again") else p == prompt
                   for _, p in _prompts_of(loaded, prompt.user_id))


async def _dms_closed(session: AsyncSession, queued: outbox.Queued) -> None:
    """A prompt's DM was refused: its game's channel tells the player (`DMS_CLOSED`)."""
    p = Prompt.from_payload(queued.payload)
    await outbox.queue(session, outbox.Message(DMS_CLOSED, outbox.DmsClosed(p.user_id).to_payload(),
                                               channel_id=p.channel_id, guild_id=p.guild_id))


for _kind in (PICK, BASICS, LOOK, SEARCH):
    outbox.on_dm_closed(_kind, _dms_closed, retry_at_startup=True)


_STEP_PROMPTS = {PICK: (PickPrompt, "offer"), LOOK: (LookPrompt, "look"), SEARCH: (SearchPrompt, "search")}


async def _shown(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """A pick's, a look's or a search's DM was accepted by Discord: record it as the one that shows
    its step (`bot.kit.shown`). The copy it replaces loses its buttons (`MOVED`), and so does this
    one at once if its step is over already."""
    prompt_type, number_field = _STEP_PROMPTS[queued.kind]
    prompt = prompt_type.from_payload(queued.payload)
    number = getattr(prompt, number_field)
    stale = await shown.record(session, _owner(prompt.game_id), queued.kind, number, channel_id, message_id)
    over = any(s.message_id == message_id for s in stale)
    if over and getattr(prompt, "again", None) is False:
        # A pick shown on the player's desk, over before its send was recorded (the player was quick):
        # the desk shows what came after (the click's answer, their next step), never this.
        stale = [s for s in stale if s.message_id != message_id]
    await outbox.queue(session, *(_retire(prompt.game_id, prompt.guild_id, s, OVER if s.message_id == message_id
                                          else MOVED) for s in stale))
    if queued.kind == PICK and not (over and prompt.again):  # (a copy sent again too late is no desk)
        await _at_desk(session, prompt, channel_id, message_id)


async def _at_desk(session: AsyncSession, prompt: Prompt, channel_id: int, message_id: int) -> None:
    """A pick or the basic lands shown to the player: that DM is their desk now (their next pick is
    shown there, edited in place, not sent as a new DM)."""
    await shown.show(session, _owner(prompt.game_id), desk_key(prompt.seat), 0, channel_id, message_id)


async def _basics_shown(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    await _at_desk(session, BasicsPrompt.from_payload(queued.payload), channel_id, message_id)


for _kind in STEPS:
    outbox.on_sent(_kind, _shown)
outbox.on_sent(BASICS, _basics_shown)


async def desk_of(db: Database, prompt: Prompt) -> tuple[int, int] | None:
    """The player's desk (channel id, message id), if they have one: their pick or basic lands go
    there, edited in place (one DM per player for the whole game)."""
    async with db.read() as session:
        found = await shown.message_of(session, _owner(prompt.game_id), desk_key(prompt.seat))
    return None if found is None else (found.channel_id, found.message_id)


async def _announced(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """The opening's or a turn's channel message was posted: later news of it edits that message."""
    news = Announcement.from_payload(queued.payload)
    owner = _owner(news.game_id)
    if news.opens:
        await shown.show(session, owner, TURN, news.turn, channel_id, message_id)
    elif news.turn == 0 and any(isinstance(e, GameBegan) for e in news.events):
        await shown.show(session, owner, OPENING, 0, channel_id, message_id)


outbox.on_sent(ANNOUNCE, _announced)


async def message_showing(db: Database, news: Announcement) -> tuple[int, int] | None:
    """The channel message that tells `news` (the opening's, or its turn's), if it was posted."""
    async with db.read() as session:
        found = await shown.message_of(session, _owner(news.game_id), TURN if news.turn else OPENING)
    if found is None or found.version != news.turn:
        return None
    return found.channel_id, found.message_id


async def account(db: Database, news: Announcement) -> list[engine.Event]:
    """What the message telling `news` tells, from the public log: the opening (up to the first turn
    of play), or its turn of play (from `news.since` up to the next turn's start)."""
    of_game = VortexLogEntry.game_id == news.game_id
    async with db.read() as session:
        stored = (await session.execute(
            select(VortexLogEntry.event).where(of_game, VortexLogEntry.seq >= news.since)
            .order_by(VortexLogEntry.seq).limit(ACCOUNT_LIMIT))).scalars().all()
    told: list[engine.Event] = []
    for entry in stored:
        try:
            event = events.decode(entry, engine.Event)
        except (events.DecodeError, KeyError, TypeError, ValueError):
            continue
        if isinstance(event, engine.TurnStarted) and event.phase == engine.PLAY and (told or not news.turn):
            break  # the next turn's message tells the rest
        if isinstance(event, PUBLIC_EVENTS):
            told.append(event)
    return told


# --- the end -----------------------------------------------------------------------------------------


async def end(db: Database, game_id: int, actor: tables.Actor, *, winner_id: int | None = None) -> GameView:
    """Organizer: end the game. With a winner the result goes to the leaderboard (the winner first, the
    others sharing second place); without one nothing is recorded. The game's channel is told either
    way; with a winner the server's results channel too, if it has another one."""
    async with db.write() as session:
        loaded = await GAMES.load(session, game_id)
        state = await GAMES.managing(session, loaded, actor)
        winner = None if winner_id is None else next((p.seat for p in state.players if p.user_id == winner_id), None)
        if winner_id is not None and winner is None:
            raise UserError(f"<@{winner_id}> is not playing in this game.")
        choosing = _choosing_basics(state)
        events = GAMES.call(engine.end_game, state, winner)
        loaded.bookkeeping.winner = winner_id
        # The end is told by the FINAL post below, not as a line of news.
        await _commit(session, loaded, events, quiet=(engine.PhaseChanged, engine.GameOver))
        await tables.finish(session, loaded.row, kind=SPEC.kind, finished=STATUSES.finished)
        row = loaded.row
        ref = tables.TableRef(row.id).to_payload()
        posts = [*await _desks_closed(session, loaded, choosing), _redraw(loaded),
                 loaded.channel(FINAL, ref)]  # the game's own channel always hears who won
        if winner_id is not None:
            await event_results.record_results(
                session, guild_id=row.guild_id, format=KIND, event_id=row.id, event_name=event_name(row),
                results=event_results.placed([(p.user_id, 1 if p.seat == winner else 2) for p in state.players]),
            )
            settings = await load_settings_row(session, row.guild_id)
            board = settings.leaderboard_channel_id if settings else None
            if board and board != row.channel_id:  # and the results channel, for the leaderboard
                told = outbox.telling(ref, actor.user_id, f"the result of Vortex #{row.id}")
                posts.append(loaded.channel(FINAL, told, channel_id=board))
        await outbox.queue(session, *posts)
        return _view(loaded)


def event_name(row: VortexGame | GameView) -> str:
    return f"Vortex #{row.id} ({row.cube_name})"
