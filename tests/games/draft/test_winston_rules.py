"""Winston draft rules: every card in one place, turns alternate, a pile is seen only by its looker."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.draft.rules import DraftComplete, DraftError
from bot.games.draft.winston_rules import (
    PASS,
    TAKE,
    NotYourTurn,
    OnlyChoice,
    WinstonConfig,
    WinstonState,
    deal,
    replay,
)

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def drafts(draw):
    config = WinstonConfig(draw(st.integers(6, 60)))
    cube = [f"Card {i}" for i in range(config.cards + draw(st.integers(0, 5)))]
    return config, deal(cube, config, draw(st.integers(0, 2**32))), random.Random(draw(st.integers(0, 2**32)))


def places(state: WinstonState) -> Counter:
    return Counter(state.deck) + sum((Counter(p) for p in state.piles), Counter()) + sum(
        (Counter(p) for p in state.pools), Counter())


def cards_in(view) -> set[str]:
    return set(view.looking_at or ()) | set(view.pool)


def play(config, dealt, rng, check=None):
    state = WinstonState.new(config, dealt)
    moves = []
    while not state.is_complete():
        seat = state.on_turn()
        if check:
            check(state, seat)
        with pytest.raises(NotYourTurn):
            state.act(1 - seat, TAKE)
        action = TAKE if not state.can_pass() or rng.random() < 0.4 else PASS
        moves.append(state.act(seat, action))
    return state, moves


@PROPERTY
@given(drafts())
def test_every_card_is_in_exactly_one_place_and_ends_in_a_pool(draft):
    config, dealt, rng = draft

    def check(state, _seat):
        assert places(state) == Counter(dealt)

    state, _ = play(config, dealt, rng, check)
    assert not state.deck and not any(state.piles)
    assert Counter(state.pools[0]) + Counter(state.pools[1]) == Counter(dealt)
    with pytest.raises(DraftComplete):
        state.act(0, TAKE)


@PROPERTY
@given(drafts())
def test_a_pile_is_seen_only_by_its_looker(draft):
    config, dealt, rng = draft

    def check(state, seat):
        looker, other = state.view(seat), state.view(1 - seat)
        assert looker.looking_at == tuple(state.piles[state.looking]) and looker.looking_at
        assert other.looking_at is None
        hidden = set(state.deck) | {card for pile in state.piles for card in pile} | set(state.pools[seat])
        assert not cards_in(other) & (hidden - set(state.pools[1 - seat]))
        assert other.pile_sizes == looker.pile_sizes == tuple(len(p) for p in state.piles)

    play(config, dealt, rng, check)


@PROPERTY
@given(drafts())
def test_turns_alternate_and_each_turn_gains_a_card(draft):
    config, dealt, rng = draft
    _, moves = play(config, dealt, rng)
    ends = [m for m in moves if m.gained]
    assert all(m.next_seat == m.seat for m in moves if not m.gained)
    assert [m.seat for m in ends] == [i % 2 for i in range(len(ends))]
    assert all(m.drew == (m.action == PASS) for m in ends)
    assert all(len(m.gained) == 1 for m in ends if m.drew)


@PROPERTY
@given(drafts(), st.data())
def test_the_document_and_a_replay_give_the_same_state(draft, data):
    config, dealt, rng = draft
    state, moves = play(config, dealt, rng)
    cut = data.draw(st.integers(0, len(moves)))
    partial = replay(config, dealt, [(m.seat, m.action) for m in moves[:cut]])
    assert WinstonState.from_dict(partial.to_dict()) == partial
    for m in moves[cut:]:
        partial.act(m.seat, m.action)
    assert partial == state


def test_passing_adds_a_card_and_the_last_pass_draws_the_top_card():
    state = WinstonState.new(WinstonConfig(8), [f"C{i}" for i in range(8)])
    assert state.piles == [["C7"], ["C6"], ["C5"]] and state.deck == ["C0", "C1", "C2", "C3", "C4"]
    state.act(0, PASS)
    state.act(0, PASS)
    move = state.act(0, PASS)
    assert move.drew and move.gained == ("C1",)
    assert state.piles == [["C7", "C4"], ["C6", "C3"], ["C5", "C2"]] and state.on_turn() == 1
    move = state.act(1, TAKE)
    assert move.gained == ("C7", "C4") and state.piles[0] == ["C0"] and not state.deck


def test_the_last_pile_with_an_empty_deck_must_be_taken():
    state = WinstonState.new(WinstonConfig(6), [f"C{i}" for i in range(6)])
    for seat in (0, 1, 0):
        state.act(seat, TAKE)  # pile 0 each time, refilled from the deck: C2, C1, then C0
    assert not state.deck
    state.act(1, TAKE)  # pile 0 again, and nothing is left to refill it
    state.act(0, PASS)  # pile 1 passed, no card to add, on to pile 2
    with pytest.raises(OnlyChoice):
        state.act(0, PASS)
    assert state.act(0, TAKE).gained == ("C3",)
    state.act(1, TAKE)
    assert state.is_complete()


def test_three_piles_need_six_cards_at_least():
    with pytest.raises(DraftError, match="between 6 and 720"):
        WinstonConfig(5).validate()
