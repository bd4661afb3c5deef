"""A draft pod's matches after its draft (issue 38) — the pure engine, no I/O.

The pod's entrants are its drafters by seat (a bot's seat only with a stand-in the organizer named,
who plays it). Swiss pods pair each round on match points (`bot.kit.match_results.pair_round`: no
rematch, the bye as the Swiss kit gives it); team pods pair the two teams' members crosswise
(`cross_rounds`), a player whose opponent dropped getting a bye. A round closes when each of its
matches has a result; the pod is over after its last round (fewer after drops that leave no
rematch-free round). Standings and the team score are the kit's (`match_results`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Self

from bot.kit import match_results
from bot.kit.match_results import Match

SCHEMA_VERSION = 1
SWISS, TEAMS = "swiss", "teams"


class PodError(ValueError):
    """A refusal worded for the player."""


class NotAPlayer(PodError):
    """The actor plays no match in this pod."""


@dataclass(frozen=True)
class Pairing:
    """One match of a round (`b` None: a bye for `a`) and its result once it is in."""

    a: int
    b: int | None
    result: tuple[int, int, int] | None = None  # games won by a, by b, drawn games

    @property
    def key(self) -> str:
        return f"{self.a}-{self.b}"

    def players(self) -> tuple[int, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)

    def match(self) -> Match | None:
        if self.b is None:
            return Match.bye(self.a)
        return None if self.result is None else Match(self.a, self.b, *self.result)


@dataclass
class PodState:
    kind: str  # SWISS or TEAMS
    entrants: list[int]  # user ids in seat order (stand-ins in their bots' seats)
    rounds: int  # rounds scheduled (fewer may be played after drops)
    seed: int
    auto_pair: bool = False
    teams: list[list[int]] | None = None  # two teams of entrants (team pods)
    played: list[list[Pairing]] = field(default_factory=list)  # every round paired so far
    dropped: list[int] = field(default_factory=list)
    over: bool = False

    # --- reading ---------------------------------------------------------------------------------

    @property
    def round(self) -> int:
        return len(self.played)

    def current(self) -> list[Pairing]:
        return self.played[-1] if self.played else []

    def round_complete(self) -> bool:
        return bool(self.played) and all(p.match() is not None for p in self.current())

    def matches(self) -> list[Match]:
        return [m for rnd in self.played for p in rnd if (m := p.match()) is not None]

    def active(self) -> list[int]:
        return [p for p in self.entrants if p not in self.dropped]

    def match_of(self, player: int) -> Pairing:
        """The player's match of the current round (refused: none, or a bye)."""
        if player not in self.entrants:
            raise NotAPlayer("You play no match in this pod.")
        pairing = next((p for p in self.current() if player in p.players()), None)
        if pairing is None:
            raise PodError("You have no match in this round.")
        if pairing.b is None:
            raise PodError("You have a bye this round: it counts as a match won 2–0, nothing to report.")
        return pairing

    def standings(self) -> list[match_results.PodStanding]:
        return match_results.standings(self.entrants, self.matches(), seed=self.seed)

    def team_score(self) -> match_results.TeamScore | None:
        if self.teams is None:
            return None
        return match_results.team_score(self.teams[0], self.teams[1], self.matches())

    def rounds_left(self) -> int:
        """How many more rounds can be paired (0: the pod is over once this round is in)."""
        limit = self.rounds - self.round
        if limit <= 0 or len(self.active()) < 2:
            return 0
        if self.teams is not None:
            return limit
        paired = [(p.a, p.b) for rnd in self.played for p in rnd]
        return match_results.playable_rounds(self.active(), paired, limit=limit)

    # --- codec -----------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA_VERSION, "kind": self.kind, "entrants": self.entrants, "rounds": self.rounds,
            "seed": self.seed, "auto_pair": self.auto_pair, "teams": self.teams, "dropped": self.dropped,
            "over": self.over,
            "played": [[[p.a, p.b, list(p.result) if p.result else None] for p in rnd] for rnd in self.played],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        played = [[Pairing(a, b, tuple(r) if r else None) for a, b, r in rnd] for rnd in data["played"]]
        return cls(data["kind"], list(data["entrants"]), data["rounds"], data["seed"], data["auto_pair"],
                   data["teams"], played, list(data["dropped"]), data["over"])


def new_pod(seats: Sequence[int], *, stand_ins: Mapping[int, int], bots: Sequence[int], seed: int, kind: str = SWISS,
            rounds: int = match_results.DEFAULT_ROUNDS, auto_pair: bool = False) -> PodState:
    """The pod of a draft whose seats (in seat order) were `seats`: `bots` are the seats bots
    played; each plays only if `stand_ins` names who plays it."""
    entrants = [stand_ins.get(seat, seat) for seat in seats if seat not in bots or seat in stand_ins]
    if len(set(entrants)) != len(entrants):
        raise PodError("A stand-in already plays a seat of this pod.")
    if len(entrants) < 2:
        raise PodError("Matches need at least 2 players.")
    if kind == TEAMS:
        # The teams sat alternately at the draft (seats 1, 3, 5 … and 2, 4, 6 …): a bot's seat
        # without a stand-in leaves its team one player short.
        first, second = ([stand_ins.get(seat, seat) for seat in seats[start::2] if seat not in bots or seat in stand_ins]
                         for start in (0, 1))
        if len(first) != len(second) or not first:
            raise PodError("Team against team needs two teams of the same size: name a stand-in for each bot's seat "
                           f"(the teams have {len(first)} and {len(second)} players).")
        return PodState(TEAMS, entrants, min(rounds, len(first)), seed, auto_pair, [first, second])
    return PodState(SWISS, entrants, match_results.scheduled_rounds(len(entrants), rounds), seed, auto_pair)


def pair_next(state: PodState) -> PodState:
    """The next round, paired (refused while a round is still being played, or when none is left)."""
    if state.over:
        raise PodError("The pod's matches are over.")
    if state.played and not state.round_complete():
        raise PodError("This round still has matches to report.")
    if state.rounds_left() == 0:
        raise PodError("No round is left to pair: the pod can end.")
    if state.teams is not None:
        cross = match_results.cross_rounds(state.teams[0], state.teams[1], state.rounds)[state.round]
        played, byes = match_results.team_round(cross, state.dropped)
        pairings = [Pairing(a, b) for a, b in played] + [Pairing(p, None) for p in byes]
    else:
        paired = match_results.pair_round(state.active(), state.matches(), seed=state.seed,
                                          round_number=state.round + 1, rounds=state.rounds)
        pairings = [Pairing(a, b) for a, b in paired.pairs] + ([Pairing(paired.bye, None)] if paired.bye is not None else [])
    return replace(state, played=[*state.played, pairings])


def check_result(games_a: int, games_b: int, drawn: int = 0) -> tuple[int, int, int]:
    if not match_results.is_legal(games_a, games_b, drawn):
        raise PodError(f"A best-of-three match can't end {games_a}–{games_b}" + (f"–{drawn}" if drawn else "")
                       + ": report the games each of you won (2–0, 2–1, 1–0, 1–1, 0–0), and any drawn games.")
    return games_a, games_b, drawn


def oriented(pairing: Pairing, reporter: int, result: tuple[int, int, int]) -> tuple[int, int, int]:
    """`result` as the reporter gave it (their games first), in the pairing's order (a's first)."""
    won, lost, drawn = result
    return (won, lost, drawn) if reporter == pairing.a else (lost, won, drawn)


def record(state: PodState, key: str, result: tuple[int, int, int] | None) -> PodState:
    """The current round's match `key` gets `result` (a's games first; None: it waits again)."""
    pairings = state.current()
    if not any(p.key == key for p in pairings):
        raise PodError("That match is not in the current round.")
    updated = [replace(p, result=result) if p.key == key else p for p in pairings]
    return replace(state, played=[*state.played[:-1], updated])


def drop(state: PodState, player: int) -> PodState:
    if player not in state.entrants:
        raise NotAPlayer("You play no match in this pod.")
    if player in state.dropped:
        raise PodError("That player has already dropped.")
    return replace(state, dropped=[*state.dropped, player])


def finish(state: PodState) -> PodState:
    if state.played and not state.round_complete():
        raise PodError("This round still has matches to report.")
    return replace(state, over=True)
