"""Magic: Treasure Battler — pure rules engine (FORMATS.md §2).

No I/O, no Discord, no SQL.  The whole game is one :class:`BattlerState` (plain dataclasses)
that round-trips exactly through JSON-compatible dicts::

    d = state.to_dict()                  # store as one JSON column
    state = BattlerState.from_dict(d)    # reload for the next action; state == original

Every operation mutates the state it is given *in place* and returns a list of small,
immutable :class:`Event` objects for the caller to render.  An operation that is refused
raises a :class:`BattlerError` (subclass) whose message is fit to show the user, and leaves the
state untouched (every check happens before anything changes).

Randomness
    Only from ``random.Random(f"{seed}:{rng_counter}")``, one fresh generator per random
    operation, the counter is stored in the state and incremented each time.  A reloaded
    state therefore continues with exactly the same random sequence.

Public API
    Constants: ``POISON_PROGRESSIONS``, ``BASIC_TYPES``, ``MAX_TREASURES`` (5),
    ``POISON_TO_DIE`` (10), ``POOL_MAX`` (15), ``PACK_SIZE`` (5), ``STARTING_BASICS`` (2),
    ``MAX_STAGE`` (5), ``ROUNDS_PER_STAGE`` (3), ``MIN_CARDS_PER_PLAYER`` (20), ``OUTCOMES``,
    ``CAROUSEL_MODES`` (off, round, stage), ``CAROUSEL_SOURCES`` (packpile, packyard),
    ``CAROUSEL_PICKS`` (round: 1, stage: 3).

    Errors: ``BattlerError`` (a ``ValueError``) and its subclasses ``WrongPhase``,
    ``NotAPlayer``, ``PlayerEliminated``, ``NotEnoughTreasures``, ``InvalidAction``,
    ``AlreadyDone``.

    Data: ``BattlerSettings``, ``Player``, ``Pairing``, ``BattlerState`` (``to_dict`` /
    ``from_dict``).

    Pure helpers: ``hand_size(stage)``, ``poison_for_loss(stage, progression)``,
    ``next_round(stage, round)``, ``draft_income(pool_size, conceded, carousel=False)``,
    ``resource_overview(progression)``.

    Game operations (all return ``list[Event]``):

    * ``new_game(cube, user_ids, *, seed, settings=None) -> BattlerState`` (returns the state;
      phase ``"setup"``; each stash holds 5 random cards, each player 1 treasure).
    * ``choose_basics(state, seat, basics)`` — setup: exactly 2 basic types, may be changed
      until everyone has chosen; when the last player chooses, the PLAY phase of stage 1
      round 1 starts (pairings across the table).
    * ``report(state, seat, outcome, *, treasures=None)`` — PLAY: ``outcome`` is from the
      reporter's point of view, one of ``"won"``, ``"lost"``, ``"draw"``, ``"conceded"``,
      ``"opponent_conceded"`` (won: the opponent conceded).
      ``treasures`` optionally maps seat -> treasures left after the mini-game (treasures are
      spent in games).  When the last pairing of the phase is reported the phase ends.
    * ``report_treasures(state, seat, remaining)`` — PLAY, before the game's result: treasures
      the player has left after the mini-game, tokens made in it included (default: unchanged).
      At most 5 are kept, at once (``report``'s ``treasures`` likewise).
    * ``cannot_finish(state, seat)`` — PLAY: for a pairing that must be replayed (a draw
      that would kill both live players): set both to 9 poison and close the pairing.  In a
      play-off it decides the play-off winner randomly.
    * ``trade(state, seat, stash_card, pack_card)``, ``reroll(state, seat)``,
      ``shift_basics(state, seat, new_basics)``, ``buy_basic(state, seat, basic_type)``,
      ``done(state, seat)`` — DRAFT actions; ``force_end_draft(state)`` ends the draft for
      everyone (organiser / timeout).
    * ``carousel_pick(state, seat, card, give_back=None)``, ``carousel_pass(state, seat)`` —
      CAROUSEL: the current picker takes a card (a full pool gives a stash card back for it) or,
      with a full pool, passes; ``force_end_carousel(state)`` makes every pick left at random.
    * Events (frozen dataclasses, subclasses of ``Event``): ``PhaseChanged(phase, stage,
      round)``, ``BasicsChosen``, ``PairingsMade(pairings, method)``, ``ResultReported(a, b,
      result, conceded_by)``, ``ReplayRequired(a, b, reason)``, ``PoisonSet(seat, poison,
      reason)``, ``PlayerPoisoned(seat, amount, total)``, ``TreasuresChanged(seat, delta, total,
      reason)``, ``CardGained(seat, card)`` and ``PackDealt(seat, cards)`` (private: DM them),
      ``CardsTraded``, ``BasicsChanged``, ``PlayerDone``, ``PacksDisposed(cards)`` (public
      packyard), ``PackyardReshuffled``, ``PlayerDied(seat, death_order)``, ``BecameGhost``,
      ``PlayerOut(seat)``, ``PlayoffStarted(a, b, survivor)``, ``GameOver(winner)``,
      ``CarouselStarted(cards, order, picks_each, source, random_tiebreak)``,
      ``CarouselTurn(seat, pick)``, ``CarouselPicked(seat, card, gave_back, forced)``,
      ``CarouselPassed(seat, forced)``, ``CarouselEnded(leftover)`` (all public: the carousel
      is face up). Registered with the kit's codec (``bot.kit.events``) as ``battler.<Class>``.
    * Queries: ``action_costs(state, seat) -> dict[str, int | None]`` (``trade``, ``reroll``,
      ``shift_basics``, ``buy_basic``: the cost now, ``None`` if not possible now),
      ``seat_of(state, user_id)``, ``players_in_play(state)``, ``live_players(state)``,
      ``open_pairing(state, seat)``, ``standings(state)``, ``carousel_picks(state)`` (cards each
      this draft's carousel deals, 0 for none), ``carousel_picker(state)``.

Rules decisions (where FORMATS.md leaves room)
    * Setup "pack" goes straight into the stash (those are the player's first 5 cards).
    * Poison, concession flags, win streaks are applied when *all* games of the PLAY phase are
      reported, so simultaneous deaths are detected together.  The treasure cap (5) is applied
      as soon as a player's treasures after their game are known (FORMATS.md: "keeping at most 5
      treasures": 5 or fewer are all kept, 6 or more become 5), and again at the end of the phase
      and of every draft.
    * Interest (``interest_threshold`` X: >= X treasures after the mini-game, measured after
      the cap) and win streak (3+ consecutive mini-game wins) each earn +1 treasure that is
      paid at the start of the next DRAFT together with the normal income, so a player at the
      cap still profits; the draft-end cap applies as usual.
    * The Ghost, generalised to any even player count: whenever deaths leave an odd number
      (>= 3) of live players, one of the players who just died becomes the Ghost (the one with
      least poison; ties random) and keeps playing and drafting; at the next death the Ghost is
      out for good.  With 4 players this is exactly the seed's rule.  The Ghost gets no more
      poison.
    * Simultaneous deaths that would leave 0 or 1 live player: the two newly dead players with
      the least poison (ties random, further dead players are out) play a **play-off** at once
      (no draft).  The play-off winner comes back with 9 poison and plays the final (after a
      normal draft); the loser is out.  A drawn play-off must be replayed.
    * A draw that would take two live players to 10 poison is not applied: the pairing stays
      open (``ReplayRequired``) and must be reported again; ``cannot_finish`` sets both to 9.
    * Pairing: the first PLAY phase pairs seat i with seat i + n/2.  Later, with exactly 4
      players in play (live + Ghost), the D20 method: the roller is the lowest seat in play,
      the two players other than the roller's last opponent get Even (lower seat) and Odd
      (higher seat); 1 or 20 replays the last opponent.  If the roller's last opponent is no
      longer in play, or for any other count, a uniformly random pairing with the fewest
      repeats of last opponents is used.  Two players: they play each other.
    * Who goes first: the player with more poison chooses (``Pairing.chooser``); on a tie, or
      when only two live players remain, it is random (``Pairing.first``).
    * After stage 5 round 3 the game goes on in "overtime": the stage stays 5 (hand 7, poison
      5 or 2 per loss) and rounds keep cycling 1..3 until there is a winner.
    * Eliminated players keep their stash (cards stay out of the packpile).
    * Re-roll when the packpile holds fewer than 5 cards: the old pack goes to the packyard,
      then the packyard is shuffled into the packpile before the new pack is dealt.
      ``new_game`` requires at least 20 cards per player so dealing can never run dry.
    * Carousel (``settings.carousel``: ``round`` = every draft, 1 card each; ``stage`` = the
      draft of the last round of each stage, 3 cards each; ``settings.carousel_from``):
      - It runs after everyone is done drafting and the packs went to the packyard, before the
        treasure cap and the end-of-stage reshuffle (the seed's order), as its own phase
        (CAROUSEL) in which one player at a time picks.
      - Order: fewest poison first; players with equal poison are ordered by a seeded shuffle
        (``CarouselStarted.random_tiebreak`` says it mattered); with 3 picks each the order
        snakes (1..n, n..1, 1..n).  Players in play pick (live players and the Ghost).
      - ``packpile``: exactly as many fresh cards as there are picks are dealt face up (the
        packyard is shuffled into the packpile first if it is short).  ``packyard``: the whole
        packyard is the carousel.  Unpicked cards go (back) to the packyard.
      - With a carousel the random card per draft is skipped, and with it the treasure a full
        pool gets instead of that card.  The seed's alternative (everyone puts pool cards back
        into the carousel) is not offered.
      - A pool never passes 15 cards: a player whose pool is full picks by swapping (takes a
        card and gives a stash card back into the carousel, where later pickers may take it) or
        passes.  A smaller pool must take a card.
      - An organizer may end the carousel: each pick left is made at random (seeded), full pools
        pass.
      - Settings stored with the old boolean load as ``round`` (``True``) or ``off``.
    * Augments are not implemented.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.kit import events
from bot.kit.text import plural

# Version 2 added the carousel (state fields `carousel_cards`, `carousel_order`, `carousel_turn`;
# settings `carousel` as a mode and `carousel_from`). Version 1 documents load unchanged.
SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)

__all__ = [
    "SCHEMA_VERSION",
    "BASIC_TYPES",
    "MAX_STAGE",
    "MAX_TREASURES",
    "MIN_CARDS_PER_PLAYER",
    "OUTCOMES",
    "PACK_SIZE",
    "POISON_PROGRESSIONS",
    "POISON_TO_DIE",
    "POOL_MAX",
    "ROUNDS_PER_STAGE",
    "STARTING_BASICS",
    "AlreadyDone",
    "BasicsChanged",
    "BasicsChosen",
    "BecameGhost",
    "CAROUSEL_MODES",
    "CAROUSEL_PICKS",
    "CAROUSEL_SOURCES",
    "CarouselEnded",
    "CarouselPassed",
    "CarouselPicked",
    "CarouselStarted",
    "CarouselTurn",
    "CardGained",
    "CardsTraded",
    "Event",
    "GameOver",
    "PackDealt",
    "PacksDisposed",
    "PackyardReshuffled",
    "PairingsMade",
    "PhaseChanged",
    "PlayerDied",
    "PlayerDone",
    "PlayerOut",
    "PlayerPoisoned",
    "PlayoffStarted",
    "PoisonSet",
    "ReplayRequired",
    "ResultReported",
    "TreasuresChanged",
    "BattlerError",
    "BattlerSettings",
    "BattlerState",
    "InvalidAction",
    "NotAPlayer",
    "NotEnoughTreasures",
    "Pairing",
    "Player",
    "PlayerEliminated",
    "WrongPhase",
    "action_costs",
    "buy_basic",
    "cannot_finish",
    "carousel_pass",
    "carousel_pick",
    "carousel_picker",
    "carousel_picks",
    "choose_basics",
    "done",
    "draft_income",
    "force_end_carousel",
    "force_end_draft",
    "hand_size",
    "live_players",
    "new_game",
    "next_round",
    "open_pairing",
    "players_in_play",
    "poison_for_loss",
    "report",
    "report_treasures",
    "reroll",
    "resource_overview",
    "seat_of",
    "shift_basics",
    "standings",
    "trade",
]

# --------------------------------------------------------------------------- constants

POISON_PROGRESSIONS: dict[str, tuple[int, ...]] = {
    "fibonacci": (1, 1, 2, 3, 5),
    "flat2": (2, 2, 2, 2, 2),
}
BASIC_TYPES: tuple[str, ...] = ("Plains", "Island", "Swamp", "Mountain", "Forest")
MAX_TREASURES = 5
POISON_TO_DIE = 10
POISON_CANNOT_FINISH = 9
POOL_MAX = 15
PACK_SIZE = 5
STARTING_TREASURES = 1
STARTING_BASICS = 2
MAX_STAGE = 5
ROUNDS_PER_STAGE = 3
MIN_CARDS_PER_PLAYER = 20
WIN_STREAK_BONUS_AT = 3
OUTCOMES = ("won", "lost", "draw", "conceded", "opponent_conceded")  # the last: won, the opponent conceded

CAROUSEL_MODES = ("off", "round", "stage")
CAROUSEL_SOURCES = ("packpile", "packyard")
CAROUSEL_PICKS = {"round": 1, "stage": 3}  # cards each player takes in one carousel

# phases
SETUP, PLAY, DRAFT, CAROUSEL, OVER = "setup", "play", "draft", "carousel", "over"
# player status
ALIVE, GHOST, PLAYOFF, OUT = "alive", "ghost", "playoff", "out"


# --------------------------------------------------------------------------- errors


class BattlerError(ValueError):
    """A refused action; the message is meant for the user."""


class WrongPhase(BattlerError):
    pass


class NotAPlayer(BattlerError):
    pass


class PlayerEliminated(BattlerError):
    pass


class NotEnoughTreasures(BattlerError):
    pass


class InvalidAction(BattlerError):
    pass


class AlreadyDone(BattlerError):
    pass


# --------------------------------------------------------------------------- data


@dataclass
class BattlerSettings:
    progression: str = "fibonacci"
    interest_threshold: int | None = None
    win_streak: bool = False
    carousel: str = "off"  # off | round (1 card each, every draft) | stage (3 each, last round of a stage)
    carousel_from: str = "packpile"  # packpile (fresh cards) | packyard (the disposed cards)

    def __post_init__(self) -> None:
        if isinstance(self.carousel, bool):
            # Stored before the carousel was run: `True` asked for one, so it gets the seed's first
            # options (every round, fresh cards).
            self.carousel = "round" if self.carousel else "off"
        if self.carousel not in CAROUSEL_MODES:
            raise BattlerError(f"Unknown carousel {self.carousel!r} (choose one of {', '.join(CAROUSEL_MODES)}).")
        if self.carousel_from not in CAROUSEL_SOURCES:
            raise BattlerError(
                f"Unknown carousel source {self.carousel_from!r} (choose one of {', '.join(CAROUSEL_SOURCES)})."
            )
        if self.progression not in POISON_PROGRESSIONS:
            raise BattlerError(
                f"Unknown poison progression {self.progression!r} "
                f"(choose one of {', '.join(POISON_PROGRESSIONS)})."
            )
        if self.interest_threshold is not None and self.interest_threshold < 1:
            raise BattlerError("The interest threshold must be at least 1 treasure.")


@dataclass
class Player:
    seat: int
    user_id: int
    stash: list[str] = field(default_factory=list)
    basics: list[str] = field(default_factory=list)
    treasures: int = STARTING_TREASURES
    poison: int = 0
    pack: list[str] = field(default_factory=list)
    done: bool = False  # setup: basics chosen; draft: finished drafting
    conceded_last: bool = False
    last_opponent: int | None = None
    status: str = ALIVE  # alive | ghost | playoff | out
    death_order: int | None = None  # 1 = first death; simultaneous deaths share a number
    win_streak: int = 0
    bonus_pending: int = 0  # interest/streak treasures paid at the next draft

    @property
    def is_ghost(self) -> bool:
        return self.status == GHOST


@dataclass
class Pairing:
    a: int
    b: int
    method: str = "random"  # across | d20 | random | final | playoff
    roller: int | None = None
    d20_roll: int | None = None
    even_seat: int | None = None
    odd_seat: int | None = None
    chooser: int | None = None  # seat that chooses who goes first
    first: int | None = None  # seat that goes first when decided randomly
    result: str | None = None  # None | "a" | "b" | "draw" | "unfinished"
    conceded_by: int | None = None
    replays: int = 0
    playoff: bool = False

    def seats(self) -> tuple[int, int]:
        return (self.a, self.b)

    def other(self, seat: int) -> int:
        return self.b if seat == self.a else self.a

    def winner(self) -> int | None:
        return {"a": self.a, "b": self.b}.get(self.result or "")

    def losers(self) -> tuple[int, ...]:
        if self.result == "a":
            return (self.b,)
        if self.result == "b":
            return (self.a,)
        if self.result == "draw":
            return (self.a, self.b)
        return ()


@dataclass
class BattlerState:
    seed: int | str
    rng_counter: int
    settings: BattlerSettings
    players: list[Player]
    packpile: list[str]
    packyard: list[str]
    stage: int = 1
    round: int = 1
    phase: str = SETUP
    pairings: list[Pairing] = field(default_factory=list)
    play_phases: int = 0  # PLAY phases started so far (play-offs included)
    deaths: int = 0  # number of distinct death moments so far
    winner: int | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # finished pairings
    carousel_cards: list[str] = field(default_factory=list)  # face up on the table during a carousel
    carousel_order: list[int] = field(default_factory=list)  # the seat of every pick, in order (snake)
    carousel_turn: int = 0  # index in carousel_order of the pick being waited for

    # -- serialisation (schema version SCHEMA_VERSION; the codec is bot.kit.events)
    def to_dict(self) -> dict[str, Any]:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BattlerState:
        if data.get("v") not in READABLE_VERSIONS:
            raise ValueError(f"unknown battler document version {data.get('v')!r}")
        body = {k: v for k, v in data.items() if k != "v"}
        if data["v"] == 1:  # its settings may hold the old carousel boolean, which the constructor reads
            body["settings"] = events.encode(BattlerSettings(**body["settings"]))
        return events.decode(body, cls)

    # -- small helpers
    def player(self, seat: int) -> Player:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.players):
            raise NotAPlayer(f"Seat {seat!r} is not a player in this game.")
        return self.players[seat]

    def progression(self) -> tuple[int, ...]:
        return POISON_PROGRESSIONS[self.settings.progression]


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event(events.Event, family="battler"):  # stored as "battler.<ClassName>": bot.kit.events
    pass


@dataclass(frozen=True)
class PhaseChanged(Event):
    phase: str
    stage: int
    round: int


@dataclass(frozen=True)
class BasicsChosen(Event):
    seat: int
    basics: tuple[str, ...]


@dataclass(frozen=True)
class PairingsMade(Event):
    pairings: tuple[Pairing, ...]  # copies
    method: str


@dataclass(frozen=True)
class ResultReported(Event):
    a: int
    b: int
    result: str
    conceded_by: int | None


@dataclass(frozen=True)
class ReplayRequired(Event):
    a: int
    b: int
    reason: str  # "double_elimination_draw" | "playoff_draw"


@dataclass(frozen=True)
class PoisonSet(Event):
    seat: int
    poison: int
    reason: str  # "cannot_finish" | "playoff_winner"


@dataclass(frozen=True)
class PlayerPoisoned(Event):
    seat: int
    amount: int
    total: int


@dataclass(frozen=True)
class TreasuresChanged(Event):
    seat: int
    delta: int
    total: int
    reason: str  # income | pool_full | bonus | reported | cap | reroll | shift_basics | buy_basic


@dataclass(frozen=True)
class CardGained(Event):
    seat: int
    card: str


@dataclass(frozen=True)
class PackDealt(Event):
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class CardsTraded(Event):
    seat: int
    gave: str
    took: str


@dataclass(frozen=True)
class BasicsChanged(Event):
    seat: int
    basics: tuple[str, ...]
    cost: int


@dataclass(frozen=True)
class PlayerDone(Event):
    seat: int


@dataclass(frozen=True)
class PacksDisposed(Event):
    cards: tuple[str, ...]


@dataclass(frozen=True)
class PackyardReshuffled(Event):
    cards: int
    packpile: int


@dataclass(frozen=True)
class PlayerDied(Event):
    seat: int
    death_order: int


@dataclass(frozen=True)
class BecameGhost(Event):
    seat: int
    random_tiebreak: bool


@dataclass(frozen=True)
class PlayerOut(Event):
    seat: int


@dataclass(frozen=True)
class PlayoffStarted(Event):
    a: int
    b: int
    survivor: int | None


@dataclass(frozen=True)
class GameOver(Event):
    winner: int


@dataclass(frozen=True)
class CarouselStarted(Event):
    cards: tuple[str, ...]  # face up: everyone sees them
    order: tuple[int, ...]  # the seat of every pick, in order
    picks_each: int
    source: str  # packpile | packyard
    random_tiebreak: bool  # players with equal poison were ordered at random


@dataclass(frozen=True)
class CarouselTurn(Event):
    seat: int
    pick: int  # 1-based position in the carousel's order


@dataclass(frozen=True)
class CarouselPicked(Event):
    seat: int
    card: str
    gave_back: str | None  # a full pool gives a stash card back into the carousel
    forced: bool = False  # picked at random because an organizer ended the carousel


@dataclass(frozen=True)
class CarouselPassed(Event):
    seat: int
    forced: bool = False


@dataclass(frozen=True)
class CarouselEnded(Event):
    leftover: tuple[str, ...]  # unpicked cards, gone to the packyard


# --------------------------------------------------------------------------- pure rules


def hand_size(stage: int) -> int:
    """Starting hand = STAGE + 2."""
    return stage + 2


def poison_for_loss(stage: int, progression: str = "fibonacci") -> int:
    prog = POISON_PROGRESSIONS[progression]
    return prog[min(max(stage, 1), len(prog)) - 1]


def next_round(stage: int, round_: int) -> tuple[int, int]:
    """ROUND += 1; past 3 -> ROUND 1 of the next STAGE (stage stays 5 in overtime)."""
    round_ += 1
    if round_ > ROUNDS_PER_STAGE:
        round_ = 1
        stage = min(stage + 1, MAX_STAGE)
    return stage, round_


def draft_income(pool_size: int, conceded: bool, carousel: bool = False) -> tuple[int, int]:
    """(random cards, treasures) a player receives at the start of a DRAFT phase.

    With a carousel the random card is skipped, and with it the treasure a full pool gets instead
    (FORMATS.md puts both in the one step a carousel replaces)."""
    income = 0 if conceded else 1
    if carousel:
        return 0, income
    cards = 1 if pool_size < POOL_MAX else 0
    return cards, income + (1 - cards)


def resource_overview(progression: str = "fibonacci") -> list[dict[str, int]]:
    """FORMATS.md's resource table, computed by simulating one player who never concedes."""
    rows: list[dict[str, int]] = []
    stage, round_ = 1, 1
    pool, income = PACK_SIZE, STARTING_TREASURES
    while True:
        rows.append(
            {
                "stage": stage,
                "round": round_,
                "hand": hand_size(stage),
                "pool": pool,
                "extra_treasures": income,
                "poison_per_loss": poison_for_loss(stage, progression),
            }
        )
        if (stage, round_) == (MAX_STAGE, ROUNDS_PER_STAGE):
            return rows
        stage, round_ = next_round(stage, round_)
        cards, income = draft_income(pool, conceded=False)
        pool += cards


# --------------------------------------------------------------------------- internals


def _rng(state: BattlerState) -> random.Random:
    r = random.Random(f"{state.seed}:{state.rng_counter}")
    state.rng_counter += 1
    return r


def players_in_play(state: BattlerState) -> list[Player]:
    """Players who are paired and draft: live players and the Ghost."""
    return [p for p in state.players if p.status in (ALIVE, GHOST)]


def live_players(state: BattlerState) -> list[Player]:
    return [p for p in state.players if p.status == ALIVE]


def seat_of(state: BattlerState, user_id: int) -> int:
    for p in state.players:
        if p.user_id == user_id:
            return p.seat
    raise NotAPlayer("You are not a player in this game.")


def open_pairing(state: BattlerState, seat: int) -> Pairing | None:
    for pr in state.pairings:
        if seat in pr.seats() and pr.result is None:
            return pr
    return None


def standings(state: BattlerState) -> list[list[int]]:
    """Seats grouped by place: winner (or everyone still in) first, later deaths before earlier."""
    still_in = [p.seat for p in state.players if p.death_order is None]
    dead = sorted({p.death_order for p in state.players if p.death_order is not None}, reverse=True)
    out = [still_in] if still_in else []
    for order in dead:
        out.append([p.seat for p in state.players if p.death_order == order])
    return out


def _require_phase(state: BattlerState, *phases: str) -> None:
    if state.phase not in phases:
        if state.phase == OVER:
            raise WrongPhase("The game is over.")
        raise WrongPhase(f"You can't do that now: the game is in the {state.phase.upper()} phase.")


def _require_drafter(state: BattlerState, seat: int) -> Player:
    p = state.player(seat)
    _require_phase(state, DRAFT)
    if p.status not in (ALIVE, GHOST):
        raise PlayerEliminated("You have been eliminated.")
    if p.done:
        raise AlreadyDone("You are already done drafting this round.")
    return p


def _pay(p: Player, cost: int, action: str, events: list[Event]) -> None:
    p.treasures -= cost
    events.append(TreasuresChanged(p.seat, -cost, p.treasures, action))


def _check_affordable(p: Player, cost: int, what: str) -> None:
    if p.treasures < cost:
        raise NotEnoughTreasures(
            f"{what} costs {plural(cost, 'treasure')}; you have {p.treasures}."
        )


def _validate_basics(basics: Sequence[str]) -> list[str]:
    if isinstance(basics, str):
        raise InvalidAction("Give a list of basic land types.")
    out = list(basics)
    for b in out:
        if b not in BASIC_TYPES:
            raise InvalidAction(f"{b!r} is not a basic land type ({', '.join(BASIC_TYPES)}).")
    return out


def _reshuffle(state: BattlerState, events: list[Event]) -> None:
    if not state.packyard:
        return
    n = len(state.packyard)
    state.packpile.extend(state.packyard)
    state.packyard.clear()
    _rng(state).shuffle(state.packpile)
    events.append(PackyardReshuffled(n, len(state.packpile)))


def _draw(state: BattlerState, k: int) -> list[str]:
    cards = state.packpile[:k]
    del state.packpile[:k]
    return cards


def _cap(state: BattlerState, players: Sequence[Player], events: list[Event]) -> None:
    for p in players:
        if p.treasures > MAX_TREASURES:
            lost = p.treasures - MAX_TREASURES
            p.treasures = MAX_TREASURES
            events.append(TreasuresChanged(p.seat, -lost, p.treasures, "cap"))


def _draft_need(state: BattlerState, n: int) -> int:
    """Cards a draft deals from the packpile to `n` players: a pack each, and a random card each
    unless a carousel replaces it."""
    random_cards = 0 if state.settings.carousel != "off" else n
    return n * PACK_SIZE + random_cards


# --------------------------------------------------------------------------- setup


def new_game(
    cube: Sequence[str],
    user_ids: Sequence[int],
    *,
    seed: int | str,
    settings: BattlerSettings | None = None,
) -> BattlerState:
    """Shuffle the cube into the packpile and deal each player 5 cards and 1 treasure."""
    n = len(user_ids)
    if n < 2 or n % 2:
        raise BattlerError("Treasure Battler needs an even number of players (at least 2).")
    if len(set(user_ids)) != n:
        raise BattlerError("A player can only take one seat.")
    if len(cube) < MIN_CARDS_PER_PLAYER * n:
        raise BattlerError(
            f"The cube has {len(cube)} cards; {n} players need at least {MIN_CARDS_PER_PLAYER * n}."
        )
    state = BattlerState(
        seed=seed,
        rng_counter=0,
        settings=settings or BattlerSettings(),
        players=[Player(seat=i, user_id=u) for i, u in enumerate(user_ids)],
        packpile=list(cube),
        packyard=[],
    )
    _rng(state).shuffle(state.packpile)
    for p in state.players:
        p.stash = _draw(state, PACK_SIZE)
        p.treasures = STARTING_TREASURES
    return state


def choose_basics(state: BattlerState, seat: int, basics: Sequence[str]) -> list[Event]:
    p = state.player(seat)
    _require_phase(state, SETUP)
    chosen = _validate_basics(basics)
    if len(chosen) != STARTING_BASICS:
        raise InvalidAction(f"Choose exactly {STARTING_BASICS} basic lands.")
    p.basics = chosen
    p.done = True
    events: list[Event] = [BasicsChosen(seat, tuple(chosen))]
    if all(q.done for q in state.players):
        for q in state.players:
            q.done = False
        _start_play(state, events)
    return events


# --------------------------------------------------------------------------- pairing


def _repeats(pairs: Sequence[tuple[int, int]], players: list[Player]) -> int:
    return sum(1 for a, b in pairs if players[a].last_opponent == b or players[b].last_opponent == a)


def _matchings(seats: list[int]) -> Iterator[list[tuple[int, int]]]:
    if not seats:
        yield []
        return
    a = seats[0]
    for i in range(1, len(seats)):
        rest = seats[1:i] + seats[i + 1 :]
        for m in _matchings(rest):
            yield [(a, seats[i]), *m]


def _random_pairs(state: BattlerState, seats: list[int]) -> list[tuple[int, int]]:
    rng = _rng(state)
    if len(seats) <= 10:
        all_m = list(_matchings(seats))
        best = min(_repeats(m, state.players) for m in all_m)
        return rng.choice([m for m in all_m if _repeats(m, state.players) == best])
    best_m: list[tuple[int, int]] | None = None
    best = len(seats)
    for _ in range(500):
        s = seats[:]
        rng.shuffle(s)
        m = [(min(s[i], s[i + 1]), max(s[i], s[i + 1])) for i in range(0, len(s), 2)]
        r = _repeats(m, state.players)
        if r < best:
            best_m, best = m, r
            if r == 0:
                break
    assert best_m is not None
    return sorted(best_m)


def _who_first(state: BattlerState, pr: Pairing, only_two_remain: bool) -> None:
    pa, pb = state.players[pr.a], state.players[pr.b]
    if only_two_remain or pa.poison == pb.poison:
        pr.first = _rng(state).choice([pr.a, pr.b])
    else:
        pr.chooser = pr.a if pa.poison > pb.poison else pr.b


def _start_play(state: BattlerState, events: list[Event]) -> None:
    pool = [p.seat for p in players_in_play(state)]
    n = len(pool)
    pairings: list[Pairing] = []
    if state.play_phases == 0:
        method = "across"
        half = n // 2
        pairings = [Pairing(pool[i], pool[i + half], method) for i in range(half)]
    elif n == 2:
        method = "final" if len(state.players) > 2 else "random"
        pairings = [Pairing(pool[0], pool[1], method)]
    elif n == 4 and state.players[pool[0]].last_opponent in pool[1:]:
        method = "d20"
        roller = pool[0]
        prev = state.players[roller].last_opponent
        even, odd = (s for s in pool[1:] if s != prev)
        roll = _rng(state).randint(1, 20)
        if roll in (1, 20):
            opp = prev
        else:
            opp = even if roll % 2 == 0 else odd
        rest = [s for s in pool if s not in (roller, opp)]
        first = Pairing(roller, opp, method, roller=roller, d20_roll=roll, even_seat=even, odd_seat=odd)
        pairings = [first, Pairing(rest[0], rest[1], method)]
    else:
        method = "random"
        pairings = [Pairing(a, b, method) for a, b in _random_pairs(state, pool)]
    only_two = len(live_players(state)) == 2
    for pr in pairings:
        _who_first(state, pr, only_two)
    state.pairings = pairings
    state.phase = PLAY
    state.play_phases += 1
    events.append(PhaseChanged(PLAY, state.stage, state.round))
    events.append(PairingsMade(tuple(Pairing(**asdict(p)) for p in pairings), method))


def _start_playoff(state: BattlerState, a: int, b: int, survivor: int | None, events: list[Event]) -> None:
    pr = Pairing(min(a, b), max(a, b), "playoff", playoff=True)
    _who_first(state, pr, only_two_remain=False)
    state.pairings = [pr]
    state.phase = PLAY
    state.play_phases += 1
    events.append(PlayoffStarted(pr.a, pr.b, survivor))
    events.append(PhaseChanged(PLAY, state.stage, state.round))
    events.append(PairingsMade((Pairing(**asdict(pr)),), "playoff"))


# --------------------------------------------------------------------------- play phase


def _player_in_pairing(state: BattlerState, seat: int) -> tuple[Player, Pairing]:
    p = state.player(seat)
    _require_phase(state, PLAY)
    pr = next((x for x in state.pairings if seat in x.seats()), None)
    if pr is None:
        if p.status in (OUT, PLAYOFF):
            raise PlayerEliminated("You have been eliminated.")
        raise InvalidAction("You have no game in this phase.")
    return p, pr


def _validate_treasures(state: BattlerState, treasures: Mapping[int, int] | None) -> dict[int, int]:
    out: dict[int, int] = {}
    for s, t in (treasures or {}).items():
        q = state.player(s)
        if q.status not in (ALIVE, GHOST, PLAYOFF) or not any(s in x.seats() for x in state.pairings):
            raise InvalidAction(f"Seat {s} has no game in this phase.")
        if not isinstance(t, int) or isinstance(t, bool) or t < 0:
            raise InvalidAction("Treasures left must be a whole number, 0 or more.")
        out[s] = t
    return out


def _apply_treasures(state: BattlerState, treasures: dict[int, int], events: list[Event]) -> None:
    """The treasures each player has left after their mini-game, tokens made in it included; they
    keep at most 5 (FORMATS.md §2, PLAY step 5: 5 or fewer are all kept, 6 or more become 5)."""
    for s, t in treasures.items():
        q = state.players[s]
        if t != q.treasures:
            delta = t - q.treasures
            q.treasures = t
            events.append(TreasuresChanged(s, delta, t, "reported"))
        _cap(state, [q], events)


def report_treasures(state: BattlerState, seat: int, remaining: int) -> list[Event]:
    """Treasures the player has left after their mini-game (spent or made in the game; at most 5 kept)."""
    _, pr = _player_in_pairing(state, seat)
    if pr.result is not None:
        raise AlreadyDone("This game has already been reported.")
    t = _validate_treasures(state, {seat: remaining})
    events: list[Event] = []
    _apply_treasures(state, t, events)
    return events


def report_treasures_after(state: BattlerState, seat: int, remaining: int) -> list[Event]:
    """PLAY, after the game's result (confirmed while the player was absent): the treasures they
    have left after it, until the PLAY phase ends."""
    _, pr = _player_in_pairing(state, seat)
    if pr.result is None:
        raise InvalidAction("Report the game first.")
    events: list[Event] = []
    _apply_treasures(state, _validate_treasures(state, {seat: remaining}), events)
    return events


def report(
    state: BattlerState,
    seat: int,
    outcome: str,
    *,
    treasures: Mapping[int, int] | None = None,
) -> list[Event]:
    """Report the reporter's mini-game: "won", "lost", "draw", "conceded", or "opponent_conceded"
    (won because the opponent conceded: the winner reports it, so the seed's "play it out" rule
    holds without the conceder reporting against themselves)."""
    p, pr = _player_in_pairing(state, seat)
    if outcome not in OUTCOMES:
        raise InvalidAction(f"Unknown result {outcome!r}; use one of {', '.join(OUTCOMES)}.")
    if pr.result is not None:
        raise AlreadyDone("This game has already been reported.")
    t = _validate_treasures(state, treasures)
    events: list[Event] = []
    _apply_treasures(state, t, events)
    mine = "a" if seat == pr.a else "b"
    theirs = "b" if mine == "a" else "a"
    result = {"won": mine, "lost": theirs, "draw": "draw", "conceded": theirs, "opponent_conceded": mine}[outcome]
    if result == "draw":
        pa, pb = state.players[pr.a], state.players[pr.b]
        loss = poison_for_loss(state.stage, state.settings.progression)
        reason = None
        if pr.playoff:
            reason = "playoff_draw"
        elif (
            pa.status == ALIVE
            and pb.status == ALIVE
            and pa.poison + loss >= POISON_TO_DIE
            and pb.poison + loss >= POISON_TO_DIE
        ):
            reason = "double_elimination_draw"
        if reason:
            pr.replays += 1
            events.append(ReplayRequired(pr.a, pr.b, reason))
            return events
    pr.result = result
    pr.conceded_by = {"conceded": seat, "opponent_conceded": pr.other(seat)}.get(outcome)
    events.append(ResultReported(pr.a, pr.b, result, pr.conceded_by))
    _maybe_end_play(state, events)
    return events


def cannot_finish(state: BattlerState, seat: int) -> list[Event]:
    """The replayed pairing cannot be finished: both to 9 poison (play-off: random winner)."""
    p, pr = _player_in_pairing(state, seat)
    if pr.result is not None or pr.replays == 0:
        raise InvalidAction("Only a game that has to be replayed can be declared unfinishable.")
    events: list[Event] = []
    if pr.playoff:
        pr.result = _rng(state).choice(["a", "b"])
    else:
        pr.result = "unfinished"
        for s in pr.seats():
            state.players[s].poison = POISON_CANNOT_FINISH
            events.append(PoisonSet(s, POISON_CANNOT_FINISH, "cannot_finish"))
    events.append(ResultReported(pr.a, pr.b, pr.result, None))
    _maybe_end_play(state, events)
    return events


def _maybe_end_play(state: BattlerState, events: list[Event]) -> None:
    if any(pr.result is None for pr in state.pairings):
        return
    for pr in state.pairings:
        state.history.append(
            {
                "stage": state.stage,
                "round": state.round,
                "a": pr.a,
                "b": pr.b,
                "result": pr.result,
                "conceded_by": pr.conceded_by,
                "playoff": pr.playoff,
            }
        )
    if state.pairings[0].playoff:
        _end_playoff(state, events)
    else:
        _end_play(state, events)


def _end_playoff(state: BattlerState, events: list[Event]) -> None:
    pr = state.pairings[0]
    win, lose = state.players[pr.winner()], state.players[pr.losers()[0]]  # type: ignore[index]
    for q in (win, lose):
        q.last_opponent = pr.other(q.seat)
        q.conceded_last = pr.conceded_by == q.seat
    _cap(state, [win, lose], events)
    win.status, win.poison, win.death_order = ALIVE, POISON_CANNOT_FINISH, None
    events.append(PoisonSet(win.seat, win.poison, "playoff_winner"))
    lose.status = OUT
    events.append(PlayerOut(lose.seat))
    state.pairings = []
    _after_deaths(state, events)


def _end_play(state: BattlerState, events: list[Event]) -> None:
    loss = poison_for_loss(state.stage, state.settings.progression)
    playing: list[Player] = []
    for pr in state.pairings:
        losers = pr.losers()
        for s in pr.seats():
            q = state.players[s]
            playing.append(q)
            q.last_opponent = pr.other(s)
            q.conceded_last = pr.conceded_by == s
            if pr.winner() == s:
                q.win_streak += 1
            else:
                q.win_streak = 0
            if s in losers and q.status == ALIVE:
                q.poison += loss
                events.append(PlayerPoisoned(s, loss, q.poison))
    _cap(state, playing, events)
    threshold = state.settings.interest_threshold
    for q in playing:
        bonus = 0
        if threshold is not None and q.treasures >= threshold:
            bonus += 1
        if state.settings.win_streak and q.win_streak >= WIN_STREAK_BONUS_AT:
            bonus += 1
        q.bonus_pending = bonus
    state.pairings = []
    _process_deaths(state, events)


def _least_poison(state: BattlerState, cands: list[Player], k: int) -> tuple[list[Player], bool]:
    """The k candidates with least poison; ties broken randomly (second value: was it random)."""
    ordered = sorted(cands, key=lambda q: q.poison)
    if len(ordered) <= k:
        return ordered, False
    cut = ordered[k - 1].poison
    sure = [q for q in ordered if q.poison < cut]
    tied = [q for q in ordered if q.poison == cut]
    need = k - len(sure)
    if len(tied) == need:
        return sure + tied, False
    picked = _rng(state).sample(tied, need)
    return sure + sorted(picked, key=lambda q: q.seat), True


def _process_deaths(state: BattlerState, events: list[Event]) -> None:
    alive = live_players(state)
    newly = [q for q in alive if q.poison >= POISON_TO_DIE]
    if newly:
        remaining = [q for q in alive if q.poison < POISON_TO_DIE]
        state.deaths += 1
        for q in newly:
            q.death_order = state.deaths
            events.append(PlayerDied(q.seat, state.deaths))
        for g in state.players:
            if g.status == GHOST:  # a second player died: the Ghost is out
                g.status = OUT
                events.append(PlayerOut(g.seat))
        if len(remaining) <= 1 and len(newly) >= 2:
            pair, _ = _least_poison(state, newly, 2)
            for q in newly:
                if q in pair:
                    q.status = PLAYOFF
                else:
                    q.status = OUT
                    events.append(PlayerOut(q.seat))
            survivor = remaining[0].seat if remaining else None
            _start_playoff(state, pair[0].seat, pair[1].seat, survivor, events)
            return
        ghost: Player | None = None
        tiebreak = False
        if len(remaining) >= 3 and len(remaining) % 2 == 1:
            (ghost,), tiebreak = _least_poison(state, newly, 1)
        for q in newly:
            if q is ghost:
                q.status = GHOST
                events.append(BecameGhost(q.seat, tiebreak))
            else:
                q.status = OUT
                events.append(PlayerOut(q.seat))
    _after_deaths(state, events)


def _after_deaths(state: BattlerState, events: list[Event]) -> None:
    alive = live_players(state)
    if len(alive) == 1:
        state.winner = alive[0].seat
        state.phase = OVER
        for q in state.players:
            q.pack = []
        events.append(PhaseChanged(OVER, state.stage, state.round))
        events.append(GameOver(state.winner))
        return
    _start_draft(state, events)


# --------------------------------------------------------------------------- draft phase


def _start_draft(state: BattlerState, events: list[Event]) -> None:
    state.stage, state.round = next_round(state.stage, state.round)
    state.phase = DRAFT
    events.append(PhaseChanged(DRAFT, state.stage, state.round))
    drafters = players_in_play(state)
    if len(state.packpile) < _draft_need(state, len(drafters)):
        _reshuffle(state, events)
    for q in state.players:
        q.done = q not in drafters
    with_carousel = state.settings.carousel != "off"
    for q in drafters:
        cards, treasures = draft_income(len(q.stash), q.conceded_last, with_carousel)
        q.conceded_last = False
        if treasures:
            q.treasures += treasures
            reason = "pool_full" if not cards else "income"
            events.append(TreasuresChanged(q.seat, treasures, q.treasures, reason))
        if q.bonus_pending:
            q.treasures += q.bonus_pending
            events.append(TreasuresChanged(q.seat, q.bonus_pending, q.treasures, "bonus"))
            q.bonus_pending = 0
        if cards:
            (card,) = _draw(state, 1)
            q.stash.append(card)
            events.append(CardGained(q.seat, card))
    for q in drafters:
        q.pack = _draw(state, PACK_SIZE)
        events.append(PackDealt(q.seat, tuple(q.pack)))


def _end_draft(state: BattlerState, events: list[Event]) -> None:
    """Everyone is done: packs go to the packyard, then the carousel (if one is due), then the rest."""
    drafters = players_in_play(state)
    disposed: list[str] = []
    for q in drafters:
        disposed.extend(q.pack)
        q.pack = []
        q.done = False
    state.packyard.extend(disposed)
    events.append(PacksDisposed(tuple(disposed)))
    picks_each = carousel_picks(state)
    if picks_each:
        _start_carousel(state, drafters, picks_each, events)
    else:
        _after_draft(state, events)


def _after_draft(state: BattlerState, events: list[Event]) -> None:
    """The draft's last steps, after the carousel: the treasure cap, the reshuffle, the next PLAY."""
    drafters = players_in_play(state)
    _cap(state, drafters, events)
    if state.round == ROUNDS_PER_STAGE or len(state.packpile) < _draft_need(state, len(drafters)):
        _reshuffle(state, events)
    _start_play(state, events)


# --------------------------------------------------------------------------- carousel


def carousel_picks(state: BattlerState) -> int:
    """Cards each player takes in this draft's carousel (0: no carousel this draft)."""
    mode = state.settings.carousel
    if mode == "stage" and state.round != ROUNDS_PER_STAGE:
        return 0
    return CAROUSEL_PICKS.get(mode, 0)


def carousel_picker(state: BattlerState) -> int | None:
    """The seat whose carousel pick the game waits for (None outside a carousel)."""
    if state.phase != CAROUSEL:
        return None
    return state.carousel_order[state.carousel_turn]


def _carousel_order(state: BattlerState, pickers: list[Player], picks_each: int) -> tuple[list[int], bool]:
    """Fewest poison first (equal poison: a seeded random order), snaking back and forth."""
    poisons = [q.poison for q in pickers]
    tied = len(set(poisons)) < len(poisons)
    ordered = list(pickers)
    if tied:
        _rng(state).shuffle(ordered)
    ordered.sort(key=lambda q: q.poison)  # stable: the shuffle decides only among equals
    seats = [q.seat for q in ordered]
    order: list[int] = []
    for lap in range(picks_each):
        order += seats if lap % 2 == 0 else seats[::-1]
    return order, tied


def _start_carousel(state: BattlerState, pickers: list[Player], picks_each: int, events: list[Event]) -> None:
    order, tied = _carousel_order(state, pickers, picks_each)
    source = state.settings.carousel_from
    if source == "packyard":
        state.carousel_cards = list(state.packyard)
        state.packyard.clear()
    else:
        # Exactly the cards to be drafted; the packyard is shuffled in first if the packpile is short.
        if len(state.packpile) < len(order):
            _reshuffle(state, events)
        state.carousel_cards = _draw(state, len(order))
    state.carousel_order, state.carousel_turn = order, 0
    state.phase = CAROUSEL
    events.append(PhaseChanged(CAROUSEL, state.stage, state.round))
    events.append(CarouselStarted(tuple(state.carousel_cards), tuple(order), picks_each, source, tied))
    events.append(CarouselTurn(order[0], 1))


def _require_picker(state: BattlerState, seat: int) -> Player:
    p = state.player(seat)
    _require_phase(state, CAROUSEL)
    if p.status not in (ALIVE, GHOST):
        raise PlayerEliminated("You have been eliminated.")
    if carousel_picker(state) != seat:
        raise InvalidAction("It is not your turn to pick in the carousel.")
    return p


def carousel_pick(state: BattlerState, seat: int, card: str, give_back: str | None = None) -> list[Event]:
    """Take `card` from the carousel. A full pool (15 cards) must give a stash card back for it,
    which joins the carousel (later pickers may take it)."""
    p = _require_picker(state, seat)
    if card not in state.carousel_cards:
        raise InvalidAction(f"{card!r} is not in the carousel.")
    full = len(p.stash) >= POOL_MAX
    if full and give_back is None:
        raise InvalidAction(f"Your pool holds {POOL_MAX} cards: give a stash card back for it, or pass.")
    if not full and give_back is not None:
        raise InvalidAction(f"Only a full pool ({POOL_MAX} cards) gives a card back.")
    if give_back is not None and give_back not in p.stash:
        raise InvalidAction(f"{give_back!r} is not in your stash.")
    state.carousel_cards.remove(card)
    if give_back is None:
        p.stash.append(card)
    else:
        p.stash[p.stash.index(give_back)] = card
        state.carousel_cards.append(give_back)
    events: list[Event] = [CarouselPicked(seat, card, give_back)]
    _next_carousel_turn(state, events)
    return events


def carousel_pass(state: BattlerState, seat: int) -> list[Event]:
    """A full pool may keep its cards instead of swapping one (a smaller pool always takes a card)."""
    p = _require_picker(state, seat)
    if len(p.stash) < POOL_MAX:
        raise InvalidAction(f"Take a card: only a full pool ({POOL_MAX} cards) may pass.")
    events: list[Event] = [CarouselPassed(seat)]
    _next_carousel_turn(state, events)
    return events


def force_end_carousel(state: BattlerState) -> list[Event]:
    """An organizer ends the carousel: every pick left is made at random (seeded); full pools pass."""
    _require_phase(state, CAROUSEL)
    events: list[Event] = []
    rng = _rng(state)
    while state.phase == CAROUSEL:
        seat = state.carousel_order[state.carousel_turn]
        p = state.players[seat]
        if len(p.stash) >= POOL_MAX:
            events.append(CarouselPassed(seat, forced=True))
        else:
            card = rng.choice(state.carousel_cards)
            state.carousel_cards.remove(card)
            p.stash.append(card)
            events.append(CarouselPicked(seat, card, None, forced=True))
        _next_carousel_turn(state, events, announce=False)
    return events


def _next_carousel_turn(state: BattlerState, events: list[Event], *, announce: bool = True) -> None:
    state.carousel_turn += 1
    if state.carousel_turn < len(state.carousel_order):
        if announce:
            events.append(CarouselTurn(state.carousel_order[state.carousel_turn], state.carousel_turn + 1))
        return
    leftover = tuple(state.carousel_cards)
    state.packyard.extend(leftover)
    state.carousel_cards, state.carousel_order, state.carousel_turn = [], [], 0
    events.append(CarouselEnded(leftover))
    _after_draft(state, events)


def action_costs(state: BattlerState, seat: int) -> dict[str, int | None]:
    """Cost of each draft action right now; None when it can't be done (phase, done, money)."""
    p = state.player(seat)
    costs: dict[str, int | None] = {
        "trade": 0,
        "reroll": 1,
        "shift_basics": 1,
        "buy_basic": 1 + len(p.basics),
    }
    if state.phase != DRAFT or p.status not in (ALIVE, GHOST) or p.done:
        return dict.fromkeys(costs)
    return {k: (v if v is not None and v <= p.treasures else None) for k, v in costs.items()}


def trade(state: BattlerState, seat: int, stash_card: str, pack_card: str) -> list[Event]:
    p = _require_drafter(state, seat)
    if stash_card not in p.stash:
        raise InvalidAction(f"{stash_card!r} is not in your stash.")
    if pack_card not in p.pack:
        raise InvalidAction(f"{pack_card!r} is not in your pack.")
    p.stash[p.stash.index(stash_card)] = pack_card
    p.pack[p.pack.index(pack_card)] = stash_card
    return [CardsTraded(seat, stash_card, pack_card)]


def reroll(state: BattlerState, seat: int) -> list[Event]:
    p = _require_drafter(state, seat)
    _check_affordable(p, 1, "A re-roll")
    events: list[Event] = []
    _pay(p, 1, "reroll", events)
    state.packyard.extend(p.pack)
    events.append(PacksDisposed(tuple(p.pack)))
    p.pack = []
    if len(state.packpile) < PACK_SIZE:
        _reshuffle(state, events)
    p.pack = _draw(state, PACK_SIZE)
    events.append(PackDealt(seat, tuple(p.pack)))
    return events


def shift_basics(state: BattlerState, seat: int, new_basics: Sequence[str]) -> list[Event]:
    p = _require_drafter(state, seat)
    new = _validate_basics(new_basics)
    if len(new) != len(p.basics):
        raise InvalidAction(f"You have {len(p.basics)} basic lands; give {len(p.basics)} types.")
    if Counter(new) == Counter(p.basics):
        raise InvalidAction("That is the same set of basic lands you already have.")
    _check_affordable(p, 1, "Shifting basics")
    events: list[Event] = []
    _pay(p, 1, "shift_basics", events)
    p.basics = new
    events.append(BasicsChanged(seat, tuple(new), 1))
    return events


def buy_basic(state: BattlerState, seat: int, basic_type: str) -> list[Event]:
    p = _require_drafter(state, seat)
    (basic,) = _validate_basics([basic_type])
    cost = 1 + len(p.basics)
    _check_affordable(p, cost, f"Your basic land #{len(p.basics) + 1}")
    events: list[Event] = []
    _pay(p, cost, "buy_basic", events)
    p.basics.append(basic)
    events.append(BasicsChanged(seat, tuple(p.basics), cost))
    return events


def done(state: BattlerState, seat: int) -> list[Event]:
    p = _require_drafter(state, seat)
    p.done = True
    events: list[Event] = [PlayerDone(seat)]
    if all(q.done for q in players_in_play(state)):
        _end_draft(state, events)
    return events


def force_end_draft(state: BattlerState) -> list[Event]:
    _require_phase(state, DRAFT)
    events: list[Event] = []
    for q in players_in_play(state):
        if not q.done:
            q.done = True
            events.append(PlayerDone(q.seat))
    _end_draft(state, events)
    return events
