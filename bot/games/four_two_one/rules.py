"""421 — pure rules engine (FORMATS.md §5; the original is ``seeds/004_…``).

No I/O, no Discord, no SQL. A league is one :class:`LeagueState` (plain dataclasses) that
round-trips exactly through JSON-ready dicts with the kit's codec (``to_dict()`` carries ``"v":
SCHEMA_VERSION``; ``from_dict`` refuses other versions). Operations mutate the state in place and
return a list of frozen :class:`Event` objects to announce (registered with :mod:`bot.kit.events`
as ``421.<Class>``); a refused operation raises a :class:`FourTwoOneError`
(a ``ValueError``) whose message is a sentence fit to show the user (player and card names in
it are markdown-escaped with :func:`bot.kit.text.escape`), and changes nothing: every check runs
before the first change. Randomness (tie-breaks in the standings) comes only from
``random.Random(f"{seed}:{rng_counter}")``, the counter stored in the state.

How FORMATS.md §5 maps to the code
    **Pool** — :func:`total_copies`: per added set, :data:`DEFAULT_COPIES` (4 of each common,
    2 of each uncommon, 1 of each rare and mythic), plus ``basics_per_type`` (48) of each of the
    five ordinary basics from the start, plus "extra basics" (below). ``state.pool`` holds the
    unchosen copies; every other copy is in exactly one deck (``state.decks``).

    **Extra basics** — a set's basic lands are listed apart from its cards
    (:attr:`bot.cards.sets.CardSet.basics`). When a set is added, each basic land it lists
    brings ``extra_basics_per_type`` (12) copies of that exact card: Coldsnap brings 12 of each
    Snow-Covered basic, Mirrodin Besieged 12 more of each ordinary basic. The first set's
    ordinary basics bring nothing (the 48 are those), but its other basics (a Kaldheim's snow
    lands, Wastes) bring 12 each.

    **Decks** — :func:`build_deck`, :func:`alter_deck`: exactly :data:`DECK_SIZE` (60) cards,
    only from the pool (altering may also keep the deck's own cards; what it drops returns to
    the pool). Neither FORMATS.md nor the seed limits copies of a card in a deck: the pool alone
    bounds them (a card in two of the league's sets has 8 copies, and a deck may hold all 8).
    Every deck is public (``state.decks``). A deck keeps its ``id`` (the order it was built in) for life;
    the rules' "deck N" is the count of decks in existence, given in :class:`DeckBuilt`. Users only
    ever see the id ("deck #13"); the count appears as a count ("once the league has 10 decks").

    **Deck numbering and new sets** — :class:`SetAddition` / :func:`default_schedule`.
    Whoever would build deck ``n`` (``len(decks) + 1``) first adds the next set when ``n`` has
    reached its ``at_deck`` (and someone has ever reached its ``min_score``), at most one set
    per build; then, if ``n`` is above the deck limit, takes apart two decks nobody is using
    (:func:`take_apart`) and builds deck ``n - 2``. Defaults: one set → limit 5 (deck "6"
    takes apart two and builds deck 4); two or three sets → sets at decks 6 and 11, limit 10
    (with two sets deck 11 only takes apart); four or more sets → a set every 5 decks and limit
    ``5 × (sets − 1)`` (Lorwyn–Shadowmoor: 6, 11, 16 with limit 15). The Weatherlight saga's
    score gates are ``min_score``: :func:`saga_schedule` (blocks of three sets, each block after
    the first eligible once a player has reached 10, 20, 30 … points). Only the builder acts
    while a build is pending, so the builder is the first who may use a new set.

    **Matches** — :func:`report`: winner +2, loser −1, draw 0; the bye +2 when the round's
    last result is in. After a draw nobody chooses and both keep their decks (this bot's ruling).

    **The loser's options** — :func:`choose`: **A** alter (removed cards return to the pool);
    **B** build a new deck (the old one is set aside, not returned); **C** claim a set-aside
    deck neither player just used (theirs is set aside) — never a deck someone holds, so never
    a sitting-out player's; **D** the winner sets the winning deck aside and builds a new one,
    the loser keeps theirs. Losers resolve in match order (A, then B, then C), each as soon as
    the matches before it are resolved.

    **Who must act** — ``state.step`` (the one sequential action: build, alter, take apart,
    choose) and :func:`pending_actions` (that step plus every match still to report).

    **Pairings** — :func:`_pair_round`: everyone builds (in seat order) before round 1; round
    1 pairs seats in order (1–2, 3–4, 5–6; with 3 or 5 players the last seat sits out). Later
    rounds rank by score (ties by a seeded shuffle), the bye goes to last place unless that
    player sat out the round before (then second-to-last), and the rest pair down the ranking
    into Match A, B, C. With three players that is exactly "the highest score plays the one who
    sat out; nobody gets two byes in a row; then a coin flip".

    **Target score** — when a round's results are all in, a player at or above
    ``target_score`` (21) who leads alone wins. Once a result brings a player to the target,
    nobody is asked to choose A–D while the round's other results are still to come: if the
    round ends with a sole leader at the target, nobody chooses at all; if it ends in a tie at
    the top, the league goes on and the losers choose in match order.

Public API — see ``__all__``; the command layer needs :func:`new_league`, :func:`check_table`,
the operations :func:`build_deck`, :func:`alter_deck`, :func:`take_apart`, :func:`report`,
:func:`choose`, :func:`end_league`, and the queries :func:`pending_actions`, :func:`require_turn`, :func:`standings`,
:func:`pool_cards`, :func:`suggest_card_names`, :func:`claimable_decks`, :func:`unused_decks`,
:func:`deck_status`, :func:`deck_limit`, :func:`holder_of`, :func:`seat_of`, :func:`current_match`,
:func:`total_copies`.
"""

from __future__ import annotations

import difflib
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.cards.model import basic_land_name
from bot.kit import events
from bot.kit.text import clean_name, escape, name_key, plural

__all__ = [
    "ChoiceWaits",
    "DECK_SIZE",
    "DEFAULT_COPIES",
    "MAX_PLAYERS",
    "MAX_PLAYERS_ONE_SET",
    "MIN_PLAYERS",
    "OPTIONS",
    "ORDINARY_BASICS",
    "OUTCOMES",
    "ActionPending",
    "CardProblem",
    "Deck",
    "DeckAltered",
    "DeckBuilt",
    "DeckClaimed",
    "DeckRejected",
    "DeckSetAside",
    "DecksTakenApart",
    "Event",
    "FourTwoOneError",
    "InvalidChoice",
    "LeagueEnded",
    "LeagueSet",
    "LeagueSettings",
    "LeagueSetupError",
    "LeagueState",
    "LeagueWon",
    "Match",
    "MatchReported",
    "NotAPlayer",
    "NotYourTurn",
    "OptionChosen",
    "PendingAction",
    "Player",
    "PoolCard",
    "RoundStarted",
    "ScoreChanged",
    "SetAdded",
    "SetAddition",
    "SAGA_BLOCK",
    "SCHEMA_VERSION",
    "SetLike",
    "Step",
    "UnknownStateVersion",
    "alter_deck",
    "available_options",
    "build_deck",
    "check_table",
    "choose",
    "claimable_decks",
    "current_match",
    "deck_limit",
    "deck_status",
    "default_schedule",
    "saga_schedule",
    "end_league",
    "holder_of",
    "new_league",
    "pending_actions",
    "pool_cards",
    "report",
    "require_turn",
    "seat_of",
    "standings",
    "suggest_card_names",
    "take_apart",
    "total_copies",
    "unused_decks",
]

# --------------------------------------------------------------------------- constants

SCHEMA_VERSION = 1
DECK_SIZE = 60
MIN_PLAYERS = 2
MAX_PLAYERS = 6
MAX_PLAYERS_ONE_SET = 3
ORDINARY_BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")
DEFAULT_COPIES = {"common": 4, "uncommon": 2, "rare": 1, "mythic": 1}
OPTIONS = ("A", "B", "C", "D")
OUTCOMES = ("won", "lost", "draw")
MATCH_LABELS = ("A", "B", "C")
_MAX_PROBLEMS_SHOWN = 15
_MAX_SUGGESTED_NAMES = 10  # difflib per unknown name is not free: suggest for the first few only

# phases
BUILDING, PLAYING, OVER = "building", "playing", "over"
# sequential steps (state.step.kind); "report" only appears in pending_actions()
BUILD, ALTER, TAKE_APART, CHOOSE, REPORT = "build", "alter", "take_apart", "choose", "report"
_STEP_WORDS = {
    BUILD: "build a new deck",
    ALTER: "alter a deck (option A)",
    TAKE_APART: "take apart two decks nobody is using",
    CHOOSE: "choose an option (A, B, C or D)",
}


# --------------------------------------------------------------------------- errors


class FourTwoOneError(ValueError):
    """A refused action; the message is meant for the user."""


class LeagueSetupError(FourTwoOneError):
    """The league cannot be created as asked (players, sets, settings)."""


class NotAPlayer(FourTwoOneError):
    pass


class NotYourTurn(FourTwoOneError):
    """Acting out of turn, or at a moment the league does not allow it."""


class InvalidChoice(FourTwoOneError):
    """An option, a deck to claim or decks to take apart that the rules do not allow."""


@dataclass(frozen=True)
class CardProblem:
    """One reason a decklist was refused.

    ``kind``: ``"unknown"`` (no such card in the league; see ``suggestions``), ``"not_yet"``
    (its set is not in the pool yet), ``"unavailable"`` (fewer copies available than listed;
    ``held_in`` says which decks hold the others).
    """

    card: str
    kind: str
    requested: int
    available: int = 0
    suggestions: tuple[str, ...] = ()
    held_in: tuple[tuple[int, int], ...] = ()  # (deck id, copies)
    message: str = ""


class DeckRejected(FourTwoOneError):
    """A decklist that cannot be built or used to alter: every problem at once."""

    def __init__(self, card_count: int, problems: Sequence[CardProblem], size_problem: str | None) -> None:
        self.card_count = card_count
        self.problems = tuple(problems)
        self.size_problem = size_problem
        lines = ([size_problem] if size_problem else []) + [p.message for p in self.problems]
        shown = lines[:_MAX_PROBLEMS_SHOWN]
        more = f"\n- …and {len(lines) - len(shown)} more" if len(lines) > len(shown) else ""
        super().__init__("That deck can't be used:\n" + "\n".join(f"- {line}" for line in shown) + more)


class UnknownStateVersion(ValueError):
    """A stored league written by another version of this engine (not a user error)."""


# --------------------------------------------------------------------------- settings


@dataclass
class SetAddition:
    """When the next set joins the pool: whoever would build deck ``at_deck`` (or a later
    one) adds it, once a player has ever reached ``min_score``; from then on at most
    ``deck_limit`` decks exist (building beyond it takes apart two unused decks first)."""

    at_deck: int
    deck_limit: int
    min_score: int = 0


def default_schedule(n_sets: int) -> tuple[int, list[SetAddition]]:
    """``(deck limit with the first set, additions of the later sets)`` for ``n_sets`` sets
    (see the module docstring)."""
    if n_sets <= 1:
        return 5, []
    limit = 5 * max(2, n_sets - 1)
    return limit, [SetAddition(at_deck=1 + 5 * k, deck_limit=limit) for k in range(1, n_sets)]


SAGA_BLOCK = 3  # sets per block in the Weatherlight saga (Mirage, Visions, Weatherlight; Tempest …)


def saga_schedule(n_sets: int, points: int) -> tuple[int, list[SetAddition]]:
    """The seed's Weatherlight saga (FORMATS.md §5 Variants), for any number of sets and any
    score step: the sets come in blocks of three. In block ``b`` (from 0) the first set is
    eligible once a player has reached ``b × points`` and joins at deck ``10b + 1`` (five more
    decks), the second joins at deck ``10b + 6`` (five more), and the third at deck ``10b + 11``
    with no new decks (its builder takes two apart). With 12 sets and 10 points: Visions at deck
    6, Weatherlight at 11 (limit 10), Tempest at 11 once someone has 10 points (limit 15),
    Stronghold at 16, Exodus at 21 (limit 20), Masques at 21 after 20 points, and so on."""
    if n_sets <= 1:
        return default_schedule(n_sets)
    additions = []
    for index in range(1, n_sets):
        block, place = divmod(index, SAGA_BLOCK)
        at_deck = 10 * block + 1 + 5 * place
        limit = 10 * block + min(5 * (place + 1), 10)
        additions.append(SetAddition(at_deck, limit, points * block if place == 0 else 0))
    return additions[0].deck_limit, additions


@dataclass
class LeagueSettings:
    """What an organizer may change (FORMATS.md "configurable"); ``None`` means the default
    for the number of sets (:func:`default_schedule`), resolved when the league is created."""

    target_score: int = 21
    copies: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_COPIES))
    basics_per_type: int = 48
    extra_basics_per_type: int = 12
    first_deck_limit: int | None = None
    additions: list[SetAddition] | None = None


# --------------------------------------------------------------------------- data


class _CardLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def rarity(self) -> str | None: ...


class SetLike(Protocol):
    """What :func:`new_league` needs of a set (:class:`bot.cards.sets.CardSet` is one)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def cards(self) -> Iterable[_CardLike]: ...
    @property
    def basics(self) -> Iterable[str]: ...


@dataclass
class LeagueSet:
    """A set as the league keeps it: ``cards`` maps each card name to its rarity."""

    code: str
    name: str
    cards: dict[str, str]
    basics: list[str] = field(default_factory=list)


@dataclass
class Player:
    seat: int
    user_id: int
    name: str
    score: int = 0
    deck: int | None = None  # id of the deck the player holds (None while between decks)
    byes: int = 0


@dataclass
class Deck:
    id: int  # build order, never reused
    cards: dict[str, int]
    built_by: int
    built_round: int  # 0: built before the first round


@dataclass
class Match:
    round: int
    label: str  # "A", "B", "C"
    a: int
    b: int
    deck_a: int
    deck_b: int
    result: str | None = None  # "a" | "b" | "draw"
    option: str | None = None  # the loser's choice
    resolved: bool = False  # the loser's option is fully carried out (a draw: at once)

    def seats(self) -> tuple[int, int]:
        return (self.a, self.b)

    def winner(self) -> int | None:
        return {"a": self.a, "b": self.b}.get(self.result or "")

    def loser(self) -> int | None:
        return {"a": self.b, "b": self.a}.get(self.result or "")


@dataclass
class Step:
    """The one action the league waits for from one player (FORMATS.md: losers resolve in
    order, and a builder acts alone so they are the first who may use a new set)."""

    kind: str  # build | alter | take_apart | choose
    seat: int
    match: str | None = None  # label of the match being resolved; None for the first builds
    option: str | None = None  # the option that led here


@dataclass
class LeagueState:
    seed: int | str
    rng_counter: int
    settings: LeagueSettings
    sets: list[LeagueSet]
    players: list[Player]
    pool: dict[str, int]
    decks: list[Deck] = field(default_factory=list)  # in build order: the rules' deck N is decks[N-1]
    sets_added: int = 1
    next_deck_id: int = 1
    phase: str = BUILDING
    round: int = 0
    matches: list[Match] = field(default_factory=list)  # this round's
    bye: int | None = None  # seat sitting out this round
    previous_bye: int | None = None
    step: Step | None = None
    high_score: int = 0  # the best score anyone has ever had (for SetAddition.min_score)
    winner: int | None = None
    history: list[Match] = field(default_factory=list)  # earlier rounds' matches

    def to_dict(self) -> dict[str, Any]:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LeagueState:
        """The stored league (one written when settings had `max_copies_per_deck` reads without it)."""
        version = data.get("v")
        if version != SCHEMA_VERSION:
            raise UnknownStateVersion(f"421 league state version {version!r} is not {SCHEMA_VERSION}.")
        return events.decode({k: v for k, v in data.items() if k != "v"}, cls)

    def player(self, seat: int) -> Player:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.players):
            raise NotAPlayer(f"Seat {seat!r} is not a player in this league.")
        return self.players[seat]

    def deck(self, deck_id: int) -> Deck:
        for deck in self.decks:
            if deck.id == deck_id:
                return deck
        raise InvalidChoice(f"There is no deck #{deck_id}." if isinstance(deck_id, int) else "There is no such deck.")


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event(events.Event, family="421"):  # stored as "421.<ClassName>": bot.kit.events
    pass


@dataclass(frozen=True)
class SetAdded(Event):
    seat: int  # the builder who adds it (and is the first who may use it)
    code: str
    name: str
    deck_number: int  # the deck whose building brought it in
    extra_basics: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class DecksTakenApart(Event):
    seat: int
    deck_ids: tuple[int, int]
    cards_returned: int


@dataclass(frozen=True)
class DeckBuilt(Event):
    seat: int
    deck_id: int
    deck_number: int  # the rules' number: how many decks exist now


@dataclass(frozen=True)
class DeckAltered(Event):
    seat: int
    deck_id: int
    added: tuple[tuple[str, int], ...]
    removed: tuple[tuple[str, int], ...]  # back in the pool


@dataclass(frozen=True)
class DeckSetAside(Event):
    seat: int
    deck_id: int


@dataclass(frozen=True)
class DeckClaimed(Event):
    seat: int
    deck_id: int


@dataclass(frozen=True)
class RoundStarted(Event):
    round: int
    matches: tuple[tuple[str, int, int], ...]  # (label, seat, seat)
    bye: int | None


@dataclass(frozen=True)
class MatchReported(Event):
    label: str
    a: int
    b: int
    winner: int | None  # None: a draw


@dataclass(frozen=True)
class ScoreChanged(Event):
    seat: int
    delta: int
    score: int
    reason: str  # win | loss | bye


@dataclass(frozen=True)
class OptionChosen(Event):
    seat: int
    option: str
    match: str
    deck_id: int | None = None  # option C: the claimed deck
    winner: int | None = None  # the match's winner (None in events stored before it was given)


@dataclass(frozen=True)
class ActionPending(Event):
    kind: str  # build | alter | take_apart | choose
    seat: int
    match: str | None
    deck_number: int | None = None  # build: the rules' number of the deck to be built
    deck_id: int | None = None  # build: the id the deck will have (None in events stored before it was given)


@dataclass(frozen=True)
class ChoiceWaits(Event):
    """A result brought a player to the target with other results still to come: the loser of
    ``match`` does not choose now (the round's end may end the league)."""

    seat: int  # the loser
    match: str
    leader: int  # a player at the target


@dataclass(frozen=True)
class LeagueWon(Event):
    seat: int
    score: int


@dataclass(frozen=True)
class LeagueEnded(Event):
    winner: int | None  # ended by the organizer: the sole leader, if any


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class PendingAction:
    """Something the league waits for: ``seats`` may do it (both players for a report)."""

    kind: str  # build | alter | take_apart | choose | report
    seats: tuple[int, ...]
    match: str | None = None
    deck_number: int | None = None  # build: the rules' number of the deck to be built
    option: str | None = None
    deck_id: int | None = None  # build: the id the deck will have ("deck #13": the one number users see)


@dataclass(frozen=True)
class PoolCard:
    name: str
    rarity: str  # common | uncommon | rare | mythic | basic
    available: int
    total: int


def pending_actions(state: LeagueState) -> list[PendingAction]:
    """Who must act next: the sequential step (if any) first, then each match awaiting its result."""
    if state.phase == OVER:
        return []
    actions: list[PendingAction] = []
    step = state.step
    if step is not None:
        number = len(state.decks) + 1 if step.kind == BUILD else None
        deck_id = state.next_deck_id if step.kind == BUILD else None
        actions.append(PendingAction(step.kind, (step.seat,), step.match, number, step.option, deck_id))
    for match in state.matches:
        if match.result is None:
            actions.append(PendingAction(REPORT, match.seats(), match.label))
    return actions


def require_turn(state: LeagueState, seat: int, kind: str) -> None:
    """Refuse, exactly as the action would, unless ``seat`` is due to ``kind`` (build, alter,
    take_apart, choose) now: the command layer asks before showing a form for it."""
    if kind not in _STEP_WORDS:
        raise ValueError(f"unknown step {kind!r}")
    _require_step(state, seat, kind)


def seat_of(state: LeagueState, user_id: int) -> int:
    for player in state.players:
        if player.user_id == user_id:
            return player.seat
    raise NotAPlayer("You are not a player in this 421 league.")


def standings(state: LeagueState) -> list[Player]:
    """Players by score, highest first (ties in seat order)."""
    return sorted(state.players, key=lambda p: (-p.score, p.seat))


def current_match(state: LeagueState, seat: int) -> Match | None:
    """The seat's match this round (None while sitting out or outside a round)."""
    return next((m for m in state.matches if seat in m.seats()), None)


def holder_of(state: LeagueState, deck_id: int) -> int | None:
    return next((p.seat for p in state.players if p.deck == deck_id), None)


def deck_status(state: LeagueState, deck_id: int) -> str:
    """``"in use"``, ``"sitting out"`` (its holder has the bye) or ``"set aside"``."""
    holder = holder_of(state, deck_id)
    if holder is None:
        return "set aside"
    return "sitting out" if holder == state.bye else "in use"


def deck_limit(state: LeagueState) -> int:
    """How many decks may exist with the sets in the pool now (building beyond takes two apart)."""
    return _deck_limit(state)


def unused_decks(state: LeagueState) -> list[Deck]:
    """Decks nobody holds: the ones that may be taken apart (or claimed, see :func:`claimable_decks`)."""
    held = {p.deck for p in state.players}
    return [deck for deck in state.decks if deck.id not in held]


def claimable_decks(state: LeagueState) -> list[Deck]:
    """Set-aside decks the loser now choosing could claim with option C (none outside that step)."""
    match = _match_being_resolved(state)
    if match is None or state.step is None or state.step.kind != CHOOSE:
        return []
    just_used = {match.deck_a, match.deck_b}
    return [deck for deck in unused_decks(state) if deck.id not in just_used]


def available_options(state: LeagueState) -> tuple[str, ...]:
    """The options the loser now choosing may take (C only when a deck can be claimed)."""
    if state.step is None or state.step.kind != CHOOSE:
        return ()
    return OPTIONS if claimable_decks(state) else ("A", "B", "D")


def total_copies(state: LeagueState) -> dict[str, int]:
    """Every copy in the league so far (pool and decks together), by card name."""
    totals: Counter[str] = Counter(dict.fromkeys(ORDINARY_BASICS, state.settings.basics_per_type))
    for index in range(state.sets_added):
        totals.update(_copies_of_set(state, index))
    return dict(totals)


def pool_cards(
    state: LeagueState, search: str | None = None, *, include_used_up: bool = False
) -> list[PoolCard]:
    """The pool by card name (what ``/421 pool`` lists): available and total copies, filtered by
    a name fragment, sorted by name. Cards with no copy left are omitted unless asked for."""
    rarity = _rarities(state)
    needle = name_key(search) if search else ""
    cards = []
    for name, total in total_copies(state).items():
        available = state.pool.get(name, 0)
        if (available or include_used_up) and needle in name_key(name):
            cards.append(PoolCard(name, rarity.get(name, "basic"), available, total))
    return sorted(cards, key=lambda c: name_key(c.name))


def suggest_card_names(state: LeagueState, typed: str, limit: int = 3) -> list[str]:
    """Closest card names in the pool's sets (added ones) to a misspelled name."""
    names = {name_key(name): name for name in total_copies(state)}
    close = difflib.get_close_matches(_lookup_key(typed), list(names), n=limit, cutoff=0.6)
    return [names[key] for key in close]


# --------------------------------------------------------------------------- setup


def check_table(n_players: int, n_sets: int) -> None:
    """Refuse a player count the rules do not allow (a lobby can call this before starting)."""
    if n_players > MAX_PLAYERS:
        raise LeagueSetupError(
            f"A 421 league has at most {MAX_PLAYERS} players; this one would have {n_players}."
        )
    if n_players < MIN_PLAYERS:
        raise LeagueSetupError(f"A 421 league needs at least {MIN_PLAYERS} players.")
    if n_sets < 1:
        raise LeagueSetupError("A 421 league needs at least one set.")
    if n_sets == 1 and n_players > MAX_PLAYERS_ONE_SET:
        raise LeagueSetupError(
            f"With only one set, 421 is for two or three players (only 5 decks exist); "
            f"this league has {n_players}. Add a second set or play with fewer."
        )


def new_league(
    sets: Sequence[SetLike],
    user_ids: Sequence[int],
    *,
    seed: int | str,
    names: Sequence[str] | None = None,
    settings: LeagueSettings | None = None,
) -> LeagueState:
    """A league in the building phase: the first set and the basics are in the pool, and the
    first seat is to build. Seats follow ``user_ids`` (seat 0 is "player one")."""
    check_table(len(user_ids), len(sets))
    if len(set(user_ids)) != len(user_ids):
        raise LeagueSetupError("A player can only take one seat.")
    names = list(names) if names is not None else [f"Player {i + 1}" for i in range(len(user_ids))]
    if len(names) != len(user_ids):
        raise LeagueSetupError("Give one name per player.")
    settings = _resolve_settings(settings or LeagueSettings(), len(user_ids), len(sets))
    league_sets = _league_sets(sets, settings)
    state = LeagueState(
        seed=seed,
        rng_counter=0,
        settings=settings,
        sets=league_sets,
        players=[
            Player(seat, uid, clean_name(name) or f"Player {seat + 1}")
            for seat, (uid, name) in enumerate(zip(user_ids, names, strict=True))
        ],
        pool={},
    )
    state.pool = total_copies(state)
    _advance(state, [])
    return state


def _resolve_settings(settings: LeagueSettings, n_players: int, n_sets: int) -> LeagueSettings:
    first_limit, additions = default_schedule(n_sets)
    if settings.first_deck_limit is not None:
        first_limit = settings.first_deck_limit
    if settings.additions is not None:
        additions = [SetAddition(a.at_deck, a.deck_limit, a.min_score) for a in settings.additions]
    resolved = LeagueSettings(
        target_score=settings.target_score,
        copies=dict(settings.copies),
        basics_per_type=settings.basics_per_type,
        extra_basics_per_type=settings.extra_basics_per_type,
        first_deck_limit=first_limit,
        additions=additions,
    )
    _check_settings(resolved, n_players, n_sets)
    return resolved


def _check_settings(settings: LeagueSettings, n_players: int, n_sets: int) -> None:
    if settings.target_score < 1:
        raise LeagueSetupError("The target score must be at least 1.")
    if set(settings.copies) != set(DEFAULT_COPIES) or any(n < 0 for n in settings.copies.values()):
        raise LeagueSetupError("Copies must be given, zero or more, for common, uncommon, rare and mythic.")
    if settings.basics_per_type < 0 or settings.extra_basics_per_type < 0:
        raise LeagueSetupError("The numbers of basic lands cannot be negative.")
    additions = settings.additions or []
    if len(additions) != n_sets - 1:
        raise LeagueSetupError(
            f"{n_sets} sets need {n_sets - 1} set additions in the schedule, not {len(additions)}."
        )
    limit = settings.first_deck_limit or 0
    previous_at = 1
    for addition in [SetAddition(1, limit), *additions]:
        # Two decks nobody uses must exist whenever a builder is over the limit: the builder
        # holds none, so the others hold at most n_players - 1 of the limit's decks.
        if addition.deck_limit < n_players + 1:
            raise LeagueSetupError(
                f"With {n_players} players the deck limit must be at least {n_players + 1}, "
                f"so that two unused decks can always be taken apart."
            )
        if addition.deck_limit < limit:
            raise LeagueSetupError("A set addition cannot lower the deck limit.")
        if not previous_at <= addition.at_deck <= limit + 1:
            raise LeagueSetupError(
                f"A set added at deck {addition.at_deck} could never be added (decks go up to {limit + 1})."
            )
        if addition.min_score < 0:
            raise LeagueSetupError("A set's score gate cannot be negative.")
        previous_at, limit = addition.at_deck, addition.deck_limit


def _league_sets(sets: Sequence[SetLike], settings: LeagueSettings) -> list[LeagueSet]:
    codes = [name_key(s.code) for s in sets]
    if len(set(codes)) != len(codes):
        raise LeagueSetupError("The same set is listed twice.")
    league_sets = []
    spelling: dict[str, str] = {}  # a card in two sets is one pool entry, spelled as first seen
    for card_set in sets:
        cards: dict[str, str] = {}
        basics: dict[str, None] = {}
        for card in card_set.cards:
            basic = basic_land_name(card.name)
            if basic is not None:
                basics[basic] = None
                continue
            if card.rarity not in settings.copies:
                raise LeagueSetupError(
                    f"In {escape(card_set.name)}, {escape(card.name)} has no rarity the pool knows "
                    "(common, uncommon, rare or mythic)."
                )
            name = spelling.setdefault(_lookup_key(card.name), clean_name(card.name))
            cards.setdefault(name, card.rarity)
        for name in card_set.basics:
            basic = basic_land_name(name)
            if basic is not None:
                basics[basic] = None
        if not cards:
            raise LeagueSetupError(f"The set {escape(card_set.name)} has no cards besides basic lands.")
        league_sets.append(LeagueSet(card_set.code, card_set.name, cards, list(basics)))
    return league_sets


# --------------------------------------------------------------------------- deck operations


def build_deck(state: LeagueState, seat: int, cards: Mapping[str, int] | Iterable[str]) -> list[Event]:
    """Build the new deck this seat is due to build (``cards``: name -> copies, or one name per copy)."""
    step = _require_step(state, seat, BUILD)
    wanted = _check_deck(state, cards, own_deck=None)
    deck = Deck(
        id=state.next_deck_id, cards=dict(sorted(wanted.items())), built_by=seat, built_round=state.round
    )
    state.next_deck_id += 1
    _take_from_pool(state, wanted)
    state.decks.append(deck)
    state.player(seat).deck = deck.id
    events: list[Event] = [DeckBuilt(seat, deck.id, len(state.decks))]
    _finish_step(state, step, events)
    return events


def alter_deck(state: LeagueState, seat: int, cards: Mapping[str, int] | Iterable[str]) -> list[Event]:
    """Option A: the seat's deck becomes ``cards`` (the full new 60-card list); what it drops
    returns to the pool, what it adds comes from the pool. The same list again keeps the deck."""
    step = _require_step(state, seat, ALTER)
    deck_id = state.player(seat).deck
    assert deck_id is not None  # the loser who chose A still holds the deck they played
    deck = state.deck(deck_id)
    wanted = _check_deck(state, cards, own_deck=deck)
    old = Counter(deck.cards)
    new = Counter(wanted)
    added, removed = new - old, old - new
    _return_to_pool(state, removed)
    _take_from_pool(state, added)
    deck.cards = dict(sorted(wanted.items()))
    events: list[Event] = [
        DeckAltered(seat, deck.id, tuple(sorted(added.items())), tuple(sorted(removed.items())))
    ]
    _finish_step(state, step, events)
    return events


def take_apart(state: LeagueState, seat: int, deck_ids: Sequence[int]) -> list[Event]:
    """Take apart two decks nobody is using (their cards return to the pool) before building."""
    step = _require_step(state, seat, TAKE_APART)
    ids = list(deck_ids)
    if len(ids) != 2 or ids[0] == ids[1]:
        raise InvalidChoice("Name two different decks to take apart.")
    decks = [state.deck(deck_id) for deck_id in ids]
    for deck in decks:
        _require_unused(state, deck, "take it apart")
    returned = 0
    for deck in decks:
        _return_to_pool(state, Counter(deck.cards))
        returned += sum(deck.cards.values())
        state.decks.remove(deck)
    state.step = Step(BUILD, seat, step.match, step.option)
    events: list[Event] = [DecksTakenApart(seat, (ids[0], ids[1]), returned)]
    events.append(ActionPending(BUILD, seat, step.match, len(state.decks) + 1, state.next_deck_id))
    return events


# --------------------------------------------------------------------------- matches


def report(state: LeagueState, seat: int, outcome: str) -> list[Event]:
    """Report the seat's match: ``outcome`` is ``"won"``, ``"lost"`` or ``"draw"`` from the
    reporter's side (the opponent's confirmation is the command layer's business)."""
    player = state.player(seat)
    _require_phase(state, PLAYING, "report a match")
    if outcome not in OUTCOMES:
        raise InvalidChoice("Report 'won', 'lost' or 'draw'.")
    match = current_match(state, seat)
    if match is None:
        raise NotYourTurn(
            f"{escape(player.name)} is sitting out this round (a bye): there is no match to report."
        )
    if match.result is not None:
        raise NotYourTurn(f"Match {match.label}'s result is already in.")
    opponent = match.b if seat == match.a else match.a
    winner = {"won": seat, "lost": opponent, "draw": None}[outcome]
    match.result = "draw" if winner is None else ("a" if winner == match.a else "b")
    events: list[Event] = [MatchReported(match.label, match.a, match.b, winner)]
    if winner is not None:
        _add_score(state, winner, 2, "win", events)
        _add_score(state, opponent if winner == seat else seat, -1, "loss", events)
    if all(m.result is not None for m in state.matches):
        _end_round(state, events)
    _advance(state, events)
    if winner is not None and _may_end_with_the_round(state):
        leader = max(state.players, key=lambda p: p.score).seat
        events.append(ChoiceWaits(opponent if winner == seat else seat, match.label, leader))
    return events


def choose(state: LeagueState, seat: int, option: str, *, deck_id: int | None = None) -> list[Event]:
    """The loser's choice (FORMATS.md §5): ``"A"`` alter, ``"B"`` new deck, ``"C"`` claim the
    set-aside deck ``deck_id``, ``"D"`` the winner sets their deck aside and builds anew."""
    step = _require_step(state, seat, CHOOSE)
    option = option.strip().upper() if isinstance(option, str) else ""
    if option not in OPTIONS:
        raise InvalidChoice("Choose option A, B, C or D.")
    if (deck_id is not None) != (option == "C"):
        raise InvalidChoice(
            "Option C needs the set-aside deck you claim." if option == "C" else "Only option C takes a deck."
        )
    match = _match_being_resolved(state)
    assert match is not None and step.match == match.label
    winner = match.winner()
    assert winner is not None
    claimed = _claimable(state, match, deck_id) if deck_id is not None else None  # checked before any change
    match.option = option
    events: list[Event] = [OptionChosen(seat, option, match.label, deck_id, winner)]
    state.step = None
    if option == "A":
        state.step = Step(ALTER, seat, match.label, option)
        events.append(ActionPending(ALTER, seat, match.label))
    elif option == "B":
        _set_aside(state, seat, events)
        _prepare_build(state, seat, match.label, option, events)
    elif claimed is not None:  # option C
        _set_aside(state, seat, events)
        state.player(seat).deck = claimed.id
        events.append(DeckClaimed(seat, claimed.id))
        match.resolved = True
        _advance(state, events)
    else:  # option D
        _set_aside(state, winner, events)
        _prepare_build(state, winner, match.label, option, events)
    return events


def end_league(state: LeagueState) -> list[Event]:
    """End the league now (the organizer's ``/421 end``): the sole leader, if any, wins."""
    _require_phase(state, BUILDING, PLAYING, "end the league")
    top = standings(state)
    leader = top[0].seat if top[0].score > top[1].score else None
    state.phase, state.step, state.winner = OVER, None, leader
    return [LeagueEnded(leader)]


# --------------------------------------------------------------------------- flow


def _advance(state: LeagueState, events: list[Event]) -> None:
    """Set the next step, or start the next round, once nobody is mid-action."""
    if state.phase == OVER or state.step is not None:
        return
    if state.phase == BUILDING:
        seat = next((p.seat for p in state.players if p.deck is None), None)
        if seat is not None:
            _prepare_build(state, seat, None, None, events)  # everyone builds before round 1
            return
        state.phase = PLAYING
        _start_round(state, events)
        return
    if _may_end_with_the_round(state):
        return  # a result reached the target: nobody chooses until the round's end says the league goes on
    for match in state.matches:
        if match.resolved:
            continue
        if match.result is None:
            return  # later losers wait: choices resolve in match order
        if match.result == "draw":
            match.resolved = True  # this bot's ruling: nobody chooses, both keep their decks
            continue
        loser = match.loser()
        assert loser is not None
        state.step = Step(CHOOSE, loser, match.label)
        events.append(ActionPending(CHOOSE, loser, match.label))
        return
    _start_round(state, events)


def _may_end_with_the_round(state: LeagueState) -> bool:
    """A player is at the target while results are still to come: the round's end may give the league
    its winner, so no loser is asked to choose A–D before it (a choice that would never be played)."""
    waiting = any(m.result is None for m in state.matches)
    return waiting and max(p.score for p in state.players) >= state.settings.target_score


def _finish_step(state: LeagueState, step: Step, events: list[Event]) -> None:
    state.step = None
    if step.match is not None:
        match = next(m for m in state.matches if m.label == step.match)
        match.resolved = True
    _advance(state, events)


def _prepare_build(
    state: LeagueState, seat: int, match: str | None, option: str | None, events: list[Event]
) -> None:
    """Whoever would build deck n adds the next set if it is due, and takes apart two decks
    first if n is over the limit (FORMATS.md "Deck numbering and new sets")."""
    number = len(state.decks) + 1
    _maybe_add_set(state, seat, number, events)
    if number > _deck_limit(state):
        state.step = Step(TAKE_APART, seat, match, option)
        events.append(ActionPending(TAKE_APART, seat, match))
    else:
        state.step = Step(BUILD, seat, match, option)
        events.append(ActionPending(BUILD, seat, match, number, state.next_deck_id))


def _maybe_add_set(state: LeagueState, seat: int, number: int, events: list[Event]) -> None:
    if state.sets_added >= len(state.sets):
        return
    addition = (state.settings.additions or [])[state.sets_added - 1]
    if number < addition.at_deck or state.high_score < addition.min_score:
        return
    index = state.sets_added
    copies = _copies_of_set(state, index)
    for name, count in copies.items():
        state.pool[name] = state.pool.get(name, 0) + count
    state.sets_added += 1
    league_set = state.sets[index]
    extra = tuple((b, copies[b]) for b in _extra_basics(state, index))
    events.append(SetAdded(seat, league_set.code, league_set.name, number, extra))


def _deck_limit(state: LeagueState) -> int:
    if state.sets_added == 1:
        return state.settings.first_deck_limit or 0
    return (state.settings.additions or [])[state.sets_added - 2].deck_limit


def _copies_of_set(state: LeagueState, index: int) -> Counter[str]:
    league_set = state.sets[index]
    copies: Counter[str] = Counter()
    for name, rarity in league_set.cards.items():
        copies[name] += state.settings.copies[rarity]
    for basic in _extra_basics(state, index):
        copies[basic] += state.settings.extra_basics_per_type
    return copies


def _extra_basics(state: LeagueState, index: int) -> list[str]:
    basics = state.sets[index].basics
    # The first set's ordinary basics are the basics_per_type every league starts with.
    return [b for b in basics if index > 0 or b not in ORDINARY_BASICS]


def _start_round(state: LeagueState, events: list[Event]) -> None:
    state.history.extend(state.matches)
    state.round += 1
    state.previous_bye = state.bye
    pairs, bye = _pair_round(state)
    state.bye = bye
    state.matches = []
    for label, (a, b) in zip(MATCH_LABELS, pairs, strict=False):
        deck_a, deck_b = state.player(a).deck, state.player(b).deck
        assert deck_a is not None and deck_b is not None
        state.matches.append(Match(state.round, label, a, b, deck_a, deck_b))
    events.append(RoundStarted(state.round, tuple((m.label, m.a, m.b) for m in state.matches), bye))


def _pair_round(state: LeagueState) -> tuple[list[tuple[int, int]], int | None]:
    """Round 1: seat order. Later: by standings; the bye to last place, or second-to-last if
    last place sat out the round before; the others pair down the ranking (A, B, C)."""
    if state.round == 1:
        order = [p.seat for p in state.players]
    else:
        order = [p.seat for p in _ranked(state)]
    bye = None
    if len(order) % 2:
        bye = order[-1] if order[-1] != state.previous_bye else order[-2]
        order.remove(bye)
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)], bye


def _ranked(state: LeagueState) -> list[Player]:
    """Players by score, highest first; equal scores in a seeded random order (the coin flip)."""
    players = list(state.players)
    _rng(state).shuffle(players)
    return sorted(players, key=lambda p: -p.score)  # stable: the shuffle breaks ties


def _end_round(state: LeagueState, events: list[Event]) -> None:
    """All results are in: the bye scores, and a sole leader at the target wins."""
    if state.bye is not None:
        state.player(state.bye).byes += 1
        _add_score(state, state.bye, 2, "bye", events)
    top = standings(state)
    if top[0].score >= state.settings.target_score and top[0].score > top[1].score:
        state.phase, state.step, state.winner = OVER, None, top[0].seat
        events.append(LeagueWon(top[0].seat, top[0].score))


def _add_score(state: LeagueState, seat: int, delta: int, reason: str, events: list[Event]) -> None:
    player = state.player(seat)
    player.score += delta
    state.high_score = max(state.high_score, player.score)
    events.append(ScoreChanged(seat, delta, player.score, reason))


def _set_aside(state: LeagueState, seat: int, events: list[Event]) -> None:
    player = state.player(seat)
    assert player.deck is not None
    events.append(DeckSetAside(seat, player.deck))
    player.deck = None


def _rng(state: LeagueState) -> random.Random:
    rng = random.Random(f"{state.seed}:{state.rng_counter}")
    state.rng_counter += 1
    return rng


# --------------------------------------------------------------------------- checks


def _require_phase(state: LeagueState, *phases_and_doing: str) -> None:
    *phases, doing = phases_and_doing
    if state.phase in phases:
        return
    if state.phase == OVER:
        raise NotYourTurn("The league is over.")
    if state.phase == BUILDING:
        raise NotYourTurn(f"You can't {doing} yet: the first round starts once everyone has built a deck.")
    raise NotYourTurn(f"You can't {doing} now.")


def _require_step(state: LeagueState, seat: int, kind: str) -> Step:
    player = state.player(seat)
    if state.phase == OVER:
        raise NotYourTurn("The league is over.")
    step = state.step
    if step is None:
        raise NotYourTurn(f"You can't {_STEP_WORDS[kind]} now: {_waiting_for(state)}")
    if step.seat != seat and step.kind == CHOOSE:
        raise NotYourTurn(f"Only {_name(state, step.seat)}, who lost Match {step.match}, chooses now.")
    if step.seat != seat:
        raise NotYourTurn(
            f"It is {_name(state, step.seat)}'s turn to {_STEP_WORDS[step.kind]}, not {escape(player.name)}'s."
        )
    if step.kind != kind:
        raise NotYourTurn(f"You can't {_STEP_WORDS[kind]} now: you are to {_STEP_WORDS[step.kind]}.")
    return step


def _waiting_for(state: LeagueState) -> str:
    unreported = [m.label for m in state.matches if m.result is None]
    if unreported:
        return (
            f"the league is waiting for the result of Match {unreported[0]} (losers choose in match order)."
        )
    return "nobody is due to do that."


def _match_being_resolved(state: LeagueState) -> Match | None:
    if state.step is None or state.step.match is None:
        return None
    return next((m for m in state.matches if m.label == state.step.match), None)


def _require_unused(state: LeagueState, deck: Deck, doing: str) -> None:
    holder = holder_of(state, deck.id)
    if holder is None:
        return
    if holder == state.bye:
        raise InvalidChoice(
            f"Deck #{deck.id} is {_name(state, holder)}'s, who is sitting out this round: "
            f"nobody may {doing} or take cards from it."
        )
    raise InvalidChoice(
        f"Deck #{deck.id} is in use by {_name(state, holder)}; only a deck nobody is using can be chosen."
    )


def _claimable(state: LeagueState, match: Match, deck_id: int) -> Deck:
    deck = state.deck(deck_id)
    if deck.id in (match.deck_a, match.deck_b):
        raise InvalidChoice(
            f"Deck #{deck.id} was used in Match {match.label}; claim a set-aside deck neither of you just used."
        )
    _require_unused(state, deck, "claim it")
    return deck


# --------------------------------------------------------------------------- decklists


def _check_deck(
    state: LeagueState, cards: Mapping[str, int] | Iterable[str], own_deck: Deck | None
) -> dict[str, int]:
    """The decklist by pool name, or :class:`DeckRejected` listing every problem.

    ``own_deck`` (altering) counts its own copies as available besides the pool's."""
    typed = _typed_counts(cards)
    index = _name_index(state)
    wanted: Counter[str] = Counter()
    problems: list[CardProblem] = []
    suggested = 0
    for key, (shown, count) in typed.items():
        found = index.get(key)
        if found is None:
            suggestions = tuple(suggest_card_names(state, shown)) if suggested < _MAX_SUGGESTED_NAMES else ()
            suggested += 1
            problems.append(_unknown_card(shown, count, suggestions))
        elif found[1] >= state.sets_added:
            set_name = state.sets[found[1]].name
            message = f"{escape(found[0])} comes with {escape(set_name)}, which is not in the pool yet."
            problems.append(CardProblem(found[0], "not_yet", count, message=message))
        else:
            wanted[found[0]] += count
    for name, count in sorted(wanted.items()):
        problem = _availability_problem(state, name, count, own_deck)
        if problem is not None:
            problems.append(problem)
    total = sum(count for _, count in typed.values())
    size_problem = None
    if total != DECK_SIZE:
        size_problem = f"The list has {plural(total, 'card')}; a 421 deck has exactly {DECK_SIZE}."
    if problems or size_problem:
        raise DeckRejected(total, problems, size_problem)
    return dict(wanted)


def _typed_counts(cards: Mapping[str, int] | Iterable[str]) -> dict[str, tuple[str, int]]:
    """lookup key -> (the name as first typed, copies)."""
    if isinstance(cards, str):
        raise TypeError("give a decklist as a mapping or a list of names, not one string")
    items = cards.items() if isinstance(cards, Mapping) else ((name, 1) for name in cards)
    typed: dict[str, tuple[str, int]] = {}
    for name, count in items:
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidChoice(f"{escape(str(name))}: {count!r} is not a number of copies.")
        if not isinstance(name, str) or not clean_name(name) or count == 0:
            continue
        key = _lookup_key(name)
        shown, before = typed.get(key, (clean_name(name), 0))
        typed[key] = (shown, before + count)
    return typed


def _unknown_card(shown: str, count: int, suggestions: tuple[str, ...]) -> CardProblem:
    message = f"{escape(shown)} is not a card of this league."
    if suggestions:
        message += " Did you mean " + " or ".join(escape(s) for s in suggestions) + "?"
    return CardProblem(shown, "unknown", count, suggestions=suggestions, message=message)


def _availability_problem(
    state: LeagueState, name: str, count: int, own_deck: Deck | None
) -> CardProblem | None:
    in_pool = state.pool.get(name, 0)
    own = own_deck.cards.get(name, 0) if own_deck is not None else 0
    if count <= in_pool + own:
        return None
    held_in = tuple(
        (deck.id, deck.cards[name])
        for deck in state.decks
        if name in deck.cards and (own_deck is None or deck.id != own_deck.id)
    )
    available = in_pool + own
    where = "; ".join(f"{copies} in {_deck_words(state, deck_id)}" for deck_id, copies in held_in)
    left = f"only {available} available" if available else "none left in the pool"
    message = f"{escape(name)}: you listed {count}, {left}" + (f" ({where})." if where else ".")
    return CardProblem(name, "unavailable", count, available, held_in=held_in, message=message)


def _deck_words(state: LeagueState, deck_id: int) -> str:
    holder = holder_of(state, deck_id)
    if holder is None:
        return f"deck #{deck_id} (set aside)"
    if holder == state.bye:
        return f"deck #{deck_id} ({_name(state, holder)}'s, sitting out: untouchable)"
    return f"deck #{deck_id} ({_name(state, holder)}'s)"


def _name_index(state: LeagueState) -> dict[str, tuple[str, int]]:
    """lookup key -> (pool name, index of the set that brings it; -1 for the ordinary basics).

    Double-faced and split cards also answer to their front face ("Delver of Secrets")."""
    index: dict[str, tuple[str, int]] = {name_key(b): (b, -1) for b in ORDINARY_BASICS}
    aliases: dict[str, tuple[str, int]] = {}
    for set_index, league_set in enumerate(state.sets):
        for name in [*league_set.cards, *league_set.basics]:
            index.setdefault(_lookup_key(name), (name, set_index))
            front = name.split(" // ")[0]
            if front != name:
                aliases.setdefault(_lookup_key(front), (name, set_index))
    for key, entry in aliases.items():
        index.setdefault(key, entry)  # a real card of that name wins over a front face
    return index


_SLASHES = re.compile(r"\s*/{1,2}\s*")


def _lookup_key(name: str) -> str:
    """name_key, with "Fire/Ice" and "Fire // Ice" made the same."""
    return _SLASHES.sub(" // ", name_key(name))


def _rarities(state: LeagueState) -> dict[str, str]:
    rarity: dict[str, str] = {}
    for league_set in state.sets[: state.sets_added]:
        for name, value in league_set.cards.items():
            rarity.setdefault(name, value)
    return rarity


def _take_from_pool(state: LeagueState, cards: Mapping[str, int]) -> None:
    for name, count in cards.items():
        state.pool[name] -= count
        assert state.pool[name] >= 0, name


def _return_to_pool(state: LeagueState, cards: Mapping[str, int]) -> None:
    for name, count in cards.items():
        state.pool[name] = state.pool.get(name, 0) + count


def _name(state: LeagueState, seat: int) -> str:
    return escape(state.player(seat).name)
