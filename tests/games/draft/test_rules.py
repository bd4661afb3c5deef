"""Tests for the draft rules engine (bot/games/draft/rules.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.draft.rules import (
    MAX_SEATS,
    MIN_SEATS,
    CardNotInPack,
    DraftComplete,
    DraftConfig,
    DraftError,
    DraftState,
    GainEvent,
    NotYourPack,
    PackNotAtHead,
    PackState,
    PickEvent,
    cards_dealt,
    direction_name,
    generate_packs,
    pass_direction,
    replay,
)

# --------------------------------------------------------------------------- helpers


def make_cube(size: int) -> list[str]:
    return [f"card{i:04d}" for i in range(size)]


def labelled_packs(config: DraftConfig) -> list[list[str]]:
    """Packs whose card names say where they came from: 'p{pack}c{i}'."""
    return [[f"p{p}c{i}" for i in range(config.pack_size)] for p in range(config.total_packs)]


def new_state(seats: int, packs: int = 2, pack_size: int = 15) -> DraftState:
    config = DraftConfig(seats=seats, packs=packs, pack_size=pack_size)
    return DraftState.new(config, labelled_packs(config))


def pick_first(state: DraftState, seat: int) -> PickEvent:
    head = state.head(seat)
    assert head is not None, f"seat {seat} has no head"
    return state.pick(seat, head.pack_id, head.cards[0])


def run_in_seat_order(state: DraftState) -> list[PickEvent]:
    """Finish the draft, always letting the lowest waiting seat take its first card."""
    events = []
    while not state.is_complete():
        events.append(pick_first(state, state.waiting_on()[0]))
    return events


def snapshot(state: DraftState) -> tuple:
    return (
        [(p.pack_id, p.round, p.origin, tuple(p.cards), p.picks_made, p.arrived) for p in state.packs],
        tuple(state.picks_by_seat),
        state.sequence,
    )


# --------------------------------------------------------------------------- config


def test_defaults() -> None:
    config = DraftConfig(seats=8)
    assert (config.packs, config.pack_size) == (2, 15)
    assert config.cards_needed == 8 * 2 * 15
    assert (MIN_SEATS, MAX_SEATS) == (2, 16)


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        (DraftConfig(seats=1), "between 2 and 16 players (got 1)"),
        (DraftConfig(seats=17), "between 2 and 16 players (got 17)"),
        (DraftConfig(seats=4, packs=0), "Packs per player must be between 1 and 5 (got 0)"),
        (DraftConfig(seats=4, packs=6), "Packs per player must be between 1 and 5 (got 6)"),
        (DraftConfig(seats=4, pack_size=0), "Pack size must be between 1 and 30 cards (got 0)"),
        (DraftConfig(seats=4, pack_size=31), "Pack size must be between 1 and 30 cards (got 31)"),
        (DraftConfig(seats=True), "players"),  # type: ignore[arg-type]
    ],
)
def test_config_validation_messages(config: DraftConfig, fragment: str) -> None:
    with pytest.raises(DraftError) as info:
        config.validate()
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "config",
    [
        DraftConfig(seats=2, packs=1, pack_size=1),
        DraftConfig(seats=16, packs=5, pack_size=30),
        DraftConfig(seats=8),
    ],
)
def test_config_bounds_accepted(config: DraftConfig) -> None:
    config.validate()
    config.validate(cube_size=config.cards_needed)


def test_cube_too_small() -> None:
    config = DraftConfig(seats=8, packs=3, pack_size=15)  # needs 360
    with pytest.raises(DraftError, match=r"too small.*need 360 cards, but the cube has 359"):
        config.validate(cube_size=359)
    with pytest.raises(DraftError, match="too small"):
        generate_packs(make_cube(359), config, seed=1)
    assert len(generate_packs(make_cube(360), config, seed=1)) == 24


# --------------------------------------------------------------------------- pack generation


def test_generate_packs_deterministic_and_seed_dependent() -> None:
    config = DraftConfig(seats=6, packs=3, pack_size=15)
    cube = make_cube(540)
    a = generate_packs(cube, config, seed=42)
    b = generate_packs(list(cube), config, seed=42)
    c = generate_packs(cube, config, seed=43)
    assert a == b
    assert a != c
    assert cube == make_cube(540), "the cube list must not be shuffled in place"


def test_generate_packs_deals_consecutive_slices_of_seeded_shuffle() -> None:
    config = DraftConfig(seats=3, packs=2, pack_size=4)
    cube = make_cube(30)
    packs = generate_packs(cube, config, seed=7)
    deck = list(cube)
    random.Random(7).shuffle(deck)
    assert packs == [deck[i * 4 : (i + 1) * 4] for i in range(6)]
    assert len({c for p in packs for c in p}) == 24


def test_pack_ids_round_and_origin() -> None:
    state = new_state(seats=5, packs=3, pack_size=2)
    for p in state.packs:
        assert p.pack_id == p.round * 5 + p.origin
    assert [p.round for p in state.packs[:5]] == [0] * 5
    assert [p.origin for p in state.packs[5:10]] == [0, 1, 2, 3, 4]


def test_new_rejects_wrong_pack_shapes() -> None:
    config = DraftConfig(seats=2, packs=1, pack_size=2)
    with pytest.raises(DraftError, match="Expected 2 packs"):
        DraftState.new(config, [["a", "b"]])
    with pytest.raises(DraftError, match="every pack must have 2"):
        DraftState.new(config, [["a", "b"], ["c"]])


# --------------------------------------------------------------------------- directions


def test_pass_direction_alternates_starting_left() -> None:
    assert [pass_direction(r) for r in range(5)] == [1, -1, 1, -1, 1]
    assert [direction_name(r) for r in range(3)] == ["left", "right", "left"]


def test_holder_formula() -> None:
    pack = PackState(pack_id=0, round=0, origin=3, cards=["x"], picks_made=2, arrived=0)
    assert pack.holder(5) == 0  # 3 + 2 = 5 -> 0 (left)
    pack = PackState(pack_id=5, round=1, origin=1, cards=["x"], picks_made=3, arrived=0)
    assert pack.holder(5) == 3  # 1 - 3 = -2 -> 3 (right)


def test_three_pack_draft_passes_left_right_left() -> None:
    n = 4
    state = new_state(seats=n, packs=3, pack_size=6)
    events = run_in_seat_order(state)
    seen_rounds = set()
    for e in events:
        seen_rounds.add(e.round)
        if e.passed_to is not None:
            step = 1 if e.round in (0, 2) else -1
            assert e.passed_to == (e.seat + step) % n, e
    assert seen_rounds == {0, 1, 2}
    # And the concrete neighbours: seat 0 passes to 1 in pack 1 and 3, to 3 in pack 2.
    first = {e.round: e for e in events if e.seat == 0 and e.pick_number == 1}
    assert (first[0].passed_to, first[1].passed_to, first[2].passed_to) == (1, 3, 1)


# --------------------------------------------------------------------------- queue


def test_queue_orders_by_arrival_not_pack_id() -> None:
    # 3 seats, left = +1. Seat 2 receives pack 1 (from seat 1) before pack 0 (via seat 1).
    state = new_state(seats=3, packs=1, pack_size=3)
    state.pick(1, 1, "p1c0")  # seq 1: pack 1 -> seat 2
    state.pick(0, 0, "p0c0")  # seq 2: pack 0 -> seat 1 (which has nothing else)
    state.pick(1, 0, "p0c1")  # seq 3: pack 0 -> seat 2
    assert [p.pack_id for p in state.queue(2)] == [2, 1, 0]  # arrivals 0, 1, 3
    assert [p.arrived for p in state.queue(2)] == [0, 1, 3]
    state.pick(2, 2, "p2c0")
    assert [p.pack_id for p in state.queue(2)] == [1, 0]
    assert state.head(2).pack_id == 1  # type: ignore[union-attr]


def _early_round_one_pack() -> DraftState:
    """3 seats, 2 packs of 2. Seat 0 races ahead and passes its round-1 pack to seat 2 while
    seat 2 still has a round-0 pick to make that has not reached it yet."""
    state = new_state(seats=3, packs=2, pack_size=2)
    state.pick(0, 0, "p0c0")  # seq 1: pack 0 -> seat 1
    state.pick(2, 2, "p2c0")  # seq 2: pack 2 -> seat 0
    state.pick(0, 2, "p2c1")  # seq 3: pack 2 empty; seat 0 finished round 0, opens pack 3
    assert state.packs[3].arrived == 3
    state.pick(0, 3, "p3c0")  # seq 4: round 1 passes right -> seat 2
    return state


def test_later_round_pack_waits_until_round_finished() -> None:
    state = _early_round_one_pack()
    # Seat 2 holds the round-1 pack but owes a round-0 pick (pack 1, still at seat 1).
    assert state.current_round(2) == 0
    assert [p.pack_id for p in state.queue(2)] == [3]
    assert state.head(2) is None
    assert 2 not in state.waiting_on()
    with pytest.raises(PackNotAtHead):
        state.pick(2, 3, "p3c1")

    event = state.pick(1, 1, "p1c0")  # seq 5: pack 1 -> seat 2, arrives after pack 3
    assert event.passed_to == 2
    assert (2, 1) in event.newly_available
    # Ordered by round first, even though pack 3 arrived earlier (seq 4 < 5).
    assert [(p.pack_id, p.arrived) for p in state.queue(2)] == [(1, 5), (3, 4)]
    assert state.head(2).pack_id == 1  # type: ignore[union-attr]
    with pytest.raises(PackNotAtHead, match="pick from pack 1 first"):
        state.pick(2, 3, "p3c1")

    event = state.pick(2, 1, "p1c1")  # finishes seat 2's round 0
    assert state.current_round(2) == 1
    # Seat 2 now has its own round-1 pack (arrived now) and pack 3 (arrived earlier).
    assert [p.pack_id for p in state.queue(2)] == [3, 5]
    assert event.newly_available == [(2, 3)]
    state.pick(2, 3, "p3c1")


def test_own_later_round_pack_not_opened_before_previous_round_done() -> None:
    state = new_state(seats=2, packs=2, pack_size=2)
    # Pack 2 (round 1, origin 0) sits with seat 0 but is not opened yet.
    assert state.packs[2].holder(2) == 0
    assert [p.pack_id for p in state.queue(0)] == [0]
    state.pick(0, 0, "p0c0")
    assert state.queue(0) == []
    with pytest.raises(PackNotAtHead):
        state.pick(0, 2, "p2c0")
    state.pick(1, 1, "p1c0")  # -> seat 0
    event = state.pick(0, 1, "p1c1")  # seat 0's last round-0 pick opens pack 2
    assert event.passed_to is None
    assert state.packs[2].arrived == event.sequence
    assert event.newly_available == [(0, 2)]
    assert state.head(0).pack_id == 2  # type: ignore[union-attr]


def test_only_head_may_be_picked() -> None:
    state = new_state(seats=3, packs=1, pack_size=3)
    state.pick(2, 2, "p2c0")  # -> seat 0, behind seat 0's own pack 0
    assert [p.pack_id for p in state.queue(0)] == [0, 2]
    before = snapshot(state)
    with pytest.raises(PackNotAtHead, match="pick from pack 0 first"):
        state.pick(0, 2, "p2c1")
    assert snapshot(state) == before
    state.pick(0, 0, "p0c0")
    state.pick(0, 2, "p2c1")


# --------------------------------------------------------------------------- errors


def test_bad_picks_raise_the_right_errors_and_change_nothing() -> None:
    state = new_state(seats=3, packs=1, pack_size=2)
    before = snapshot(state)
    with pytest.raises(NotYourPack):
        state.pick(0, 1, "p1c0")  # seat 1's pack
    with pytest.raises(NotYourPack):
        state.pick(0, 99, "p0c0")  # no such pack
    with pytest.raises(CardNotInPack):
        state.pick(0, 0, "p1c0")
    with pytest.raises(DraftError, match="no seat 3"):
        state.pick(3, 0, "p0c0")
    assert snapshot(state) == before

    state.pick(0, 0, "p0c0")
    with pytest.raises(NotYourPack):
        state.pick(0, 0, "p0c1")  # already passed on to seat 1
    state.pick(1, 1, "p1c0")
    state.pick(1, 0, "p0c1")
    with pytest.raises(NotYourPack, match="empty"):
        state.pick(2, 0, "p0c1")
    for e in run_in_seat_order(state):
        assert e.round == 0
    with pytest.raises(DraftComplete):
        state.pick(0, 0, "p0c0")


def test_card_already_taken_is_card_not_in_pack() -> None:
    state = new_state(seats=2, packs=1, pack_size=3)
    state.pick(0, 0, "p0c1")
    state.pick(1, 1, "p1c0")
    with pytest.raises(CardNotInPack, match="p0c1 is not in that pack"):
        state.pick(1, 0, "p0c1")


def test_finished_seat_cannot_pick() -> None:
    state = new_state(seats=2, packs=1, pack_size=1)
    state.pick(0, 0, "p0c0")
    with pytest.raises(NotYourPack, match="all your picks"):
        state.pick(0, 1, "p1c0")


def test_errors_are_value_errors() -> None:
    for cls in (NotYourPack, CardNotInPack, PackNotAtHead, DraftComplete):
        assert issubclass(cls, DraftError)
    assert issubclass(DraftError, ValueError)


# --------------------------------------------------------------------------- events


def test_pick_event_fields() -> None:
    state = new_state(seats=4, packs=2, pack_size=3)
    e = state.pick(2, 2, "p2c1")
    expected = (2, 2, 0, 1, "p2c1", 1, 3)
    assert (e.seat, e.pack_id, e.round, e.pick_number, e.card, e.sequence, e.passed_to) == expected
    # Seat 3 still has its own pack at its head, so it is not "newly" available; seat 2 has nothing.
    assert e.newly_available == []
    assert state.packs[2].cards == ["p2c0", "p2c2"]
    e = state.pick(3, 3, "p3c0")
    assert e.passed_to == 0 and e.sequence == 2
    e = state.pick(3, 2, "p2c0")
    assert (e.pick_number, e.passed_to) == (2, 0)


def test_newly_available_includes_receiver_that_was_idle() -> None:
    state = new_state(seats=2, packs=1, pack_size=2)
    state.pick(0, 0, "p0c0")  # seat 1 still has its own pack: no change of head
    e = state.pick(1, 1, "p1c0")
    # Seat 1's next head is pack 0 (passed earlier); seat 0 was idle and now gets pack 1.
    assert e.newly_available == [(1, 0), (0, 1)]


def test_a_waiting_seat_waits_on_the_nearest_upstream_holder() -> None:
    state = new_state(seats=4, packs=2, pack_size=3)  # pack 1 passes left: seat 3 passes to seat 0
    assert state.next_pack_from(0) is None  # it has a pack
    pick_first(state, 0)
    assert state.head(0) is None and state.next_pack_from(0) == 3
    pick_first(state, 3)  # pack 3 reaches seat 0
    assert state.next_pack_from(0) is None
    pick_first(state, 0)  # pack 3 moves on; seat 3 holds nothing that reaches seat 0 now
    assert state.next_pack_from(0) == 2
    pick_first(state, 2)  # pack 2 reaches seat 3, one pass from seat 0
    assert state.next_pack_from(0) == 3


def test_round_two_waits_the_other_way_and_a_finished_seat_waits_on_nobody() -> None:
    state = new_state(seats=3, packs=2, pack_size=1)
    pick_first(state, 0)  # round 1 over for seat 0: its own round-2 pack opens
    pick_first(state, 0)  # seat 0 is done
    assert state.head(0) is None and state.next_pack_from(0) is None
    state = new_state(seats=3, packs=2, pack_size=2)
    for seat in (0, 1, 2, 1, 2, 0):  # round 1: two cards each
        pick_first(state, seat)
    pick_first(state, 1)  # round 2 passes right: seat 1's pack goes to seat 0
    assert state.head(1) is None and state.next_pack_from(1) == 2


def test_sequence_and_total_picks() -> None:
    state = new_state(seats=3, packs=2, pack_size=4)
    assert state.total_picks() == 24
    events = run_in_seat_order(state)
    assert [e.sequence for e in events] == list(range(1, 25))
    assert state.sequence == 24 and state.is_complete() and state.waiting_on() == []
    assert all(state.head(s) is None for s in range(3))


def test_copy_is_independent() -> None:
    state = new_state(seats=2, packs=1, pack_size=2)
    clone = state.copy()
    assert clone == state
    clone.pick(0, 0, "p0c0")
    assert state.packs[0].cards == ["p0c0", "p0c1"] and state.sequence == 0


def test_state_rebuilt_from_stored_fields() -> None:
    state = _early_round_one_pack()
    stored = snapshot(state)
    rebuilt = DraftState(
        config=DraftConfig(seats=3, packs=2, pack_size=2),
        packs=[
            PackState(pid, rnd, origin, list(cards), made, arr)
            for pid, rnd, origin, cards, made, arr in stored[0]
        ],
        picks_by_seat=list(stored[1]),
        sequence=stored[2],
    )
    assert rebuilt == state
    for seat in range(3):
        assert rebuilt.queue(seat) == state.queue(seat)
    assert rebuilt.waiting_on() == state.waiting_on()


def test_replay_rejects_illegal_pick() -> None:
    config = DraftConfig(seats=2, packs=1, pack_size=2)
    with pytest.raises(NotYourPack):
        replay(config, labelled_packs(config), [(0, 1, "p1c0")])


# --------------------------------------------------------------------------- properties


class Model:
    """Independent reference for the queue: explicit per-seat lists of (round, arrival, pack)."""

    def __init__(self, config: DraftConfig) -> None:
        self.config = config
        self.queues: list[list[tuple[int, int, int]]] = [[(0, 0, s)] for s in range(config.seats)]
        self.picks = [0] * config.seats
        self.left = [config.pack_size] * config.total_packs

    def order(self, seat: int) -> list[int]:
        return [pid for _, _, pid in sorted(self.queues[seat])]

    def head(self, seat: int) -> int | None:
        rnd = self.picks[seat] // self.config.pack_size
        for r, _, pid in sorted(self.queues[seat]):
            if r == rnd:
                return pid
        return None

    def apply(self, e: PickEvent) -> None:
        n, size = self.config.seats, self.config.pack_size
        entry = next(x for x in self.queues[e.seat] if x[2] == e.pack_id)
        self.queues[e.seat].remove(entry)
        self.left[e.pack_id] -= 1
        self.picks[e.seat] += 1
        if self.left[e.pack_id]:
            self.queues[(e.seat + pass_direction(e.round)) % n].append((e.round, e.sequence, e.pack_id))
        done = self.picks[e.seat]
        if done % size == 0 and done < self.config.picks_per_seat:
            r = done // size
            self.queues[e.seat].append((r, e.sequence, r * n + e.seat))


@st.composite
def drafts(draw: st.DrawFn) -> tuple[DraftConfig, list[list[str]], random.Random]:
    seats = draw(st.integers(2, 10))
    packs = draw(st.integers(1, 3))
    pack_size = draw(st.integers(1, 15))
    config = DraftConfig(seats=seats, packs=packs, pack_size=pack_size)
    extra = draw(st.integers(0, 5))
    # Cube with some duplicate names (cubes can hold several copies of a card).
    cube = [f"c{i % max(1, config.cards_needed - 3)}" for i in range(config.cards_needed + extra)]
    dealt = generate_packs(cube, config, seed=draw(st.integers(0, 2**32)))
    return config, dealt, draw(st.randoms(use_true_random=False))


def simulate(config: DraftConfig, dealt: list[list[str]], rng: random.Random, *, check: bool = True):
    """Random interleaving: a random waiting seat takes a random card of its head."""
    state = DraftState.new(config, dealt)
    model = Model(config)
    events: list[PickEvent] = []
    while not state.is_complete():
        waiting = state.waiting_on()
        assert waiting, "deadlock: draft not complete but nobody can pick"
        seat = rng.choice(waiting)
        head = state.head(seat)
        assert head is not None
        if check:
            heads_before = [state.head(s) for s in range(config.seats)]
            assert [s for s, h in enumerate(heads_before) if h is not None] == waiting
            for s in range(config.seats):
                queue = state.queue(s)
                assert [p.pack_id for p in queue] == model.order(s)
                h = heads_before[s]
                assert (h.pack_id if h else None) == model.head(s)
                # Never more than one pickable pack: every other queued pack is refused.
                for other in queue:
                    if h is None or other.pack_id != h.pack_id:
                        with pytest.raises(PackNotAtHead):
                            state.pick(s, other.pack_id, other.cards[0])
        assert head.round == state.current_round(seat)
        event = state.pick(seat, head.pack_id, rng.choice(head.cards))
        events.append(event)
        if check:
            model.apply(event)
            changed = []
            for s in range(config.seats):
                after = state.head(s)
                before = heads_before[s]
                if after is not None and (before is None or before.pack_id != after.pack_id):
                    changed.append((s, after.pack_id))
            assert sorted(event.newly_available) == changed
    return state, events


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(drafts())
def test_every_card_ends_in_exactly_one_pool(draft) -> None:
    config, dealt, rng = draft
    state, events = simulate(config, dealt, rng, check=False)
    pools: list[list[str]] = [[] for _ in range(config.seats)]
    for e in events:
        pools[e.seat].append(e.card)
    assert sum((Counter(p) for p in pools), Counter()) == Counter(c for pack in dealt for c in pack)
    assert all(not p.cards for p in state.packs)
    assert len(events) == state.total_picks() == state.sequence


@PROPERTY
@given(drafts())
def test_every_seat_makes_packs_times_pack_size_picks(draft) -> None:
    config, dealt, rng = draft
    state, events = simulate(config, dealt, rng, check=False)
    per_seat = Counter(e.seat for e in events)
    assert [per_seat[s] for s in range(config.seats)] == [config.packs * config.pack_size] * config.seats
    assert state.picks_by_seat == [config.packs * config.pack_size] * config.seats
    # pick_number runs 1..pack_size within every round for every seat, and rounds never go back.
    for s in range(config.seats):
        mine = [(e.round, e.pick_number) for e in events if e.seat == s]
        assert mine == [(r, k) for r in range(config.packs) for k in range(1, config.pack_size + 1)]


@PROPERTY
@given(drafts())
def test_packs_travel_in_the_rounds_direction(draft) -> None:
    config, dealt, rng = draft
    _, events = simulate(config, dealt, rng, check=False)
    n = config.seats
    visits: dict[int, list[PickEvent]] = {}
    for e in events:
        visits.setdefault(e.pack_id, []).append(e)
    assert sorted(visits) == list(range(config.total_packs))
    for pack_id, evs in visits.items():
        rnd, origin = divmod(pack_id, n)
        direction = 1 if rnd % 2 == 0 else -1
        assert all(e.round == rnd for e in evs)
        assert evs[0].seat == origin
        assert len(evs) == config.pack_size
        for a, b in zip(evs, evs[1:], strict=False):
            assert b.seat == (a.seat + direction) % n
            assert a.passed_to == b.seat
        assert evs[-1].passed_to is None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drafts())
def test_queue_matches_model_and_only_head_is_pickable(draft) -> None:
    """Checks, before every pick: queue order and head equal the reference model, no other
    queued pack can be picked, waiting_on() is non-empty (no deadlock) and equals the seats
    with a head; after every pick, newly_available equals the seats whose head changed."""
    config, dealt, rng = draft
    state, _ = simulate(config, dealt, rng, check=True)
    assert state.is_complete() and state.waiting_on() == []


@PROPERTY
@given(drafts(), st.data())
def test_replay_reproduces_state(draft, data) -> None:
    config, dealt, rng = draft
    state, events = simulate(config, dealt, rng, check=False)
    picks = [(e.seat, e.pack_id, e.card) for e in events]
    assert replay(config, dealt, picks) == state
    # And a partial replay equals the state reached mid-way (compared after cutting the events).
    cut = data.draw(st.integers(0, len(picks)))
    partial = replay(config, dealt, picks[:cut])
    assert partial.sequence == cut
    assert partial.copy() == partial
    # Continuing the partial replay with the rest of the picks reaches the same final state.
    for seat, pack_id, card in picks[cut:]:
        partial.pick(seat, pack_id, card)
    assert partial == state


@given(
    seats=st.integers(min_value=2, max_value=8),
    fewer=st.integers(min_value=0, max_value=6),
    packs=st.integers(min_value=1, max_value=3),
    pack_size=st.integers(min_value=1, max_value=15),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_cards_dealt_covers_every_smaller_table(seats, fewer, packs, pack_size, seed):
    """A lobby of `seats` knows every card its draft can show, however many players begin."""
    cube = [f"Card {i}" for i in range(seats * packs * pack_size + 5)]
    dealt = cards_dealt(cube, DraftConfig(seats, packs, pack_size), seed)
    assert len(dealt) == seats * packs * pack_size
    table = max(MIN_SEATS, seats - fewer)
    packs_of_table = generate_packs(cube, DraftConfig(table, packs, pack_size), seed)
    assert {card for pack in packs_of_table for card in pack} <= set(dealt)
    if table == seats:
        assert [card for pack in packs_of_table for card in pack] == dealt


@PROPERTY
@given(drafts())
def test_a_waiting_seat_gets_no_pack_before_the_seat_it_waits_on_picks(draft) -> None:
    """Whoever a waiting seat is told it waits on must pick (from a pack of the waiting seat's
    round) before anything reaches it; a seat with a pack, or done, waits on nobody."""
    config, dealt, rng = draft
    state = DraftState.new(config, dealt)
    waits: dict[int, tuple[int, int]] = {}  # waiting seat -> (seat it waits on, its round)
    while not state.is_complete():
        for seat in range(config.seats):
            done = state.picks_by_seat[seat] == config.picks_per_seat
            upstream = state.next_pack_from(seat)
            if state.head(seat) is not None or done:
                assert upstream is None
            else:
                assert upstream is not None and upstream != seat
                waits.setdefault(seat, (upstream, state.current_round(seat)))
        seat = rng.choice(state.waiting_on())
        head = state.head(seat)
        event = state.pick(seat, head.pack_id, rng.choice(head.cards))
        for waiting, (upstream, rnd) in list(waits.items()):
            if event.seat == upstream and event.round == rnd:
                del waits[waiting]  # the seat it waited on picked: judged afresh next time
            else:
                assert state.head(waiting) is None


def test_pick_events_are_registered_with_the_kits_codec():
    from bot.kit import events

    event = PickEvent(1, 2, 0, 1, "X", 5, 2, [(2, 3)])
    data = events.encode(event)
    assert data["type"] == "draft.PickEvent" and events.name_of(PickEvent) == "draft.PickEvent"
    assert events.decode(data) == event and events.decode(data, PickEvent) == event
    # A variant's action is a pick too (its own subclass): both stay registered under their names.
    gain = GainEvent(1, 2, 0, 1, "X", 5, 2, [], gained=("X", "Y"))
    assert events.encode(gain)["type"] == "draft.GainEvent" and events.decode(events.encode(gain)) == gain
