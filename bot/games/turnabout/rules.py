"""Turnabout — pure rules engine (FORMATS.md §3; seed ``002_075980f05da0f0be.txt``).

No I/O, no Discord, no SQL, no clock reads. A whole event is one :class:`TurnaboutState`
(plain dataclasses) that round-trips through JSON-compatible dicts::

    d = state.to_dict()                    # {"v": 1, ...}: store as one JSON column
    state = TurnaboutState.from_dict(d)    # refuses unknown schema versions

Every operation mutates the state in place and returns a list of frozen :class:`Event`
objects for the caller to render. A refused operation raises a :class:`TurnaboutError`
(a ``ValueError``) whose message is a sentence fit to show the user, and changes nothing:
every check happens before the first change. Randomness (who plays first in game 1) comes
only from ``random.Random(f"{seed}:{rng_counter}")``, the counter stored in the state.

Players are identified by **seat** (index into ``state.players``); :func:`seat_of` maps a
Discord user id to it. Matches by **number** (1, 2, … over the whole event).

How the code maps to FORMATS.md §3
    * Decks: checked before they reach the engine, by :mod:`bot.games.turnabout.decklists`
      (60+ cards, no sideboard, the bans by Oracle text); the engine keeps the checked list.
    * Registration (:func:`register`): one deck and its scoring option (Dominaria by
      default) per player; the organizer may restrict the options (``scoring_options``).
    * Match (:func:`pair_next_round`, :func:`game_plan`): two games. Game 1: each player plays
      the **opponent's** deck (5 minutes' preparation); game 2: their own (3 minutes);
      whoever played first in game 1 plays second in game 2. Who plays first in game 1 is a
      seeded coin flip, recorded in the state.
    * Match points (:func:`match_points`, :func:`game_points`): per game, to the winner, by the
      **losing deck's** option — whoever played it. In game 1 the loser was playing the
      winner's deck, so the winner's own option applies; in game 2 the loser's. Clamped to
      [10, 30].
    * Victory Points (:func:`victory_points`): 30 per match, split by the MP difference.
    * Swiss (:mod:`bot.kit.swiss`) on Victory Points, never a rematch when avoidable;
      ranking by score, opponents' average VP, head-to-head, seeded coin.
    * Rating (:func:`placement_multiplier`, :func:`rating_award`, :func:`final_ranking`).
    * Chess clock (:func:`new_match_clock`, :func:`flag_fell`): a flag fall reports the game
      as lost by the flagged player; the organizer may override (:func:`decide_game`). The
      clock itself lives in its own document (:mod:`bot.features.clock.rules`), one per match, so
      a clock pass — several a minute per match — never rewrites the whole event.

Public API (for the command layer)
    Pure: ``match_points``, ``victory_points``, ``placement_multiplier``, ``rating_award``.
    Event: ``new_event(seed, Settings(...))``; operations returning ``list[Event]``:
    ``update_settings(state, **changes)``, ``register(state, user_id, deck, scoring,
    cards)``, ``close_registration``, ``pair_next_round``, ``record_game(state, match, game, *,
    winner, value)`` (a result that counts), ``decide_game(state, match, game, *, winner, value,
    note)`` (organizer), ``flag_fell(state, match, game, flagged)``, ``drop(state, seat)``,
    ``end_event``. Queries: ``seat_of``, ``current_match``, ``report_target``, ``reported`` (a
    report checked, as a :class:`Report`), ``answerer``, ``game_plan``, ``value_needed``,
    ``game_points``, ``match_result``, ``standings``, ``final_ranking``, ``new_match_clock``.
    Permissions (who is an organizer) are the service's business: the engine trusts the caller
    for organizer operations.

Rules decisions (where FORMATS.md is silent)
    * Sane maxima for the reported number: life −1,000,000..1,000,000 (a winner below 0, e.g.
      with Platinum Angel, is recorded and scored as 0: 10 MP, as FORMATS.md says), library 0..10,000 (a library can grow past
      any list), poison 0..1,000 (a winner with 10 or more, e.g. with Platinum Angel, scores the
      clamped 10 MP). Anything else is refused.
    * A game may be reported as a draw (``winner=None``): no match points to either player.
    * Reports: either player of the match reports a game (winner + the number the losing
      deck's option needs): :func:`reported` checks it. A report waits for the **other**
      player's answer in the kit's claims flow (:mod:`bot.kit.claims`, kept by the service, not
      here): the engine sees a game's result only once it counts (:func:`record_game`: confirmed,
      or matched by the opponent's own report) or an organizer decides it (:func:`decide_game`,
      final, and may also override a confirmed game until the event ends). If the opponent has
      dropped, a report counts at once (:func:`answerer` is None: nobody is left to confirm it);
      a report waiting for a player who then drops waits for an organizer.
    * Flag fall (:func:`flag_fell`, only when the event uses the clock): the game is marked lost
      by the flagged player; the number for the match points is still needed, so one of the
      two players reports it (the winner cannot be changed by a player: :func:`reported`
      refuses) and the other confirms, as for any report.
    * Bye: a bye scores ``bye_vp`` Victory Points (default 30, i.e. a 30–0 win). For the rating
      it counts as a match **win** if ``bye_vp`` > 15, a draw at 15, a loss below (the same
      reading as a VP split). A round with a bye counts as a round played.
    * Drop: removes the player from later pairings; a match in progress must still be
      finished (reported, or decided by the organizer). Dropping during registration
      withdraws the registration. Nothing to drop from once the last round is over.
    * Rating bonus ("played every scheduled round"): registration closes before round 1, so
      a player who never dropped played every round held; the bonus is ``not dropped``. If the
      organizer ends the event early, the rounds held are the rounds scheduled.
    * Placement for the rating: the final ranking over **all** registered players (dropped ones
      too, by their score), N = the number of registered players.
    * Default 3 rounds (the organizer sets 1..20; may raise or lower it during the event, not
      below the rounds already paired). Never more than the registered players can play without
      a rematch (:func:`bot.kit.swiss.max_rounds`: N − 1 for an even N, N for an odd N,
      each sitting out once): closing registration refuses it (:class:`TooManyRounds`).
    * Pairing looks ahead to the last scheduled round: each round leaves the rounds after it a
      way to be paired without a rematch (:func:`bot.kit.swiss.pair_round`). A drop never
      stops an event while the players still in can be paired without a rematch (two or more:
      three pair with a bye); the rounds they can no longer play so are dropped from the schedule
      at once (:class:`RoundsCut`, announced; :func:`playable_rounds`) and cannot be added back.
      A later drop does not bring a dropped round back.
    * "Other" scoring options the organizer might allow are not implemented: only the three
      named options have a formula.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.features.clock import rules as chess_clock
from bot.kit import events, swiss
from bot.kit.text import clean_name, name_key

__all__ = [
    "DEFAULT_ROUNDS",
    "MAX_LIBRARY",
    "MAX_LIFE",
    "MAX_POISON",
    "MIN_PLAYERS",
    "OPTION_MEASURE",
    "PREP_MINUTES",
    "SCHEMA_VERSION",
    "SCORING_OPTIONS",
    "VP_TABLE",
    "AlreadyReported",
    "Event",
    "EventEnded",
    "Game",
    "GameDecided",
    "GameRecorded",
    "GameDisputed",
    "GameLostOnTime",
    "GamePlan",
    "InvalidScore",
    "InvalidSetting",
    "Match",
    "MatchFinished",
    "MatchPlan",
    "MatchResult",
    "NotAPlayer",
    "NotEnoughPlayers",
    "NotInMatch",
    "Placing",
    "Player",
    "PlayerDropped",
    "PlayerRegistered",
    "PlayerWithdrew",
    "RegistrationClosed",
    "Report",
    "RoundFinished",
    "RoundsCut",
    "RoundPaired",
    "RoundUnfinished",
    "Settings",
    "SettingsChanged",
    "StandingRow",
    "TooManyRounds",
    "TurnaboutError",
    "TurnaboutState",
    "WrongPhase",
    "answerer",
    "close_registration",
    "current_match",
    "decide_game",
    "drop",
    "end_event",
    "final_ranking",
    "flag_fell",
    "game_plan",
    "game_points",
    "match_points",
    "match_result",
    "new_event",
    "new_match_clock",
    "pair_next_round",
    "placement_multiplier",
    "playable_rounds",
    "rating_award",
    "record_game",
    "register",
    "report_target",
    "reported",
    "reported_points",
    "seat_of",
    "standings",
    "update_settings",
    "value_needed",
    "victory_points",
]

SCHEMA_VERSION = 2  # 2: a game waiting for an answer is the kit's claim, not a status here (0032)

# --------------------------------------------------------------------------- constants

SCORING_OPTIONS: tuple[str, ...] = ("dominaria", "tolaria", "phyrexia")
DEFAULT_OPTION = "dominaria"
#: The keyword of :func:`match_points` each option needs: the winner's life, library or poison.
OPTION_MEASURE: dict[str, str] = {"dominaria": "life", "tolaria": "library", "phyrexia": "poison"}
MIN_MATCH_POINTS, MAX_MATCH_POINTS = 10, 30
# Sane maxima for a reported number (anything from 0 up to them is accepted and scored, clamped to
# [10, 30]): a winner's life can be huge, a library can grow past any list, and a winner can have
# any number of poison counters (Platinum Angel keeps a player with 10 or more in the game).
MAX_LIFE = 1_000_000
MAX_LIBRARY = 10_000
MAX_POISON = 1_000
VP_PER_MATCH = 30
MAX_MATCH_MP_DIFFERENCE = 2 * MAX_MATCH_POINTS  # two games of at most 30

#: (largest MP difference of the band, the winner's VP); the loser gets 30 minus that.
VP_TABLE: tuple[tuple[int, int], ...] = (
    (0, 15),
    (3, 16),
    (6, 17),
    (9, 18),
    (12, 19),
    (15, 20),
    (18, 21),
    (22, 22),
    (26, 23),
    (30, 24),
    (35, 25),
    (40, 26),
    (45, 27),
    (50, 28),
    (55, 29),
    (60, 30),
)

MIN_PLAYERS = 4  # the seed: "no event should have fewer than four players"
MAX_PLAYERS = 2000
DEFAULT_ROUNDS, MAX_ROUNDS = 3, 20
MAX_DECK_NAME = 100
PREP_MINUTES: dict[int, int] = {1: 5, 2: 3}  # game 1: studying the opponent's deck

# event phases
REGISTRATION, RUNNING, ENDED = "registration", "running", "ended"
# game statuses (a reported or disputed game is the kit's claim: the engine sees its result once it counts)
PENDING, FLAGGED, FINAL = "pending", "flagged", "final"


# --------------------------------------------------------------------------- errors


class TurnaboutError(ValueError):
    """A refused action; the message is meant for the user."""


class InvalidScore(TurnaboutError):
    pass


class InvalidSetting(TurnaboutError):
    pass


class WrongPhase(TurnaboutError):
    pass


class NotAPlayer(TurnaboutError):
    pass


class NotInMatch(TurnaboutError):
    pass


class AlreadyReported(TurnaboutError):
    pass


class RoundUnfinished(TurnaboutError):
    pass


class NotEnoughPlayers(TurnaboutError):
    pass


class TooManyRounds(InvalidSetting):
    """More rounds than the players can play without a rematch (:func:`bot.kit.swiss.max_rounds`)."""

    def __init__(self, players: int, rounds: int) -> None:
        self.players, self.rounds, self.most = players, rounds, swiss.max_rounds(players)
        self.needed = swiss.min_players(rounds)
        super().__init__(
            f"{players} players can play at most {self.most} rounds without anyone meeting the same "
            f"opponent twice; this event is set to {rounds}."
        )


def _count(value: object, what: str, maximum: int, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidScore(f"The {what} must be a whole number.")
    if value < minimum:
        raise InvalidScore(f"The {what} cannot be negative." if minimum == 0
                           else f"The {what} cannot be less than {minimum:,}.")
    if value > maximum:
        raise InvalidScore(f"The {what} cannot be more than {maximum:,}.")
    return value


def match_points(
    option: str, *, life: int | None = None, library: int | None = None, poison: int | None = None
) -> int:
    """Match points the winner of one game earns, by the **losing deck's** ``option``.

    Dominaria: 10 + the winner's ``life``; Tolaria: 10 + ⌈the winner's ``library`` / 2⌉;
    Phyrexia: 30 − 2 × the winner's ``poison``; clamped to [10, 30]. The value the option
    needs must be given; every value given must be a whole number within
    [0, MAX_LIBRARY / MAX_POISON], or for life [−MAX_LIFE, MAX_LIFE]: a winner below 0 life counts
    as 0 (FORMATS.md §3), as Phyrexia's clamp takes a winner with 10 or more poison.
    """
    if option not in SCORING_OPTIONS:
        raise InvalidScore(f"Unknown scoring option {option!r} (choose {', '.join(SCORING_OPTIONS)}).")
    given = {"life": life, "library": library, "poison": poison}
    limits = {"life": MAX_LIFE, "library": MAX_LIBRARY, "poison": MAX_POISON}
    words = {
        "life": "life total",
        "library": "number of cards in the library",
        "poison": "number of poison counters",
    }
    for key, value in given.items():
        if value is not None:
            _count(value, f"winner's {words[key]}", limits[key], minimum=-MAX_LIFE if key == "life" else 0)
    needed = OPTION_MEASURE[option]
    value = given[needed]
    if value is None:
        raise InvalidScore(f"{option.title()} scoring needs the winner's {words[needed]}.")
    raw = {"life": 10 + max(0, value), "library": 10 + math.ceil(value / 2), "poison": 30 - 2 * value}[needed]
    return min(MAX_MATCH_POINTS, max(MIN_MATCH_POINTS, raw))


def victory_points(mp_a: int, mp_b: int) -> tuple[int, int]:
    """The 30 Victory Points of a match split by the MP difference (FORMATS.md's table)."""
    for mp in (mp_a, mp_b):
        _count(mp, "match point total", MAX_MATCH_MP_DIFFERENCE)
    diff = abs(mp_a - mp_b)
    winner_vp = next(vp for top, vp in VP_TABLE if diff <= top)
    return (winner_vp, VP_PER_MATCH - winner_vp) if mp_a >= mp_b else (VP_PER_MATCH - winner_vp, winner_vp)


def _ceil_log2(n: int) -> int:
    return (n - 1).bit_length()  # exact for n >= 1, no floating point


def placement_multiplier(players: int, position: int) -> int:
    """⌈log₂ players⌉ + 2 − ⌈log₂ position⌉: 4 players → 4 for first, 16 → 6, 100 → 9;
    5th of 16 → 3; 64th of 100 → 3. Never below 2, so every match win is worth something."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise ValueError("The number of players must be a whole number of at least 1.")
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= players:
        raise ValueError(f"The position must be between 1 and {players}.")
    return _ceil_log2(players) + 2 - _ceil_log2(position)


def rating_award(wins: int, draws: int, *, completed: bool, players: int, position: int) -> float:
    """(match wins + ½ per draw + 1 if the player ``completed`` every round) × the placement
    multiplier. A bye counts as the caller's record says (see :func:`final_ranking`)."""
    for value, what in ((wins, "wins"), (draws, "draws")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"The number of {what} must be a whole number of at least 0.")
    match_win_rating = wins + draws / 2 + (1 if completed else 0)
    return match_win_rating * placement_multiplier(players, position)


# --------------------------------------------------------------------------- data


@dataclass
class Settings:
    rounds: int = DEFAULT_ROUNDS
    bye_vp: int = VP_PER_MATCH  # a bye: 30–0 unless the organizer sets otherwise
    scoring_options: list[str] = field(default_factory=lambda: list(SCORING_OPTIONS))
    clock: bool = False
    clock_mode: str = "delay"
    clock_minutes: float = chess_clock.DEFAULT_MINUTES
    clock_increment: float = chess_clock.DEFAULT_INCREMENT


@dataclass
class Player:
    seat: int
    user_id: int
    deck: str
    scoring: str
    decklist: list[list] | None = None  # [[count, name], ...]; public to the opponent in game 1
    dropped: bool = False
    dropped_in_round: int | None = None  # rounds paired when the player dropped


@dataclass
class Game:
    number: int  # 1: each plays the opponent's deck; 2: their own
    first: int  # seat that plays first
    status: str = PENDING  # pending | flagged | final
    winner: int | None = None  # seat; None in a final game = a draw
    value: int | None = None  # the winner's life / library / poison, as the losing deck's option needs
    flagged: int | None = None  # seat whose clock flag fell in this game
    decided: bool = False  # the organizer's decision (final, not subject to confirmation)
    note: str = ""  # the organizer's decision note


@dataclass
class Match:
    number: int  # 1, 2, … over the whole event
    round: int
    a: int
    b: int | None  # None: a has a bye
    games: list[Game] = field(default_factory=list)
    bye_vp: int | None = None  # the VP the bye scored (the setting when it was given)

    def seats(self) -> tuple[int, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)

    def other(self, seat: int) -> int:
        assert self.b is not None
        return self.b if seat == self.a else self.a

    @property
    def finished(self) -> bool:
        return self.b is None or all(g.status == FINAL for g in self.games)


@dataclass
class TurnaboutState:
    seed: int | str
    settings: Settings = field(default_factory=Settings)
    rng_counter: int = 0
    phase: str = REGISTRATION
    players: list[Player] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    round: int = 0  # rounds paired so far

    def to_dict(self) -> dict[str, Any]:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnaboutState:
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(
                f"Unknown Turnabout schema version {data.get('v')!r} (expected {SCHEMA_VERSION})."
            )
        return events.decode({k: v for k, v in data.items() if k != "v"}, cls)

    def player(self, seat: int) -> Player:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.players):
            raise NotAPlayer(f"Seat {seat!r} is not a player in this event.")
        return self.players[seat]

    def match(self, number: int) -> Match:
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.matches):
            raise NotInMatch(f"There is no match {number!r} in this event.")
        return self.matches[number - 1]

    def round_matches(self, round_: int | None = None) -> list[Match]:
        r = self.round if round_ is None else round_
        return [m for m in self.matches if m.round == r]


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event(events.Event, family="turnabout"):  # stored as "turnabout.<ClassName>": bot.kit.events
    pass


@dataclass(frozen=True)
class SettingsChanged(Event):
    changes: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class PlayerRegistered(Event):
    seat: int
    user_id: int
    deck: str
    scoring: str
    cards: int | None  # decklist size, if a list was given
    updated: bool  # re-registration replaced an earlier one


@dataclass(frozen=True)
class PlayerWithdrew(Event):
    user_id: int


@dataclass(frozen=True)
class RegistrationClosed(Event):
    players: int


@dataclass(frozen=True)
class GamePlan:
    number: int
    first: int  # seat that plays first
    decks: tuple[tuple[int, int], ...]  # (player seat, seat whose deck they play)
    prep_minutes: int


@dataclass(frozen=True)
class MatchPlan:
    match: int
    a: int
    b: int
    games: tuple[GamePlan, GamePlan]


@dataclass(frozen=True)
class RoundPaired(Event):
    round: int
    matches: tuple[MatchPlan, ...]
    bye: int | None
    bye_vp: int | None
    rematches: int


@dataclass(frozen=True)
class GameRecorded(Event):
    """A game's result counts (its report confirmed, or matched by the opponent's own report)."""

    match: int
    game: int
    winner: int | None
    value: int | None
    match_points: tuple[int, int]


@dataclass(frozen=True)
class Report:
    """What one player reported about a game, checked (:func:`reported`): the winner's seat (None:
    a draw), their number as it counts (a winner below 0 life: 0) and what it measures (the losing
    deck's option), and the match points (a, b) it would give (None when the number was not given)."""

    by: int
    winner: int | None
    value: int | None
    measure: str | None
    match_points: tuple[int, int] | None


@dataclass(frozen=True)
class GameDisputed(Event):
    """A report disputed (announced by the service, whose claims flow holds it): the report, and the
    disputing player's own different report when they gave one (None: the Dispute button)."""

    match: int
    game: int
    by: int
    reason: str
    claimed: Report | None = None
    counter: Report | None = None


@dataclass(frozen=True)
class GameDecided(Event):
    match: int
    game: int
    winner: int | None
    value: int | None
    match_points: tuple[int, int]
    note: str


@dataclass(frozen=True)
class GameLostOnTime(Event):
    match: int
    game: int
    flagged: int
    winner: int
    value_needed: str  # "life", "library" or "poison": what the report must still give


@dataclass(frozen=True)
class MatchResult:
    match: int
    a: int
    b: int | None
    match_points: tuple[int, int]
    victory_points: tuple[int, int]
    winner: int | None  # None: a draw


@dataclass(frozen=True)
class MatchFinished(Event):
    result: MatchResult
    corrected: bool  # an organizer's override changed a finished match


@dataclass(frozen=True)
class RoundFinished(Event):
    round: int
    last: bool  # the scheduled number of rounds has been played


@dataclass(frozen=True)
class PlayerDropped(Event):
    seat: int
    round: int
    open_match: int | None  # a match of the current round the player must still finish


@dataclass(frozen=True)
class RoundsCut(Event):
    """After a drop the players left cannot play every scheduled round without a rematch: the
    schedule keeps the ``rounds`` they can (``scheduled`` before)."""

    scheduled: int
    rounds: int
    round_over: bool  # the round just played was the last: the event can end now


@dataclass(frozen=True)
class StandingRow:
    rank: int
    seat: int
    user_id: int
    deck: str
    victory_points: int
    opponents_average: float
    wins: int
    draws: int
    losses: int
    byes: int
    dropped: bool


@dataclass(frozen=True)
class Placing:
    position: int
    seat: int
    user_id: int
    deck: str
    victory_points: int
    wins: int
    draws: int
    losses: int
    completed: bool  # played every round: +1 match win for the rating
    multiplier: int
    award: float


@dataclass(frozen=True)
class EventEnded(Event):
    placings: tuple[Placing, ...]


# --------------------------------------------------------------------------- helpers


def _rng(state: TurnaboutState) -> random.Random:
    r = random.Random(f"{state.seed}:{state.rng_counter}")
    state.rng_counter += 1
    return r


def _require_phase(state: TurnaboutState, phase: str, action: str) -> None:
    if state.phase == phase:
        return
    why = {
        REGISTRATION: "registration is still open (the organizer closes it first)",
        RUNNING: "registration is closed",
        ENDED: "the event has ended",
    }[state.phase]
    raise WrongPhase(f"Cannot {action}: {why}.")


def _int_setting(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidSetting(f"{what} must be a whole number from {low} to {high}.")
    return value


def _validated(settings: Settings, *, rounds_paired: int = 0) -> Settings:
    _int_setting(settings.rounds, "The number of rounds", max(1, rounds_paired), MAX_ROUNDS)
    _int_setting(settings.bye_vp, "The Victory Points of a bye", 0, VP_PER_MATCH)
    options = list(dict.fromkeys(settings.scoring_options))
    unknown = [o for o in options if o not in SCORING_OPTIONS]
    if unknown or not options:
        raise InvalidSetting(f"Allowed scoring options are one or more of {', '.join(SCORING_OPTIONS)}.")
    if not isinstance(settings.clock, bool):
        raise InvalidSetting("The clock is either on or off.")
    try:  # the clock module owns its limits
        chess_clock.new_clock(settings.clock_mode, settings.clock_minutes, settings.clock_increment)
    except chess_clock.ClockError as exc:
        raise InvalidSetting(str(exc)) from None
    settings.scoring_options = options
    return settings


def _check_rounds(state: TurnaboutState, rounds: int) -> None:
    """Refuse more rounds than the registered players can play without a rematch (fewer than
    MIN_PLAYERS cannot be paired at all: pairing says so)."""
    players = len(state.players)
    if players >= MIN_PLAYERS and rounds > swiss.max_rounds(players):
        raise TooManyRounds(players, rounds)
    if state.phase == RUNNING and rounds > state.round and any(p.dropped for p in state.players):
        most = state.round + playable_rounds(state, rounds - state.round)
        if rounds > most:
            raise InvalidSetting(
                f"The players still in can play at most {most} rounds without anyone meeting the same "
                f"opponent twice."
            )


def _game_points(
    state: TurnaboutState, match: Match, game: Game, winner: int | None, value: int | None
) -> tuple[int, int]:
    """(MP to a, MP to b) for a game result; validates ``value`` (raises InvalidScore)."""
    if winner is None:
        return (0, 0)
    loser = match.other(winner)
    # Game 1: the loser played the winner's deck; game 2: their own.
    losing_deck_owner = winner if game.number == 1 else loser
    option = state.players[losing_deck_owner].scoring
    points = match_points(option, **{OPTION_MEASURE[option]: value})
    return (points, 0) if winner == match.a else (0, points)


def _losing_option(state: TurnaboutState, match: Match, game: Game, winner: int) -> str:
    return state.players[_losing_owner(match, game, winner)].scoring


def _losing_owner(match: Match, game: Game, winner: int) -> int:
    """The seat whose deck lost: in game 1 each plays the other's deck, so the loser's deck is the winner's own."""
    return winner if game.number == 1 else match.other(winner)


def losing_deck(state: TurnaboutState, seat: int, *, won: bool, game: int | None = None) -> Player:
    """The owner of the deck that lost the game ``seat`` reports (``won``: ``seat`` won it), the
    next one to report unless ``game`` is given: that deck's option asks the report's number."""
    m = _players_match(state, seat, None)
    g = report_target(state, seat, game=game, match=m.number)
    return state.players[_losing_owner(m, g, seat if won else m.other(seat))]


def _recorded_value(state: TurnaboutState, match: Match, game: Game, winner: int | None, value: int | None) -> int | None:
    """The number as it is recorded: none for a draw; a winner's life below 0 as 0 (it scores so)."""
    if winner is None or value is None:
        return None
    if OPTION_MEASURE[_losing_option(state, match, game, winner)] == "life" and isinstance(value, int) and value < 0:
        _game_points(state, match, game, winner, value)  # still refuses a number out of range
        return 0
    return value


def _check_winner(match: Match, winner: int | None) -> None:
    if winner is not None and winner not in match.seats():
        raise NotInMatch("The winner must be one of the two players of this match (or None for a draw).")


def _find_game(match: Match, number: int | None, statuses: Sequence[str]) -> Game | None:
    if number is not None:
        if number not in (1, 2):
            raise TurnaboutError("A Turnabout match has games 1 and 2 only.")
        return match.games[number - 1]
    return next((g for g in match.games if g.status in statuses), None)


def _players_match(state: TurnaboutState, seat: int, number: int | None) -> Match:
    """The match ``seat`` acts on: ``number`` if given (the seat must play in it), else the
    seat's match of the current round."""
    state.player(seat)
    _require_phase(state, RUNNING, "report or confirm games")
    if number is not None:
        match = state.match(number)
        if seat not in match.seats():
            raise NotInMatch(f"You are not playing in match {number}.")
    else:
        match = current_match(state, seat)
        if match is None:
            raise NotInMatch("You have no match in the current round.")
    if match.b is None:
        raise NotInMatch("You have a bye this round: there is no game to report.")
    return match


def _after_final(state: TurnaboutState, match: Match, *, corrected: bool = False) -> list[Event]:
    """Events once a game became final: the match's result, and the round's end."""
    result = match_result(state, match)
    if result is None:
        return []
    events: list[Event] = [MatchFinished(result, corrected)]
    if not corrected and match.round == state.round and all(m.finished for m in state.round_matches()):
        events.append(RoundFinished(state.round, state.round >= state.settings.rounds))
    return events


# --------------------------------------------------------------------------- queries


def seat_of(state: TurnaboutState, user_id: int) -> int:
    for p in state.players:
        if p.user_id == user_id:
            return p.seat
    raise NotAPlayer("You are not registered in this event.")


def current_match(state: TurnaboutState, seat: int) -> Match | None:
    """The seat's match (or bye) of the current round, if any."""
    return next((m for m in state.round_matches() if seat in m.seats()), None)


def game_plan(match: Match) -> tuple[GamePlan, GamePlan]:
    """Who plays first and which deck each player plays, game by game."""
    assert match.b is not None
    g1, g2 = match.games
    return (
        GamePlan(1, g1.first, ((match.a, match.b), (match.b, match.a)), PREP_MINUTES[1]),
        GamePlan(2, g2.first, ((match.a, match.a), (match.b, match.b)), PREP_MINUTES[2]),
    )


def value_needed(state: TurnaboutState, match: int, game: int, winner: int) -> str:
    """What a report of ``winner`` winning ``game`` must give: "life", "library" or "poison"
    (the losing deck's option; for asking the right question before the report)."""
    m = state.match(match)
    if m.b is None:
        raise NotInMatch(f"Match {match} is a bye: there is no game to report.")
    g = _find_game(m, game, ())
    assert g is not None
    if winner is None:
        raise TurnaboutError("A drawn game needs no number: nobody scores match points.")
    _check_winner(m, winner)
    return OPTION_MEASURE[_losing_option(state, m, g, winner)]


def game_points(state: TurnaboutState, match: Match, game: Game) -> tuple[int, int]:
    """(MP to a, MP to b) of a game; (0, 0) until it is final, and for a drawn game."""
    if game.status != FINAL:
        return (0, 0)
    return _game_points(state, match, game, game.winner, game.value)


def reported_points(state: TurnaboutState, match: int, game: int, winner: int | None, value: int | None) -> tuple[int, int]:
    """(MP to a, MP to b) a result of ``game`` of ``match`` gives: ``winner``'s seat (None: a draw)
    with ``value`` (as it counts), reported or final."""
    m = state.match(match)
    g = _find_game(m, game, ())
    assert g is not None
    return _game_points(state, m, g, winner, value)


def match_result(state: TurnaboutState, match: Match) -> MatchResult | None:
    """MP totals, VP split and winner once both games are final (a bye at once); else None."""
    if match.b is None:
        vp = match.bye_vp if match.bye_vp is not None else state.settings.bye_vp
        winner = match.a if vp > VP_PER_MATCH // 2 else None
        return MatchResult(match.number, match.a, None, (0, 0), (vp, 0), winner)
    if not match.finished:
        return None
    per_game = [game_points(state, match, g) for g in match.games]
    mp = (sum(p[0] for p in per_game), sum(p[1] for p in per_game))
    vp = victory_points(*mp)
    winner = match.a if mp[0] > mp[1] else match.b if mp[1] > mp[0] else None
    return MatchResult(match.number, match.a, match.b, mp, vp, winner)


def _results(state: TurnaboutState) -> list[tuple[Match, MatchResult]]:
    out = []
    for m in state.matches:
        r = match_result(state, m)
        if r is not None:
            out.append((m, r))
    return out


def _swiss_results(state: TurnaboutState) -> list[swiss.Result]:
    return [
        swiss.Result(r.a, r.b, r.victory_points[0], r.victory_points[1])
        if r.b is not None
        else swiss.Result.bye(r.a, r.victory_points[0])
        for _, r in _results(state)
    ]


def _records(state: TurnaboutState) -> dict[int, Counter]:
    """seat -> Counter(wins, draws, losses, byes) over finished matches."""
    records = {p.seat: Counter() for p in state.players}
    for m, r in _results(state):
        if m.b is None:
            records[m.a]["byes"] += 1
            vp = r.victory_points[0]
            records[m.a]["wins" if vp > 15 else "draws" if vp == 15 else "losses"] += 1
            continue
        for seat in m.seats():
            records[seat]["draws" if r.winner is None else "wins" if r.winner == seat else "losses"] += 1
    return records


def standings(state: TurnaboutState) -> list[StandingRow]:
    """Every registered player ranked by VP, opponents' average VP, head-to-head, coin flip."""
    table = swiss.standings([p.seat for p in state.players], _swiss_results(state), seed=state.seed)
    records = _records(state)
    rows = []
    for s in table:
        p = state.players[s.player]
        rec = records[p.seat]
        rows.append(
            StandingRow(
                rank=s.rank,
                seat=p.seat,
                user_id=p.user_id,
                deck=p.deck,
                victory_points=int(s.score),
                opponents_average=float(s.opponents_average),
                wins=rec["wins"],
                draws=rec["draws"],
                losses=rec["losses"],
                byes=rec["byes"],
                dropped=p.dropped,
            )
        )
    return rows


def final_ranking(state: TurnaboutState) -> list[Placing]:
    """The ranking with each player's rating award (see the module docstring for the rules)."""
    rows = standings(state)
    n = len(rows)
    placings = []
    for row in rows:
        completed = not state.players[row.seat].dropped
        placings.append(
            Placing(
                position=row.rank,
                seat=row.seat,
                user_id=row.user_id,
                deck=row.deck,
                victory_points=row.victory_points,
                wins=row.wins,
                draws=row.draws,
                losses=row.losses,
                completed=completed,
                multiplier=placement_multiplier(n, row.rank),
                award=rating_award(row.wins, row.draws, completed=completed, players=n, position=row.rank),
            )
        )
    return placings


def new_match_clock(
    state: TurnaboutState, players: Sequence[int] | None = None
) -> chess_clock.ClockState | None:
    """A fresh chess clock for a match by the event's settings (None when the event is untimed).
    ``players``: the two user ids, side 0 first."""
    s = state.settings
    if not s.clock:
        return None
    return chess_clock.new_clock(s.clock_mode, s.clock_minutes, s.clock_increment, players=players)


# --------------------------------------------------------------------------- operations: setup


def new_event(seed: int | str, settings: Settings | None = None) -> TurnaboutState:
    """An event open for registration."""
    return TurnaboutState(seed=seed, settings=_validated(settings or Settings()))


def update_settings(state: TurnaboutState, **changes: Any) -> list[Event]:
    """Organizer: change settings. Scoring options only during registration (and never
    excluding an option a registered deck uses); rounds never below the rounds paired."""
    if state.phase == ENDED:
        raise WrongPhase("Cannot change the settings: the event has ended.")
    unknown = set(changes) - set(Settings.__dataclass_fields__)
    if unknown:
        raise InvalidSetting(f"Unknown setting {sorted(unknown)[0]!r}.")
    if "scoring_options" in changes:
        if state.phase != REGISTRATION:
            raise WrongPhase("Scoring options can only change while registration is open.")
        in_use = {p.scoring for p in state.players} - set(changes["scoring_options"] or ())
        if in_use:
            raise InvalidSetting(f"A registered deck uses {sorted(in_use)[0].title()}: it must stay allowed.")
    candidate = Settings(**{**asdict(state.settings), **changes})
    if "scoring_options" in changes:
        candidate.scoring_options = list(changes["scoring_options"])
    _validated(candidate, rounds_paired=state.round)
    if state.phase != REGISTRATION:
        _check_rounds(state, candidate.rounds)
    state.settings = candidate
    return [SettingsChanged(tuple(sorted(changes.items())))]


def register(
    state: TurnaboutState,
    user_id: int,
    deck: str,
    scoring: str = DEFAULT_OPTION,
    cards: Sequence[tuple[int, str]] | None = None,
) -> list[Event]:
    """Register (or, while registration is open, re-register) a player's deck and option, with its
    decklist as (count, name) lines when it has one (checked against the deck rules beforehand:
    :func:`bot.games.turnabout.decklists.checked`)."""
    _require_phase(state, REGISTRATION, "register")
    name = clean_name(deck or "")
    if not name or len(name) > MAX_DECK_NAME:
        raise TurnaboutError(f"Give the deck a name of 1 to {MAX_DECK_NAME} characters.")
    if scoring not in state.settings.scoring_options:
        allowed = ", ".join(o.title() for o in state.settings.scoring_options)
        raise TurnaboutError(
            f"{str(scoring).title()} is not a scoring option in this event (choose {allowed})."
        )
    existing = next((p for p in state.players if p.user_id == user_id), None)
    if any(p is not existing and name_key(p.deck) == name_key(name) for p in state.players):
        raise TurnaboutError(
            f"Another player has already registered a deck called {name!r}; pick another name."
        )
    if existing is None and len(state.players) >= MAX_PLAYERS:
        raise TurnaboutError(f"The event is full ({MAX_PLAYERS} players).")
    stored = [[count, card] for count, card in cards] if cards is not None else None
    if existing is None:
        existing = Player(
            seat=len(state.players), user_id=user_id, deck=name, scoring=scoring, decklist=stored
        )
        state.players.append(existing)
        updated = False
    else:
        existing.deck, existing.scoring, existing.decklist = name, scoring, stored
        updated = True
    size = sum(c for c, _ in cards) if cards is not None else None
    return [PlayerRegistered(existing.seat, user_id, name, scoring, size, updated)]


def close_registration(state: TurnaboutState) -> list[Event]:
    """Organizer: no more registrations; the event can be paired (with no more rounds than
    the players can play without a rematch)."""
    _require_phase(state, REGISTRATION, "close registration")
    _check_rounds(state, state.settings.rounds)
    state.phase = RUNNING
    return [RegistrationClosed(len(state.players))]


# --------------------------------------------------------------------------- operations: rounds


def pair_next_round(state: TurnaboutState) -> list[Event]:
    """Organizer: pair the next round (Swiss on VP, no rematch when avoidable, bye to the
    lowest-ranked player without one). Game 1's first player is a seeded coin flip."""
    if state.phase == REGISTRATION:
        raise WrongPhase("Close registration before pairing the first round.")
    _require_phase(state, RUNNING, "pair a round")
    unfinished = [m.number for m in state.round_matches() if not m.finished]
    if unfinished:
        listed = ", ".join(str(n) for n in unfinished[:10])
        raise RoundUnfinished(f"Round {state.round} is not finished yet (open matches: {listed}).")
    if state.round >= state.settings.rounds:
        played = (f"All {state.settings.rounds} rounds have" if state.settings.rounds > 1
                  else "The event's one round has")
        raise WrongPhase(f"{played} been played: end the event (or add a round).")
    if len(state.players) < MIN_PLAYERS:
        raise NotEnoughPlayers(f"An event needs at least {MIN_PLAYERS} players; {len(state.players)} registered.")
    active = [p.seat for p in state.players if not p.dropped]
    if len(active) < 2:  # (the schedule is cut to the rounds played first: see drop)
        raise NotEnoughPlayers(f"Pairing needs at least 2 players still in; there are {len(active)}.")

    number = state.round + 1
    pairing = swiss.pair_round(
        active, _swiss_results(state), seed=state.seed, round_number=number, rounds=state.settings.rounds
    )
    state.round = number
    plans = []
    for a, b in pairing.pairs:
        first = _rng(state).choice((a, b))
        match = Match(
            number=len(state.matches) + 1,
            round=number,
            a=a,
            b=b,
            games=[Game(1, first), Game(2, b if first == a else a)],
        )
        state.matches.append(match)
        plans.append(MatchPlan(match.number, a, b, game_plan(match)))
    bye_vp = None
    if pairing.bye is not None:
        bye_vp = state.settings.bye_vp
        state.matches.append(Match(len(state.matches) + 1, number, pairing.bye, None, [], bye_vp))
    events: list[Event] = [RoundPaired(number, tuple(plans), pairing.bye, bye_vp, pairing.rematches)]
    if not plans:  # only a bye (cannot happen with 4+ players; kept for completeness)
        events.append(RoundFinished(number, number >= state.settings.rounds))
    return events


def report_target(state: TurnaboutState, seat: int, *, game: int | None = None, match: int | None = None,
                  disputed: Sequence[int] = ()) -> Game:
    """The game a report by ``seat`` is about: ``game``, else the first game of the match without a
    result that is not ``disputed`` (the games whose report waits for an organizer: the caller's
    claims flow knows them). That may be a game whose report waits for this player's answer, or this
    player's own report still waiting."""
    m = _players_match(state, seat, match)
    if game is not None:
        g = _find_game(m, game, ())
        assert g is not None
        return g
    g = next((g for g in m.games if g.status != FINAL and g.number not in disputed), None)
    if g is None:
        if disputed:
            raise AlreadyReported(f"Match {m.number} has no game left to report: a disputed one waits for an organizer.")
        raise AlreadyReported(f"Both games of match {m.number} are already reported.")
    return g


def _check_players_result(m: Match, g: Game, winner: int | None) -> None:
    """The players' result of a game: only one without a result, a winner of the match, and after a
    flag fall its winner (only an organizer can change that: :func:`decide_game`)."""
    if g.status == FINAL:
        raise AlreadyReported(f"Game {g.number} of match {m.number} is already reported ({g.status}).")
    _check_winner(m, winner)
    if g.status == FLAGGED and winner != m.other(g.flagged):
        raise TurnaboutError(
            f"Game {g.number} was lost on time by the player whose flag fell; only an organizer can change that."
        )


def reported(state: TurnaboutState, seat: int, *, winner: int | None, value: int | None = None,
             game: int | None = None, match: int | None = None) -> Report:
    """``seat``'s report of ``game`` (default: :func:`report_target`) of ``match`` (default: their
    current match), checked, changing nothing: a player of the match,
    a game without a result, a winner of the match (after a flag fall: its winner; only an
    organizer can change that), a number in range for the losing deck's option (may be missing:
    a report that matches a waiting one needs none). A draw gives no number and no points."""
    m = _players_match(state, seat, match)
    g = report_target(state, seat, game=game, match=m.number)
    _check_players_result(m, g, winner)
    if winner is None:
        return Report(seat, None, None, None, (0, 0))
    if value is not None:
        value = _recorded_value(state, m, g, winner, value) if isinstance(value, int) else value
        points: tuple[int, int] | None = _game_points(state, m, g, winner, value)  # validates the number
    else:
        points = None
    return Report(seat, winner, value, OPTION_MEASURE[_losing_option(state, m, g, winner)], points)


def answerer(state: TurnaboutState, match: int, seat: int) -> int | None:
    """Who answers ``seat``'s report in ``match``: their opponent, or nobody (None) when the
    opponent has dropped: the report counts at once."""
    m = _players_match(state, seat, match)
    opponent = m.other(seat)
    return None if state.players[opponent].dropped else opponent


def _played_game(state: TurnaboutState, match: int, game: int, action: str) -> tuple[Match, Game]:
    """Game ``game`` of ``match`` (not a bye) of the running event, to ``action`` (record, decide)."""
    _require_phase(state, RUNNING, f"{action} a game")
    m = state.match(match)
    if m.b is None:
        raise NotInMatch(f"Match {match} is a bye: there is no game to {action}.")
    g = _find_game(m, game, ())
    assert g is not None
    return m, g


def record_game(
    state: TurnaboutState, match: int, game: int, *, winner: int | None, value: int | None = None
) -> list[Event]:
    """A game's result that counts: its report confirmed by the opponent (or for them, absent),
    matched by their own report, or final at once (their opponent has dropped). Only a game
    without a result; the number is checked as for any report (a winner below 0 life: 0)."""
    m, g = _played_game(state, match, game, "record")
    _check_players_result(m, g, winner)
    value = _recorded_value(state, m, g, winner, value) if isinstance(value, int) else value
    points = _game_points(state, m, g, winner, value)  # validates the number before any change
    g.status, g.winner, g.value = FINAL, winner, (value if winner is not None else None)
    return [GameRecorded(m.number, g.number, winner, g.value, points), *_after_final(state, m)]


def decide_game(
    state: TurnaboutState,
    match: int,
    game: int,
    *,
    winner: int | None,
    value: int | None = None,
    note: str = "",
) -> list[Event]:
    """Organizer: settle or override a game (a dispute, a no-show, a flag fall). Final at once;
    allowed on any game of a played match until the event ends."""
    m, g = _played_game(state, match, game, "decide")
    _check_winner(m, winner)
    value = _recorded_value(state, m, g, winner, value) if isinstance(value, int) else value
    points = _game_points(state, m, g, winner, value)
    was_finished = m.finished
    g.status, g.winner, g.value = FINAL, winner, (value if winner is not None else None)
    g.decided, g.note = True, clean_name(note)[:300]
    return [
        GameDecided(m.number, g.number, winner, g.value, points, g.note),
        *_after_final(state, m, corrected=was_finished),
    ]


def flag_fell(
    state: TurnaboutState, match: int, game: int, flagged: int, *, require_clock: bool = True
) -> list[Event]:
    """The chess clock: ``flagged``'s time ran out, so they lost the game. The report still
    needs the number for the match points (see the module docstring). ``require_clock=False``:
    the players ran a clock of their own in an event without the clock setting (``/clock``)."""
    _require_phase(state, RUNNING, "record a flag fall")
    if require_clock and not state.settings.clock:
        raise TurnaboutError("This event is not played with a chess clock.")
    m = state.match(match)
    if m.b is None or flagged not in m.seats():
        raise NotInMatch(f"That player is not playing in match {match}.")
    g = _find_game(m, game, ())
    assert g is not None
    if g.status != PENDING:
        raise AlreadyReported(f"Game {g.number} of match {m.number} already has a result ({g.status}).")
    winner = m.other(flagged)
    g.status, g.flagged, g.winner = FLAGGED, flagged, winner
    return [
        GameLostOnTime(
            m.number, g.number, flagged, winner, OPTION_MEASURE[_losing_option(state, m, g, winner)]
        )
    ]


def drop(state: TurnaboutState, seat: int) -> list[Event]:
    """A player leaves: during registration the registration is withdrawn; later the player
    is no longer paired (a match in progress must still be finished)."""
    p = state.player(seat)
    if state.phase == REGISTRATION:
        del state.players[seat]
        for i, other in enumerate(state.players):
            other.seat = i
        return [PlayerWithdrew(p.user_id)]
    _require_phase(state, RUNNING, "drop")
    if p.dropped:
        raise TurnaboutError("You have already dropped from this event.")
    if state.round >= state.settings.rounds and all(m.finished for m in state.round_matches()):
        raise WrongPhase("The last round is over: there is nothing left to drop from.")
    p.dropped, p.dropped_in_round = True, state.round
    open_match = current_match(state, seat)
    still_open = open_match.number if open_match is not None and not open_match.finished else None
    return [PlayerDropped(seat, state.round, still_open), *_cut_unplayable_rounds(state)]


def _paired_so_far(state: TurnaboutState) -> list[swiss.Result]:
    """Every match and bye paired so far, finished or not, without points: who has met whom."""
    return [swiss.Result(m.a, m.b, 0, 0) if m.b is not None else swiss.Result.bye(m.a, 0) for m in state.matches]


def playable_rounds(state: TurnaboutState, limit: int) -> int:
    """How many rounds after the current one the players still in can play, at most ``limit``,
    with nobody meeting an opponent twice (FORMATS.md §3: never the same opponent twice)."""
    active = [p.seat for p in state.players if not p.dropped]
    return swiss.playable_rounds(active, _paired_so_far(state), limit=limit)


def _cut_unplayable_rounds(state: TurnaboutState) -> list[Event]:
    """Drop from the schedule the rounds the players left can no longer play without a rematch
    (a drop never stops an event while they can: three players pair with a bye)."""
    scheduled = state.settings.rounds
    left = scheduled - state.round
    if left <= 0:
        return []
    rounds = max(1, state.round + playable_rounds(state, left))  # (an event keeps at least one round)
    if rounds >= scheduled:
        return []
    state.settings.rounds = rounds
    round_over = state.round > 0 and all(m.finished for m in state.round_matches())
    return [RoundsCut(scheduled, state.settings.rounds, round_over)]


def end_event(state: TurnaboutState) -> list[Event]:
    """Organizer: end the event; the final ranking and rating awards."""
    _require_phase(state, RUNNING, "end the event")
    if state.round == 0:
        raise WrongPhase("No round has been played yet: there is nothing to rank.")
    unfinished = [m.number for m in state.round_matches() if not m.finished]
    if unfinished:
        listed = ", ".join(str(n) for n in unfinished[:10])
        raise RoundUnfinished(
            f"Round {state.round} is not finished (open matches: {listed}); decide them first."
        )
    state.phase = ENDED
    return [EventEnded(tuple(final_ranking(state)))]
