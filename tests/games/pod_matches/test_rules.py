"""The pod's engine: Swiss pods and team pods played out with any results (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.pod_matches import rules
from bot.kit.match_results import RESULTS


def play_out(state: rules.PodState, outcomes, drops) -> rules.PodState:
    while state.rounds_left() > 0:
        state = rules.pair_next(state)
        active = state.active()
        seen = [p for pairing in state.current() for p in pairing.players()]
        assert sorted(seen) == sorted(active)  # everyone still in plays once (or has the bye)
        for pairing in state.current():
            if pairing.b is not None:
                state = rules.record(state, pairing.key, (*outcomes.draw(st.sampled_from(RESULTS)), 0))
        assert state.round_complete()
        if drops and len(state.active()) > 2:
            state = rules.drop(state, drops.pop())
    return rules.finish(state)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 12), seed=st.integers(0, 2**31 - 1), data=st.data())
def test_a_swiss_pod_never_rematches_and_ranks_everyone_once(players, seed, data):
    seats = list(range(1, players + 1))
    drops = data.draw(st.lists(st.sampled_from(seats), max_size=2, unique=True))
    state = play_out(rules.new_pod(seats, stand_ins={}, bots=[], seed=seed), data, list(drops))
    met = [frozenset(p.players()) for rnd in state.played for p in rnd if p.b is not None]
    assert len(met) == len(set(met))
    assert state.round <= state.rounds == min(3, players - 1 if players % 2 == 0 else players)
    assert sorted(s.player for s in state.standings()) == seats
    assert [s.rank for s in state.standings()] == list(range(1, players + 1))


@settings(max_examples=30, deadline=None)
@given(size=st.integers(1, 4), seed=st.integers(0, 1000), data=st.data())
def test_a_team_pod_pairs_only_across_and_never_twice(size, seed, data):
    seats = list(range(1, 2 * size + 1))
    state = play_out(rules.new_pod(seats, stand_ins={}, bots=[], seed=seed, kind=rules.TEAMS), data, [])
    first, second = state.teams
    assert first == seats[0::2] and second == seats[1::2]
    met = [frozenset(p.players()) for rnd in state.played for p in rnd]
    assert len(met) == len(set(met)) == size * min(3, size)
    assert all(len(pair & set(first)) == 1 for pair in met)


def test_bots_seats_sit_out_unless_a_stand_in_plays_them():
    state = rules.new_pod([1, -1, 2, -2], stand_ins={-1: 9}, bots=[-1, -2], seed=1)
    assert state.entrants == [1, 9, 2]
    with pytest.raises(rules.PodError, match="same size"):
        rules.new_pod([1, -1, 2, -2], stand_ins={-1: 9}, bots=[-1, -2], seed=1, kind=rules.TEAMS)
    with pytest.raises(rules.PodError, match="best-of-three"):
        rules.check_result(2, 2)
