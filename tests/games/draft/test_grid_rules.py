"""Grid draft rules: a row or a column of what is left, each seat once a grid, every card once."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.draft.grid_rules import (
    LINES,
    EmptyLine,
    GridConfig,
    GridState,
    NotYourTurn,
    deal,
    line_name,
    replay,
)
from bot.games.draft.rules import DraftComplete, DraftError

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def drafts(draw):
    config = GridConfig(draw(st.integers(2, 3)), draw(st.integers(1, 8)))
    cube = [f"Card {i}" for i in range(config.cards_needed + draw(st.integers(0, 5)))] + ["Island"] * draw(st.integers(0, 3))
    return config, deal(cube, config, draw(st.integers(0, 2**32))), random.Random(draw(st.integers(0, 2**32)))


def play(config, dealt, rng):
    state = GridState.new(config, dealt)
    events = []
    while not state.is_complete():
        seat = state.on_turn()
        legal = state.legal_lines()
        assert legal, "the seat on turn always has a line to take"
        for line in range(len(LINES)):
            if line not in legal:
                with pytest.raises(EmptyLine):
                    state.take(seat, line)
        for other in set(range(config.seats)) - {seat}:
            with pytest.raises(NotYourTurn):
                state.take(other, legal[0])
        before = list(state.grid)
        line = rng.choice(legal)
        event = state.take(seat, line)
        assert list(event.cards) == [before[c] for c in LINES[line] if before[c] is not None]
        events.append(event)
    return state, events


@PROPERTY
@given(drafts())
def test_each_seat_takes_one_line_per_grid_and_the_first_seat_rotates(draft):
    config, dealt, rng = draft
    _, events = play(config, dealt, rng)
    assert len(events) == config.grids * config.seats
    for grid in range(config.grids):
        turns = [e.seat for e in events if e.grid == grid]
        assert turns == [(grid + k) % config.seats for k in range(config.seats)]
        assert all(1 <= len(e.cards) <= 3 for e in events if e.grid == grid)


@PROPERTY
@given(drafts())
def test_every_card_is_taken_once_or_set_aside(draft):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    pools = Counter(card for pool in state.pools for card in pool)
    assert pools == Counter(card for e in events for card in e.cards)
    aside = Counter(card for grid in range(config.grids) for card in state.set_aside(grid))
    assert pools + aside == Counter(card for grid in dealt for card in grid)
    # Two players leave 3 or 4 cards of a grid; three players (a refill of 3) leave 3 to 6.
    for grid in range(config.grids):
        left = len(state.set_aside(grid))
        assert (3 <= left <= 4) if config.seats == 2 else (3 <= left <= 6)
    with pytest.raises(DraftComplete):
        state.take(0, 0)


@PROPERTY
@given(drafts(), st.data())
def test_the_document_and_a_replay_give_the_same_state(draft, data):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    cut = data.draw(st.integers(0, len(events)))
    partial = replay(config, dealt, [(e.seat, e.line) for e in events[:cut]])
    assert GridState.from_dict(partial.to_dict(), config, dealt) == partial
    for e in events[cut:]:
        partial.take(e.seat, e.line)
    assert partial == state


def test_lines_are_columns_then_rows_as_draftmancer_numbers_them():
    assert LINES[0] == (0, 3, 6) and LINES[5] == (6, 7, 8)
    assert [line_name(line) for line in (0, 2, 3, 5)] == ["column 1", "column 3", "row 1", "row 3"]


def test_a_line_already_taken_is_refused_and_a_crossing_line_gives_what_is_left():
    config = GridConfig(2, 1)
    state = GridState.new(config, [[f"C{i}" for i in range(9)]])
    assert state.take(0, 3).cards == ("C0", "C1", "C2")  # row 1
    with pytest.raises(EmptyLine, match="Row 1 has no card left"):
        state.take(1, 3)
    assert state.take(1, 0).cards == ("C3", "C6")  # column 1, without its top card
    assert state.is_complete() and sorted(state.set_aside(0)) == ["C4", "C5", "C7", "C8"]


def test_three_players_refill_the_first_line_taken():
    state = GridState.new(GridConfig(3, 1), [[f"C{i}" for i in range(12)]])
    state.take(0, 0)  # column 1: C0, C3, C6
    assert state.grid == ["C9", "C1", "C2", "C10", "C4", "C5", "C11", "C7", "C8"]


def test_a_table_of_four_or_a_small_cube_is_refused():
    with pytest.raises(DraftError, match="2 or 3 players"):
        GridConfig(4).validate()
    with pytest.raises(DraftError, match="cube is too small"):
        deal([f"C{i}" for i in range(100)], GridConfig(3, 18), 1)
