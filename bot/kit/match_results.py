"""Best-of-three matches as Magic tournaments play them — pure, no I/O.

What a draft pod plays after its draft (issue 38), and any format whose matches are best of three:
legal results, match points, standings with the Magic Tournament Rules' tiebreakers (Appendix C),
Swiss pairing on match points (through :mod:`bot.kit.swiss`) and team drafts' cross-pairings.

Results (:class:`Match`)
    A match is reported as the games each player won, plus any drawn games (rare: a game that ran
    out of time unfinished counts as drawn). Best of three: a player who wins two games has won
    the match, so nobody wins more than two and not both two. The player with more games won wins
    the match; equal games won (1–1, 0–0, 1–1 with a drawn game) is a draw. A 1–0 is a win (time
    ran out after one game). Legal from one player's side: 2–0, 2–1, 1–0, 1–1, 0–0, 0–1, 1–2, 0–2
    (:data:`RESULTS`), each with 0 to :data:`MOST_DRAWN_GAMES` drawn games.

    A **bye** (``b is None``) is a 2–0 win with no opponent: 3 match points and 6 game points for its
    player, in the record as a win, and never one of anybody's opponents.

Standings (:func:`standings`), as in the tournament rules:
    1. **match points**: 3 a win (a bye included), 1 a draw, 0 a loss;
    2. **opponents' match-win percentage**: the average of the match-win percentages of the
       opponents the player has met (byes are no opponents; one entry per match). A player's
       match-win percentage is their match points ÷ 3 per round they played (byes included), at
       least 1/3;
    3. **game-win percentage**: game points (3 a game won, 1 a drawn game) ÷ 3 per game played (a
       bye: two games won), at least 1/3;
    4. **opponents' game-win percentage**: the average of the opponents' game-win percentages
       (each at least 1/3, as in 3);
    5. a **seeded coin flip** (:func:`bot.kit.swiss.coin_flip`), fixed for the event.
    Every percentage is at least 1/3 ("floored at 33%"), also when there is nothing to divide
    (no round, no game, no opponent yet). A player who dropped keeps their rows: their results
    still count for their opponents. The ranking is total: ranks 1..n, each player once.

Swiss (:func:`pair_round`, :func:`scheduled_rounds`, :func:`playable_rounds`)
    Pods pair by match points with :func:`bot.kit.swiss.pair_round` (never a rematch when one can
    be avoided, the bye as that module gives it); :data:`DEFAULT_ROUNDS` rounds, fewer when the
    players cannot play that many without a rematch.

Team drafts (:func:`split_teams`, :func:`cross_rounds`, :func:`team_round`, :func:`team_score`)
    Drafters sit alternately in two teams of equal size; each player plays the members of the
    other team, round r pairing the i-th player of one team with the (i + r)-th of the other, so
    every cross pair meets at most once and all of them once when there are as many rounds as
    players in a team. A player whose opponent dropped gets a bye. The team with more match wins
    (byes included) wins; equal wins is a draw.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from bot.kit import swiss

__all__ = [
    "DEFAULT_ROUNDS",
    "FLOOR",
    "MOST_DRAWN_GAMES",
    "RESULTS",
    "Match",
    "MatchError",
    "PodStanding",
    "TeamScore",
    "cross_rounds",
    "is_legal",
    "pair_round",
    "playable_rounds",
    "scheduled_rounds",
    "split_teams",
    "standings",
    "swiss_results",
    "team_round",
    "team_score",
]

PlayerId = Hashable

DEFAULT_ROUNDS = 3
FLOOR = Fraction(1, 3)  # the tournament rules' least percentage ("0.33")
MOST_DRAWN_GAMES = 3  # the rules bound drawn games only by the round's time; this keeps typos out
RESULTS = ((2, 0), (2, 1), (1, 0), (1, 1), (0, 0), (0, 1), (1, 2), (0, 2))
"""Every legal (games won, games lost) of a best-of-three match, from one player's side."""

WIN_POINTS, DRAW_POINTS = 3, 1
BYE_GAMES = (2, 0)


class MatchError(ValueError):
    """A result no best-of-three match can have, or pairings a format should never ask for."""


def is_legal(games_a: int, games_b: int, drawn_games: int = 0) -> bool:
    """Whether a best-of-three match can end ``games_a``–``games_b`` with ``drawn_games`` drawn."""
    return (games_a, games_b) in RESULTS and 0 <= drawn_games <= MOST_DRAWN_GAMES


@dataclass(frozen=True)
class Match:
    """One finished match between ``a`` and ``b``, or a bye (``b is None``: a 2–0 win for ``a``)."""

    a: PlayerId
    b: PlayerId | None
    games_a: int
    games_b: int
    drawn_games: int = 0

    def __post_init__(self) -> None:
        if self.b is None and (self.games_a, self.games_b, self.drawn_games) != (*BYE_GAMES, 0):
            raise MatchError("A bye is a 2–0 win.")
        if self.b == self.a:
            raise MatchError(f"A player cannot play themselves ({self.a!r}).")
        if not is_legal(self.games_a, self.games_b, self.drawn_games):
            raise MatchError(f"No best-of-three match ends {self.games_a}–{self.games_b}–{self.drawn_games}.")

    @classmethod
    def bye(cls, player: PlayerId) -> Match:
        return cls(player, None, *BYE_GAMES)

    @property
    def is_bye(self) -> bool:
        return self.b is None

    @property
    def match_points(self) -> tuple[int, int]:
        """(a's, b's) match points: 3 a win, 1 a draw, 0 a loss."""
        if self.games_a == self.games_b:
            return DRAW_POINTS, DRAW_POINTS
        return (WIN_POINTS, 0) if self.games_a > self.games_b else (0, WIN_POINTS)

    @property
    def winner(self) -> PlayerId | None:
        """The winner, or None for a draw."""
        if self.games_a == self.games_b:
            return None
        return self.a if self.games_a > self.games_b else self.b


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class PodStanding:
    player: PlayerId
    rank: int  # 1 = first; distinct for every player
    match_points: int
    wins: int  # byes included
    losses: int
    draws: int
    byes: int
    match_win: Fraction  # the player's own match-win percentage (at least 1/3), as their opponents see it
    opponents_match_win: Fraction
    game_win: Fraction
    opponents_game_win: Fraction
    coin: float  # the seeded coin flip, last tiebreaker

    @property
    def record(self) -> str:
        """Wins–losses–draws, as Magic standings show it: ``2–1–0``."""
        return f"{self.wins}–{self.losses}–{self.draws}"


@dataclass
class _Tally:
    match_points: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    byes: int = 0
    game_points: int = 0
    games: int = 0

    def add(self, points: int, won: int, lost: int, drawn: int) -> None:
        self.match_points += points
        self.wins += points == WIN_POINTS
        self.draws += points == DRAW_POINTS
        self.losses += points == 0
        self.game_points += WIN_POINTS * won + DRAW_POINTS * drawn
        self.games += won + lost + drawn

    @property
    def match_win(self) -> Fraction:
        rounds = self.wins + self.losses + self.draws
        return _floored(self.match_points, WIN_POINTS * rounds)

    @property
    def game_win(self) -> Fraction:
        return _floored(self.game_points, WIN_POINTS * self.games)


def _floored(points: int, possible: int) -> Fraction:
    return max(FLOOR, Fraction(points, possible)) if possible else FLOOR


def _average(percentages: Sequence[Fraction]) -> Fraction:
    """The opponents' average: each of them already at least 1/3; the floor too when none met."""
    return sum(percentages, Fraction(0)) / len(percentages) if percentages else FLOOR


def standings(players: Iterable[PlayerId], matches: Iterable[Match], *, seed: int | str) -> list[PodStanding]:
    """Rank ``players`` (dropped ones too) by the finished ``matches`` and byes; see the module
    docstring. Same players, matches and seed -> same standings, whatever their order."""
    ids = list(players)
    if len(set(ids)) != len(ids):
        raise MatchError("A player is listed twice.")
    tally: defaultdict[PlayerId, _Tally] = defaultdict(_Tally)
    opponents: defaultdict[PlayerId, list[PlayerId]] = defaultdict(list)
    for m in matches:
        points_a, points_b = m.match_points
        tally[m.a].add(points_a, m.games_a, m.games_b, m.drawn_games)
        if m.b is None:
            tally[m.a].byes += 1
            continue
        tally[m.b].add(points_b, m.games_b, m.games_a, m.drawn_games)
        opponents[m.a].append(m.b)
        opponents[m.b].append(m.a)
    rows = {p: _row(p, tally, opponents[p], seed) for p in ids}
    order = sorted(ids, key=lambda p: _sort_key(rows[p]))
    return [replace(rows[p], rank=rank) for rank, p in enumerate(order, start=1)]


def _row(
    player: PlayerId, tally: dict[PlayerId, _Tally], met: list[PlayerId], seed: int | str
) -> PodStanding:
    own = tally.get(player, _Tally())
    return PodStanding(
        player=player,
        rank=0,
        match_points=own.match_points,
        wins=own.wins,
        losses=own.losses,
        draws=own.draws,
        byes=own.byes,
        match_win=own.match_win,
        opponents_match_win=_average([tally[o].match_win for o in met]),
        game_win=own.game_win,
        opponents_game_win=_average([tally[o].game_win for o in met]),
        coin=swiss.coin_flip(seed, player),
    )


def _sort_key(s: PodStanding) -> tuple:
    return (-s.match_points, -s.opponents_match_win, -s.game_win, -s.opponents_game_win, s.coin)


# --------------------------------------------------------------------------- Swiss


def swiss_results(matches: Iterable[Match]) -> list[swiss.Result]:
    """The matches as the Swiss kit counts them: match points as its score, a bye 3 points."""
    return [
        swiss.Result.bye(m.a, WIN_POINTS) if m.b is None else swiss.Result(m.a, m.b, *m.match_points)
        for m in matches
    ]


def scheduled_rounds(players: int, wanted: int = DEFAULT_ROUNDS) -> int:
    """The rounds a pod of ``players`` plays: ``wanted`` (3 by default), fewer when they cannot play
    that many without a rematch (2 players: 1 round; 3 players: 3, each sitting out once)."""
    return min(wanted, swiss.max_rounds(players))


def pair_round(
    active: Iterable[PlayerId], matches: Iterable[Match], *, seed: int | str, round_number: int, rounds: int
) -> swiss.PairingResult:
    """The next round of a pod: :func:`bot.kit.swiss.pair_round` on match points. ``active``: the
    players still in (not dropped); ``matches``: every finished match and bye, dropped players'
    too; ``rounds``: the pod's scheduled rounds (the pairing leaves the later ones rematch-free)."""
    return swiss.pair_round(
        active, swiss_results(matches), seed=seed, round_number=round_number, rounds=rounds
    )


def playable_rounds(
    active: Iterable[PlayerId], paired: Iterable[tuple[PlayerId, PlayerId | None]], *, limit: int
) -> int:
    """How many more rounds, at most ``limit``, the ``active`` players can play without a rematch,
    given every pair (``(a, b)``, or ``(a, None)`` for a bye) paired so far, reported or not: after
    a drop, a pod plays only these (:func:`bot.kit.swiss.playable_rounds`)."""
    met = [swiss.Result.bye(a, 0) if b is None else swiss.Result(a, b, 0, 0) for a, b in paired]
    return swiss.playable_rounds(active, met, limit=limit)


# --------------------------------------------------------------------------- team drafts


@dataclass(frozen=True)
class TeamScore:
    wins: tuple[int, int]  # match wins of the first and the second team (byes included)
    winner: int | None  # 0 or 1: the team with more match wins; None: a draw


def split_teams(seats: Sequence[PlayerId]) -> tuple[tuple[PlayerId, ...], tuple[PlayerId, ...]]:
    """Two teams from the drafters in seat order, alternately (seats 1, 3, 5 … and 2, 4, 6 …), so
    every drafter passes to and receives from the other team. Needs an even number of drafters."""
    if len(seats) < 2 or len(seats) % 2:
        raise MatchError("A team draft needs an even number of drafters, at least 2.")
    return tuple(seats[0::2]), tuple(seats[1::2])


def cross_rounds(
    first: Sequence[PlayerId], second: Sequence[PlayerId], rounds: int | None = None
) -> list[tuple[tuple[PlayerId, PlayerId], ...]]:
    """Each round's pairs of a team draft: round r pairs ``first[i]`` with ``second[(i + r) % n]``.
    ``rounds``: :data:`DEFAULT_ROUNDS` by default, at most the team size (3 of the 4 rounds of a
    4 v 4; all 3 of a 3 v 3; 2 of a 2 v 2)."""
    n = len(first)
    if n == 0 or len(second) != n:
        raise MatchError("Teams must have the same number of players, at least 1.")
    if len({*first, *second}) != 2 * n:
        raise MatchError("A player is listed twice.")
    rounds = min(DEFAULT_ROUNDS, n) if rounds is None else rounds
    if not 1 <= rounds <= n:
        raise MatchError(f"Teams of {n} play 1 to {n} rounds.")
    return [tuple((first[i], second[(i + r) % n]) for i in range(n)) for r in range(rounds)]


def team_round(
    pairs: Iterable[tuple[PlayerId, PlayerId]], dropped: Iterable[PlayerId]
) -> tuple[list[tuple[PlayerId, PlayerId]], list[PlayerId]]:
    """One round of a team draft after drops: (the matches to play, the players who get a bye
    because their opponent dropped). A pair of two dropped players is no match and no bye."""
    gone = set(dropped)
    played = [(a, b) for a, b in pairs if a not in gone and b not in gone]
    byes = [a if b in gone else b for a, b in pairs if (a in gone) != (b in gone)]
    return played, byes


def team_score(first: Iterable[PlayerId], second: Iterable[PlayerId], matches: Iterable[Match]) -> TeamScore:
    """Match wins per team (a bye is a win), and which team won the night (None: a draw)."""
    team = {p: 0 for p in first} | {p: 1 for p in second}
    wins = [0, 0]
    for m in matches:
        if m.b is not None and m.b in team and team[m.a] == team[m.b]:
            raise MatchError("Team-mates do not play each other.")
        if m.winner is not None:
            wins[team[m.winner]] += 1
    winner_team = None if wins[0] == wins[1] else int(wins[1] > wins[0])
    return TeamScore((wins[0], wins[1]), winner_team)
