"""Rotisserie draft rules: snake order, every card taken once, only the seat on turn picks."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cards.shipped import load_shipped_cubes
from bot.games.draft import bots
from bot.games.draft.rotisserie_rules import (
    NotYourTurn,
    RotisserieConfig,
    RotisserieState,
    deal,
    replay,
    seat_of_turn,
)
from bot.games.draft.rules import CardNotInPack, DraftComplete, DraftError

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def drafts(draw):
    seats = draw(st.integers(2, 8))
    picks = draw(st.integers(1, 12))
    spare = draw(st.integers(0, 10))
    duplicates = draw(st.integers(0, 3))
    cube = [f"Card {i}" for i in range(seats * picks + spare)] + ["Island"] * duplicates
    cards = draw(st.one_of(st.none(), st.integers(seats * picks, len(cube))))
    config = RotisserieConfig(seats, picks, cards)
    return config, deal(cube, config, draw(st.integers(0, 2**32))), random.Random(draw(st.integers(0, 2**32)))


def play(config, dealt, rng):
    state = RotisserieState.new(config, dealt)
    events = []
    while not state.is_complete():
        seat = state.on_turn()
        for other in range(config.seats):
            if other != seat:
                with pytest.raises(NotYourTurn):
                    state.take(other, state.cards[0])
        events.append(state.take(seat, rng.choice(state.cards)))
    return state, events


def test_snake_order_of_four_seats():
    assert [seat_of_turn(t, 4) for t in range(12)] == [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3]


@PROPERTY
@given(drafts())
def test_seats_pick_in_snake_order_and_each_makes_its_picks(draft):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    n = config.seats
    order = [e.seat for e in events]
    laps = [order[i : i + n] for i in range(0, len(order), n)]
    for lap, seats in enumerate(laps):
        assert seats == (list(range(n)) if lap % 2 == 0 else list(range(n))[::-1])
    assert Counter(order) == {seat: config.picks for seat in range(n)}
    for seat in range(n):
        assert [e.pick_number for e in events if e.seat == seat] == list(range(1, config.picks + 1))
    assert [e.next_seat for e in events] == order[1:] + [None]


@PROPERTY
@given(drafts())
def test_every_card_is_taken_once_or_left_on_offer(draft):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    pools = Counter(card for seat in range(config.seats) for card in state.pool(seat))
    assert pools == Counter(e.card for e in events)
    assert pools + Counter(state.cards) == Counter(dealt)
    assert len(dealt) == (config.cards or len(dealt))
    with pytest.raises(DraftComplete):
        state.take(0, dealt[0])


@PROPERTY
@given(drafts(), st.data())
def test_a_taken_card_cannot_be_taken_again(draft, data):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    cut = data.draw(st.integers(0, len(events) - 1))
    partial = replay(config, dealt, [(e.seat, e.card) for e in events[:cut]])
    gone = Counter(dealt) - Counter(partial.cards)
    for card in gone:
        if card not in partial.cards:
            with pytest.raises(CardNotInPack):
                partial.take(partial.on_turn(), card)


@PROPERTY
@given(drafts(), st.data())
def test_the_document_and_a_replay_give_the_same_state(draft, data):
    config, dealt, rng = draft
    state, events = play(config, dealt, rng)
    cut = data.draw(st.integers(0, len(events)))
    partial = replay(config, dealt, [(e.seat, e.card) for e in events[:cut]])
    assert RotisserieState.from_dict(partial.to_dict(), config) == partial
    for e in events[cut:]:
        partial.take(e.seat, e.card)
    assert partial == state


def test_the_seat_not_on_turn_is_told_how_many_turns_it_waits():
    state = RotisserieState.new(RotisserieConfig(3, 2), [f"C{i}" for i in range(6)])
    with pytest.raises(NotYourTurn, match="you pick in 2 turns"):
        state.take(2, "C0")
    state.take(0, "C0")
    assert [state.after(seat) for seat in range(3)] == [4, 0, 1]


def test_too_few_cards_for_the_table_are_refused():
    with pytest.raises(DraftError, match="too few"):
        RotisserieConfig(4, 45, cards=100).validate()
    with pytest.raises(DraftError, match="cube is too small"):
        deal([f"C{i}" for i in range(50)], RotisserieConfig(2, 30), 1)


def test_bots_draft_a_rotisserie_on_colour_from_the_whole_offer():
    """A bot seat of a Rotisserie picks as a booster draft's bot does, from every card on offer:
    after its first picks, nearly all its cards are in its pool's two colours."""
    entries = [{k: v for k, v in asdict(card).items() if v is not None}
               for card in load_shipped_cubes()["goldfish"].cards.cards]
    book = bots.CardBook(entries)
    config = RotisserieConfig(4, 30)
    state = RotisserieState.new(config, deal([entry["name"] for entry in entries], config, 3))
    while not state.is_complete():
        seat = state.on_turn()
        state.take(seat, bots.pick_for_seat(book, state.cards, state.pool(seat), draft_seed=3, seat=seat,
                                            picks_per_seat=config.picks, bot=True))
    for seat in range(config.seats):
        pool = state.pool(seat)
        pair = bots.deck_colours(book, pool)
        later = [book.profile(name) for name in pool[8:]]
        on_colour = sum(1 for card in later if not card.colours & ~pair) / len(later)
        assert on_colour >= 0.8, (seat, on_colour)


@PROPERTY
@given(drafts())
def test_a_pod_reads_it_as_one_pack_held_by_the_seat_on_turn(draft):
    """What the pods' use cases ask of a draft (the booster engine's queries): one pack, id 0,
    every card on offer, held by the seat on turn; the others wait on that seat."""
    config, dealt, rng = draft
    state = RotisserieState.new(config, dealt)
    while not state.is_complete():
        seat = state.on_turn()
        heads = state.heads()
        assert [s for s, head in enumerate(heads) if head is not None] == [seat] == state.waiting_on()
        offer = heads[seat]
        assert (offer.pack_id, offer.round, offer.cards, offer.picks_made) == (0, 0, state.cards, state.sequence)
        for other in range(config.seats):
            if other != seat:
                assert state.queue(other) == [] and state.head(other) is None
                assert state.next_pack_from(other) == (seat if state.after(other) is not None else None)
        event = state.pick(seat, 0, rng.choice(offer.cards))
        assert event.sequence == state.sequence and event.passed_to == state.on_turn()
        assert event.newly_available == ([] if state.is_complete() else [(state.on_turn(), 0)])
        assert state.picks_by_seat[seat] == event.pick_number
    assert state.heads() == [None] * config.seats and state.picks_remaining() == 0
    with pytest.raises(DraftComplete):
        state.pick(0, 0, dealt[0])
