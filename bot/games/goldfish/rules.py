"""Goldfish Draft scoring (FORMATS.md §1). Pure: no I/O, no Discord, no database.

Scoring table (default, the group's 2013 list)::

    life   1    per point of life the goldfish lost (life may go below 0)
    mill   0.5  per card milled
    poison 2    per poison counter
    win    20   per "win the game" / "lose the game" effect that would have ended the game

Combination methods (:data:`METHODS`):

* ``sum`` (the seed's rule) — add the components;
* ``max`` — the largest component;
* ``product`` — multiply the **non-zero** components. Multiplying with a zero component
  would zero nearly every score (few decks both mill and poison), so zero components are
  left out; when every component is zero the score is 0. A single non-zero component
  scores as itself. (A component worth less than 1 point, e.g. a single milled card, lowers
  a product; that is what multiplying means.)

Whatever the method, the score is 0 if the player lost or drew the game, or if an effect
preventing the win (other than the goldfish's own emblem) was active at the end.

Inputs must be finite and non-negative (:class:`GoldfishInputError`, a ``ValueError``);
counts (cards milled, poison, game wins) must be whole numbers; absurd values above the
``MAX_*`` caps are rejected, since the infinite-combo rule makes them impossible in a real
write-up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real

__all__ = [
    "COIN_SIDES",
    "DEFAULT_TABLE",
    "GOLDFISH_CALL",
    "MAX_CARDS_MILLED",
    "MAX_FLIPS",
    "MAX_GAME_WINS",
    "MAX_LIFE_LOST",
    "MAX_POISON",
    "MAX_TABLE_VALUE",
    "METHODS",
    "PLAY_ORDERS",
    "MAX_TURNS",
    "MIN_TURNS",
    "TURNS_GOLDFISH_CUBE",
    "TURNS_ORDINARY",
    "GoldfishInputError",
    "breakdown",
    "flip_sequence",
    "roll_sequence",
    "score",
    "validate_inputs",
    "validate_method",
    "validate_play_order",
    "validate_turns",
    "default_turns",
    "validate_table",
]

DEFAULT_TABLE: Mapping[str, float] = {"life": 1.0, "mill": 0.5, "poison": 2.0, "win": 20.0}
WIN_POINTS = DEFAULT_TABLE["win"]  # what one win / lose-the-game effect scores by default
METHODS = ("sum", "max", "product")
MINUS = "\u2212"  # the minus sign users read (a negative number they typed, shown back)
# Who plays first, agreed for a whole event (FORMATS.md §1): the player (the rule), the goldfish,
# or a coin flip. The game ends before the first player's (turns + 1)th normal turn.
PLAY_ORDERS = ("first", "second", "flip")
TURNS_GOLDFISH_CUBE = 7
TURNS_ORDINARY = 10
# FORMATS.md §1 makes the game length configurable; these bound what an organizer may choose.
MIN_TURNS, MAX_TURNS = 1, 20

MAX_LIFE_LOST = 1_000_000
MAX_CARDS_MILLED = 1_000_000
MAX_POISON = 1_000_000
MAX_GAME_WINS = 1_000
MAX_TABLE_VALUE = 1_000_000
MAX_FLIPS = 10_000

COIN_SIDES = ("heads", "tails")
GOLDFISH_CALL = "tails"
"""The goldfish always calls tails."""

_COMPONENTS = ("life", "mill", "poison", "win")


class GoldfishInputError(ValueError):
    """A score input is negative, not a number, not whole where it must be, or absurd."""


def _check_number(label: str, value: object, cap: float, *, whole: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise GoldfishInputError(f"{label} must be a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise GoldfishInputError(f"{label} must be a finite number")
    if number < 0:
        raise GoldfishInputError(f"{label} cannot be negative (got {str(value).replace('-', MINUS)})")
    if whole and not number.is_integer():
        raise GoldfishInputError(f"{label} must be a whole number (got {value})")
    if number > cap:
        raise GoldfishInputError(f"{label} of {value} is not believable (the most allowed is {cap:,})")
    return number


def validate_inputs(
    *, life_lost: float = 0, cards_milled: int = 0, poison: int = 0, game_wins: int = 0
) -> dict[str, float]:
    """Check the raw counts; return them as floats keyed by table component."""
    return {
        "life": _check_number("Life lost", life_lost, MAX_LIFE_LOST, whole=False),
        "mill": _check_number("Cards milled", cards_milled, MAX_CARDS_MILLED, whole=True),
        "poison": _check_number("Poison counters", poison, MAX_POISON, whole=True),
        "win": _check_number("Game wins", game_wins, MAX_GAME_WINS, whole=True),
    }


def validate_table(table: Mapping[str, float] | None) -> dict[str, float]:
    """The default table with ``table``'s entries applied; unknown keys and negative,
    non-finite or absurd values raise :class:`GoldfishInputError`."""
    merged = dict(DEFAULT_TABLE)
    if table is None:
        return merged
    unknown = sorted(set(table) - set(_COMPONENTS))
    if unknown:
        raise GoldfishInputError(
            f"unknown scoring table entries {unknown}; the entries are {list(_COMPONENTS)}"
        )
    for key, value in table.items():
        merged[key] = _check_number(f"Points per {key}", value, MAX_TABLE_VALUE, whole=False)
    return merged


def validate_method(method: str) -> str:
    if method not in METHODS:
        raise GoldfishInputError(f"scoring method must be one of {', '.join(METHODS)}, not {method!r}")
    return method


def default_turns(cube_is_the_goldfish_cube: bool) -> int:
    """FORMATS.md §1: 7 turns for the Goldfish Cube, 10 for an ordinary card pool."""
    return TURNS_GOLDFISH_CUBE if cube_is_the_goldfish_cube else TURNS_ORDINARY


def validate_turns(turns: int) -> int:
    """A game length an organizer may choose: a whole number of turns from 1 to 20."""
    if isinstance(turns, bool) or not isinstance(turns, int) or not MIN_TURNS <= turns <= MAX_TURNS:
        raise GoldfishInputError(f"A Goldfish game is {MIN_TURNS} to {MAX_TURNS} turns, not {turns}.")
    return turns


def validate_play_order(play_order: str) -> str:
    if play_order not in PLAY_ORDERS:
        raise GoldfishInputError(f"play order must be one of {', '.join(PLAY_ORDERS)}, not {play_order!r}")
    return play_order


def _combine(components: Mapping[str, float], method: str) -> float:
    values = [components[key] for key in _COMPONENTS]
    if method == "sum":
        return math.fsum(values)
    if method == "max":
        return max(values)
    nonzero = [v for v in values if v != 0]
    return math.prod(nonzero) if nonzero else 0.0


@dataclass(frozen=True)
class Breakdown:
    """`breakdown`'s figures, typed: each component's points and the total."""

    life: float
    mill: float
    poison: float
    win: float
    total: float


def breakdown(
    *,
    life_lost: float = 0,
    cards_milled: int = 0,
    poison: int = 0,
    game_wins: int = 0,
    lost_or_drew: bool = False,
    prevented: bool = False,
    method: str = "sum",
    table: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Each component's points (``life``, ``mill``, ``poison``, ``win``) and the ``total``.

    The components show what the counts are worth; ``total`` is what :func:`score` returns
    (0 when the game was lost/drawn or a win was prevented). While a win is prevented,
    "win the game" effects score nothing, so ``win`` is 0 then.
    """
    validate_method(method)
    points = validate_table(table)
    counts = validate_inputs(
        life_lost=life_lost, cards_milled=cards_milled, poison=poison, game_wins=game_wins
    )
    components = {key: counts[key] * points[key] for key in _COMPONENTS}
    if prevented:
        components["win"] = 0.0
    total = 0.0 if (lost_or_drew or prevented) else _combine(components, method)
    return {**components, "total": total}


def score(
    *,
    life_lost: float = 0,
    cards_milled: int = 0,
    poison: int = 0,
    game_wins: int = 0,
    lost_or_drew: bool = False,
    prevented: bool = False,
    method: str = "sum",
    table: Mapping[str, float] | None = None,
) -> float:
    """The Goldfish Draft score (see the module docstring)."""
    return breakdown(
        life_lost=life_lost,
        cards_milled=cards_milled,
        poison=poison,
        game_wins=game_wins,
        lost_or_drew=lost_or_drew,
        prevented=prevented,
        method=method,
        table=table,
    )["total"]


# ---------------------------------------------------------------------------------------
# coin flips and dice


def _check_count(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise GoldfishInputError(f"the number of results must be a whole number, not {n!r}")
    if n < 0:
        raise GoldfishInputError("the number of results cannot be negative")
    if n > MAX_FLIPS:
        raise GoldfishInputError(f"at most {MAX_FLIPS:,} results can be listed")
    return n


def flip_sequence(first: str, n: int) -> list[str]:
    """The first ``n`` coin flips: the player chooses the first result (``"heads"`` or
    ``"tails"``, also ``"h"``/``"t"``, any case); every later flip is the opposite."""
    n = _check_count(n)
    choice = first.strip().lower() if isinstance(first, str) else ""
    choice = {"h": "heads", "t": "tails"}.get(choice, choice)
    if choice not in COIN_SIDES:
        raise GoldfishInputError(f"the first flip must be heads or tails, not {first!r}")
    other = "tails" if choice == "heads" else "heads"
    return [choice if i % 2 == 0 else other for i in range(n)]


def roll_sequence(first: int, n: int, sides: int = 6) -> list[int]:
    """The first ``n`` die rolls: the player chooses the first; later rolls go up by one,
    wrapping from ``sides`` to 1 (6 → 1 on a six-sided die)."""
    n = _check_count(n)
    if isinstance(sides, bool) or not isinstance(sides, int) or not 2 <= sides <= 1000:
        raise GoldfishInputError(f"a die must have between 2 and 1000 sides, not {sides!r}")
    if isinstance(first, bool) or not isinstance(first, int) or not 1 <= first <= sides:
        raise GoldfishInputError(f"the first roll must be a whole number from 1 to {sides}, not {first!r}")
    return [(first - 1 + i) % sides + 1 for i in range(n)]
