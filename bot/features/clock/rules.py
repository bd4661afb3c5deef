"""A two-player chess clock for any format — pure, no I/O, no clock reads.

FORMATS.md §3 "Chess clock": 10 minutes per player per **game** with a 3-second delay, or
Bronstein timing (time spent on a move is refunded **up to** the limit, 3 s by default, and
each player's base time is 10:00 + that limit, i.e. 10:03). The clock runs for whoever must
act; a player whose time runs out loses the game (the format decides what that means, e.g.
:func:`bot.games.turnabout.rules.flag_fell`).

Time
    Every operation takes ``now``: **seconds since the Unix epoch as a float** (what
    ``time.time()`` returns). The service reads the real clock once per action and passes it
    in; tests pass a fake. Epoch seconds serve both consumers as they are: a database deadline
    and Discord's relative timestamps (``<t:{int(flag_due_at)}:R>``). A ``now`` earlier than
    the last one seen (two processes' clocks a few milliseconds apart) is treated as that last
    time, so a clock never runs backwards.

Modes
    * ``"delay"``: the first ``increment`` seconds of each move do not count; time beyond them
      comes off the bank. A move never adds time.
    * ``"bronstein"``: the whole move comes off the bank, and when the player passes the clock
      the time spent is refunded up to ``increment`` seconds. The bank starts at
      ``minutes × 60 + increment``. A refund never exceeds what the move cost, so a bank never
      grows past its value at the start of the move.
    A *move* is the span from the moment a player's clock starts until they pass it; a pause
    freezes the move (time paused neither counts nor uses up the delay).

States (``ClockState.status``)
    ``offered`` (:func:`offer`: one player offered it, it does not run) → :func:`accept` by the
    *other* player → ``running``; or :func:`withdraw` by the offering player (``withdrawn``) or
    :func:`decline` by the other (``declined``): a clock never runs without both players' consent.
    ``ready`` (new game, not started) → ``start`` → ``running`` ⇄ ``pause``/``resume``
    (``paused``) → ``end`` (``ended``) or a flag fall (``flagged``). The player whose move it is
    cannot pause or end the clock alone (FORMATS.md §3): their press only asks (``asked``,
    :class:`ClockAsked`; the clock runs on) and the opponent's press of the same button does it; a
    pass drops the request. An organizer who does not play (``by=None``) pauses and ends alone. A flag falls the moment
    the running player's remaining time reaches zero, exactly at :func:`flag_due_at`; it is
    recorded by the first operation at or after that time (:func:`check_flag` for the
    deadline sweeper, or a late pass). A paused clock never flags. :func:`new_game` resets
    both banks for the next game (the clock is per game, not per match).

Public API
    ``new_clock(mode="delay", minutes=10, increment=3, *, players=None) -> ClockState``;
    operations returning ``list[Event]``: ``offer(state, side, first)``, ``accept(state, side,
    now)``, ``withdraw(state, side)``, ``decline(state, side)``, ``start(state, side, now)``, ``pass_clock(state,
    side, now)``, ``pause(state, now, *, by)``, ``resume(state, now)``, ``end(state, now, *, by)``,
    ``check_flag(state, now)``, ``new_game(state)``; queries: ``remaining(state, side, now)``,
    ``flag_due_at(state)``, ``flag_fallen(state, now)``, ``side_of(state, user_id)``.
    Sides are 0 and 1. Errors are :class:`ClockError` (a ``ValueError``) subclasses whose
    message is fit to show the user; a refused operation changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.kit import events

__all__ = [
    "DEFAULT_INCREMENT",
    "DEFAULT_MINUTES",
    "MAX_INCREMENT",
    "MAX_MINUTES",
    "MODES",
    "SCHEMA_VERSION",
    "ClockAccepted",
    "ClockAsked",
    "ClockDeclined",
    "ClockEnded",
    "ClockError",
    "ClockOffered",
    "ClockPassed",
    "ClockPaused",
    "ClockResumed",
    "ClockStarted",
    "ClockState",
    "ClockWithdrawn",
    "Event",
    "FlagFell",
    "GameReset",
    "NotAClockPlayer",
    "NotYourClock",
    "WrongClockState",
    "accept",
    "check_flag",
    "decline",
    "end",
    "flag_due_at",
    "flag_fallen",
    "new_clock",
    "new_game",
    "offer",
    "pass_clock",
    "pause",
    "remaining",
    "resume",
    "side_of",
    "start",
    "withdraw",
]

SCHEMA_VERSION = 1
MODES = ("delay", "bronstein")
DEFAULT_MINUTES = 10
DEFAULT_INCREMENT = 3
MAX_MINUTES = 180
MAX_INCREMENT = 60

READY, RUNNING, PAUSED, ENDED, FLAGGED = "ready", "running", "paused", "ended", "flagged"
OFFERED, WITHDRAWN, DECLINED = "offered", "withdrawn", "declined"


# --------------------------------------------------------------------------- errors


class ClockError(ValueError):
    """A refused clock action; the message is meant for the user."""


class WrongClockState(ClockError):
    pass


class NotYourClock(ClockError):
    pass


class NotAClockPlayer(ClockError):
    pass


# --------------------------------------------------------------------------- state


@dataclass
class ClockState:
    mode: str
    base: float  # seconds each side starts a game with (Bronstein: minutes × 60 + increment)
    increment: float  # delay, or Bronstein refund limit, in seconds
    banks: list[float]  # per side: time left, not counting the move in progress
    players: list[int] | None = None  # user ids by side, if the caller wants side_of()
    status: str = READY
    running: int | None = None  # side to act (while running or paused)
    move_spent: float = 0.0  # seconds of the current move before the current run segment
    segment_start: float | None = None  # when the clock last started or resumed running
    last_time: float | None = None  # latest ``now`` seen (time never goes backwards)
    game: int = 1
    moves: int = 0  # passes in this game
    flagged: int | None = None  # side whose flag fell
    flag_time: float | None = None  # when it fell (= flag_due_at at the time)
    history: list[dict[str, Any]] = field(default_factory=list)  # finished games
    offered_by: int | None = None  # side that offered the clock (the other accepts it)
    first: int = 0  # side whose clock runs first once an offered clock is accepted
    asked: str | None = None  # "pause" or "end": what the running side asked for, until the opponent agrees

    def to_dict(self) -> dict[str, Any]:
        return {"v": SCHEMA_VERSION, **events.encode(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClockState:
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(f"Unknown clock schema version {data.get('v')!r} (expected {SCHEMA_VERSION}).")
        return events.decode({k: v for k, v in data.items() if k != "v"}, cls)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event(events.Event, family="clock"):  # stored as "clock.<ClassName>": bot.kit.events
    pass


@dataclass(frozen=True)
class ClockOffered(Event):
    side: int  # who offered it
    first: int  # whose clock will run first


@dataclass(frozen=True)
class ClockAccepted(Event):
    side: int  # who accepted it (then a ClockStarted follows)


@dataclass(frozen=True)
class ClockWithdrawn(Event):
    side: int


@dataclass(frozen=True)
class ClockDeclined(Event):
    side: int


@dataclass(frozen=True)
class ClockStarted(Event):
    side: int
    flag_due_at: float


@dataclass(frozen=True)
class ClockPassed(Event):
    side: int  # who passed
    to: int  # whose clock now runs
    spent: float  # seconds the move took (pauses excluded)
    charged: float  # seconds it cost the bank after delay or refund
    remaining: float  # the passer's time left
    flag_due_at: float  # the new running side's deadline


@dataclass(frozen=True)
class ClockPaused(Event):
    side: int
    remaining: float


@dataclass(frozen=True)
class ClockResumed(Event):
    side: int
    flag_due_at: float


@dataclass(frozen=True)
class ClockAsked(Event):
    side: int  # the running side, who cannot pause or end the clock alone
    action: str  # "pause" or "end": the opponent agrees by doing it too


@dataclass(frozen=True)
class ClockEnded(Event):
    remaining: tuple[float, float]


@dataclass(frozen=True)
class FlagFell(Event):
    side: int
    at: float


@dataclass(frozen=True)
class GameReset(Event):
    game: int
    remaining: tuple[float, float]


# --------------------------------------------------------------------------- helpers


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ClockError(f"{what} must be a number.")
    return float(value)


def _side(side: object) -> int:
    if side not in (0, 1) or isinstance(side, bool):
        raise ClockError(f"Side {side!r} is not 0 or 1.")
    return int(side)  # type: ignore[arg-type]


def _time(state: ClockState, now: object) -> float:
    t = _number(now, "The time")
    if state.last_time is not None and t < state.last_time:
        t = state.last_time  # another process's clock a little behind: never run backwards
    return t


def _spent(state: ClockState, now: float) -> float:
    """Seconds the current move has taken (pauses excluded)."""
    if state.status == RUNNING and state.segment_start is not None:
        return state.move_spent + max(0.0, now - state.segment_start)
    return state.move_spent


def _charge(state: ClockState, spent: float) -> float:
    """What a move of ``spent`` seconds costs the bank once it is passed."""
    if state.mode == "delay":
        return max(0.0, spent - state.increment)
    return spent - min(spent, state.increment)


def _left_during_move(state: ClockState, spent: float) -> float:
    """Time left while the move is still in progress (no Bronstein refund until the pass)."""
    side = state.running
    assert side is not None
    cost = max(0.0, spent - state.increment) if state.mode == "delay" else spent
    return state.banks[side] - cost


def _due(state: ClockState) -> float:
    assert state.running is not None and state.segment_start is not None
    bank = state.banks[state.running]
    if state.mode == "delay":
        delay_left = max(0.0, state.increment - state.move_spent)
        already = max(0.0, state.move_spent - state.increment)
        return state.segment_start + delay_left + bank - already
    return state.segment_start + bank - state.move_spent


def _require(state: ClockState, *statuses: str, action: str) -> None:
    if state.status in statuses:
        return
    why = {
        OFFERED: "the clock has not been accepted yet",
        WITHDRAWN: "the clock was withdrawn before it was accepted",
        DECLINED: "the clock was declined",
        READY: "the clock has not been started",
        RUNNING: "the clock is running",
        PAUSED: "the clock is paused (resume it first)",
        ENDED: "this game's clock has ended",
        FLAGGED: "a flag has fallen in this game",
    }[state.status]
    raise WrongClockState(f"Cannot {action}: {why}.")


def _record_flag(state: ClockState) -> list[Event]:
    side = state.running
    assert side is not None
    at = _due(state)
    state.banks[side] = 0.0
    state.status, state.flagged, state.flag_time = FLAGGED, side, at
    state.move_spent, state.segment_start, state.asked = 0.0, None, None
    return [FlagFell(side, at)]


def _both_remaining(state: ClockState, now: float) -> tuple[float, float]:
    return (remaining(state, 0, now), remaining(state, 1, now))


# --------------------------------------------------------------------------- construction


def new_clock(
    mode: str = "delay",
    minutes: float = DEFAULT_MINUTES,
    increment: float = DEFAULT_INCREMENT,
    *,
    players: Sequence[int] | None = None,
) -> ClockState:
    """A clock ready for game 1. ``players`` (two user ids, side 0 first) enables :func:`side_of`."""
    if mode not in MODES:
        raise ClockError(f"Unknown clock mode {mode!r} (choose {' or '.join(MODES)}).")
    minutes = _number(minutes, "The minutes")
    increment = _number(increment, "The delay or increment")
    if not 0 < minutes <= MAX_MINUTES:
        raise ClockError(f"Each player needs more than 0 and at most {MAX_MINUTES} minutes.")
    if not 0 <= increment <= MAX_INCREMENT:
        raise ClockError(f"The delay or increment must be between 0 and {MAX_INCREMENT} seconds.")
    if players is not None:
        players = list(players)
        if len(players) != 2 or players[0] == players[1]:
            raise ClockError("A chess clock is for two different players.")
    base = minutes * 60 + (increment if mode == "bronstein" else 0.0)
    return ClockState(mode=mode, base=base, increment=increment, banks=[base, base], players=players)


def side_of(state: ClockState, user_id: int) -> int:
    """The side of ``user_id``; anyone else is refused (only the two players may press)."""
    if state.players is None or user_id not in state.players:
        raise NotAClockPlayer("Only the two players on this clock can use it.")
    return state.players.index(user_id)


# --------------------------------------------------------------------------- queries


def flag_due_at(state: ClockState) -> float | None:
    """When the running player's flag falls if nobody acts; None unless the clock runs."""
    if state.status != RUNNING:
        return None
    return _due(state)


def flag_fallen(state: ClockState, now: float) -> bool:
    if state.status == FLAGGED:
        return True
    due = flag_due_at(state)
    return due is not None and _time(state, now) >= due


def remaining(state: ClockState, side: int, now: float) -> float:
    """Seconds ``side`` has left at ``now`` (0 once their flag is down)."""
    side = _side(side)
    now = _time(state, now)
    if state.status == FLAGGED:
        return 0.0 if side == state.flagged else state.banks[side]
    if side != state.running or state.status not in (RUNNING, PAUSED):
        return state.banks[side]
    if flag_fallen(state, now):
        return 0.0
    return max(0.0, _left_during_move(state, _spent(state, now)))


# --------------------------------------------------------------------------- operations


def offer(state: ClockState, side: int, first: int) -> list[Event]:
    """``side`` offers a new clock to the other player (it does not run, cannot flag); once
    accepted, ``first``'s clock runs first."""
    side, first = _side(side), _side(first)
    _require(state, READY, action="offer the clock")
    if state.game != 1 or state.history:
        raise WrongClockState("Cannot offer the clock: it is already in use.")
    state.status, state.offered_by, state.first = OFFERED, side, first
    return [ClockOffered(side, first)]


def _not_offerer(state: ClockState, side: int, action: str) -> None:
    if side == state.offered_by:
        raise NotYourClock(f"You offered this clock: only your opponent can {action} it.")


def accept(state: ClockState, side: int, now: float) -> list[Event]:
    """The player the clock was offered to accepts it: it starts at once."""
    side = _side(side)
    _require(state, OFFERED, action="accept the clock")
    _not_offerer(state, side, "accept")
    state.status = READY
    return [ClockAccepted(side), *start(state, state.first, now)]


def withdraw(state: ClockState, side: int) -> list[Event]:
    """The offering player takes the offer back before it is accepted."""
    side = _side(side)
    _require(state, OFFERED, action="withdraw the clock")
    if side != state.offered_by:
        raise NotYourClock("Only the player who offered this clock can withdraw it; you can decline it.")
    state.status = WITHDRAWN
    return [ClockWithdrawn(side)]


def decline(state: ClockState, side: int) -> list[Event]:
    """The player the clock was offered to refuses it: it never runs."""
    side = _side(side)
    _require(state, OFFERED, action="decline the clock")
    _not_offerer(state, side, "decline")
    state.status = DECLINED
    return [ClockDeclined(side)]


def start(state: ClockState, side: int, now: float) -> list[Event]:
    """Start the game's clock with ``side`` to act first."""
    side = _side(side)
    _require(state, READY, action="start the clock")
    t = _time(state, now)
    state.status, state.running = RUNNING, side
    state.move_spent, state.segment_start, state.last_time = 0.0, t, t
    return [ClockStarted(side, _due(state))]


def pass_clock(state: ClockState, side: int, now: float) -> list[Event]:
    """``side`` ends their move and starts the opponent's clock (a late pass is a flag fall)."""
    side = _side(side)
    _require(state, RUNNING, action="pass the clock")
    if side != state.running:
        raise NotYourClock("Only the player whose clock is running can pass it.")
    t = _time(state, now)
    state.last_time = t
    if t >= _due(state):
        return _record_flag(state)
    spent = _spent(state, t)
    charged = _charge(state, spent)
    state.banks[side] -= charged
    state.running = 1 - side
    state.move_spent, state.segment_start, state.asked = 0.0, t, None
    state.moves += 1
    return [ClockPassed(side, state.running, spent, charged, state.banks[side], _due(state))]


def _asks(state: ClockState, by: int | None, action: str) -> list[Event] | None:
    """The running side's press of Pause or End only asks (FORMATS.md §3: only the two players
    together, or an organizer who does not play, pause or end a running clock); None: ``by`` may
    do it now (the opponent of the running side, or ``by`` None: an organizer who does not play)."""
    if by is None or _side(by) != state.running:
        return None
    if state.asked == action:
        raise WrongClockState(f"You already asked to {action} the clock: your opponent presses {action.title()} "
                              "to agree.")
    state.asked = action
    return [ClockAsked(by, action)]


def pause(state: ClockState, now: float, *, by: int | None = None) -> list[Event]:
    """Freeze the running move (e.g. for a judge call); a paused clock never flags. ``by``: the
    side pressing (the running side only asks, see :func:`_asks`); None: an organizer who does not
    play in it."""
    _require(state, RUNNING, action="pause the clock")
    t = _time(state, now)
    if t >= _due(state):
        state.last_time = t
        return _record_flag(state)
    if (asked := _asks(state, by, "pause")) is not None:
        return asked
    state.last_time = t
    state.move_spent = _spent(state, t)
    state.status, state.segment_start, state.asked = PAUSED, None, None
    assert state.running is not None
    return [ClockPaused(state.running, remaining(state, state.running, t))]


def resume(state: ClockState, now: float) -> list[Event]:
    """Continue the paused move where it stopped (a used-up delay stays used)."""
    _require(state, PAUSED, action="resume the clock")
    t = _time(state, now)
    state.status, state.segment_start, state.last_time, state.asked = RUNNING, t, t, None
    assert state.running is not None
    return [ClockResumed(state.running, _due(state))]


def end(state: ClockState, now: float, *, by: int | None = None) -> list[Event]:
    """Stop this game's clock (the game ended on the table). A flag already down is reported.
    ``by`` as for :func:`pause`: the side whose move it is (running or paused) only asks."""
    _require(state, READY, RUNNING, PAUSED, action="end the clock")
    t = _time(state, now)
    if state.status == RUNNING and t >= _due(state):
        state.last_time = t
        return _record_flag(state)
    if state.status != READY and (asked := _asks(state, by, "end")) is not None:
        return asked
    state.last_time = t
    state.asked = None
    if state.running is not None and state.status in (RUNNING, PAUSED):
        # The last move is not a pass: no refund, the delay still applies.
        state.banks[state.running] = max(0.0, _left_during_move(state, _spent(state, t)))
    state.status, state.segment_start, state.move_spent = ENDED, None, 0.0
    return [ClockEnded((state.banks[0], state.banks[1]))]


def check_flag(state: ClockState, now: float) -> list[Event]:
    """For the deadline sweeper: record the flag fall if it is due, else nothing."""
    if state.status != RUNNING:
        return []
    t = _time(state, now)
    if t < _due(state):
        return []
    state.last_time = t
    return _record_flag(state)


def new_game(state: ClockState) -> list[Event]:
    """Both banks back to the base time for the next game (the clock is per game)."""
    _require(state, READY, ENDED, FLAGGED, action="reset the clock for a new game")
    state.history.append({"game": state.game, "banks": list(state.banks), "flagged": state.flagged})
    state.game += 1
    state.banks = [state.base, state.base]
    state.status, state.running, state.moves = READY, None, 0
    state.move_spent, state.segment_start = 0.0, None
    state.flagged, state.flag_time = None, None
    return [GameReset(state.game, (state.base, state.base))]
