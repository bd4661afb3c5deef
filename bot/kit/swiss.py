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

Look-ahead (``pair_round(..., rounds=R)``): never the same opponent twice in the event
    Choosing each round for itself can leave a later round with no rematch-free pairing
    although the event had one all along (6 players after 2 rounds: pairing the three equal
    scores leaves two triangles for round 4, one event in three over 5 rounds). Given the
    scheduled number of rounds, the pairing is the best one by the order above **among those
    that leave every later round a rematch-free pairing** (and nobody a second bye while
    someone has none). Think of the bye as one more player (an odd count): the players who
    have not met form a graph, and R rounds are R disjoint perfect matchings of it.

    * Big events have room: if every player (the bye included) has at least size/2 + rounds
      left − 1 partners not yet met, any rematch-free pairing will do (Dirac: a graph whose
      degrees are all at least half its size has a Hamiltonian cycle, so a perfect matching,
      and each round takes one partner from each) — the sparse matching above, untouched.
      With at most 20 rounds that is every event of 40 players or more.
    * Smaller events are searched exactly (:class:`_Schedule`): can k more rounds be paired?
      Tight players (as many partners left as rounds) must meet all of them, which rules out
      other pairs (:func:`_narrowed`); an odd part can never be paired; below Dirac's bound
      the rounds need a k-factor (:func:`_factor`, Tutte's reduction to a matching), tried
      first as the k rounds; then a depth-first search over matchings, the most constrained
      player first, the rounds' order fixed by one player's partners, failures remembered.
      Candidates for this round come best first (:func:`_best_matchings`, Murty's k-best
      matchings, dropping any part whose forced pairs leave too few edges), and the first
      whose rest can still be paired is taken: the same Swiss order, among feasible ones.
    * If no rematch-free way through every round left exists (drops change the count), it
      looks as far as it can: the most rounds in a row from this one that can avoid a
      rematch; if not even two, this round alone, with the fewest rematches as above.
    * The search is bounded by ``LOOKAHEAD_STEPS`` (a count, so reproducible): out of steps,
      it takes the first round of the way it found, else pairs this round alone. Events up to
      the 20-round limit stay well inside it (a few thousand steps, tens of milliseconds).
    :func:`max_rounds` is the most rounds a count of players allows: N − 1 (even) or N (odd);
    :func:`min_players` the fewest players a number of rounds needs; :func:`playable_rounds`
    how many more rounds the players still in can play without a rematch (after drops: a format
    drops the rounds that cannot be played from its schedule).

    Same results, players, seed, round number and rounds -> same pairing.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import rustworkx

__all__ = [
    "CANDIDATE_WINDOW",
    "LOOKAHEAD_STEPS",
    "PairingResult",
    "Result",
    "Standing",
    "SwissError",
    "coin_flip",
    "max_rounds",
    "min_players",
    "pair_round",
    "playable_rounds",
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


def coin_flip(seed: int | str, player: PlayerId) -> float:
    """The seeded coin flip that orders fully tied players: fixed for the event and the player, so
    two looks at the standings agree (any format's standings use it as their last tiebreaker)."""
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
    coins = {p: coin_flip(seed, p) for p in ids}
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


def max_rounds(players: int) -> int:
    """The most rounds ``players`` can play with nobody meeting an opponent twice and nobody
    getting a second bye: a round robin, N − 1 rounds for an even N, N for an odd N (each
    player sits out once)."""
    if players < 2:
        return 0
    return players - 1 if players % 2 == 0 else players


def min_players(rounds: int) -> int:
    """The fewest players who can play ``rounds`` rounds without a rematch (:func:`max_rounds`)."""
    if rounds <= 1:
        return 2
    return rounds if rounds % 2 else rounds + 1


def pair_round(
    active: Iterable[PlayerId],
    results: Iterable[Result],
    *,
    seed: int | str,
    round_number: int,
    rounds: int | None = None,
) -> PairingResult:
    """Pair the ``active`` players (not dropped) for the next round; see the module docstring.

    ``results`` are all finished matches and byes of the event (dropped players' too: they
    still count for opponents' averages and for who has met whom). ``seed`` is the event's
    seed (also the coin-flip seed of :func:`standings`); ``round_number`` varies the order
    within equal scores from round to round. ``rounds``: the event's scheduled number of
    rounds; the pairing then leaves rounds ``round_number + 1 .. rounds`` a way to be paired
    without a rematch (see "Look-ahead" in the module docstring). None: this round only.
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
    later = 0 if rounds is None else rounds - round_number
    if later > 0:
        found = _look_ahead(order, h, bye_penalty, later)
        if found is not None:
            return _result(found, rank, h, None)
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


def playable_rounds(active: Iterable[PlayerId], results: Iterable[Result], *, limit: int) -> int:
    """The most rounds in a row, at most ``limit``, that the ``active`` players can still play with
    nobody meeting an opponent twice, each round's bye going to a player with the fewest byes at
    the time (so byes come round again once everyone has had one). ``results``: every match and
    bye paired so far (unfinished ones too: who has met whom is what counts; points are ignored).

    First the look-ahead's own test (:class:`_Schedule`, the bye a node that meets the players
    with the fewest byes now: each of them sits out at most once in those rounds), which is
    exact when the byes need not come round again; failing that, an exhaustive search round by
    round with the byes as they change. Both are bounded (:data:`LOOKAHEAD_STEPS`); out of
    steps, the rounds are taken as playable (a format never drops a round it is unsure of)."""
    players = _unique(active)
    if limit <= 0 or len(players) < 2:
        return 0
    h = _history(results)
    rank = {p: i for i, p in enumerate(players)}
    bye_penalty = _bye_penalties(players, rank, h) if len(players) % 2 else {}
    size = len(players) + (1 if bye_penalty else 0)
    unmet = tuple(_adjacency(size, _candidate_edges(players, h, bye_penalty, window=None, rematches=False)))
    schedule = _Schedule(size)
    static = 0
    try:
        static = next((k for k in range(limit, 0, -1) if schedule.fits(unmet, k) is not None), 0)
    except _OutOfSteps:
        return limit
    if static == limit or not bye_penalty:
        return static  # without a bye the first test is exact
    rounds = _RoundsWithByes(len(players))
    among = unmet[: len(players)]
    among = tuple(a & ~(1 << len(players)) for a in among)  # the players' own pairs, without the bye
    byes = tuple(h.byes[p] for p in players)
    try:
        return next((k for k in range(limit, static, -1) if rounds.fits(among, byes, k)), static)
    except _OutOfSteps:
        return limit


def _bye_penalties(order: Sequence[PlayerId], rank: dict[PlayerId, int], h: _History) -> dict[PlayerId, int]:
    """Players who may get the bye -> 0 for the lowest-ranked, 1 for the next one up, …"""
    fewest = min(h.byes[p] for p in order)
    eligible = sorted((p for p in order if h.byes[p] == fewest), key=lambda p: -rank[p])
    return {p: i for i, p in enumerate(eligible)}


_Matching = tuple[list[tuple[PlayerId, PlayerId]], PlayerId | None]
_Edge = tuple[int, int, int]  # (node, node, weight): nodes index the score order; the bye is node n


def _candidate_edges(
    order: Sequence[PlayerId],
    h: _History,
    bye_penalty: dict[PlayerId, int],
    *,
    window: int | None,
    rematches: bool,
) -> list[_Edge]:
    """The candidate graph's edges, weighted by the lexicographic tiers of the module docstring."""
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

    weighted = [(i, j, base - meetings * rematch_unit - cost) for i, j, cost, meetings in edges]
    if bye_penalty:
        weighted += [(i, n, base - bye_penalty[p] * score_total) for i, p in enumerate(order) if p in bye_penalty]
    return weighted


def _perfect_matching(
    size: int, edges: Iterable[_Edge], forced: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]] | None:
    """The heaviest perfect matching of ``size`` nodes by ``edges`` plus the ``forced`` pairs
    (whose nodes ``edges`` leave out), as sorted node pairs; None if there is none."""
    graph = rustworkx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(size))
    graph.add_edges_from(list(edges))
    matching = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    if 2 * (len(matching) + len(forced)) != size:
        return None
    return sorted([*forced, *((min(u, v), max(u, v)) for u, v in matching)])


def _players(order: Sequence[PlayerId], pairs: Iterable[tuple[int, int]]) -> _Matching:
    """Node pairs -> (player pairs, bye)."""
    n = len(order)
    out: list[tuple[PlayerId, PlayerId]] = []
    bye = None
    for u, v in pairs:
        if v == n:
            bye = order[u]
        else:
            out.append((order[u], order[v]))
    return out, bye


def _match(
    order: Sequence[PlayerId],
    h: _History,
    bye_penalty: dict[PlayerId, int],
    *,
    window: int | None,
    rematches: bool,
) -> _Matching | None:
    """The best perfect matching of the candidate graph, or None if it has none."""
    edges = _candidate_edges(order, h, bye_penalty, window=window, rematches=rematches)
    pairs = _perfect_matching(len(order) + (1 if bye_penalty else 0), edges)
    return None if pairs is None else _players(order, pairs)


def _result(found: _Matching, rank: dict[PlayerId, int], h: _History, window: int | None) -> PairingResult:
    pairs, bye = found
    ordered = sorted((tuple(sorted(pair, key=rank.__getitem__)) for pair in pairs), key=lambda p: rank[p[0]])
    rematches = sum(1 for a, b in ordered if h.opponents.get(a, {}).get(b, 0))
    return PairingResult(tuple(ordered), bye, rematches, window)


# --------------------------------------------------------------------------- look-ahead

LOOKAHEAD_STEPS = 60_000
"""The search steps the look-ahead may spend to find how far it can see, and as many again to
find the best pairing for it (a count, not a clock, so that a pairing is reproducible; a step is
a few microseconds, so at most a few tenths of a second each). Events without drops use a few
thousand at most."""

FACTOR_CHECK = 24
"""The look-ahead checks for a k-factor when the check's graph has at most this many edges per
player (about two spare edges per player in an event of a dozen)."""

_Pairs = list[tuple[int, int]]


class _OutOfSteps(Exception):
    pass


def _look_ahead(
    order: Sequence[PlayerId], h: _History, bye_penalty: dict[PlayerId, int], later: int
) -> _Matching | None:
    """The best rematch-free pairing that leaves ``later`` more rounds a rematch-free pairing
    each (or as many of them as possible), or None: no look-ahead is needed (every rematch-free
    pairing keeps them possible), none sees past this round, or the search ran out of steps."""
    n = len(order)
    size = n + (1 if bye_penalty else 0)
    if _fewest_partners(order, h, bye_penalty) - later >= size // 2:
        return None  # Dirac: with every degree >= size/2 after each round, any pairing leaves one
    edges = _candidate_edges(order, h, bye_penalty, window=None, rematches=False)
    # Later byes, like this one, go to players with the fewest byes (so one each in turn): a way
    # through needs no more rounds with a bye than there are such players. (Only after drops
    # can there be fewer; it then looks no further than their byes.)
    future = _adjacency(size, edges)
    schedule = _Schedule(size)
    fresh = True
    for rounds in range(later + 1, 1, -1):  # every round left, else as many in a row as can be
        try:
            usable = _narrowed(future, rounds)
            way = None if usable is None else schedule.fits(tuple(future), rounds)
        except _OutOfSteps:
            return None
        if way is None:
            continue
        assert usable is not None
        if fresh:  # the best pairing gets steps of its own, once
            schedule.steps, fresh = LOOKAHEAD_STEPS, False
        pairs = _best_that_fits(size, edges, future, usable, rounds, way, schedule)
        if pairs is not None:
            return _players(order, pairs)
    return None  # not two rounds in a row: this round alone, with rematches if it must


def _best_that_fits(
    size: int, edges: list[_Edge], future: Sequence[int], usable: Sequence[int], rounds: int, way: _Pairs,
    schedule: _Schedule,
) -> _Pairs | None:
    """The best pairing for this round after which ``rounds`` − 1 more can be paired in
    ``future``, knowing ``way``, the first of ``rounds`` such rounds found (empty if none was
    named); out of steps, ``way`` itself."""
    # Only the pairs such rounds can use (see _narrowed) are candidates for this one.
    candidates = [e for e in edges if usable[e[0]] >> e[1] & 1]
    weight = {(u, v): w for u, v, w in candidates}
    known = sorted((min(pair), max(pair)) for pair in way) or None
    known_weight = sum(weight[pair] for pair in known) if known else 0

    def admissible(forced: Sequence[tuple[int, int]]) -> bool:
        # Would the rounds after a pairing with the ``forced`` pairs still find enough edges?
        rest, need = list(future), [rounds] * size
        for u, v in forced:
            rest[u] &= ~(1 << v)
            rest[v] &= ~(1 << u)
            need[u] = need[v] = rounds - 1
        checked, factor = schedule.factor(rest, need)
        return factor is not None or not checked

    try:
        for total, pairs in _best_matchings(size, candidates, schedule, admissible):
            if known is not None and total <= known_weight:
                break  # the way found is at least as good
            if schedule.fits(_without(future, pairs), rounds - 1) is not None:
                return pairs
    except _OutOfSteps:
        pass
    return known


def _fewest_partners(order: Sequence[PlayerId], h: _History, bye_penalty: dict[PlayerId, int]) -> int:
    """The fewest partners anyone (the bye included) has left for this round: players not met
    yet, and the bye for a player who may have it."""
    active = set(order)
    left = [
        len(order) - 1 - sum(1 for o in h.opponents.get(p, ()) if o in active) + (p in bye_penalty)
        for p in order
    ]
    return min([*left, len(bye_penalty)] if bye_penalty else left)


def _adjacency(size: int, edges: Iterable[_Edge]) -> list[int]:
    adj = [0] * size
    for u, v, _ in edges:
        adj[u] |= 1 << v
        adj[v] |= 1 << u
    return adj


def _without(adj: Sequence[int], pairs: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    rest = list(adj)
    for u, v in pairs:
        rest[u] &= ~(1 << v)
        rest[v] &= ~(1 << u)
    return tuple(rest)


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _best_matchings(
    size: int, edges: list[_Edge], schedule: _Schedule, admissible: Callable[[tuple[tuple[int, int], ...]], bool]
) -> Iterator[tuple[int, _Pairs]]:
    """(weight, pairs) of the perfect matchings of the graph that may be ``admissible``,
    heaviest first: Murty's partition of the solutions (the best one's children force its first
    k pairs and ban its next one), each part solved only when its bound, its parent's weight,
    comes first, and dropped when its forced pairs are not admissible."""
    weight = {(u, v): w for u, v, w in edges}
    seq = itertools.count()
    refused: set[tuple[tuple[int, int], ...]] = set()

    def solve(forced: tuple[tuple[int, int], ...], banned: frozenset) -> _Pairs | None:
        if any(forced[:k] in refused for k in range(1, len(forced) + 1)):
            return None
        if forced and not admissible(forced):
            refused.add(forced)
            return None
        schedule.spend(len(edges))
        taken = {x for pair in forced for x in pair}
        rest = (e for e in edges if e[0] not in taken and e[1] not in taken and (e[0], e[1]) not in banned)
        return _perfect_matching(size, rest, forced)

    heap: list = [(0, 1, next(seq), (), frozenset(), None)]
    while heap:
        bound, todo, _, forced, banned, pairs = heapq.heappop(heap)
        if todo:  # (todo 0 sorts first: of equal weights, a solved part before one to solve)
            pairs = solve(forced, banned)
            if pairs is not None:
                heapq.heappush(heap, (-sum(weight[e] for e in pairs), 0, next(seq), forced, banned, pairs))
            continue
        yield -bound, pairs
        # Any order of the free pairs partitions the rest; the bye's first, as the likeliest to be
        # refused by admissible() (a refused prefix drops every part that forces it).
        free = sorted((e for e in pairs if e not in forced), key=lambda e: e[1] != size - 1)
        for k in range(len(free) - 1):  # all free pairs forced but a banned last one: nothing left
            heapq.heappush(heap, (bound, 1, next(seq), forced + tuple(free[:k]), banned | {free[k]}, None))


class _Schedule:
    """Exact search: can ``k`` more rounds be paired without a rematch, i.e. does the graph of
    the pairs that have not met (adjacency bitmasks, the bye a node of its own) hold ``k``
    edge-disjoint perfect matchings? Failures are remembered for the whole pairing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.steps = LOOKAHEAD_STEPS
        self.failed: set[tuple[tuple[int, ...], int]] = set()

    def spend(self, steps: int) -> None:
        self.steps -= steps
        if self.steps < 0:
            raise _OutOfSteps

    def factor(self, adj: Sequence[int], need: Sequence[int]) -> tuple[bool, tuple[int, ...] | None]:
        """(checked, the subgraph or None): :func:`_factor`, when the edges to spare are few
        enough that the check costs less than a search (with more, a factor is nearly certain)."""
        size = sum((a.bit_count() - n) * a.bit_count() for a, n in zip(adj, need, strict=True))
        if size > FACTOR_CHECK * self.size:
            return False, None
        self.spend(size)
        return True, _factor(adj, need)

    def fits(self, adj: tuple[int, ...], k: int) -> _Pairs | None:
        """The first of ``k`` such matchings (empty if none needs naming: k = 0, or Dirac's
        bound holds all the way), or None if there are no such k."""
        if k == 0:
            return []
        key = (adj, k)
        if key in self.failed:
            return None
        self.spend(1)
        narrowed = _narrowed(adj, k)
        if narrowed is None or _odd_component(narrowed):
            self.failed.add(key)
            return None
        adj = narrowed
        degrees = [a.bit_count() for a in adj]
        low = min(degrees)
        if low - (k - 1) >= self.size // 2:
            return []  # Dirac: a Hamiltonian cycle, so a perfect matching, in every round left
        if k > 1 and low < self.size // 2 and max(degrees) > k:
            # The rounds need k edges at every node. Below Dirac's bound, check they are there;
            # such a k-factor is nearly always k matchings itself: try it first.
            checked, factor = self.factor(adj, [k] * self.size)
            if checked and factor is None:
                self.failed.add(key)
                return None
            way = None if factor is None else self.fits(factor, k)
            if way is not None:
                return way
        # The k matchings are unordered: take first the one that pairs v (least choice) with its
        # lowest partner u. Then v's partners in the others are above u: drop v's edges below u.
        v = degrees.index(low)
        above = adj[v]
        for u in _bits(adj[v]):
            above &= ~(1 << u)
            if above.bit_count() < k - 1:
                break
            below = adj[v] & ~above & ~(1 << u)
            for pairs in self._matchings(adj, (1 << self.size) - 1 & ~(1 << v) & ~(1 << u), [(v, u)]):
                rest = list(_without(adj, pairs))
                for w in _bits(below):
                    rest[w] &= ~(1 << v)
                rest[v] = above
                if self.fits(tuple(rest), k - 1) is not None:
                    return list(pairs)
        self.failed.add(key)
        return None

    def _matchings(self, adj: tuple[int, ...], free: int, pairs: _Pairs) -> Iterator[_Pairs]:
        """Perfect matchings extending ``pairs`` over the ``free`` nodes: the node with the fewest
        choices first, its partners nearest in score order first."""
        self.spend(1)
        if not free:
            yield pairs
            return
        best, choices = -1, self.size
        for x in _bits(free):
            count = (adj[x] & free).bit_count()
            if count < choices:
                best, choices = x, count
                if count == 0:
                    return
        for y in sorted(_bits(adj[best] & free), key=lambda y: abs(y - best)):
            pairs.append((best, y))
            yield from self._matchings(adj, free & ~(1 << best) & ~(1 << y), pairs)
            pairs.pop()


class _RoundsWithByes(_Schedule):
    """Exhaustive search for :func:`playable_rounds`: ``k`` rounds in a row of an odd number of
    players, each a perfect matching of the pairs not yet met plus a bye to a player with the
    fewest byes at the time. Failures are remembered (by the pairs left and the byes relative to
    the fewest)."""

    def fits(self, adj: tuple[int, ...], byes: tuple[int, ...], k: int) -> bool:  # type: ignore[override]
        if k == 0:
            return True
        fewest = min(byes)
        byes = tuple(b - fewest for b in byes)
        key = (adj, byes, k)
        if key in self.failed:
            return False
        self.spend(1)
        everyone = (1 << self.size) - 1
        for sitter in (p for p, b in enumerate(byes) if b == 0):
            after = tuple(b + (p == sitter) for p, b in enumerate(byes))
            for pairs in self._matchings(adj, everyone & ~(1 << sitter), []):
                if self.fits(_without(adj, pairs), after, k - 1):
                    return True
        self.failed.add(key)  # type: ignore[arg-type]
        return False


def _narrowed(adj: Sequence[int], k: int) -> tuple[int, ...] | None:
    """The edges ``k`` perfect matchings could still use, or None if they cannot exist. A node
    with exactly ``k`` edges (tight) uses each of them; so a node joined to ``k`` tight nodes
    uses only those edges, and one joined to more than ``k`` is impossible."""
    adj = list(adj)
    while True:
        degrees = [a.bit_count() for a in adj]
        if min(degrees) < k:
            return None
        tight = sum(1 << v for v, d in enumerate(degrees) if d == k)
        changed = False
        for u, a in enumerate(adj):
            forced = a & tight
            count = forced.bit_count()
            if count > k:
                return None
            if count == k and a != forced:
                adj[u] = forced
                for w in _bits(a & ~forced):
                    adj[w] &= ~(1 << u)
                changed = True
        if not changed:
            return tuple(adj)


def _factor(adj: Sequence[int], need: Sequence[int]) -> tuple[int, ...] | None:
    """A spanning subgraph with ``need[v]`` edges at each node v, or None if there is none, by
    Tutte's reduction to a perfect matching: a node of degree d becomes d ends, one per edge,
    and d − need spares that can each take one end; an edge's two ends are joined. An edge is
    in the subgraph when its two ends are matched together."""
    graph = rustworkx.PyGraph(multigraph=False)
    ends: dict[tuple[int, int], int] = {}
    for v, a in enumerate(adj):
        spares = a.bit_count() - need[v]
        if spares < 0:
            return None
        mine = [ends.setdefault((v, u), graph.add_node(None)) for u in _bits(a)]
        for _ in range(spares):
            spare = graph.add_node(None)
            graph.add_edges_from_no_data([(spare, end) for end in mine])
    graph.add_edges_from_no_data([(end, ends[(u, v)]) for (v, u), end in ends.items() if v < u])
    matching = rustworkx.max_weight_matching(graph, max_cardinality=True)
    if 2 * len(matching) != graph.num_nodes():
        return None
    together = {frozenset(pair) for pair in matching}
    kept = [0] * len(adj)
    for (v, u), end in ends.items():
        if v < u and frozenset((end, ends[(u, v)])) in together:
            kept[v] |= 1 << u
            kept[u] |= 1 << v
    return tuple(kept)


def _odd_component(adj: Sequence[int]) -> bool:
    """Whether some connected component has an odd number of nodes (then nothing is perfect)."""
    unseen = (1 << len(adj)) - 1
    while unseen:
        component = frontier = unseen & -unseen
        while frontier:
            reach = 0
            for x in _bits(frontier):
                reach |= adj[x]
            frontier = reach & ~component
            component |= frontier
        if component.bit_count() % 2:
            return True
        unseen &= ~component
    return False
