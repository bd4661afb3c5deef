"""Vortex Based Magic — pure rules engine (FORMATS.md §4, seed ``003_…``).

No I/O, no Discord, no SQL. The whole game is one :class:`VortexState` (plain dataclasses) that
round-trips through JSON-compatible dicts with the kit's codec (``bot.kit.events``: ``to_dict()``
carries ``"v": SCHEMA_VERSION``; ``from_dict`` refuses other versions and ignores unknown
top-level keys, where a service may keep its own bookkeeping). Every operation mutates the state in place and returns a list of frozen
:class:`Event` objects; a refused operation raises a :class:`VortexError` subclass whose message
is a sentence for the user and leaves the state untouched (all checks come before any change).
Randomness comes only from ``random.Random(f"{seed}:{rng_counter}")``, one generator per random
operation, so a reloaded game continues with the same random sequence.

How FORMATS.md §4 maps to the code
    *Shoe* (all cards + one of each basic per player, shuffled, face down)
        ``VortexState.shoe`` (index 0 is the top), built by :func:`new_game`. Every non-draw
        library effect goes here: :func:`mill`, :func:`reveal_top`, :func:`look_at_top`,
        :func:`arrange_top` (scry-like), :func:`put_on_shoe`, :func:`shuffle_shoe`, and a search
        (a tutor): :func:`begin_search`, :func:`search_choose` / :func:`search_clear`,
        :func:`finish_search`.
    *Packs* (7 each, hidden, countable; the passed pack dealt face down, owned by nobody)
        ``Player.pack`` and ``VortexState.passed_pack``, dealt by :func:`new_game`. A pack over
        7 cards randomly discards (state-based, :func:`_apply_state_based_actions`); packs grow
        only through :func:`put_into_pack` and :func:`put_shoe_cards_into_pack`.
    *Drawing = drafting* (replenish to exactly 7, then pick one)
        :func:`draw` starts N replenish+pick steps, :func:`pick` makes one; the pending draft is
        ``VortexState.draft``. An empty pack at a pick is :func:`_empty_pack_penalty`.
    *Opening hand* (4 turns per player of only draw + pass; then 3 basics; no mulligans)
        Phase ``"opening"``: each turn the engine starts the draft and passes right after the
        pick, so players only :func:`pick`. Then phase ``"basics"``: :func:`choose_basics`.
    *Pass step* (after cleanup the active player swaps packs with the passed pack)
        :func:`pass_turn` (and :func:`_end_turn`, shared with the empty-pack penalty).
    *Mulligan* (your upkeep, 5+ basics in your pack: exile it; replenish to 5 this turn)
        :func:`mulligan`.
    Bookkeeping the table needs so that every card stays accounted for:
        :func:`move_card` (between a player's hand, battlefield, graveyard and exile; :func:`play_card`
        is its hand-to-battlefield case), :func:`adjust_life`, :func:`end_game`, and :func:`card_census`.
    Views for the command layer
        :func:`public_status` (counts only, never a card name) and :func:`private_view` (one
        player's hand and pack). Events are public unless ``event.private_to`` names a seat.

Turn structure
    Phases: ``opening`` → ``basics`` → ``play`` → ``over``. A normal turn has the steps
    ``upkeep`` (the mulligan window) → ``draw`` (the active player's first draft of the turn,
    started in upkeep) → ``main`` (everything else the bot does not police) → the pass.
    ``VortexState.turn`` counts every turn from 1 (opening turns included) and doubles as a
    token against stale "pass" buttons. Turn ``t`` belongs to ``turn_order[(t - 1) % players]``.

Rules decisions (where FORMATS.md is silent)
    * Turn order is a seeded shuffle of the seats; normal turns start with its first seat.
    * Only one draft runs at a time: a draw is part of resolving something, and packs refill
      from one shared shoe, so who replenishes first matters. While a pick is pending nobody
      may draw, pass, mulligan, or change the shoe or a pack.
    * A search (a tutor) shows the searching player the whole shoe, by name and never in its
      order (the shoe is face down and unordered to players, FORMATS.md §4); they take up to the
      number of cards the effect allows (none is always allowed: a search may fail to find), to
      their hand, onto the battlefield or on top of the shoe after the
      shuffle, and the shoe is then shuffled. While a search is pending, as while a pick is,
      nobody may draw, pass, mulligan, or change the shoe or a pack. The channel learns how many
      cards were found and where they went; their names only if they went onto the battlefield
      or the effect says to reveal them.
    * Any player may draw (instant-speed effects) or use shoe effects during anyone's turn of
      the ``play`` phase. Only the active player passes, and only in their upkeep mulligans.
      The active player's first draw of the turn made during upkeep is the draw step: it ends
      the upkeep (the mulligan window).
    * The empty-pack penalty ends the turn the way a pass does (cleanup, then the active
      player's pack swap), cancels the rest of the draw, and starts the next turn. It applies
      in the opening-hand phase too.
    * Each player has four public-facing zones besides their pack: ``hand`` (hidden), ``battlefield``,
      ``graveyard`` and ``exile`` (public). Milled cards and randomly discarded pack cards go to the
      affected player's graveyard; mulliganed packs to their exile. Players move their own cards
      between these four zones (:func:`move_card`): the bot records what the table did, it does
      not police the stack. Schema version 1 had one ``played`` zone for battlefield and
      graveyard; reading a version 1 document puts those cards in the graveyard.
    * In the opening-hand phase the bot drafts and passes for the active player; ``draw`` and
      ``pass_turn`` are refused then. The 3 basics are chosen once and cannot be changed.
    * A player may always see their own pack (the seed: "look at it as much as he or she
      wishes"), so :func:`private_view` shows it, not only during a pick.
    * Life is tracked (20, the penalties, :func:`adjust_life`, below 0 too); eliminating players is
      left to the table (:func:`end_game`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.cards.model import is_basic_land
from bot.kit import events
from bot.kit.text import clean_name, name_key, plural

__all__ = [
    "BASICS",
    "BASIC_TYPES",
    "BATTLEFIELD",
    "BOTTOM",
    "DRAW",
    "EXILE",
    "GRAVEYARD",
    "HAND",
    "MAIN",
    "OPENING",
    "OVER",
    "PLAY",
    "SEARCH_DESTINATIONS",
    "TOP",
    "UPKEEP",
    "ZONES",
    "ZONE_PLACES",
    "MAX_COUNT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MULLIGAN_BASICS",
    "MULLIGAN_PACK_SIZE",
    "OPENING_BASICS",
    "OPENING_TURNS_PER_PLAYER",
    "PACK_SIZE",
    "STARTING_LIFE",
    "SCHEMA_VERSION",
    "AlreadyPassed",
    "BasicsAdded",
    "CardDrafted",
    "CardMoved",
    "CardNotFound",
    "CardsFound",
    "CardsPutIntoPack",
    "CardsPutIntoShoe",
    "Draft",
    "EmptyPackPenalty",
    "Event",
    "GameOver",
    "InvalidAction",
    "LifeChanged",
    "Look",
    "Milled",
    "MulliganNotAllowed",
    "MulliganTaken",
    "NotAPlayer",
    "NotYourTurn",
    "PackOverflowDiscard",
    "PackPassed",
    "PhaseChanged",
    "PickOffered",
    "PickPending",
    "Player",
    "PrivateView",
    "PublicStatus",
    "Replenished",
    "Search",
    "SearchBegan",
    "SearchFinished",
    "SearchPending",
    "SeatStatus",
    "ShoeLooked",
    "ShoeRevealed",
    "ShoeShuffled",
    "TopArranged",
    "TurnStarted",
    "UnsupportedVersion",
    "VortexError",
    "VortexState",
    "WrongPhase",
    "WrongPlayerCount",
    "active_seat",
    "adjust_life",
    "arrange_top",
    "begin_search",
    "card_census",
    "choose_basics",
    "draw",
    "end_game",
    "finish_search",
    "look_at_top",
    "mill",
    "move_card",
    "mulligan",
    "new_game",
    "pass_turn",
    "pick",
    "play_card",
    "private_view",
    "public_status",
    "put_into_pack",
    "put_on_shoe",
    "put_shoe_cards_into_pack",
    "reveal_top",
    "search_choose",
    "search_clear",
    "seat_of",
    "shuffle_shoe",
    "starting_shoe",
]

# --------------------------------------------------------------------------- constants

SCHEMA_VERSION = 2  # 2: battlefield and graveyard apart (1 had one "played" zone)
MIN_PLAYERS, MAX_PLAYERS = 2, 5
BASIC_TYPES: tuple[str, ...] = ("Plains", "Island", "Swamp", "Mountain", "Forest")
PACK_SIZE = 7
MULLIGAN_PACK_SIZE = 5
MULLIGAN_BASICS = 5
STARTING_LIFE = 20
EMPTY_PACK_LIFE_LOSS = 1
OPENING_TURNS_PER_PLAYER = 4
OPENING_BASICS = 3
MAX_LIFE_CHANGE = 1000  # one reported life change, either way
MAX_COUNT = 100  # upper bound for any "N cards" argument; real effects stay far below it

# phases (PublicStatus.phase)
OPENING, BASICS, PLAY, OVER = "opening", "basics", "play", "over"
# steps of a turn (PublicStatus.step; opening turns only have the draw step; "" when no turn runs)
UPKEEP, DRAW, MAIN, NO_STEP = "upkeep", "draw", "main", ""
# where cards put on the shoe go
TOP, BOTTOM = "top", "bottom"
# a player's zones besides their pack (the hand is hidden, the others public)
HAND, BATTLEFIELD, GRAVEYARD, EXILE = "hand", "battlefield", "graveyard", "exile"
ZONES = (HAND, BATTLEFIELD, GRAVEYARD, EXILE)
# where a search puts what it finds: the hand, the battlefield, or the top of the shoe after the shuffle
SEARCH_DESTINATIONS = (HAND, BATTLEFIELD, TOP)


# --------------------------------------------------------------------------- errors


class VortexError(ValueError):
    """A refused action; the message is meant for the user."""


class WrongPlayerCount(VortexError):
    pass


class NotAPlayer(VortexError):
    pass


class WrongPhase(VortexError):
    pass


class NotYourTurn(VortexError):
    pass


class PickPending(VortexError):
    """A draft is in progress: the picker must pick before anyone draws, passes or changes zones."""


class SearchPending(VortexError):
    """A search of the shoe is in progress: it must finish before anyone draws, passes or changes zones."""


class AlreadyPassed(VortexError):
    pass


class MulliganNotAllowed(VortexError):
    pass


class CardNotFound(VortexError):
    pass


class InvalidAction(VortexError):
    """Bad arguments: a pick index outside the pack, a count out of range, unknown land type …"""


class UnsupportedVersion(VortexError):
    pass


# --------------------------------------------------------------------------- data


@dataclass
class Player:
    seat: int
    user_id: int
    pack: list[str] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    battlefield: list[str] = field(default_factory=list)
    graveyard: list[str] = field(default_factory=list)
    exile: list[str] = field(default_factory=list)
    life: int = STARTING_LIFE
    penalties: int = 0  # empty-pack penalties taken
    mulligan_turn: int | None = None  # the turn of the last mulligan: replenish to 5 during it
    opening_basics: list[str] | None = None  # None until chosen


@dataclass
class Draft:
    """A draw in progress: ``picks_total`` replenish+pick steps, ``picks_done`` of them made."""

    seat: int
    picks_total: int
    picks_done: int = 0

    @property
    def picks_left(self) -> int:
        return self.picks_total - self.picks_done


@dataclass
class Look:
    """A player has looked at the top ``count`` cards and may rearrange them (scry)."""

    seat: int
    count: int


@dataclass
class Search:
    """``seat`` is searching the shoe: they may take up to ``count`` cards (``chosen`` so far, still
    in the shoe until the search finishes) to ``to``; ``reveal`` when the effect reveals them."""

    seat: int
    count: int
    to: str = HAND
    reveal: bool = False
    chosen: list[str] = field(default_factory=list)

    @property
    def room(self) -> int:
        return self.count - len(self.chosen)


@dataclass
class VortexState:
    seed: int | str
    rng_counter: int
    players: list[Player]
    turn_order: list[int]
    shoe: list[str]  # index 0 is the top card
    passed_pack: list[str]
    phase: str = OPENING
    turn: int = 1
    step: str = DRAW
    draft: Draft | None = None
    look: Look | None = None
    search: Search | None = None

    # -- serialisation
    def to_dict(self) -> dict[str, Any]:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> VortexState:
        if d.get("v") == 1:
            d = _upgrade_from_1(d)
        if d.get("v") != SCHEMA_VERSION:
            raise UnsupportedVersion(
                f"This Vortex game was saved in format version {d.get('v')!r}; "
                f"this bot reads version {SCHEMA_VERSION}."
            )
        return events.decode({k: v for k, v in d.items() if k != "v"}, cls)

    # -- small helpers
    def zone(self, seat: int, name: str) -> list[str]:
        """One of ``seat``'s zones (:data:`ZONES`), the list itself."""
        if name not in ZONES:
            raise InvalidAction("A card moves between your hand, the battlefield, your graveyard and exile.")
        return getattr(self.player(seat), name)

    def player(self, seat: int) -> Player:
        if not _is_int(seat) or not 0 <= seat < len(self.players):
            raise NotAPlayer("You are not a player in this game.")
        return self.players[seat]

    @property
    def opening_turns(self) -> int:
        return OPENING_TURNS_PER_PLAYER * len(self.players)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event(events.Event, family="vortex"):  # stored as "vortex.<ClassName>": bot.kit.events
    """Something to announce. Public unless :attr:`private_to` names the one seat to tell."""

    @property
    def private_to(self) -> int | None:
        return None


@dataclass(frozen=True)
class _PrivateEvent(Event):
    seat: int

    @property
    def private_to(self) -> int | None:
        return self.seat


@dataclass(frozen=True)
class PhaseChanged(Event):
    phase: str


@dataclass(frozen=True)
class TurnStarted(Event):
    turn: int
    turn_in_phase: int  # "opening turn 3", "turn 1" of normal play
    seat: int
    phase: str


@dataclass(frozen=True)
class PackPassed(Event):
    """The active player swapped packs: ``received`` cards taken, ``passed`` cards left behind."""

    seat: int
    received: int
    passed: int


@dataclass(frozen=True)
class Replenished(Event):
    seat: int
    added: int
    pack_size: int
    shoe_size: int


@dataclass(frozen=True)
class PickOffered(_PrivateEvent):
    """DM the pack: the player must pick one card (``pick_number`` of ``picks_total``)."""

    pack: tuple[str, ...]
    pick_number: int
    picks_total: int


@dataclass(frozen=True)
class CardDrafted(_PrivateEvent):
    card: str
    picks_left: int


@dataclass(frozen=True)
class EmptyPackPenalty(Event):
    """An empty pack at a pick: the stack is countered, the turn ends, ``seat`` loses 1 life."""

    seat: int
    life: int
    turn_ended: int


@dataclass(frozen=True)
class PackOverflowDiscard(Event):
    """State-based action: a pack over 7 cards; ``card`` was discarded at random (now public)."""

    seat: int
    card: str


@dataclass(frozen=True)
class MulliganTaken(Event):
    """The pack was revealed and exiled; until end of turn the player replenishes to 5."""

    seat: int
    exiled: tuple[str, ...]


@dataclass(frozen=True)
class BasicsAdded(_PrivateEvent):
    lands: tuple[str, ...]


@dataclass(frozen=True)
class Milled(Event):
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class ShoeRevealed(Event):
    """The top cards were revealed to everyone; they stay on top of the shoe in this order."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class ShoeLooked(_PrivateEvent):
    """Only ``seat`` sees these top cards of the shoe (top first); DM them."""

    cards: tuple[str, ...]


@dataclass(frozen=True)
class TopArranged(Event):
    seat: int
    on_top: int
    on_bottom: int


@dataclass(frozen=True)
class CardsPutIntoShoe(Event):
    seat: int
    count: int
    position: str  # "top" | "bottom"


@dataclass(frozen=True)
class ShoeShuffled(Event):
    seat: int
    shoe_size: int


@dataclass(frozen=True)
class SearchBegan(Event):
    """``seat`` searches the shoe for up to ``count`` cards, to ``to`` (they see it by DM)."""

    seat: int
    count: int
    to: str
    reveal: bool
    shoe_size: int


@dataclass(frozen=True)
class CardsFound(_PrivateEvent):
    """What the searcher found (only they are told, unless :class:`SearchFinished` shows it)."""

    cards: tuple[str, ...]
    to: str


@dataclass(frozen=True)
class SearchFinished(Event):
    """The search is over: ``found`` cards went to ``to``, then the shoe was shuffled (``shoe_size``
    cards after all). ``cards`` names them only when public: onto the battlefield, or revealed."""

    seat: int
    found: int
    to: str
    cards: tuple[str, ...]
    shoe_size: int


@dataclass(frozen=True)
class CardMoved(Event):
    """``seat`` moved ``card`` from one of their zones to another (:data:`ZONES`); it is public now."""

    seat: int
    card: str
    source: str
    destination: str


@dataclass(frozen=True)
class CardsPutIntoPack(Event):
    seat: int
    count: int
    source: str  # "hand" | "shoe"
    pack_size: int  # before state-based actions


@dataclass(frozen=True)
class LifeChanged(Event):
    seat: int
    delta: int
    life: int
    reason: str  # "empty_pack" | "reported"


@dataclass(frozen=True)
class GameOver(Event):
    winner: int | None


# --------------------------------------------------------------------------- views


@dataclass(frozen=True)
class SeatStatus:
    seat: int
    user_id: int
    pack_size: int
    hand_size: int
    battlefield_size: int
    graveyard_size: int
    exile_size: int
    life: int
    penalties: int
    short_pack: bool  # mulliganed this turn: replenishes to 5
    basics_chosen: bool


@dataclass(frozen=True)
class PublicStatus:
    """What anyone at the table may know. Counts only: it never holds a card name."""

    phase: str
    step: str
    turn: int  # counts every turn from 1; pass it back to pass_turn(turn=...)
    turn_in_phase: int  # opening turn k of opening_turns, or normal turn k
    opening_turns: int
    active_seat: int | None
    picking_seat: int | None
    picks_left: int
    turn_order: tuple[int, ...]
    shoe_size: int
    passed_pack_size: int
    seats: tuple[SeatStatus, ...]
    searching_seat: int | None = None


@dataclass(frozen=True)
class PrivateView:
    """What one player may see: their hand and their own pack."""

    seat: int
    hand: tuple[str, ...]
    pack: tuple[str, ...]
    picking: bool
    pick_number: int  # 1-based within the current draw; 0 when not picking
    picks_total: int
    replenish_to: int
    can_mulligan: bool
    basics_to_choose: int
    searching: bool = False  # searching the shoe (its DM shows it)


# --------------------------------------------------------------------------- setup


def starting_shoe(cube: Sequence[str], players: int) -> list[str]:
    """The game's cards before shuffling: the cube plus one of each basic land per player."""
    return list(cube) + list(BASIC_TYPES) * players


def new_game(cube: Sequence[str], user_ids: Sequence[int], *, seed: int | str) -> VortexState:
    """Shuffle the shoe and the turn order, deal 7 cards to each player and to the passed pack,
    and start opening turn 1.

    Returns the state only: the first opening pick is already pending, so send it from
    ``private_view(state, public_status(state).picking_seat)``."""
    n = len(user_ids)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise WrongPlayerCount(f"Vortex Based Magic is for {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    if len(set(user_ids)) != n:
        raise WrongPlayerCount("A player can only take one seat.")
    shoe = starting_shoe(cube, n)
    if len(shoe) < PACK_SIZE * (n + 1):
        raise InvalidAction(
            f"The cube is too small: dealing {n + 1} packs of {PACK_SIZE} needs "
            f"{PACK_SIZE * (n + 1) - len(BASIC_TYPES) * n} cube cards."
        )
    state = VortexState(
        seed=seed,
        rng_counter=0,
        players=[Player(seat=i, user_id=u) for i, u in enumerate(user_ids)],
        turn_order=list(range(n)),
        shoe=shoe,
        passed_pack=[],
    )
    _rng(state).shuffle(state.shoe)
    _rng(state).shuffle(state.turn_order)
    for p in state.players:
        p.pack = _take_top(state, PACK_SIZE)
    state.passed_pack = _take_top(state, PACK_SIZE)
    _start_turn(state, [])
    return state


def seat_of(state: VortexState, user_id: int) -> int:
    for p in state.players:
        if p.user_id == user_id:
            return p.seat
    raise NotAPlayer("You are not a player in this game.")


def active_seat(state: VortexState) -> int | None:
    """Whose turn it is; None while the basics are chosen and after the game."""
    if state.phase not in (OPENING, PLAY):
        return None
    return _seat_of_turn(state, state.turn)


# --------------------------------------------------------------------------- drafting


def draw(state: VortexState, seat: int, count: int = 1) -> list[Event]:
    """Draw ``count`` cards = ``count`` replenish+pick steps; the first pick is offered now."""
    state.player(seat)
    _require_phase(state, PLAY, opening="In the opening-hand phase the bot offers you each pick in turn.")
    _require_no_pending_pick(state, seat)
    _check_count(count)
    if seat == active_seat(state) and state.step == UPKEEP:
        state.step = DRAW  # the active player's first draw in upkeep is the draw step
    state.draft = Draft(seat=seat, picks_total=count)
    events: list[Event] = []
    _offer_pick(state, events)
    return _finish(state, events)


def pick(state: VortexState, seat: int, index: int) -> list[Event]:
    """Take card number ``index`` (0-based) of the pending pick's pack into the hand."""
    player = state.player(seat)
    _require_phase(state, OPENING, PLAY)
    draft = state.draft
    if draft is None or draft.seat != seat:
        if state.phase == OPENING and seat != active_seat(state):
            raise NotYourTurn("It is not your turn: wait until the pack reaches you.")
        raise InvalidAction("You have no pick to make.")
    if not _is_int(index) or not 0 <= index < len(player.pack):
        raise InvalidAction(f"Pick a card number from 1 to {len(player.pack)}.")
    card = player.pack.pop(index)
    player.hand.append(card)
    draft.picks_done += 1
    events: list[Event] = [CardDrafted(seat, card, draft.picks_left)]
    if draft.picks_left:
        _offer_pick(state, events)
    else:
        _finish_draft(state, events)
    return _finish(state, events)


def _offer_pick(state: VortexState, events: list[Event]) -> None:
    """The next step of the pending draft: replenish, then offer the pack (or the penalty)."""
    draft = state.draft
    assert draft is not None
    player = state.players[draft.seat]
    _replenish(state, player, events)
    if player.pack:
        events.append(PickOffered(draft.seat, tuple(player.pack), draft.picks_done + 1, draft.picks_total))
    else:
        _empty_pack_penalty(state, player, events)


def _replenish(state: VortexState, player: Player, events: list[Event]) -> None:
    missing = _replenish_target(state, player) - len(player.pack)
    added = _take_top(state, missing) if missing > 0 else []
    player.pack.extend(added)
    events.append(Replenished(player.seat, len(added), len(player.pack), len(state.shoe)))


def _replenish_target(state: VortexState, player: Player) -> int:
    return MULLIGAN_PACK_SIZE if player.mulligan_turn == state.turn else PACK_SIZE


def _finish_draft(state: VortexState, events: list[Event]) -> None:
    state.draft = None
    if state.phase == OPENING:
        _end_turn(state, events)  # an opening turn is only a draw step and a pass step
    elif state.step == DRAW:
        state.step = MAIN


def _empty_pack_penalty(state: VortexState, player: Player, events: list[Event]) -> None:
    """FORMATS.md §4: the stack is countered, the turn ends at once, the player loses 1 life."""
    state.draft = None  # the rest of the draw is cancelled with the turn
    player.life -= EMPTY_PACK_LIFE_LOSS
    player.penalties += 1
    events.append(EmptyPackPenalty(player.seat, player.life, state.turn))
    events.append(LifeChanged(player.seat, -EMPTY_PACK_LIFE_LOSS, player.life, "empty_pack"))
    _end_turn(state, events)


# --------------------------------------------------------------------------- turns


def pass_turn(state: VortexState, seat: int, *, turn: int | None = None) -> list[Event]:
    """The pass step: the active player swaps packs with the passed pack; the next turn begins.

    ``turn`` (from ``public_status().turn``) guards against a stale or double-clicked pass."""
    state.player(seat)
    _require_phase(state, PLAY, opening="In the opening-hand phase the bot passes for you after each pick.")
    if turn is not None and turn != state.turn:
        if turn < state.turn and _seat_of_turn(state, turn) == seat:
            raise AlreadyPassed("You have already passed that turn.")
        raise NotYourTurn("That pass is not for the current turn.")
    if seat != active_seat(state):
        if _previous_turn_was(state, seat):
            raise AlreadyPassed("You have already passed: your turn is over.")
        raise NotYourTurn("It is not your turn.")
    _require_no_pending_pick(state, seat)
    events: list[Event] = []
    _end_turn(state, events)
    return _finish(state, events)


def _previous_turn_was(state: VortexState, seat: int) -> bool:
    """Did ``seat`` play the last turn of the ``play`` phase (so a pass now is a double pass)?"""
    previous = state.turn - 1
    return previous > state.opening_turns and _seat_of_turn(state, previous) == seat


def _end_turn(state: VortexState, events: list[Event]) -> None:
    """Cleanup is the table's; then the pass step (the active player swaps packs); next turn."""
    active = state.players[_seat_of_turn(state, state.turn)]
    active.pack, state.passed_pack = state.passed_pack, active.pack
    events.append(PackPassed(active.seat, len(active.pack), len(state.passed_pack)))
    state.turn += 1
    state.look = None
    if state.phase == OPENING and state.turn > state.opening_turns:
        state.phase, state.step = BASICS, NO_STEP
        events.append(PhaseChanged(BASICS))
        return
    _start_turn(state, events)


def _start_turn(state: VortexState, events: list[Event]) -> None:
    seat = _seat_of_turn(state, state.turn)
    events.append(TurnStarted(state.turn, _turn_in_phase(state), seat, state.phase))
    if state.phase == OPENING:
        state.step = DRAW
        state.draft = Draft(seat=seat, picks_total=1)
        _offer_pick(state, events)
    else:
        state.step = UPKEEP


def _turn_in_phase(state: VortexState) -> int:
    """What players call the turn: opening turn k, then normal turn k (0 before the first)."""
    if state.phase == OPENING:
        return state.turn
    return max(state.turn - state.opening_turns, 0) if state.phase == PLAY else 0


def _seat_of_turn(state: VortexState, turn: int) -> int:
    return state.turn_order[(turn - 1) % len(state.turn_order)]


def choose_basics(state: VortexState, seat: int, lands: Sequence[str]) -> list[Event]:
    """After the opening turns: add 3 basic lands of the player's choice from outside the game."""
    player = state.player(seat)
    _require_phase(state, BASICS)
    if player.opening_basics is not None:
        raise InvalidAction("You have already added your basic lands.")
    chosen = _basic_types(lands)
    if len(chosen) != OPENING_BASICS:
        raise InvalidAction(f"Choose exactly {OPENING_BASICS} basic lands.")
    player.opening_basics = chosen
    player.hand.extend(chosen)
    events: list[Event] = [BasicsAdded(seat, tuple(chosen))]
    if all(p.opening_basics is not None for p in state.players):
        state.phase = PLAY
        events.append(PhaseChanged(PLAY))
        _start_turn(state, events)
    return _finish(state, events)


def _basic_types(lands: Sequence[str]) -> list[str]:
    if isinstance(lands, str):
        raise InvalidAction("Give a list of basic land types.")
    by_key = {name_key(t): t for t in BASIC_TYPES}
    chosen = []
    for land in lands:
        if not isinstance(land, str) or name_key(land) not in by_key:
            raise InvalidAction(f"{land!r} is not a basic land type ({', '.join(BASIC_TYPES)}).")
        chosen.append(by_key[name_key(land)])
    return chosen


def mulligan(state: VortexState, seat: int) -> list[Event]:
    """In your upkeep with 5+ basics in your pack: reveal and exile it; replenish to 5 this turn."""
    player = state.player(seat)
    _require_phase(state, PLAY, opening="There are no mulligans during the opening-hand phase.")
    if seat != active_seat(state):
        raise NotYourTurn("You can only mulligan during your own upkeep.")
    if state.step != UPKEEP:
        raise MulliganNotAllowed("You can only mulligan during your upkeep, before your draw step.")
    _require_no_pending_pick(state, seat)
    basics = sum(1 for card in player.pack if is_basic_land(card))
    if basics < MULLIGAN_BASICS:
        raise MulliganNotAllowed(
            f"You can only mulligan with {MULLIGAN_BASICS} or more basic lands in your pack; it has {basics}."
        )
    exiled = tuple(player.pack)
    player.exile.extend(player.pack)
    player.pack = []
    player.mulligan_turn = state.turn
    return _finish(state, [MulliganTaken(seat, exiled)])


# --------------------------------------------------------------------------- shoe effects


def mill(state: VortexState, seat: int, count: int) -> list[Event]:
    """``seat`` mills ``count``: the top cards of the shoe go to that player's graveyard."""
    player = _require_zone_change(state, seat)
    _check_count(count)
    milled = _take_top(state, count)
    player.graveyard.extend(milled)
    return _finish(state, [Milled(seat, tuple(milled))])


def reveal_top(state: VortexState, seat: int, count: int) -> list[Event]:
    """Reveal the top ``count`` cards to everyone; they stay where they are."""
    _require_zone_change(state, seat)
    _check_count(count)
    return _finish(state, [ShoeRevealed(seat, tuple(state.shoe[:count]))])


def look_at_top(state: VortexState, seat: int, count: int) -> list[Event]:
    """Only ``seat`` looks at the top ``count`` cards (DM the event); they may then arrange them."""
    _require_zone_change(state, seat)
    _check_count(count)
    seen = tuple(state.shoe[:count])
    state.look = Look(seat, len(seen))
    return _finish(state, [ShoeLooked(seat, seen)])


def arrange_top(state: VortexState, seat: int, top: Sequence[int], bottom: Sequence[int]) -> list[Event]:
    """Right after ``look_at_top``: put the looked-at cards back, ``top`` (indices into what was
    seen, first = new top card) and ``bottom`` (last = new bottom card); every index once (scry)."""
    _require_zone_change(state, seat)
    look = state.look
    if look is None or look.seat != seat:
        raise InvalidAction("Look at the top of the shoe first; only then can you arrange those cards.")
    order = list(top) + list(bottom)
    if not all(_is_int(i) for i in order) or sorted(order) != list(range(look.count)):
        raise InvalidAction(f"Place each of the {look.count} cards you looked at exactly once.")
    seen = state.shoe[: look.count]
    rest = state.shoe[look.count :]
    state.shoe = [seen[i] for i in top] + rest + [seen[i] for i in bottom]
    state.look = None
    return _finish(state, [TopArranged(seat, len(top), len(bottom))])


def put_on_shoe(state: VortexState, seat: int, cards: Sequence[str], *, position: str = TOP) -> list[Event]:
    """Put cards from the hand on top of or under the shoe, keeping their order (the first
    listed ends up highest)."""
    player = _require_zone_change(state, seat)
    if position not in (TOP, BOTTOM):
        raise InvalidAction("Put cards on the top or the bottom of the shoe.")
    moved = _take_from(player.hand, cards, "hand")
    if position == TOP:
        state.shoe[:0] = moved
    else:
        state.shoe.extend(moved)
    state.look = None
    return _finish(state, [CardsPutIntoShoe(seat, len(moved), position)])


def shuffle_shoe(state: VortexState, seat: int) -> list[Event]:
    _require_zone_change(state, seat)
    _shuffle_shoe(state)
    return _finish(state, [ShoeShuffled(seat, len(state.shoe))])


def begin_search(state: VortexState, seat: int, count: int, *, to: str = HAND, reveal: bool = False) -> list[Event]:
    """``seat`` searches the shoe for up to ``count`` cards (a tutor): they see the shoe (DM it,
    by name), choose with :func:`search_choose`, and :func:`finish_search` moves what they chose to
    ``to`` (their hand, the battlefield, or ``"top"`` of the shoe after the shuffle)
    and shuffles the shoe."""
    _require_zone_change(state, seat)
    _check_count(count)
    if to not in SEARCH_DESTINATIONS:
        raise InvalidAction("Searched cards go to your hand, onto the battlefield or on top of the shoe.")
    if not isinstance(reveal, bool):
        raise InvalidAction("Say whether the effect reveals the cards found.")
    state.search = Search(seat, count, to, reveal)
    return _finish(state, [SearchBegan(seat, count, to, reveal, len(state.shoe))])


def search_choose(state: VortexState, seat: int, cards: Sequence[str]) -> list[Event]:
    """During ``seat``'s search: choose ``cards`` (names, compared with ``name_key``; one copy each
    time a name is given) among those still in the shoe, within what the effect allows."""
    search = _require_search(state, seat)
    if isinstance(cards, str) or not cards:
        raise InvalidAction("Name at least one card.")
    if len(cards) > search.room:
        left = f"{search.room} more" if search.room else "no more"
        raise InvalidAction(f"This search takes up to {plural(search.count, 'card')}: you can choose {left}.")
    remaining = list(state.shoe)
    for card in search.chosen:
        remaining.remove(card)
    taken = _take_from(remaining, cards, "shoe", whose="the")  # names as the shoe spells them
    search.chosen.extend(taken)
    return []


def search_clear(state: VortexState, seat: int) -> list[Event]:
    """During ``seat``'s search: start choosing again."""
    _require_search(state, seat).chosen.clear()
    return []


def finish_search(state: VortexState, seat: int) -> list[Event]:
    """End ``seat``'s search: the chosen cards (possibly none) leave the shoe for the search's
    destination, and the shoe is shuffled (cards for its top go there after the shuffle)."""
    search = _require_search(state, seat)
    player = state.players[seat]
    found = _take_from(state.shoe, search.chosen, "shoe", whose="the") if search.chosen else []
    _shuffle_shoe(state)
    if search.to == HAND:
        player.hand.extend(found)
    elif search.to == BATTLEFIELD:
        player.battlefield.extend(found)
    else:
        state.shoe[:0] = found
    state.search = None
    shown = tuple(found) if search.reveal or search.to == BATTLEFIELD else ()
    events: list[Event] = [CardsFound(seat, tuple(found), search.to),
                           SearchFinished(seat, len(found), search.to, shown, len(state.shoe))]
    return _finish(state, events)


def _require_search(state: VortexState, seat: int) -> Search:
    state.player(seat)
    search = state.search
    if search is None or search.seat != seat:
        raise InvalidAction("You are not searching the shoe.")
    return search


# --------------------------------------------------------------------------- packs grow


def put_into_pack(state: VortexState, seat: int, cards: Sequence[str]) -> list[Event]:
    """An effect puts cards from the hand into the player's pack (over 7: random discards)."""
    player = _require_zone_change(state, seat)
    moved = _take_from(player.hand, cards, "hand")
    player.pack.extend(moved)
    return _finish(state, [CardsPutIntoPack(seat, len(moved), "hand", len(player.pack))])


def put_shoe_cards_into_pack(state: VortexState, seat: int, count: int) -> list[Event]:
    """An effect puts the top ``count`` shoe cards into the player's pack (not a replenish: no
    limit of 7, so the state-based discard may follow)."""
    player = _require_zone_change(state, seat)
    _check_count(count)
    moved = _take_top(state, count)
    player.pack.extend(moved)
    return _finish(state, [CardsPutIntoPack(seat, len(moved), "shoe", len(player.pack))])


# --------------------------------------------------------------------------- hand bookkeeping


def move_card(state: VortexState, seat: int, card: str, source: str, destination: str) -> list[Event]:
    """``seat`` moves ``card`` (compared with ``name_key``) from one of their zones to another: hand,
    battlefield, graveyard, exile. The card is public once moved (a card leaving the hand is shown)."""
    if source == destination and source in ZONES:
        raise InvalidAction("Choose two different zones.")
    origin, target = state.zone(seat, source), state.zone(seat, destination)
    _require_phase(state, PLAY)
    (moved,) = _take_from(origin, [card], source, where=ZONE_PLACES[source])
    target.append(moved)
    return _finish(state, [CardMoved(seat, moved, source, destination)])


# where a card of yours is, in a refusal ("Island is not on your battlefield")
ZONE_PLACES = {HAND: "in your hand", BATTLEFIELD: "on your battlefield", GRAVEYARD: "in your graveyard",
               EXILE: "in your exile"}


def play_card(state: VortexState, seat: int, card: str) -> list[Event]:
    """The player cast or played ``card`` from their hand: it goes onto the battlefield (a spell that
    resolves is then moved on to the graveyard)."""
    return move_card(state, seat, card, HAND, BATTLEFIELD)


def adjust_life(state: VortexState, seat: int, delta: int) -> list[Event]:
    """Record a change of the player's own life total (damage, life gain)."""
    player = state.player(seat)
    _require_phase(state, PLAY)
    if not _is_int(delta) or delta == 0 or abs(delta) > MAX_LIFE_CHANGE:
        raise InvalidAction("Give a life change as a whole number other than 0.")
    player.life += delta
    return _finish(state, [LifeChanged(seat, delta, player.life, "reported")])


def end_game(state: VortexState, winner: int | None = None) -> list[Event]:
    """End the game (organiser's decision); ``winner`` is a seat or None."""
    if state.phase == OVER:
        raise WrongPhase("The game is over.")
    if winner is not None:
        state.player(winner)
    state.phase, state.step, state.draft, state.look, state.search = OVER, NO_STEP, None, None, None
    return [PhaseChanged(OVER), GameOver(winner)]


# --------------------------------------------------------------------------- views


def public_status(state: VortexState) -> PublicStatus:
    """The table's public information: counts, life, turn; never a card name."""
    draft = state.draft
    return PublicStatus(
        phase=state.phase,
        step=state.step,
        turn=state.turn,
        turn_in_phase=_turn_in_phase(state),
        opening_turns=state.opening_turns,
        active_seat=active_seat(state),
        picking_seat=draft.seat if draft else None,
        picks_left=draft.picks_left if draft else 0,
        turn_order=tuple(state.turn_order),
        shoe_size=len(state.shoe),
        passed_pack_size=len(state.passed_pack),
        seats=tuple(
            SeatStatus(
                seat=p.seat,
                user_id=p.user_id,
                pack_size=len(p.pack),
                hand_size=len(p.hand),
                battlefield_size=len(p.battlefield),
                graveyard_size=len(p.graveyard),
                exile_size=len(p.exile),
                life=p.life,
                penalties=p.penalties,
                short_pack=p.mulligan_turn == state.turn,
                basics_chosen=p.opening_basics is not None,
            )
            for p in state.players
        ),
        searching_seat=state.search.seat if state.search else None,
    )


def private_view(state: VortexState, seat: int) -> PrivateView:
    """What ``seat`` may see: their hand and their own pack (for the DM and ``/vortex hand``)."""
    player = state.player(seat)
    draft = state.draft if state.draft and state.draft.seat == seat else None
    return PrivateView(
        seat=seat,
        hand=tuple(player.hand),
        pack=tuple(player.pack),
        picking=draft is not None,
        pick_number=draft.picks_done + 1 if draft else 0,
        picks_total=draft.picks_total if draft else 0,
        replenish_to=_replenish_target(state, player),
        can_mulligan=_can_mulligan(state, player),
        basics_to_choose=OPENING_BASICS if state.phase == BASICS and player.opening_basics is None else 0,
        searching=state.search is not None and state.search.seat == seat,
    )


def _can_mulligan(state: VortexState, player: Player) -> bool:
    return (
        state.phase == PLAY
        and state.step == UPKEEP
        and state.draft is None
        and active_seat(state) == player.seat
        and sum(1 for card in player.pack if is_basic_land(card)) >= MULLIGAN_BASICS
    )


def card_census(state: VortexState) -> Counter[str]:
    """Every card in the game, wherever it is (shoe, packs, passed pack, and each player's zones).

    Always equals ``Counter(starting_shoe(cube, players))`` plus each player's opening basics."""
    census = Counter(state.shoe) + Counter(state.passed_pack)
    for p in state.players:
        census.update(p.pack)
        for zone in ZONES:
            census.update(getattr(p, zone))
    return census


# --------------------------------------------------------------------------- internals


def _upgrade_from_1(d: Mapping[str, Any]) -> dict[str, Any]:
    """A version 1 document as version 2: its one ``played`` zone (milled, randomly discarded and
    searched-out cards; nothing else moved cards there) becomes the graveyard, except the cards a
    search put onto the battlefield, which it cannot tell apart: they land in the graveyard too."""
    players = [{**{k: v for k, v in p.items() if k != "played"}, "graveyard": list(p.get("played", ())),
                "battlefield": []} for p in d.get("players", ())]
    search = d.get("search")
    if isinstance(search, dict) and search.get("to") == "played":
        search = {**search, "to": BATTLEFIELD}
    return {**d, "v": SCHEMA_VERSION, "players": players, "search": search}


def _rng(state: VortexState) -> random.Random:
    r = random.Random(f"{state.seed}:{state.rng_counter}")
    state.rng_counter += 1
    return r


def _take_top(state: VortexState, count: int) -> list[str]:
    taken = state.shoe[:count]
    del state.shoe[:count]
    if taken:
        state.look = None  # the looked-at cards are no longer the top of the shoe
    return taken


def _shuffle_shoe(state: VortexState) -> None:
    _rng(state).shuffle(state.shoe)
    state.look = None


def _take_from(zone: list[str], names: Sequence[str], zone_name: str, whose: str = "your",
               where: str | None = None) -> list[str]:
    """Remove the named cards (compared with ``name_key``) from ``zone``; all or nothing. A name not
    there is refused: "… is not {where}" (default: "in {whose} {zone_name}")."""
    if isinstance(names, str) or not names:
        raise InvalidAction("Name at least one card.")
    remaining = list(zone)
    taken = []
    for name in names:
        key = name_key(name) if isinstance(name, str) else None
        index = next((i for i, card in enumerate(remaining) if name_key(card) == key), None)
        if index is None:
            raise CardNotFound(f"{clean_name(str(name))} is not {where or f'in {whose} {zone_name}'}.")
        taken.append(remaining.pop(index))
    zone[:] = remaining
    return taken


def _finish(state: VortexState, events: list[Event]) -> list[Event]:
    _apply_state_based_actions(state, events)
    return events


def _apply_state_based_actions(state: VortexState, events: list[Event]) -> None:
    """A pack over 7 cards: its owner discards a random card from it, until it has 7."""
    for player in state.players:
        while len(player.pack) > PACK_SIZE:
            card = player.pack.pop(_rng(state).randrange(len(player.pack)))
            player.graveyard.append(card)
            events.append(PackOverflowDiscard(player.seat, card))


def _require_phase(state: VortexState, *phases: str, opening: str | None = None) -> None:
    if state.phase in phases:
        return
    if state.phase == OVER:
        raise WrongPhase("The game is over.")
    if state.phase == OPENING:
        raise WrongPhase(opening or "You can't do that during the opening-hand phase.")
    if state.phase == BASICS:
        raise WrongPhase("Every player must first choose their 3 basic lands.")
    raise WrongPhase("You can't do that once play has begun.")


def _require_no_pending_pick(state: VortexState, seat: int) -> None:
    """Nobody is mid-way through resolving a draw (a pick) or a search: those come first."""
    if state.search is not None:
        if state.search.seat == seat:
            raise SearchPending("Finish your search of the shoe first (the shoe is in your DMs).")
        raise SearchPending("Wait: another player is searching the shoe.")
    if state.draft is None:
        return
    if state.draft.seat == seat:
        raise PickPending("Make your pending pick first.")
    raise PickPending("Wait: another player is picking a card.")


def _require_zone_change(state: VortexState, seat: int) -> Player:
    """Checks shared by every effect on the shoe or a pack: play phase and no pick pending."""
    player = state.player(seat)
    _require_phase(state, PLAY)
    _require_no_pending_pick(state, seat)
    return player


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_count(count: int) -> None:
    if not _is_int(count) or not 1 <= count <= MAX_COUNT:
        raise InvalidAction(f"Give a number of cards from 1 to {MAX_COUNT}.")
