"""Tests for the reusable Swiss pairing and standings (bot/formats/swiss.py)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.formats import swiss
from bot.formats.swiss import Result, SwissError, pair_round, standings

# --------------------------------------------------------------------------- helpers


def meetings(results: list[Result]) -> Counter:
    met: Counter = Counter()
    for r in results:
        if r.b is not None:
            met[frozenset((r.a, r.b))] += 1
    return met


def bye_counts(results: list[Result]) -> Counter:
    return Counter(r.a for r in results if r.b is None)


def scores(results: list[Result]) -> Counter:
    total: Counter = Counter()
    for r in results:
        total[r.a] += r.points_a
        if r.b is not None:
            total[r.b] += r.points_b
    return total


def perfect_matchings(players: list) -> list[list[tuple]]:
    if not players:
        return [[]]
    first, rest = players[0], players[1:]
    out = []
    for i, partner in enumerate(rest):
        for m in perfect_matchings(rest[:i] + rest[i + 1 :]):
            out.append([(first, partner), *m])
    return out


def brute_force(active: list, results: list[Result], seed) -> tuple[int, int, int]:
    """The best (prior meetings, bye rank from the bottom among eligible, score cost) over every
    possible pairing, by the rules of the swiss module docstring."""
    met = meetings(results)
    byes = bye_counts(results)
    score = scores(results)
    everyone = list(dict.fromkeys([*active, *score]))
    ranked = [s.player for s in standings(everyone, results, seed=seed) if s.player in active]
    if len(active) % 2:
        fewest = min(byes[p] for p in active)
        eligible = [p for p in reversed(ranked) if byes[p] == fewest]
        options = [(eligible.index(p), p) for p in eligible]
    else:
        options = [(0, None)]
    best = None
    for bye_rank, bye in options:
        rest = [p for p in active if p != bye]
        for m in perfect_matchings(rest):
            key = (
                sum(met[frozenset(pair)] for pair in m),
                bye_rank,
                sum(round(2 * (score[a] - score[b])) ** 2 for a, b in m),
            )
            best = key if best is None or key < best else best
    return best


def achieved(pairing: swiss.PairingResult, active: list, results: list[Result], seed) -> tuple[int, int, int]:
    met = meetings(results)
    byes = bye_counts(results)
    score = scores(results)
    everyone = list(dict.fromkeys([*active, *score]))
    ranked = [s.player for s in standings(everyone, results, seed=seed) if s.player in active]
    bye_rank = 0
    if pairing.bye is not None:
        fewest = min(byes[p] for p in active)
        eligible = [p for p in reversed(ranked) if byes[p] == fewest]
        bye_rank = eligible.index(pairing.bye)
    return (
        sum(met[frozenset(pair)] for pair in pairing.pairs),
        bye_rank,
        sum(round(2 * (score[a] - score[b])) ** 2 for a, b in pairing.pairs),
    )


def assert_everyone_once(pairing: swiss.PairingResult, active: list) -> None:
    seen = [p for pair in pairing.pairs for p in pair]
    if pairing.bye is not None:
        seen.append(pairing.bye)
    assert sorted(seen) == sorted(active)
    assert (pairing.bye is None) == (len(active) % 2 == 0)


def random_history(rng: random.Random, players: list, rounds: int) -> tuple[list, list[Result]]:
    """Random earlier rounds (random pairs, not Swiss: harsher histories), with drops."""
    active = players[:]
    results: list[Result] = []
    for _ in range(rounds):
        order = active[:]
        rng.shuffle(order)
        if len(order) % 2:
            results.append(Result.bye(order.pop(), rng.choice([30, 15, 3])))
        for a, b in zip(order[::2], order[1::2], strict=True):
            vp = rng.randint(0, 30)
            results.append(Result(a, b, vp, 30 - vp))
        if len(active) > 2 and rng.random() < 0.2:
            active.remove(rng.choice(active))
    return active, results


def greedy(active: list, results: list[Result], seed) -> list[tuple]:
    """Top-down greedy: each best-ranked unpaired player takes the best-ranked one not yet met."""
    met = meetings(results)
    ranked = [s.player for s in standings(active, results, seed=seed)]
    pairs = []
    while ranked:
        a = ranked.pop(0)
        partner = next((b for b in ranked if not met[frozenset((a, b))]), ranked[0])
        ranked.remove(partner)
        pairs.append((a, partner))
    return pairs


# --------------------------------------------------------------------------- pairing


def test_first_round_pairs_everyone_and_is_deterministic_for_a_seed():
    players = list(range(10))
    one = pair_round(players, [], seed=7, round_number=1)
    assert_everyone_once(one, players)
    assert one == pair_round(players, [], seed=7, round_number=1)
    other_seeds = {pair_round(players, [], seed=s, round_number=1).pairs for s in range(20)}
    assert len(other_seeds) > 1, "the seed should vary pairings within a score group"


def test_equal_scores_meet_each_other():
    results = [Result("a", "c", 30, 0), Result("b", "d", 30, 0)]
    pairing = pair_round(["a", "b", "c", "d"], results, seed=1, round_number=2)
    assert {frozenset(p) for p in pairing.pairs} == {frozenset("ab"), frozenset("cd")}
    assert pairing.rematches == 0


def test_pairs_list_best_table_first_and_better_player_first():
    results = [Result(1, 2, 30, 0), Result(3, 4, 20, 10)]
    pairing = pair_round([1, 2, 3, 4], results, seed=1, round_number=2)
    assert pairing.pairs == ((1, 3), (4, 2))


def test_no_rematch_when_score_groups_alone_would_force_one():
    # a and b are alone at the top and have met: they must not meet again.
    results = [Result("a", "b", 15, 15), Result("c", "d", 0, 0)]
    pairing = pair_round(["a", "b", "c", "d"], results, seed=3, round_number=2)
    assert pairing.rematches == 0
    assert frozenset("ab") not in {frozenset(p) for p in pairing.pairs}


def test_late_round_where_greedy_paints_itself_into_a_corner():
    """Ranked 1, 2, 3, 5, 4, 6: greedy pairs 1-2, then 3 can only take 6 and 4-5 must rematch.
    A rematch-free pairing exists (e.g. 1-3, 2-4, 5-6) and the matching finds one."""
    results = [
        Result(1, 6, 30, 0),
        Result(2, 6, 29, 1),
        Result(3, 4, 16, 14),
        Result(3, 5, 10, 20),
        Result(4, 5, 10, 5),
    ]
    active = [1, 2, 3, 4, 5, 6]
    met = meetings(results)
    assert any(met[frozenset(p)] for p in greedy(active, results, seed=0)), "greedy should fail here"
    pairing = pair_round(active, results, seed=0, round_number=4)
    assert_everyone_once(pairing, active)
    assert pairing.rematches == 0
    assert not any(met[frozenset(p)] for p in pairing.pairs)


def test_rematch_only_when_unavoidable_and_then_the_fewest():
    # Four players after three rounds have all met: every pairing is two rematches.
    results = [Result(a, b, 15, 15) for a, b in itertools.combinations("abcd", 2)]
    pairing = pair_round(list("abcd"), results, seed=1, round_number=4)
    assert pairing.rematches == 2
    assert pairing.window is None
    # a and b have met everyone: each must rematch someone. Pairing them together costs one
    # rematch (c-f have never met each other), any other way two: the fewest is one.
    results = [
        Result("a", "c", 15, 15),
        Result("a", "d", 15, 15),
        Result("a", "e", 15, 15),
        Result("a", "f", 15, 15),
        Result("b", "c", 15, 15),
        Result("b", "d", 15, 15),
        Result("b", "e", 15, 15),
        Result("b", "f", 15, 15),
        Result("a", "b", 15, 15),
    ]
    pairing = pair_round(list("abcdef"), results, seed=1, round_number=6)
    assert pairing.rematches == 1
    assert_everyone_once(pairing, list("abcdef"))


def test_bye_goes_to_the_lowest_ranked_player():
    results = [Result(1, 2, 30, 0), Result(3, 4, 20, 10), Result.bye(5, 0)]
    # 5 has had a bye: the lowest ranked without one is 2 (0 points).
    pairing = pair_round([1, 2, 3, 4, 5], results, seed=2, round_number=2)
    assert pairing.bye == 2
    results = [Result(1, 2, 30, 0), Result(3, 4, 20, 10)]
    pairing = pair_round([1, 2, 3, 4, 5], results, seed=2, round_number=2)
    assert pairing.bye == 5  # 0 points, never played (opponents' average 0) < 2 (average 30)


def test_nobody_gets_a_second_bye_while_another_has_none():
    results = [Result.bye(p, 0) for p in (1, 2, 3, 4)]  # everyone but 5 had a bye
    results.append(Result(5, 1, 30, 0))
    pairing = pair_round([1, 2, 3, 4, 5], results, seed=2, round_number=3)
    assert pairing.bye == 5  # the best ranked, yet the only one without a bye


def test_bye_moves_up_when_the_lowest_would_leave_an_unpairable_rest():
    # 1 has met 2, 3 and 4: if 5 (lowest) took the bye, 1 would need a rematch.
    results = [Result(1, 2, 16, 14), Result(1, 3, 16, 14), Result(1, 4, 16, 14)]
    active = [1, 2, 3, 4, 5]
    ranked = [s.player for s in standings(active, results, seed=9)]
    assert ranked[-1] == 5
    pairing = pair_round(active, results, seed=9, round_number=4)
    assert pairing.rematches == 0
    assert pairing.bye == ranked[-2]
    assert (1, 5) in pairing.pairs


def test_a_single_player_gets_the_bye_and_nobody_gets_nothing():
    assert pair_round([4], [], seed=1, round_number=1) == swiss.PairingResult((), 4, 0, None)
    assert pair_round([], [], seed=1, round_number=1) == swiss.PairingResult((), None, 0, None)


def test_duplicate_players_are_refused():
    with pytest.raises(SwissError):
        pair_round([1, 1, 2], [], seed=1, round_number=1)
    with pytest.raises(SwissError):
        standings([1, 1], [], seed=1)
    with pytest.raises(SwissError):
        standings([1], [Result(1, 1, 3, 0)], seed=1)


def test_window_widens_when_the_nearest_candidates_are_all_past_opponents(monkeypatch):
    monkeypatch.setattr(swiss, "CANDIDATE_WINDOW", 2)
    # In score order 0 (60), then 1, 2, 3 (10 each), then 4..7 (0): 0 has met its whole window
    # of 2 (and 3 besides); only the doubled window reaches an opponent it has not met.
    results = [Result(0, 1, 20, 10), Result(0, 2, 20, 10), Result(0, 3, 20, 10)]
    active = list(range(8))
    pairing = pair_round(active, results, seed=1, round_number=4)
    assert pairing.rematches == 0
    assert pairing.window == 4
    assert_everyone_once(pairing, active)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 9), rounds=st.integers(0, 7))
def test_matches_brute_force_on_small_events(seed, n, rounds):
    """Rematch-free whenever possible (else fewest meetings), then the lowest possible bye,
    then the smallest score differences — exactly the brute-force optimum."""
    rng = random.Random(seed)
    active, results = random_history(rng, list(range(n)), rounds)
    pairing = pair_round(active, results, seed=seed, round_number=rounds + 1)
    assert_everyone_once(pairing, active)
    assert achieved(pairing, active, results, seed) == brute_force(active, results, seed)
    assert pairing.rematches == sum(1 for p in pairing.pairs if meetings(results)[frozenset(p)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 9), rounds=st.integers(1, 8))
def test_multi_round_events_run_by_the_engine(seed, n, rounds):
    """Every round: each active player exactly once, a rematch only when brute force finds no
    way around it, and the bye to someone with the fewest byes (so byes spread evenly)."""
    rng = random.Random(seed)
    active = list(range(n))
    results: list[Result] = []
    for round_number in range(1, rounds + 1):
        pairing = pair_round(active, results, seed=seed, round_number=round_number)
        assert_everyone_once(pairing, active)
        best = brute_force(active, results, seed)
        assert pairing.rematches == 0 or best[0] > 0
        if pairing.bye is not None:
            byes = bye_counts(results)
            assert byes[pairing.bye] == min(byes[p] for p in active)
            results.append(Result.bye(pairing.bye, 30))
        for a, b in pairing.pairs:
            vp = rng.randint(0, 30)
            results.append(Result(a, b, vp, 30 - vp))
        if len(active) > 4 and rng.random() < 0.25:
            active.remove(rng.choice(active))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rounds=st.integers(1, 6))
def test_odd_event_without_drops_gives_nobody_a_second_bye_first(seed, rounds):
    rng = random.Random(seed)
    active = list(range(7))
    results: list[Result] = []
    for round_number in range(1, rounds + 1):
        pairing = pair_round(active, results, seed=seed, round_number=round_number)
        results.append(Result.bye(pairing.bye, 30))
        for a, b in pairing.pairs:
            vp = rng.randint(0, 30)
            results.append(Result(a, b, vp, 30 - vp))
        byes = bye_counts(results)
        assert max(byes.values()) == 1  # at most 7 rounds: one bye each before any second
        assert len(byes) == round_number


# --------------------------------------------------------------------------- standings


def test_standings_rank_by_score_first():
    results = [Result("a", "b", 16, 14), Result("c", "d", 30, 0)]
    ranks = [s.player for s in standings("abcd", results, seed=1)]
    assert ranks == ["c", "a", "b", "d"]
    top = standings("abcd", results, seed=1)[0]
    assert (top.rank, top.score, top.matches, top.byes) == (1, 30, 1, 0)


@pytest.mark.parametrize(("strong", "weak"), [("a", "b"), ("b", "a")])
def test_opponents_average_breaks_a_score_tie(strong, weak):
    # Both won 30-0; strong's opponent then took a 15-point bye, weak's did not. Nobody else
    # is tied with them, so head-to-head is 0 for both and only the average can separate them.
    results = [Result(strong, "x", 30, 0), Result(weak, "y", 30, 0), Result.bye("x", 15)]
    table = standings(["a", "b", "x", "y"], results, seed=1)
    by_player = {s.player: s for s in table}
    assert by_player[strong].head_to_head == by_player[weak].head_to_head == 0
    assert by_player[strong].opponents_average == 15
    assert by_player[weak].opponents_average == 0
    assert by_player[strong].rank < by_player[weak].rank


def test_opponents_average_counts_only_real_opponents_and_averages():
    results = [Result("a", "b", 20, 10), Result("a", "c", 10, 20), Result.bye("a", 30), Result.bye("b", 5)]
    a = next(s for s in standings("abc", results, seed=1) if s.player == "a")
    assert a.opponents_average == Fraction(15 + 20, 2)
    assert a.byes == 1 and a.matches == 2


@pytest.mark.parametrize("labels", list(itertools.permutations("abc")))
def test_head_to_head_breaks_a_tie_on_score_and_opponents_average(labels):
    winner, loser1, loser2 = labels
    # All three end on 40 with opponents' average 40; winner beat both others.
    results = [
        Result(winner, loser1, 20, 10),
        Result.bye(loser1, 30),
        Result(winner, loser2, 20, 10),
        Result.bye(loser2, 30),
    ]
    table = standings("abc", results, seed=5)
    assert {s.score for s in table} == {40}
    assert {s.opponents_average for s in table} == {40}
    assert table[0].player == winner
    assert table[0].head_to_head == 20


def test_seeded_coin_flip_settles_complete_ties():
    players = ["p", "q", "r", "s"]
    orders = {tuple(s.player for s in standings(players, [], seed=seed)) for seed in range(30)}
    assert len(orders) > 1, "the coin flip must depend on the seed"
    for seed in range(5):
        table = standings(players, [], seed=seed)
        assert [s.player for s in table] == sorted(players, key=lambda p: swiss._coin(seed, p))
        # same seed, any input order: the same ranking (it must not flicker between looks)
        assert table == standings(list(reversed(players)), [], seed=seed)
    assert [s.rank for s in table] == [1, 2, 3, 4]


def test_dropped_players_count_for_opponents_average_but_are_not_paired():
    results = [Result(1, 2, 30, 0), Result(3, 4, 30, 0), Result.bye(2, 30)]
    pairing = pair_round([1, 3, 4], results, seed=1, round_number=2)
    assert 2 not in {p for pair in pairing.pairs for p in pair} | {pairing.bye}
    table = {s.player: s for s in standings([1, 2, 3, 4], results, seed=1)}
    assert table[1].opponents_average == 30  # 2 dropped but counts
