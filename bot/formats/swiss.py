"""Swiss pairing and standings for any format — pure, no I/O.

A format records what happened as :class:`Result` rows (one per match, plus one per bye) and
asks this module two things:

* :func:`standings` — the ranking, with the tiebreakers below;
* :func:`pair_round` — the next round's pairs and bye.

Players are any hashable ids (seats, user ids) whose ``repr`` is stable; scores are whatever
points the format awards (Turnabout: Victory Points, 30 per match; FORMATS.md §3 "Pairing").

Standings (:func:`standings`)
    1. **score**: the sum of the player's points over all results (byes included);
    2. **opponents' average score**: the mean of the current scores of the opponents the
       player has met (a bye is no opponent; an opponent met twice counts twice; 0 when the
       player has met nobody yet);
    3. **head-to-head**: among the players still tied on 1 and 2, the points the player scored
       minus the points conceded in matches against the *other tied players* (for two tied
       players: who did better in their match; 0 if they never met). One pass, not repeated;
    4. a **seeded coin flip**: ``random.Random(f"{seed}:coin:{player!r}")``, fixed for the
       whole event, so the order of fully tied players does not change between two looks.
    The ranking is total: every player gets a distinct rank 1..n.

Pairing (:func:`pair_round`)
    A maximum-weight perfect matching (``rustworkx.max_weight_matching`` with
    ``max_cardinality=True``) on a graph of candidate pairs. Among all perfect matchings of
    the candidate graph it minimises, in this strict order:

    1. prior meetings of the paired players (0 whenever a rematch-free pairing exists; rematch
       edges only enter the graph as a last resort, then "fewest rematches" means the fewest
       prior meetings summed over the pairs);
    2. the bye's rank from the bottom: the bye goes to the **lowest-ranked player among those
       with the fewest byes** (so nobody gets a second bye while someone has none), unless
       the others could then not be paired without a rematch — then to the next one up;
    3. the sum over pairs of (score difference)², so players meet equal scores where they can.

    The candidate graph is kept sparse (ARCHITECTURE.md "Swiss pairing": all 500k edges of
    1,000 players take seconds, 40 neighbours a fraction of a second): players are sorted by
    score (equal scores in a seeded random order, which also makes pairings within a score
    group random but reproducible) and each is joined to the next ``CANDIDATE_WINDOW``
    players, minus past opponents. The window is doubled while the matching is not perfect,
    or the bye did not reach the lowest eligible player (a wider graph might allow it), up to
    all rematch-free pairs; only then are rematches added. Weights are integers: scores are
    counted in half points there, so finer scores are rounded for pairing (not for standings).

    Same results, players, seed and round number -> same pairing.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import rustworkx

__all__ = [
    "CANDIDATE_WINDOW",
    "PairingResult",
    "Result",
    "Standing",
    "SwissError",
    "pair_round",
    "standings",
]

PlayerId = Hashable

CANDIDATE_WINDOW = 40
"""Each player's first candidate opponents: the next 40 players in score order (~40 nearest)."""


class SwissError(ValueError):
    """Input a format should never pass (duplicate players, malformed results)."""


@dataclass(frozen=True)
class Result:
    """One finished match (``b`` the opponent) or bye (``b is None``, ``points_b`` unused)."""

    a: PlayerId
    b: PlayerId | None
    points_a: Real
    points_b: Real = 0

    @classmethod
    def bye(cls, player: PlayerId, points: Real) -> Result:
        return cls(player, None, points, 0)

    @property
    def is_bye(self) -> bool:
        return self.b is None


@dataclass(frozen=True)
class Standing:
    player: PlayerId
    rank: int  # 1 = first; distinct for every player
    score: Fraction
    opponents_average: Fraction
    head_to_head: Fraction  # net points against the players tied on score and opponents' average
    coin: float  # the seeded coin flip, last tiebreaker
    matches: int  # real matches played (byes not included)
    byes: int


@dataclass(frozen=True)
class PairingResult:
    pairs: tuple[tuple[PlayerId, PlayerId], ...]  # best-ranked table first; better-ranked player first
    bye: PlayerId | None
    rematches: int  # pairs that have met before (0 unless unavoidable)
    window: int | None  # candidate window that sufficed; None = every pair was a candidate


# --------------------------------------------------------------------------- history


@dataclass
class _History:
    scores: defaultdict[PlayerId, int | Fraction]
    opponents: defaultdict[PlayerId, Counter]  # opponent -> meetings
    byes: Counter
    # (player, opponent) -> points scored minus conceded in their matches
    net: defaultdict[tuple[PlayerId, PlayerId], int | Fraction]


def _exact(points: Real) -> int | Fraction:
    # Ints stay ints (fast); anything else becomes an exact Fraction so ties are real ties.
    return points if isinstance(points, int) else Fraction(points)


def _history(results: Iterable[Result]) -> _History:
    h = _History(defaultdict(int), defaultdict(Counter), Counter(), defaultdict(int))
    for r in results:
        pa, pb = _exact(r.points_a), _exact(r.points_b)
        h.scores[r.a] += pa
        if r.b is None:
            h.byes[r.a] += 1
            continue
        if r.b == r.a:
            raise SwissError(f"A player cannot play themselves ({r.a!r}).")
        h.scores[r.b] += pb
        h.opponents[r.a][r.b] += 1
        h.opponents[r.b][r.a] += 1
        h.net[(r.a, r.b)] += pa - pb
        h.net[(r.b, r.a)] += pb - pa
    return h


def _unique(players: Iterable[PlayerId]) -> list[PlayerId]:
    out = list(players)
    if len(set(out)) != len(out):
        raise SwissError("A player is listed twice.")
    return out


# --------------------------------------------------------------------------- standings


def _coin(seed: int | str, player: PlayerId) -> float:
    return random.Random(f"{seed}:coin:{player!r}").random()


def _opponents_average(h: _History, player: PlayerId) -> Fraction:
    met = h.opponents.get(player)
    if not met:
        return Fraction(0)
    total = sum(h.scores[o] * n for o, n in met.items())
    return Fraction(total) / sum(met.values())


def standings(players: Iterable[PlayerId], results: Iterable[Result], *, seed: int | str) -> list[Standing]:
    """Rank ``players`` (dropped ones too, if they should appear) by the results so far."""
    return _standings(_unique(players), _history(results), seed)


def _standings(ids: list[PlayerId], h: _History, seed: int | str) -> list[Standing]:
    oas = {p: _opponents_average(h, p) for p in ids}
    tied: defaultdict[tuple[Fraction, Fraction], list[PlayerId]] = defaultdict(list)
    for p in ids:
        tied[(h.scores[p], oas[p])].append(p)
    h2h: dict[PlayerId, Fraction] = {}
    for group in tied.values():
        for p in group:
            h2h[p] = Fraction(sum(h.net.get((p, q), 0) for q in group if q != p))
    coins = {p: _coin(seed, p) for p in ids}
    order = sorted(ids, key=lambda p: (-h.scores[p], -oas[p], -h2h[p], coins[p]))
    return [
        Standing(
            player=p,
            rank=i,
            score=Fraction(h.scores[p]),
            opponents_average=oas[p],
            head_to_head=h2h[p],
            coin=coins[p],
            matches=sum(h.opponents[p].values()) if p in h.opponents else 0,
            byes=h.byes[p],
        )
        for i, p in enumerate(order, start=1)
    ]


# --------------------------------------------------------------------------- pairing


def pair_round(
    active: Iterable[PlayerId],
    results: Iterable[Result],
    *,
    seed: int | str,
    round_number: int,
) -> PairingResult:
    """Pair the ``active`` players (not dropped) for the next round; see the module docstring.

    ``results`` are all finished matches and byes of the event (dropped players' too: they
    still count for opponents' averages and for who has met whom). ``seed`` is the event's
    seed (also the coin-flip seed of :func:`standings`); ``round_number`` varies the order
    within equal scores from round to round.
    """
    players = _unique(active)
    results = list(results)
    h = _history(results)
    is_active = set(players)
    everyone = players + [p for p in h.scores if p not in is_active]
    ranked = [s.player for s in _standings(everyone, h, seed)]
    rank = {p: i for i, p in enumerate(p for p in ranked if p in is_active)}
    if len(players) < 2:
        return PairingResult((), players[0] if players else None, 0, None)

    order = players[:]
    random.Random(f"{seed}:round:{round_number}").shuffle(order)
    order.sort(key=lambda p: -h.scores[p])  # stable: equal scores keep the seeded shuffle

    bye_penalty = _bye_penalties(order, rank, h) if len(order) % 2 else {}
    lowest_bye = min(bye_penalty.values(), default=0)
    window = CANDIDATE_WINDOW
    while window < len(order) - 1:
        found = _match(order, h, bye_penalty, window=window, rematches=False)
        if found is not None and (not bye_penalty or bye_penalty[found[1]] == lowest_bye):
            return _result(found, rank, h, window)
        window *= 2
    found = _match(order, h, bye_penalty, window=None, rematches=False)
    if found is None:
        found = _match(order, h, bye_penalty, window=None, rematches=True)
        assert found is not None  # complete graph with every pair allowed: always perfect
    return _result(found, rank, h, None)


def _bye_penalties(order: Sequence[PlayerId], rank: dict[PlayerId, int], h: _History) -> dict[PlayerId, int]:
    """Players who may get the bye -> 0 for the lowest-ranked, 1 for the next one up, …"""
    fewest = min(h.byes[p] for p in order)
    eligible = sorted((p for p in order if h.byes[p] == fewest), key=lambda p: -rank[p])
    return {p: i for i, p in enumerate(eligible)}


_Matching = tuple[list[tuple[PlayerId, PlayerId]], PlayerId | None]


def _match(
    order: Sequence[PlayerId],
    h: _History,
    bye_penalty: dict[PlayerId, int],
    *,
    window: int | None,
    rematches: bool,
) -> _Matching | None:
    """The best perfect matching of the candidate graph, or None if it has none."""
    n = len(order)
    reach = n if window is None else window
    halves = [round(2 * h.scores[p]) for p in order]  # integer weights, see the module docstring
    # (i, j, score cost, prior meetings): one edge per candidate pair
    edges: list[tuple[int, int, int, int]] = []
    for i, a in enumerate(order):
        met = h.opponents.get(a, {})
        for j in range(i + 1, min(n, i + 1 + reach)):
            b = order[j]
            meetings = met.get(b, 0)
            if meetings and not rematches:
                continue
            edges.append((i, j, (halves[i] - halves[j]) ** 2, meetings))

    # Lexicographic weights (see the module docstring): a tier's unit exceeds everything the
    # lower tiers can add up to over a whole matching, so no lower-tier gain buys a higher-tier loss.
    score_total = max((e[2] for e in edges), default=0) * (n // 2 + 1) + 1
    rematch_unit = (len(bye_penalty) + 1) * score_total
    most_meetings = max((e[3] for e in edges), default=0)
    base = most_meetings * rematch_unit + rematch_unit + 1

    graph = rustworkx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n + (1 if bye_penalty else 0)))
    graph.add_edges_from([(i, j, base - meetings * rematch_unit - cost) for i, j, cost, meetings in edges])
    if bye_penalty:
        graph.add_edges_from(
            [(n, i, base - bye_penalty[p] * score_total) for i, p in enumerate(order) if p in bye_penalty]
        )
    matching = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    if 2 * len(matching) != graph.num_nodes():
        return None
    pairs: list[tuple[PlayerId, PlayerId]] = []
    bye = None
    for u, v in matching:
        if n in (u, v):
            bye = order[u + v - n]
        else:
            pairs.append((order[u], order[v]))
    return pairs, bye


def _result(found: _Matching, rank: dict[PlayerId, int], h: _History, window: int | None) -> PairingResult:
    pairs, bye = found
    ordered = sorted((tuple(sorted(pair, key=rank.__getitem__)) for pair in pairs), key=lambda p: rank[p[0]])
    rematches = sum(1 for a, b in ordered if h.opponents.get(a, {}).get(b, 0))
    return PairingResult(tuple(ordered), bye, rematches, window)
