"""Tests for best-of-three matches: results, tiebreakers, Swiss pods and team drafts
(bot/kit/match_results.py). The hand-computed examples write their figures out."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.kit import match_results as mr
from bot.kit.match_results import Match, MatchError, standings

THIRD = F(1, 3)

# --------------------------------------------------------------------------- results


def test_legal_results_are_those_of_a_best_of_three():
    legal = {(a, b) for a in range(4) for b in range(4) if mr.is_legal(a, b)}
    assert legal == {(2, 0), (2, 1), (1, 0), (1, 1), (0, 0), (0, 1), (1, 2), (0, 2)}
    assert mr.is_legal(2, 0, 1) and mr.is_legal(1, 1, 1) and mr.is_legal(0, 0, mr.MOST_DRAWN_GAMES)
    assert not mr.is_legal(2, 2) and not mr.is_legal(3, 0) and not mr.is_legal(1, 0, -1)
    assert not mr.is_legal(1, 0, mr.MOST_DRAWN_GAMES + 1)
    with pytest.raises(MatchError):
        Match("a", "b", 2, 2)
    with pytest.raises(MatchError):
        Match("a", "a", 2, 0)
    with pytest.raises(MatchError):
        Match("a", None, 2, 1)  # a bye is a 2–0 win, nothing else


@pytest.mark.parametrize(
    ("games", "points", "winner"),
    [
        ((2, 0), (3, 0), "a"),
        ((2, 1), (3, 0), "a"),
        ((1, 0), (3, 0), "a"),
        ((1, 1), (1, 1), None),
        ((0, 0), (1, 1), None),
        ((1, 2), (0, 3), "b"),
        ((0, 2), (0, 3), "b"),
    ],
)
def test_match_points_are_3_a_win_1_a_draw(games, points, winner):
    match = Match("a", "b", *games)
    assert match.match_points == points
    assert match.winner == winner


def test_a_bye_is_a_2_0_win():
    bye = Match.bye("a")
    assert bye.is_bye and bye.winner == "a" and (bye.games_a, bye.games_b) == (2, 0)
    assert mr.swiss_results([bye])[0].points_a == 3


# --------------------------------------------------------------------------- hand-computed standings


def eight_player_pod() -> list[Match]:
    """8 players, 3 rounds; D drops after round 1, so rounds 2 and 3 have a bye."""
    return [
        # round 1
        Match("A", "B", 2, 0),
        Match("C", "D", 2, 0),
        Match("E", "F", 1, 1),
        Match("G", "H", 0, 2),
        # round 2 (D dropped)
        Match("A", "C", 2, 1),
        Match("H", "E", 2, 0),
        Match("F", "B", 1, 2),
        Match.bye("G"),
        # round 3
        Match("A", "H", 1, 2),
        Match("C", "E", 2, 0),
        Match("B", "G", 0, 2),
        Match.bye("F"),
    ]


def test_eight_player_pod_with_a_drop_computed_by_hand():
    """Worked out on paper (MWP/GWP floored at 1/3 where marked *):

    player  record  MP  MWP          games won/played  GWP          opponents
    A       2–1–0   6   6/9  = 2/3   5/8               15/24 = 5/8  B, C, H
    B       1–2–0   3   3/9  = 1/3   2/7               6/21 → 1/3*  A, F, G
    C       2–1–0   6   2/3          5/7               15/21 = 5/7  D, A, E
    D       0–1–0   0   0 → 1/3*     0/2               0 → 1/3*     C
    E       0–2–1   1   1/9 → 1/3*   1/6               3/18 → 1/3*  F, H, C
    F       1–1–1   4   4/9          4/7 (bye 2/2)     12/21 = 4/7  E, B (bye)
    G       2–1–0   6   2/3          4/6 (bye 2/2)     12/18 = 2/3  H, B (bye)
    H       3–0–0   9   1            6/7               18/21 = 6/7  G, E, A

    OMW: A (1/3 + 2/3 + 1)/3 = 2/3; G (1 + 1/3)/2 = 2/3 (the bye is no opponent); C (1/3 + 2/3 +
    1/3)/3 = 4/9; H (2/3 + 1/3 + 2/3)/3 = 5/9. A and G tie on 6 MP and 2/3 OMW: G's game-win
    percentage, 2/3 with the bye's two games, beats A's 5/8 (without them G would have 2/4 and be
    behind A). C's game-win percentage, 5/7, is the best of the three, but C's opponents did worse:
    the opponents' match-win percentage comes first, so C is third of them."""
    table = standings("ABCDEFGH", eight_player_pod(), seed="pod")
    assert [s.player for s in table] == ["H", "G", "A", "C", "F", "B", "E", "D"]
    by = {s.player: s for s in table}
    assert {p: s.record for p, s in by.items()} == {
        "A": "2–1–0",
        "B": "1–2–0",
        "C": "2–1–0",
        "D": "0–1–0",
        "E": "0–2–1",
        "F": "1–1–1",
        "G": "2–1–0",
        "H": "3–0–0",
    }
    assert {p: s.match_points for p, s in by.items()} == dict(A=6, B=3, C=6, D=0, E=1, F=4, G=6, H=9)
    assert {p: s.match_win for p, s in by.items()} == dict(
        A=F(2, 3), B=THIRD, C=F(2, 3), D=THIRD, E=THIRD, F=F(4, 9), G=F(2, 3), H=1
    )
    assert {p: s.game_win for p, s in by.items()} == dict(
        A=F(5, 8), B=THIRD, C=F(5, 7), D=THIRD, E=THIRD, F=F(4, 7), G=F(2, 3), H=F(6, 7)
    )
    assert by["A"].opponents_match_win == F(2, 3)
    assert by["G"].opponents_match_win == F(2, 3)
    assert by["C"].opponents_match_win == F(4, 9)
    assert by["H"].opponents_match_win == F(5, 9)
    assert by["A"].opponents_game_win == (THIRD + F(5, 7) + F(6, 7)) / 3 == F(40, 63)
    assert by["G"].opponents_game_win == (F(6, 7) + THIRD) / 2 == F(25, 42)
    assert by["G"].byes == 1 and by["F"].byes == 1 and by["D"].byes == 0
    assert [s.rank for s in table] == list(range(1, 9))


def test_opponents_game_win_and_the_floor_decide_computed_by_hand():
    """6 players, 2 rounds:
    round 1: P–Q 2–0, R–S 2–0, T–U 2–1;  round 2: P–T 2–0, R–U 2–0, S–Q 2–0.

    player  record  MWP          GWP             opponents  OMW               OGW
    P       2–0–0   1            1               Q, T       (1/3+1/2)/2=5/12  (1/3 + 2/5)/2 = 11/30
    R       2–0–0   1            1               S, U       (1/2+1/3)/2=5/12  (1/2 + 1/3)/2 = 5/12
    S       1–1–0   1/2          2/4 = 1/2       R, Q       (1 + 1/3)/2=2/3
    T       1–1–0   1/2          2/5 (6/15)      U, P       (1/3 + 1)/2=2/3
    Q       0–2–0   0 → 1/3      0 → 1/3         P, S       (1 + 1/2)/2=3/4   (1 + 1/2)/2 = 3/4
    U       0–2–0   0 → 1/3      1/5 → 1/3       T, R       (1/2 + 1)/2=3/4   (2/5 + 1)/2 = 7/10

    R over P by OGW; S over T by GWP; Q and U tie on GWP only because of the floor (U won a game),
    and Q is ahead by OGW."""
    matches = [
        Match("P", "Q", 2, 0),
        Match("R", "S", 2, 0),
        Match("T", "U", 2, 1),
        Match("P", "T", 2, 0),
        Match("R", "U", 2, 0),
        Match("S", "Q", 2, 0),
    ]
    table = standings("PQRSTU", matches, seed=1)
    assert [s.player for s in table] == ["R", "P", "S", "T", "Q", "U"]
    by = {s.player: s for s in table}
    assert by["P"].opponents_match_win == by["R"].opponents_match_win == F(5, 12)
    assert (by["P"].opponents_game_win, by["R"].opponents_game_win) == (F(11, 30), F(5, 12))
    assert by["S"].opponents_match_win == by["T"].opponents_match_win == F(2, 3)
    assert (by["S"].game_win, by["T"].game_win) == (F(1, 2), F(2, 5))
    assert by["Q"].game_win == by["U"].game_win == THIRD
    assert (by["Q"].opponents_game_win, by["U"].opponents_game_win) == (F(3, 4), F(7, 10))


def test_complete_ties_go_by_the_seeded_coin():
    """P and R both beat Q and S 2–0: they tie on everything, as do Q and S."""
    matches = [Match("P", "Q", 2, 0), Match("R", "S", 2, 0), Match("P", "S", 2, 0), Match("R", "Q", 2, 0)]
    for seed in range(20):
        table = standings("PQRS", matches, seed=seed)
        top, bottom = [s.player for s in table[:2]], [s.player for s in table[2:]]
        assert set(top) == {"P", "R"} and set(bottom) == {"Q", "S"}
        assert [s.coin for s in table[:2]] == sorted(s.coin for s in table[:2])
        assert table == standings("SRQP", list(reversed(matches)), seed=seed)


def test_drawn_games_count_one_game_point():
    """2–0–1: 7 game points of 9 for the winner, 1 of 9 for the loser (floored to 1/3)."""
    by = {s.player: s for s in standings("ab", [Match("a", "b", 2, 0, drawn_games=1)], seed=0)}
    assert by["a"].game_win == F(7, 9) and by["b"].game_win == THIRD
    assert by["a"].record == "1–0–0"


def test_nothing_played_yet_is_the_floor():
    table = standings(["x", "y"], [], seed=0)
    assert all(
        (s.match_points, s.match_win, s.game_win, s.opponents_match_win, s.opponents_game_win)
        == (0, THIRD, THIRD, THIRD, THIRD)
        for s in table
    )


# --------------------------------------------------------------------------- properties

PLAYERS = list("ABCDEFGHIJ")


@st.composite
def pods(draw, min_players=2):
    """A pod's finished matches: random rounds of random pairs, results and byes (rematches
    allowed: the tiebreakers do not care how the pairs came about)."""
    players = PLAYERS[: draw(st.integers(min_players, len(PLAYERS)))]
    matches = []
    for _ in range(draw(st.integers(0, 4))):
        order = draw(st.permutations(players))
        for a, b in _pairs(order):
            if b is None:
                matches.append(Match.bye(a))
            else:
                won, lost = draw(st.sampled_from(mr.RESULTS))
                matches.append(Match(a, b, won, lost, draw(st.integers(0, 1))))
    return players, matches


def _pairs(order):
    """Neighbours in ``order`` paired; the last of an odd count gets the bye (None)."""
    it = iter(order)
    return [(a, next(it, None)) for a in it]


def raw(matches, player):
    """The unfloored figures, counted directly: (match points, rounds, game points, games, opponents)."""
    mp = rounds = gp = games = 0
    opponents = []
    for m in matches:
        for me, them, won, lost in ((m.a, m.b, m.games_a, m.games_b), (m.b, m.a, m.games_b, m.games_a)):
            if me != player:
                continue
            rounds += 1
            mp += 3 if won > lost else 1 if won == lost else 0
            gp += 3 * won + m.drawn_games
            games += won + lost + m.drawn_games
            if them is not None:
                opponents.append(them)
    return mp, rounds, gp, games, opponents


def floored(points, possible):
    return max(THIRD, F(points, possible)) if possible else THIRD


def mean(values):
    return sum(values, F(0)) / len(values) if values else THIRD


@settings(max_examples=200, deadline=None)
@given(pod=pods(), seed=st.integers(0, 1000))
def test_percentages_are_the_rules_figures_floored_at_a_third(pod, seed):
    players, matches = pod
    table = standings(players, matches, seed=seed)
    mwp, gwp = {}, {}
    for p in players:
        mp, rounds, gp, games, _ = raw(matches, p)
        mwp[p], gwp[p] = floored(mp, 3 * rounds), floored(gp, 3 * games)
    for s in table:
        opponents = raw(matches, s.player)[4]
        assert s.match_win == mwp[s.player]
        assert s.game_win == gwp[s.player]
        assert s.opponents_match_win == mean([mwp[o] for o in opponents])
        assert s.opponents_game_win == mean([gwp[o] for o in opponents])
        for figure in (s.match_win, s.game_win, s.opponents_match_win, s.opponents_game_win):
            assert THIRD <= figure <= 1


@settings(max_examples=200, deadline=None)
@given(pod=pods(), seed=st.integers(0, 1000), data=st.data())
def test_a_bye_counts_as_a_2_0_win_and_is_no_opponent(pod, seed, data):
    players, matches = pod
    lucky = data.draw(st.sampled_from(players))
    before = {s.player: s for s in standings(players, matches, seed=seed)}
    after = {s.player: s for s in standings(players, [*matches, Match.bye(lucky)], seed=seed)}
    # against a newcomer who is nobody's opponent otherwise: the same for the lucky player's own figures
    beaten = {s.player: s for s in standings([*players, "Z"], [*matches, Match(lucky, "Z", 2, 0)], seed=seed)}
    me, was, won = after[lucky], before[lucky], beaten[lucky]
    assert (me.match_points, me.wins, me.byes) == (was.match_points + 3, was.wins + 1, was.byes + 1)
    assert (me.losses, me.draws) == (was.losses, was.draws)
    assert (me.match_win, me.game_win) == (won.match_win, won.game_win)
    # no opponent: the lucky player's opponents' figures do not move
    assert (me.opponents_match_win, me.opponents_game_win) == (
        was.opponents_match_win,
        was.opponents_game_win,
    )
    # and nobody else's own figures do
    for p in players:
        if p != lucky:
            assert (after[p].match_points, after[p].game_win) == (before[p].match_points, before[p].game_win)


@settings(max_examples=200, deadline=None)
@given(pod=pods(), seed=st.integers(0, 1000), shuffle=st.randoms(use_true_random=False))
def test_standings_are_total_ordered_and_stable(pod, seed, shuffle):
    players, matches = pod
    table = standings(players, matches, seed=seed)
    assert [s.rank for s in table] == list(range(1, len(players) + 1))
    assert sorted(s.player for s in table) == sorted(players)
    keys = [
        (-s.match_points, -s.opponents_match_win, -s.game_win, -s.opponents_game_win, s.coin) for s in table
    ]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)  # the coin leaves no tie
    again_players, again_matches = players[:], matches[:]
    shuffle.shuffle(again_players)
    shuffle.shuffle(again_matches)
    assert standings(again_players, again_matches, seed=seed) == table
    assert all(s.wins + s.losses + s.draws == raw(matches, s.player)[1] for s in table)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 10), seed=st.integers(0, 10**6), drop_after=st.integers(1, 3))
def test_a_swiss_pod_never_pairs_a_rematch_and_plays_its_rounds(n, seed, drop_after):
    """A pod of n plays scheduled_rounds(n) Swiss rounds on match points, one player dropping
    after round ``drop_after``, fewer rounds only when the rest can play no more without a rematch."""
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n)]
    rounds = mr.scheduled_rounds(n)
    active, matches, met = players[:], [], Counter()
    number = 1
    while number <= rounds:
        if number > 1 and mr.playable_rounds(active, _paired(matches), limit=1) == 0:
            break
        pairing = mr.pair_round(active, matches, seed=seed, round_number=number, rounds=rounds)
        assert pairing.rematches == 0
        seen = [p for pair in pairing.pairs for p in pair] + ([pairing.bye] if pairing.bye else [])
        assert sorted(seen) == sorted(active)
        for a, b in pairing.pairs:
            met[frozenset((a, b))] += 1
            matches.append(Match(a, b, *rng.choice(mr.RESULTS)))
        if pairing.bye is not None:
            matches.append(Match.bye(pairing.bye))
        if number == drop_after and len(active) > 2:
            active.remove(rng.choice(active))
        number += 1
    assert max(met.values(), default=1) == 1
    assert len(standings(players, matches, seed=seed)) == n


def _paired(matches):
    return [(m.a, m.b) for m in matches]


def test_scheduled_rounds_are_three_fewer_for_small_pods():
    assert [mr.scheduled_rounds(n) for n in range(1, 10)] == [0, 1, 3, 3, 3, 3, 3, 3, 3]
    assert mr.scheduled_rounds(8, wanted=5) == 5
    assert mr.scheduled_rounds(4, wanted=5) == 3


# --------------------------------------------------------------------------- team drafts


def test_teams_sit_alternately():
    assert mr.split_teams(["s1", "s2", "s3", "s4", "s5", "s6"]) == (("s1", "s3", "s5"), ("s2", "s4", "s6"))
    with pytest.raises(MatchError):
        mr.split_teams(["a", "b", "c"])


def test_three_v_three_plays_every_cross_pair_in_three_rounds():
    first, second = mr.split_teams("ABCDEF")
    assert mr.cross_rounds(first, second) == [
        (("A", "B"), ("C", "D"), ("E", "F")),
        (("A", "D"), ("C", "F"), ("E", "B")),
        (("A", "F"), ("C", "B"), ("E", "D")),
    ]
    assert len(mr.cross_rounds(*mr.split_teams("ABCDEFGH"))) == 3  # 4 v 4: three of the four rounds
    with pytest.raises(MatchError):
        mr.cross_rounds("AB", "CD", rounds=3)
    with pytest.raises(MatchError):
        mr.cross_rounds("ABC", "DE")


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 8), data=st.data())
def test_cross_pairings_meet_each_cross_pair_at_most_once(n, data):
    first, second = [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]
    rounds = data.draw(st.integers(1, n))
    schedule = mr.cross_rounds(first, second, rounds)
    assert len(schedule) == rounds
    met = Counter()
    for pairs in schedule:
        everyone = [p for pair in pairs for p in pair]
        assert len(everyone) == len(set(everyone)) == 2 * n  # nobody twice in a round, nobody out
        for a, b in pairs:
            assert a in first and b in second
            met[(a, b)] += 1
    assert max(met.values()) == 1
    if rounds == n:
        assert set(met) == set(itertools.product(first, second))


def test_team_score_counts_match_wins_and_byes_for_a_dropped_opponent():
    first, second = mr.split_teams("ABCDEF")  # ACE v BDF
    round_1, round_2, _ = mr.cross_rounds(first, second)
    matches = [Match(a, b, *games) for (a, b), games in zip(round_1, [(2, 0), (1, 2), (1, 1)], strict=True)]
    assert mr.team_score(first, second, matches) == mr.TeamScore((1, 1), None)  # a draw so far
    played, byes = mr.team_round(round_2, dropped=["F"])  # F dropped: C, who was to play F, gets a bye
    assert played == [("A", "D"), ("E", "B")] and byes == ["C"]
    matches += [Match("A", "D", 0, 2), Match("E", "B", 2, 1), Match.bye("C")]
    assert mr.team_score(first, second, matches) == mr.TeamScore((3, 2), 0)
    with pytest.raises(MatchError):
        mr.team_score(first, second, [Match("A", "C", 2, 0)])
