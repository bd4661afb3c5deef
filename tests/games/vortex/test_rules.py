"""Tests for the Vortex Based Magic rules engine (FORMATS.md §4, bot/games/vortex/rules.py)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.games.vortex import rules as v
from bot.games.vortex.rules import (
    BASIC_TYPES,
    AlreadyPassed,
    CardNotFound,
    InvalidAction,
    MulliganNotAllowed,
    NotAPlayer,
    NotYourTurn,
    PickPending,
    UnsupportedVersion,
    VortexError,
    VortexState,
    WrongPhase,
    WrongPlayerCount,
)

USERS = [101, 102, 103, 104, 105, 106]

# --------------------------------------------------------------------------- helpers


def cube_of(n_cards: int) -> list[str]:
    return [f"Hidden Gem {i:03d}" for i in range(n_cards)]


def game(n: int = 3, *, seed: int | str = 1, cube: list[str] | None = None) -> VortexState:
    return v.new_game(cube if cube is not None else cube_of(60), USERS[:n], seed=seed)


def finish_opening(state: VortexState, lands=("Island", "Island", "Forest")) -> None:
    """Pick the first card of every opening pick, then let everyone choose the same basics."""
    while state.phase == "opening":
        v.pick(state, state.draft.seat, 0)
    for p in state.players:
        v.choose_basics(state, p.seat, list(lands))


def in_play(n: int = 3, *, seed: int | str = 1, cube: list[str] | None = None) -> VortexState:
    state = game(n, seed=seed, cube=cube)
    finish_opening(state)
    assert state.phase == "play" and state.step == "upkeep"
    return state


def expected_cards(cube: list[str], state: VortexState) -> Counter:
    chosen = Counter(card for p in state.players for card in (p.opening_basics or []))
    return Counter(v.starting_shoe(cube, len(state.players))) + chosen


def refused(state: VortexState, exc: type[VortexError], fn, *args, **kwargs) -> str:
    """Call an operation that must be refused; the state must not change. Returns the message."""
    before = json.dumps(state.to_dict(), sort_keys=True)
    with pytest.raises(exc) as info:
        fn(state, *args, **kwargs)
    assert json.dumps(state.to_dict(), sort_keys=True) == before, "a refused action changed the state"
    return str(info.value)


def rig_pack(state: VortexState, seat: int, wanted: list[str]) -> None:
    """Exchange cards between the seat's pack and the shoe so the pack starts with `wanted`
    (cards stay conserved: every card only changes places)."""
    pack = state.players[seat].pack
    for i, card in enumerate(wanted):
        j = state.shoe.index(card)
        pack[i], state.shoe[j] = state.shoe[j], pack[i]


def empty_the_shoe(state: VortexState, seat: int) -> None:
    while state.shoe:
        v.mill(state, seat, v.MAX_COUNT)


def draft_all(state: VortexState, seat: int) -> list[v.Event]:
    """Pick card 0 until the seat's pending draw is over."""
    events: list[v.Event] = []
    while state.draft is not None and state.draft.seat == seat:
        events += v.pick(state, seat, 0)
    return events


def of_type(events, kind):
    return [e for e in events if isinstance(e, kind)]


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_two_to_five_players_can_play(n):
    state = game(n)
    assert len(state.players) == n
    assert sorted(state.turn_order) == list(range(n))
    assert all(p.life == v.STARTING_LIFE == 20 for p in state.players)


def test_a_sixth_player_is_refused():
    with pytest.raises(WrongPlayerCount, match="2 to 5 players"):
        v.new_game(cube_of(60), USERS[:6], seed=1)


def test_one_player_and_duplicate_players_are_refused():
    with pytest.raises(WrongPlayerCount):
        v.new_game(cube_of(60), USERS[:1], seed=1)
    with pytest.raises(WrongPlayerCount, match="one seat"):
        v.new_game(cube_of(60), [101, 101], seed=1)


def test_a_cube_too_small_to_deal_is_refused():
    # 2 players: 10 basics + 10 cube cards < 3 packs of 7.
    with pytest.raises(InvalidAction, match="too small"):
        v.new_game(cube_of(10), USERS[:2], seed=1)
    v.new_game(cube_of(11), USERS[:2], seed=1)


@pytest.mark.parametrize("n", [2, 5])
def test_the_shoe_holds_the_cube_and_one_of_each_basic_per_player(n):
    cube = cube_of(40)
    state = game(n, cube=cube)
    assert v.card_census(state) == Counter(cube) + Counter({b: n for b in BASIC_TYPES})


def test_each_player_and_the_passed_pack_are_dealt_seven():
    cube = cube_of(40)
    state = game(4, cube=cube)
    # Turn 1's pick is already offered, but the pack was full so nothing was replenished.
    assert [len(p.pack) for p in state.players] == [7, 7, 7, 7]
    assert len(state.passed_pack) == 7
    assert len(state.shoe) == 40 + 4 * 5 - 5 * 7
    assert all(not p.hand for p in state.players)


def test_the_deal_and_turn_order_are_seeded():
    assert game(seed=5).to_dict() == game(seed=5).to_dict()
    shoes = {tuple(game(seed=s).shoe) for s in range(5)}
    orders = {tuple(game(seed=s).turn_order) for s in range(12)}
    assert len(shoes) == 5
    assert len(orders) > 1  # the first player is not always seat 0


def test_the_shoe_is_shuffled():
    cube = cube_of(60)
    state = game(2, cube=cube)
    dealt = [c for p in state.players for c in p.pack] + state.passed_pack + state.shoe
    assert dealt != v.starting_shoe(cube, 2)


def test_seat_of_and_unknown_seats():
    state = game(3)
    assert v.seat_of(state, 102) == 1
    with pytest.raises(NotAPlayer):
        v.seat_of(state, 999)
    refused(state, NotAPlayer, v.pick, 3, 0)
    refused(state, NotAPlayer, v.pick, True, 0)


# --------------------------------------------------------------------------- opening-hand phase


def test_opening_turns_are_four_per_player_in_turn_order_with_only_a_pick():
    state = game(3)
    seen = []
    while state.phase == "opening":
        seat = v.active_seat(state)
        assert state.draft is not None and state.draft.seat == seat and state.step == "draw"
        seen.append(seat)
        v.pick(state, seat, 0)
    assert seen == state.turn_order * 4
    assert [len(p.hand) for p in state.players] == [4, 4, 4]
    assert state.phase == "basics" and v.active_seat(state) is None


def test_an_opening_turn_passes_the_pack_after_the_pick():
    state = game(3)
    first, second = state.turn_order[0], state.turn_order[1]
    first_pack = list(state.players[first].pack)
    old_passed = list(state.passed_pack)
    events = v.pick(state, first, 2)
    assert state.players[first].hand == [first_pack[2]]
    assert state.passed_pack == first_pack[:2] + first_pack[3:]  # the first player's pack, passed
    assert state.players[first].pack == old_passed  # they took the passed pack
    passed = of_type(events, v.PackPassed)
    assert passed == [v.PackPassed(first, 7, 6)]
    # The second player's turn has begun and their pick is offered.
    assert v.active_seat(state) == second and state.draft.seat == second
    offered = of_type(events, v.PickOffered)
    assert offered and offered[0].seat == second and offered[0].private_to == second
    v.pick(state, second, 0)
    assert state.players[second].pack == first_pack[:2] + first_pack[3:] + state.players[second].pack[6:]
    assert len(state.players[second].pack) == 6


def test_opening_picks_replenish_to_seven():
    state = game(2)
    first, second = state.turn_order
    v.pick(state, first, 0)  # turn 1: first passes 6 cards and takes the dealt passed pack
    events = v.pick(state, second, 0)  # turn 2: second passes 6 cards and takes first's 6
    assert v.Replenished(first, 0, 7, len(state.shoe)) in events  # turn 3: first's pack is full
    assert len(state.players[second].pack) == 6
    top = state.shoe[0]
    events = v.pick(state, first, 0)  # turn 3's pick; turn 4 begins
    assert v.Replenished(second, 1, 7, len(state.shoe)) in events
    assert state.players[second].pack[-1] == top


def test_draw_pass_and_mulligan_are_refused_in_the_opening():
    state = game(3)
    seat = v.active_seat(state)
    assert "offers you each pick" in refused(state, WrongPhase, v.draw, seat)
    assert "passes for you" in refused(state, WrongPhase, v.pass_turn, seat)
    assert "no mulligans" in refused(state, WrongPhase, v.mulligan, seat)
    refused(state, WrongPhase, v.mill, seat, 1)
    refused(state, WrongPhase, v.play_card, seat, "Island")


def test_picking_when_it_is_not_your_turn_is_refused():
    state = game(3)
    other = state.turn_order[1]
    assert "not your turn" in refused(state, NotYourTurn, v.pick, other, 0)


def test_three_basics_of_the_players_choice_then_normal_turns_begin():
    state = game(2)
    while state.phase == "opening":
        v.pick(state, state.draft.seat, 0)
    a, b = state.turn_order
    assert v.public_status(state).turn_in_phase == 0 and v.public_status(state).active_seat is None
    refused(state, WrongPhase, v.draw, a)
    refused(state, InvalidAction, v.choose_basics, a, ["Island", "Island"])
    refused(state, InvalidAction, v.choose_basics, a, ["Island", "Island", "Wastes"])
    refused(state, InvalidAction, v.choose_basics, a, "Island")
    events = v.choose_basics(state, a, ["mountain", "MOUNTAIN", " Plains "])
    assert events == [v.BasicsAdded(a, ("Mountain", "Mountain", "Plains"))]
    assert events[0].private_to == a
    assert state.players[a].hand[-3:] == ["Mountain", "Mountain", "Plains"]
    refused(state, InvalidAction, v.choose_basics, a, ["Island"] * 3)  # once only
    assert state.phase == "basics"
    events = v.choose_basics(state, b, ["Forest"] * 3)
    assert state.phase == "play" and state.step == "upkeep"
    assert v.active_seat(state) == a
    assert v.TurnStarted(state.turn, 1, a, "play") in events
    assert [len(p.hand) for p in state.players] == [7, 7]


def test_mulligan_is_refused_while_basics_are_chosen():
    state = game(2)
    while state.phase == "opening":
        v.pick(state, state.draft.seat, 0)
    refused(state, WrongPhase, v.mulligan, state.turn_order[0])


# --------------------------------------------------------------------------- drafting


def test_a_draw_replenishes_to_exactly_seven_from_the_top_of_the_shoe():
    state = in_play(3)
    seat = v.active_seat(state)
    player = state.players[seat]
    missing = 7 - len(player.pack)
    assert missing > 0
    top = state.shoe[:missing]
    shoe_before = len(state.shoe)
    events = v.draw(state, seat)
    assert len(player.pack) == 7 and player.pack[-missing:] == top
    assert len(state.shoe) == shoe_before - missing
    assert v.Replenished(seat, missing, 7, len(state.shoe)) in events
    offered = of_type(events, v.PickOffered)
    assert offered == [v.PickOffered(seat, tuple(player.pack), 1, 1)]


def test_a_pick_puts_the_chosen_card_in_hand_and_ends_the_draw_step():
    state = in_play(3)
    seat = v.active_seat(state)
    v.draw(state, seat)
    assert state.step == "draw"
    card = state.players[seat].pack[3]
    events = v.pick(state, seat, 3)
    assert events == [v.CardDrafted(seat, card, 0)]
    assert state.players[seat].hand[-1] == card and card not in state.players[seat].pack
    assert state.draft is None and state.step == "main"


@pytest.mark.parametrize("index", [-1, 7, 100, True, "1", None])
def test_picking_an_index_outside_the_pack_is_refused(index):
    state = in_play(3)
    seat = v.active_seat(state)
    v.draw(state, seat)
    assert "from 1 to 7" in refused(state, InvalidAction, v.pick, seat, index)


def test_picking_without_a_pending_pick_is_refused():
    state = in_play(3)
    assert "no pick" in refused(state, InvalidAction, v.pick, v.active_seat(state), 0)


def test_a_draw_of_n_is_n_replenish_and_pick_steps_one_at_a_time():
    state = in_play(3)
    seat = v.active_seat(state)
    player = state.players[seat]
    events = v.draw(state, seat, 3)
    assert len(of_type(events, v.PickOffered)) == 1  # only the first pick is offered
    shoe_top = state.shoe[0]
    events = v.pick(state, seat, 0)
    # The second step replenishes the 6-card pack with the next shoe card before offering it.
    assert player.pack[-1] == shoe_top and len(player.pack) == 7
    assert of_type(events, v.PickOffered) == [v.PickOffered(seat, tuple(player.pack), 2, 3)]
    assert of_type(events, v.CardDrafted)[0].picks_left == 2
    v.pick(state, seat, 0)
    events = v.pick(state, seat, 0)
    assert of_type(events, v.PickOffered) == [] and state.draft is None
    assert len(player.hand) == 7 + 3


def test_while_a_pick_is_pending_nobody_draws_passes_or_changes_zones():
    state = in_play(3)
    seat = v.active_seat(state)
    other = state.turn_order[1]
    v.draw(state, seat, 2)
    assert "pending pick" in refused(state, PickPending, v.draw, seat)
    assert "pending pick" in refused(state, PickPending, v.pass_turn, seat)
    assert "another player" in refused(state, PickPending, v.draw, other)
    refused(state, PickPending, v.mill, other, 1)
    refused(state, PickPending, v.shuffle_shoe, seat)
    refused(state, PickPending, v.put_shoe_cards_into_pack, other, 1)
    refused(state, PickPending, v.look_at_top, other, 1)


def test_any_player_may_draw_during_the_play_phase_without_ending_the_upkeep():
    state = in_play(3)
    active = v.active_seat(state)
    other = state.turn_order[1]
    v.draw(state, other)
    draft_all(state, other)
    assert state.step == "upkeep" and v.active_seat(state) == active
    assert len(state.players[other].hand) == 8


def test_with_an_empty_shoe_replenishing_does_nothing():
    state = in_play(2)
    seat = v.active_seat(state)
    empty_the_shoe(state, seat)
    pack = list(state.players[seat].pack)
    events = v.draw(state, seat)
    assert state.players[seat].pack == pack
    assert v.Replenished(seat, 0, len(pack), 0) in events
    v.pick(state, seat, 0)
    assert len(state.players[seat].pack) == len(pack) - 1


def test_an_empty_pack_at_a_pick_counters_the_stack_ends_the_turn_and_costs_one_life():
    state = in_play(3)
    seat = v.active_seat(state)
    following = state.turn_order[1]
    empty_the_shoe(state, seat)
    size = len(state.players[seat].pack)
    turn = state.turn
    v.draw(state, seat, size + 3)
    events = []
    for _ in range(size):
        events = v.pick(state, seat, 0)
    penalty = of_type(events, v.EmptyPackPenalty)
    assert penalty == [v.EmptyPackPenalty(seat, 19, turn)]
    assert v.LifeChanged(seat, -1, 19, "empty_pack") in events
    assert state.players[seat].life == 19 and state.players[seat].penalties == 1
    # The turn ended at once: the rest of the draw is cancelled, the pass step happened.
    assert state.draft is None
    assert state.turn == turn + 1 and v.active_seat(state) == following and state.step == "upkeep"
    assert of_type(events, v.PackPassed) == [v.PackPassed(seat, len(state.players[seat].pack), 0)]
    assert of_type(events, v.TurnStarted) == [v.TurnStarted(turn + 1, turn + 1 - 12, following, "play")]


def test_an_empty_pack_of_a_non_active_player_ends_the_active_players_turn():
    state = in_play(3)
    active, other = v.active_seat(state), state.turn_order[1]
    empty_the_shoe(state, active)
    size = len(state.players[other].pack)
    v.draw(state, other, size + 1)
    draft_all(state, other)
    assert state.players[other].life == 19 and state.players[active].life == 20
    assert v.active_seat(state) == other  # the next player in turn order


def test_an_opening_with_an_empty_shoe_gives_every_turn_a_pick_or_a_penalty():
    # Two players, the smallest cube: 21 cards are dealt, the shoe is empty from the start.
    cube = cube_of(11)
    state = game(2, cube=cube)
    assert state.shoe == []
    penalties = []
    while state.phase == "opening":
        penalties += of_type(v.pick(state, state.draft.seat, 0), v.EmptyPackPenalty)
    assert sum(len(p.hand) for p in state.players) + len(penalties) == 8
    assert v.card_census(state) == Counter(v.starting_shoe(cube, 2))


def test_the_empty_pack_penalty_can_happen_in_the_opening():
    state = game(2, cube=cube_of(11))
    first = state.turn_order[0]
    # Rig the table: the first player's pack and the passed pack go to exile (as if effects had
    # taken them), so when the first player's second opening turn comes their pack is empty.
    p = state.players[first]
    p.exile += p.pack[1:] + state.passed_pack
    p.pack, state.passed_pack = p.pack[:1], []
    second = state.turn_order[1]
    v.pick(state, first, 0)  # turn 1: the last card; passes the empty pack, gets the empty passed pack
    events = v.pick(state, second, 0)  # turn 2: second passes 6 cards, gets the empty pack
    # Turn 3: first's pack is empty -> penalty, the turn ends and first takes second's 6 cards.
    # Turn 4: second's pack is empty too -> penalty. Turn 5: first picks from the 6 cards.
    assert of_type(events, v.EmptyPackPenalty) == [
        v.EmptyPackPenalty(first, 19, 3),
        v.EmptyPackPenalty(second, 19, 4),
    ]
    assert state.turn == 5 and v.active_seat(state) == first and state.draft.seat == first
    assert len(state.players[first].pack) == 6
    assert [p.penalties for p in state.players] == [1, 1]


# --------------------------------------------------------------------------- packs over 7


def test_a_pack_over_seven_randomly_discards_until_seven():
    state = in_play(3)
    seat = v.active_seat(state)
    player = state.players[seat]
    hand = list(player.hand)
    before = Counter(player.pack) + Counter(hand[:3])
    assert len(player.pack) == 6  # after the opening: so 9 cards, 2 discarded
    events = v.put_into_pack(state, seat, hand[:3])
    assert events[0] == v.CardsPutIntoPack(seat, 3, "hand", 9)
    assert len(player.pack) == 7
    discarded = of_type(events, v.PackOverflowDiscard)
    assert len(discarded) == 2
    assert Counter(player.pack) + Counter(e.card for e in discarded) == before
    assert [e.card for e in discarded] == player.graveyard[-len(discarded) :]


def test_the_overflow_discard_is_seeded_and_random():
    outcomes = set()
    for seed in range(8):
        state = in_play(3, seed=seed)
        seat = v.active_seat(state)
        v.put_shoe_cards_into_pack(state, seat, 5)
        again = in_play(3, seed=seed)
        v.put_shoe_cards_into_pack(again, seat, 5)
        assert again.to_dict() == state.to_dict()
        assert len(state.players[seat].pack) == 7
        outcomes.add(tuple(sorted(state.players[seat].pack)))
    assert len(outcomes) > 1


def test_shoe_cards_put_into_a_pack_are_not_limited_to_seven_before_the_discard():
    state = in_play(2)
    seat = v.active_seat(state)
    size = len(state.players[seat].pack)
    top = state.shoe[:4]
    events = v.put_shoe_cards_into_pack(state, seat, 4)
    assert events[0] == v.CardsPutIntoPack(seat, 4, "shoe", size + 4)
    assert len(of_type(events, v.PackOverflowDiscard)) == size + 4 - 7
    assert Counter(state.players[seat].pack + state.players[seat].graveyard) >= Counter(top)


# --------------------------------------------------------------------------- the pass step


def test_the_active_player_swaps_their_pack_with_the_passed_pack_and_the_turn_moves_on():
    state = in_play(3)
    a, b, c = state.turn_order
    mine, passed = list(state.players[a].pack), list(state.passed_pack)
    turn = state.turn
    events = v.pass_turn(state, a)
    assert state.players[a].pack == passed and state.passed_pack == mine
    assert events == [v.PackPassed(a, len(passed), len(mine)), v.TurnStarted(turn + 1, 2, b, "play")]
    assert v.active_seat(state) == b and state.step == "upkeep"
    v.pass_turn(state, b)
    v.pass_turn(state, c)
    assert v.active_seat(state) == a  # round and round


def test_passing_twice_is_refused():
    state = in_play(3)
    seat = v.active_seat(state)
    v.pass_turn(state, seat)
    assert "already passed" in refused(state, AlreadyPassed, v.pass_turn, seat)


def test_a_stale_pass_token_is_refused():
    state = in_play(2)
    a, b = state.turn_order
    turn = state.turn
    v.pass_turn(state, a, turn=turn)
    v.pass_turn(state, b, turn=turn + 1)
    assert v.active_seat(state) == a
    # A's double click of turn `turn` arrives now: it must not end A's new turn.
    assert "already passed" in refused(state, AlreadyPassed, v.pass_turn, a, turn=turn)
    assert "not for the current turn" in refused(state, NotYourTurn, v.pass_turn, a, turn=turn + 1)
    v.pass_turn(state, a, turn=turn + 2)


def test_passing_when_it_is_not_your_turn_is_refused():
    state = in_play(3)
    other = state.turn_order[2]
    assert "not your turn" in refused(state, NotYourTurn, v.pass_turn, other)


def test_a_player_may_pass_without_drawing():
    state = in_play(2)
    a = v.active_seat(state)
    v.pass_turn(state, a)  # e.g. the starting player skipping their first draw
    assert v.active_seat(state) != a


# --------------------------------------------------------------------------- the mulligan

LANDY_CUBE = ["Island"] * 10 + ["Forest"] * 10 + cube_of(40)


def mulligan_ready(n: int = 3, basics: int = 5) -> tuple[VortexState, int]:
    state = in_play(n, cube=LANDY_CUBE)
    seat = v.active_seat(state)
    pack = state.players[seat].pack
    # Make the pack hold exactly `basics` basics (swapping with the shoe keeps cards conserved).
    lands = [c for c in pack if c in BASIC_TYPES]
    for card in lands:
        j = next(j for j, s in enumerate(state.shoe) if s not in BASIC_TYPES)
        i = pack.index(card)
        pack[i], state.shoe[j] = state.shoe[j], pack[i]
    rig_pack(state, seat, ["Island"] * basics)
    return state, seat


def test_mulligan_in_upkeep_with_five_basics_exiles_the_pack():
    state, seat = mulligan_ready()
    player = state.players[seat]
    pack = tuple(player.pack)
    events = v.mulligan(state, seat)
    assert events == [v.MulliganTaken(seat, pack)]
    assert player.pack == [] and tuple(player.exile) == pack
    assert v.public_status(state).seats[seat].short_pack
    assert v.private_view(state, seat).replenish_to == 5


def test_after_a_mulligan_you_replenish_to_five_until_end_of_turn():
    state, seat = mulligan_ready()
    v.mulligan(state, seat)
    events = v.draw(state, seat, 2)
    assert len(state.players[seat].pack) == 5
    assert v.Replenished(seat, 5, 5, len(state.shoe)) in events
    v.pick(state, seat, 0)
    assert len(state.players[seat].pack) == 5  # the second step replenished to 5 again
    v.pick(state, seat, 0)
    v.pass_turn(state, seat)
    # Next turn (someone else's), the same player draws at instant speed: back to 7.
    v.draw(state, seat)
    assert len(state.players[seat].pack) == 7
    assert v.private_view(state, seat).replenish_to == 7


def test_mulligan_needs_five_basics():
    state, seat = mulligan_ready(basics=4)
    assert "has 4" in refused(state, MulliganNotAllowed, v.mulligan, seat)
    assert not v.private_view(state, seat).can_mulligan


def test_mulligan_counts_every_basic_land_type():
    state, seat = mulligan_ready(basics=3)
    rig_pack(state, seat, ["Island", "Island", "Island", "Forest", "Forest"])
    assert v.private_view(state, seat).can_mulligan
    v.mulligan(state, seat)


def test_mulligan_outside_your_upkeep_is_refused():
    state, seat = mulligan_ready()
    v.draw(state, seat)  # the draw step ends the upkeep
    assert "upkeep" in refused(state, MulliganNotAllowed, v.mulligan, seat)
    v.pick(state, seat, 0)
    assert state.step == "main"
    assert "upkeep" in refused(state, MulliganNotAllowed, v.mulligan, seat)


def test_mulligan_on_another_players_turn_is_refused():
    state, seat = mulligan_ready()
    v.pass_turn(state, seat)
    other = v.active_seat(state)
    v.pass_turn(state, other)
    assert v.active_seat(state) != seat
    assert "your own upkeep" in refused(state, NotYourTurn, v.mulligan, seat)


# --------------------------------------------------------------------------- shoe effects


def test_mill_puts_the_top_cards_into_the_players_graveyard():
    state = in_play(3)
    seat = state.turn_order[1]  # not the active player: instant-speed effects are fine
    shoe = list(state.shoe)
    events = v.mill(state, seat, 3)
    assert events == [v.Milled(seat, tuple(shoe[:3]))]
    assert state.players[seat].graveyard == shoe[:3] and state.shoe == shoe[3:]


def test_mill_more_than_the_shoe_mills_what_is_there():
    state = in_play(2)
    seat = v.active_seat(state)
    size = len(state.shoe)
    v.mill(state, seat, v.MAX_COUNT)
    assert state.shoe == [] and len(state.players[seat].graveyard) == size
    assert v.mill(state, seat, 2) == [v.Milled(seat, ())]


@pytest.mark.parametrize("count", [0, -1, v.MAX_COUNT + 1, True, "3"])
def test_bad_counts_are_refused(count):
    state = in_play(2)
    seat = v.active_seat(state)
    refused(state, InvalidAction, v.mill, seat, count)
    refused(state, InvalidAction, v.draw, seat, count)


def test_reveal_shows_the_top_to_everyone_and_leaves_it():
    state = in_play(3)
    seat = v.active_seat(state)
    shoe = list(state.shoe)
    events = v.reveal_top(state, seat, 2)
    assert events == [v.ShoeRevealed(seat, tuple(shoe[:2]))] and events[0].private_to is None
    assert state.shoe == shoe


def test_look_shows_the_top_only_to_that_player():
    state = in_play(3)
    seat = v.active_seat(state)
    shoe = list(state.shoe)
    events = v.look_at_top(state, seat, 3)
    assert events == [v.ShoeLooked(seat, tuple(shoe[:3]))] and events[0].private_to == seat
    assert state.shoe == shoe


def test_arrange_top_after_a_look_puts_cards_on_top_and_bottom():
    state = in_play(3)
    seat = v.active_seat(state)
    shoe = list(state.shoe)
    v.look_at_top(state, seat, 3)
    refused(state, InvalidAction, v.arrange_top, seat, [0, 1], [])  # every card exactly once
    refused(state, InvalidAction, v.arrange_top, seat, [0, 0], [2])
    refused(state, InvalidAction, v.arrange_top, seat, [0, 1], [True])
    events = v.arrange_top(state, seat, [2, 0], [1])
    assert events == [v.TopArranged(seat, 2, 1)]
    assert state.shoe == [shoe[2], shoe[0], *shoe[3:], shoe[1]]
    assert "Look at the top" in refused(state, InvalidAction, v.arrange_top, seat, [0], [])


def test_arrange_top_is_refused_after_the_shoe_changed_or_for_another_player():
    state = in_play(3)
    seat, other = v.active_seat(state), state.turn_order[1]
    v.look_at_top(state, seat, 2)
    refused(state, InvalidAction, v.arrange_top, other, [0, 1], [])
    v.mill(state, other, 1)
    refused(state, InvalidAction, v.arrange_top, seat, [0, 1], [])


def test_put_cards_from_hand_on_top_or_bottom_of_the_shoe_in_order():
    state = in_play(3)
    seat = v.active_seat(state)
    hand = list(state.players[seat].hand)
    events = v.put_on_shoe(state, seat, [hand[0], hand[1]], position="top")
    assert state.shoe[:2] == hand[:2] and events == [v.CardsPutIntoShoe(seat, 2, "top")]
    v.put_on_shoe(state, seat, [hand[2].upper(), hand[3]], position="bottom")
    assert state.shoe[-2:] == hand[2:4]
    assert state.players[seat].hand == hand[4:]


def test_putting_a_card_you_do_not_hold_on_the_shoe_changes_nothing():
    state = in_play(3)
    seat = v.active_seat(state)
    hand = state.players[seat].hand
    assert "not in your hand" in refused(state, CardNotFound, v.put_on_shoe, seat, [hand[0], "Black Lotus"])
    refused(state, InvalidAction, v.put_on_shoe, seat, [hand[0]], position="middle")
    refused(state, InvalidAction, v.put_on_shoe, seat, [])


def test_shuffle_keeps_the_cards_and_is_seeded():
    state = in_play(3)
    seat = v.active_seat(state)
    twin = VortexState.from_dict(state.to_dict())
    shoe = list(state.shoe)
    assert v.shuffle_shoe(state, seat) == [v.ShoeShuffled(seat, len(shoe))]
    v.shuffle_shoe(twin, seat)
    assert Counter(state.shoe) == Counter(shoe) and state.shoe != shoe
    assert state.shoe == twin.shoe


def test_search_takes_what_the_effect_allows_and_shuffles():
    """A tutor: the searcher chooses up to `count` cards from the shoe (by name), they go to the hand,
    and the shoe is shuffled; only the searcher learns which cards (the channel: how many)."""
    state = in_play(3)
    seat, other = v.active_seat(state), state.turn_order[1]
    shoe = list(state.shoe)
    events = v.begin_search(state, seat, 2)
    assert events == [v.SearchBegan(seat, 2, "hand", False, len(shoe))] and events[0].private_to is None
    assert state.search == v.Search(seat, 2) and state.shoe == shoe
    assert v.public_status(state).searching_seat == seat and v.private_view(state, seat).searching
    # While the search resolves nobody draws, passes or touches the shoe.
    assert "Finish your search" in refused(state, v.SearchPending, v.draw, seat)
    assert "another player is searching" in refused(state, v.SearchPending, v.mill, other, 1)
    refused(state, v.SearchPending, v.pass_turn, seat)
    refused(state, v.SearchPending, v.begin_search, other, 1)
    refused(state, InvalidAction, v.search_choose, other, [shoe[0]])  # not their search
    first, second = shoe[5], next(c for c in shoe if c != shoe[5])
    assert v.search_choose(state, seat, [first.upper()]) == []  # any spelling; chosen as the shoe spells it
    assert "not in the shoe" in refused(state, CardNotFound, v.search_choose, seat, ["Black Lotus"])
    assert "choose 1 more" in refused(state, InvalidAction, v.search_choose, seat, [second, second])
    v.search_choose(state, seat, [second])
    assert state.search.chosen == [first, second] and state.shoe == shoe  # nothing moved yet
    assert "choose no more" in refused(state, InvalidAction, v.search_choose, seat, [second])
    hand = list(state.players[seat].hand)
    events = v.finish_search(state, seat)
    assert events[0] == v.CardsFound(seat, (first, second), "hand") and events[0].private_to == seat
    assert events[1] == v.SearchFinished(seat, 2, "hand", (), len(shoe) - 2)  # the channel: how many, not which
    assert state.players[seat].hand == [*hand, first, second] and state.search is None
    assert Counter(state.shoe) == Counter(shoe) - Counter([first, second]) and state.shoe != shoe[:5] + shoe[6:]
    refused(state, InvalidAction, v.finish_search, seat)


def test_every_copy_of_a_name_can_be_found_but_no_more():
    cube = cube_of(40) + ["Relentless Rats"] * 3
    state = in_play(2, cube=cube)
    seat = v.active_seat(state)
    rats = state.shoe.count("Relentless Rats")
    v.begin_search(state, seat, v.MAX_COUNT)
    v.search_choose(state, seat, ["relentless rats"] * rats)
    refused(state, CardNotFound, v.search_choose, seat, ["Relentless Rats"])
    v.search_clear(state, seat)
    assert state.search.chosen == []
    v.search_choose(state, seat, ["Relentless Rats"])
    v.finish_search(state, seat)
    assert state.shoe.count("Relentless Rats") == rats - 1


def test_a_search_may_find_nothing_and_still_shuffles():
    state = in_play(3)
    seat = v.active_seat(state)
    shoe = list(state.shoe)
    v.begin_search(state, seat, 1)
    events = v.finish_search(state, seat)
    assert events == [v.CardsFound(seat, (), "hand"), v.SearchFinished(seat, 0, "hand", (), len(shoe))]
    assert Counter(state.shoe) == Counter(shoe) and state.shoe != shoe


@pytest.mark.parametrize(("to", "reveal", "public"), [("battlefield", False, True), ("hand", True, True),
                                                       ("top", False, False), ("top", True, True)])
def test_a_search_puts_the_cards_where_the_effect_says(to, reveal, public):
    state = in_play(3)
    seat = v.active_seat(state)
    land = next(c for c in state.shoe if c in BASIC_TYPES)
    v.begin_search(state, seat, 1, to=to, reveal=reveal)
    v.search_choose(state, seat, [land])
    finished = v.finish_search(state, seat)[1]
    assert finished.cards == ((land,) if public else ()) and finished.to == to
    if to == "battlefield":
        assert state.players[seat].battlefield == [land]
    elif to == "top":
        assert state.shoe[0] == land  # on top after the shuffle
    else:
        assert state.players[seat].hand[-1] == land


def test_bad_searches_are_refused():
    state = in_play(3)
    seat = v.active_seat(state)
    refused(state, InvalidAction, v.begin_search, seat, 1, to="graveyard")
    refused(state, InvalidAction, v.begin_search, seat, 0)
    refused(state, InvalidAction, v.begin_search, seat, 1, reveal="yes")
    refused(state, InvalidAction, v.search_choose, seat, [state.shoe[0]])  # no search begun
    v.draw(state, seat)
    refused(state, PickPending, v.begin_search, seat, 1)


def test_a_pending_search_survives_the_codec_and_ends_with_the_game():
    state = in_play(3)
    seat = v.active_seat(state)
    v.begin_search(state, seat, 3, to="top", reveal=True)
    v.search_choose(state, seat, [state.shoe[2]])
    assert VortexState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    v.end_game(state)
    assert state.search is None


# --------------------------------------------------------------------------- hand bookkeeping


def test_cards_move_between_the_four_zones_matched_by_name_key():
    state = in_play(3)
    seat = v.active_seat(state)
    player = state.players[seat]
    hand = list(player.hand)
    assert v.play_card(state, seat, hand[0].upper()) == [v.CardMoved(seat, hand[0], "hand", "battlefield")]
    assert v.move_card(state, seat, f"  {hand[1]} ", "hand", "graveyard") == [
        v.CardMoved(seat, hand[1], "hand", "graveyard")]
    assert (player.battlefield, player.graveyard, player.hand) == ([hand[0]], [hand[1]], hand[2:])
    assert v.move_card(state, seat, hand[0], "battlefield", "exile") == [v.CardMoved(seat, hand[0], "battlefield", "exile")]
    assert v.move_card(state, seat, hand[1], "graveyard", "hand") == [v.CardMoved(seat, hand[1], "graveyard", "hand")]
    assert (player.battlefield, player.graveyard, player.exile, player.hand) == ([], [], [hand[0]], [*hand[2:], hand[1]])
    assert "is not in your hand" in refused(state, CardNotFound, v.play_card, seat, "Black Lotus")
    assert "is not on your battlefield" in refused(state, CardNotFound, v.move_card, seat, hand[1], "battlefield", "hand")
    assert "two different zones" in refused(state, InvalidAction, v.move_card, seat, hand[1], "hand", "hand")
    refused(state, InvalidAction, v.move_card, seat, hand[1], "hand", "library")
    refused(state, InvalidAction, v.move_card, seat, hand[1], "shoe", "hand")
    status = v.public_status(state).seats[seat]
    assert (status.hand_size, status.battlefield_size, status.graveyard_size, status.exile_size) == (len(hand) - 1, 0, 0, 1)


def test_cards_move_while_a_pick_is_pending_but_not_before_play():
    state = in_play(2)
    seat = v.active_seat(state)
    v.draw(state, seat)
    card = state.players[seat].hand[0]
    v.play_card(state, seat, card)  # the pending pick does not stop the table's bookkeeping
    opening = game(2)
    refused(opening, WrongPhase, v.move_card, 0, "Island", "hand", "graveyard")
    refused(opening, WrongPhase, v.adjust_life, 0, -1)


def test_a_version_1_document_is_read_with_its_played_zone_as_the_graveyard():
    state = in_play(2)
    seat = v.active_seat(state)
    v.mill(state, seat, 2)
    v.begin_search(state, seat, 1, to="battlefield")
    old = state.to_dict()
    old["v"] = 1
    old["search"]["to"] = "played"
    for p in old["players"]:
        p["played"] = p.pop("graveyard")
        del p["battlefield"]
    assert VortexState.from_dict(old) == state


MOVES = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(v.ZONES), st.sampled_from(v.ZONES),
                           st.integers(0, 30)), max_size=60)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), MOVES)
def test_zone_moves_keep_every_card_in_exactly_one_zone(seed, moves):
    """Any sequence of moves between hand, battlefield, graveyard and exile (refused ones change
    nothing): every card stays in exactly one place, each move takes one card from its source to its
    destination, and the public status counts every zone."""
    state = in_play(3, seed=seed)
    cube = cube_of(60)
    for seat, source, destination, which in moves:
        zone = getattr(state.players[seat], source)
        card = zone[which % len(zone)] if zone else "Black Lotus"
        before = {z: list(getattr(state.players[seat], z)) for z in v.ZONES}
        snapshot = json.dumps(state.to_dict(), sort_keys=True)
        try:
            events = v.move_card(state, seat, card, source, destination)
        except VortexError:
            assert json.dumps(state.to_dict(), sort_keys=True) == snapshot
            continue
        assert events == [v.CardMoved(seat, card, source, destination)]
        after = {z: getattr(state.players[seat], z) for z in v.ZONES}
        assert Counter(after[source]) + Counter([card]) == Counter(before[source])
        assert after[destination] == [*before[destination], card]
        assert v.card_census(state) == expected_cards(cube, state), "a card appeared or vanished"
        status = v.public_status(state).seats[seat]
        assert (status.hand_size, status.battlefield_size, status.graveyard_size, status.exile_size) == tuple(
            len(after[z]) for z in v.ZONES)


def test_life_can_be_reported():
    state = in_play(2)
    seat = state.turn_order[1]
    assert v.adjust_life(state, seat, -3) == [v.LifeChanged(seat, -3, 17, "reported")]
    assert v.adjust_life(state, seat, 5) == [v.LifeChanged(seat, 5, 22, "reported")]
    assert v.adjust_life(state, seat, -30) == [v.LifeChanged(seat, -30, -8, "reported")]  # below 0: the table decides
    refused(state, InvalidAction, v.adjust_life, seat, 0)
    refused(state, InvalidAction, v.adjust_life, seat, v.MAX_LIFE_CHANGE + 1)


def test_the_game_can_be_ended_and_nothing_happens_after():
    state = in_play(2)
    seat = v.active_seat(state)
    v.draw(state, seat)
    assert v.end_game(state, winner=seat) == [v.PhaseChanged("over"), v.GameOver(seat)]
    assert "over" in refused(state, WrongPhase, v.pick, seat, 0)
    refused(state, WrongPhase, v.draw, seat)
    refused(state, WrongPhase, v.end_game)


# --------------------------------------------------------------------------- views


def test_public_status_counts_but_never_names():
    state = in_play(3)
    seat = v.active_seat(state)
    v.draw(state, seat, 2)
    status = v.public_status(state)
    assert status.phase == "play" and status.step == "draw"
    assert status.active_seat == seat and status.picking_seat == seat and status.picks_left == 2
    assert status.turn_in_phase == 1 and status.opening_turns == 12
    assert status.shoe_size == len(state.shoe) and status.passed_pack_size == len(state.passed_pack)
    assert [s.pack_size for s in status.seats] == [len(p.pack) for p in state.players]
    assert [s.hand_size for s in status.seats] == [len(p.hand) for p in state.players]
    assert [s.life for s in status.seats] == [20, 20, 20]
    text = json.dumps(v.public_status(state).__dict__, default=str)
    for card in v.card_census(state):
        assert card not in text


def test_private_view_shows_only_your_hand_and_pack():
    state = in_play(3)
    seat, other = v.active_seat(state), state.turn_order[1]
    v.draw(state, seat)
    mine = v.private_view(state, seat)
    assert mine.hand == tuple(state.players[seat].hand) and mine.pack == tuple(state.players[seat].pack)
    assert mine.picking and mine.pick_number == 1 and mine.picks_total == 1
    theirs = v.private_view(state, other)
    assert theirs.hand == tuple(state.players[other].hand) and not theirs.picking


def test_events_say_who_may_see_them():
    assert v.PickOffered(2, ("X",), 1, 1).private_to == 2
    assert v.CardDrafted(1, "X", 0).private_to == 1
    assert v.ShoeLooked(0, ("X",)).private_to == 0
    assert v.Milled(0, ("X",)).private_to is None
    assert v.PackPassed(0, 7, 6).private_to is None


# --------------------------------------------------------------------------- codec


def test_the_state_round_trips_through_json_and_continues_identically():
    state = in_play(3)
    seat = v.active_seat(state)
    v.draw(state, seat, 3)
    v.pick(state, seat, 1)
    d = json.loads(json.dumps(state.to_dict()))
    assert d["v"] == 2
    copy = VortexState.from_dict(d)
    assert copy == state
    for twin in (state, copy):
        v.pick(twin, seat, 0)
        v.pick(twin, seat, 0)
    v.shuffle_shoe(state, seat)
    v.shuffle_shoe(copy, seat)
    assert copy == state


def test_unknown_versions_are_refused_and_unknown_keys_ignored():
    state = game(2)
    d = state.to_dict()
    with pytest.raises(UnsupportedVersion):
        VortexState.from_dict({**d, "v": 3})
    with pytest.raises(UnsupportedVersion):
        VortexState.from_dict({k: val for k, val in d.items() if k != "v"})
    assert VortexState.from_dict({**d, "bot": {"message_ids": [1]}}) == state


# --------------------------------------------------------------------------- properties

# Fields of events that carry card names.
CARD_FIELDS = ("card", "cards", "exiled", "pack", "lands")
# Public events whose cards may legitimately still be in a hidden zone: revealed shoe cards
# stay in the shoe, and a card returned to hand came from a public zone.
REVEALING_EVENTS = (v.ShoeRevealed, v.CardMoved, v.SearchFinished)  # CardMoved: to the hand too


@st.composite
def tables(draw):
    """A player count, a (possibly tiny) cube with some duplicates and often many basic lands
    (so that mulligans happen), and a seed."""
    n = draw(st.integers(v.MIN_PLAYERS, v.MAX_PLAYERS))
    smallest = v.PACK_SIZE * (n + 1) - len(BASIC_TYPES) * n
    size = draw(st.integers(smallest, smallest + 40))
    lands = draw(st.lists(st.sampled_from([*BASIC_TYPES, "Snow-Covered Forest"]), max_size=size))
    duplicates = draw(st.lists(st.just("Hidden Gem 000"), max_size=3))
    extras = (lands + duplicates)[:size]
    cube = cube_of(size - len(extras)) + extras
    return n, cube, draw(st.integers(0, 2**32))


def hidden_cards(state: VortexState) -> set[str]:
    cards = set(state.shoe) | set(state.passed_pack)
    for p in state.players:
        cards |= set(p.pack) | set(p.hand)
    return cards


def public_cards(state: VortexState) -> Counter:
    return sum((Counter(p.battlefield) + Counter(p.graveyard) + Counter(p.exile) for p in state.players), Counter())


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, item in value.items() for s in strings_in(k) + strings_in(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in strings_in(item)]
    return []


def event_cards(event: v.Event) -> list[str]:
    cards: list[str] = []
    for name in CARD_FIELDS:
        value = getattr(event, name, None)
        cards += [value] if isinstance(value, str) else list(value or ())
    return cards


def check_invariants(state: VortexState, cube: list[str], events: list[v.Event], reported: Counter,
                     document: dict | None = None) -> None:
    """`document`: `state.to_dict()`, when the caller has it already."""
    assert v.card_census(state) == expected_cards(cube, state), "a card appeared or vanished"
    assert all(len(p.pack) <= v.PACK_SIZE for p in state.players), "a pack over 7 after SBA"
    assert len(state.passed_pack) <= v.PACK_SIZE
    if state.draft is not None:
        assert state.players[state.draft.seat].pack, "a pick offered from an empty pack"
    for p in state.players:
        assert p.life == v.STARTING_LIFE - p.penalties + reported[p.seat]
    status = json.dumps(asdict(v.public_status(state)))
    hidden = hidden_cards(state)
    for text in strings_in(json.loads(status)):
        for card in hidden:
            assert card not in text, f"public status shows hidden card {card!r}"
    public_now = public_cards(state)
    for e in events:
        if e.private_to is None and not isinstance(e, REVEALING_EVENTS):
            assert Counter(event_cards(e)) <= public_now, f"public event shows hidden cards: {e}"
    document = state.to_dict() if document is None else document
    assert VortexState.from_dict(json.loads(json.dumps(document))) == state


def choose_action(data, state: VortexState):
    """(label, action) for a random action: usually a legal one, sometimes anything at all.

    An action is a function of the state, so the same action can be applied to a reloaded twin."""
    anyone = data.draw(st.integers(0, len(state.players) - 1))
    if data.draw(st.integers(0, 9)) == 0:  # anything at all, mostly refused
        kind = data.draw(st.sampled_from(["pick", "draw", "pass", "mulligan", "mill", "basics", "arrange"]))
        arg = data.draw(st.integers(-1, 9))
        return kind, {
            "pick": lambda s: v.pick(s, anyone, arg),
            "draw": lambda s: v.draw(s, anyone, arg),
            "pass": lambda s: v.pass_turn(s, anyone),
            "mulligan": lambda s: v.mulligan(s, anyone),
            "mill": lambda s: v.mill(s, anyone, arg),
            "basics": lambda s: v.choose_basics(s, anyone, ["Island"] * max(arg, 0)),
            "arrange": lambda s: v.arrange_top(s, anyone, list(range(max(arg, 0))), []),
        }[kind]
    if state.draft is not None:
        seat = state.draft.seat
        index = data.draw(st.integers(0, len(state.players[seat].pack) - 1))
        return "pick", lambda s: v.pick(s, seat, index)
    if state.search is not None:
        seat = state.search.seat
        if state.shoe and data.draw(st.integers(0, 2)):
            names = data.draw(st.lists(st.sampled_from(state.shoe), min_size=1, max_size=2))
            return "search_choose", lambda s: v.search_choose(s, seat, names)
        if data.draw(st.integers(0, 5)) == 0:
            return "search_clear", lambda s: v.search_clear(s, seat)
        return "finish_search", lambda s: v.finish_search(s, seat)
    if state.phase == "basics":
        seat = next(p.seat for p in state.players if p.opening_basics is None)
        lands = data.draw(st.lists(st.sampled_from(BASIC_TYPES), min_size=3, max_size=3))
        return "basics", lambda s: v.choose_basics(s, seat, lands)
    return play_action(data, state, anyone)


PLAY_ACTIONS = [
    "draw",
    "draw",
    "pass",
    "pass",
    "mulligan",
    "mill",
    "reveal",
    "look",
    "arrange",
    "put_on_shoe",
] + ["shuffle", "search", "into_pack", "shoe_into_pack", "play", "move", "move", "life"]


def play_action(data, state: VortexState, seat: int):
    """(label, action) for a play-phase action of `seat`. Only what the chosen kind uses is drawn:
    drawing every argument of every kind for each step tripled the test's time."""
    active = v.active_seat(state)
    player = state.players[seat]
    kind = data.draw(st.sampled_from(PLAY_ACTIONS))

    def count() -> int:
        return data.draw(st.integers(1, 12))

    def cards() -> list[str]:
        return data.draw(st.lists(st.sampled_from(player.hand), min_size=1, max_size=3)) if player.hand else ["X"]

    if kind == "draw":
        number = count() % 3 + 1
        return kind, lambda s: v.draw(s, seat, number)
    if kind == "pass":
        return kind, lambda s: v.pass_turn(s, active)
    if kind == "mulligan":
        return kind, lambda s: v.mulligan(s, active)
    if kind in ("mill", "reveal", "look", "shoe_into_pack"):
        number = count()
        effect = {"mill": v.mill, "reveal": v.reveal_top, "look": v.look_at_top,
                  "shoe_into_pack": v.put_shoe_cards_into_pack}[kind]
        return kind, lambda s: effect(s, seat, number)
    if kind == "arrange":
        looked = state.look.count if state.look else count()
        order = data.draw(st.permutations(list(range(looked))))
        split = data.draw(st.integers(0, looked))
        return kind, lambda s: v.arrange_top(s, seat, order[:split], order[split:])
    if kind == "put_on_shoe":
        chosen, position = cards(), data.draw(st.sampled_from(["top", "bottom"]))
        return kind, lambda s: v.put_on_shoe(s, seat, chosen, position=position)
    if kind == "shuffle":
        return kind, lambda s: v.shuffle_shoe(s, seat)
    if kind == "search":
        number = count()
        destination = data.draw(st.sampled_from(v.SEARCH_DESTINATIONS))
        reveal = data.draw(st.booleans())
        return kind, lambda s: v.begin_search(s, seat, number, to=destination, reveal=reveal)
    if kind == "into_pack":
        chosen = cards()
        return kind, lambda s: v.put_into_pack(s, seat, chosen)
    if kind == "play":
        card = cards()[0]
        return kind, lambda s: v.play_card(s, seat, card)
    if kind == "move":
        source, destination_zone = data.draw(st.permutations(v.ZONES))[:2]
        moved = data.draw(st.sampled_from(getattr(player, source))) if getattr(player, source) else "X"
        return kind, lambda s: v.move_card(s, seat, moved, source, destination_zone)
    assert kind == "life", kind
    life = count() if data.draw(st.booleans()) else -count()
    return kind, lambda s: v.adjust_life(s, seat, life)


def apply(state: VortexState, kind: str, action, reported: Counter, before: str) -> list[v.Event] | None:
    """Run one action; a refusal must leave the state exactly as it was (`before`: its document as
    text). `reported` sums the life changes players reported, per seat."""
    try:
        events = action(state)
    except VortexError as refusal:
        assert str(refusal).endswith("."), f"{kind}: refusal is not a sentence: {refusal}"
        assert json.dumps(state.to_dict(), sort_keys=True) == before, f"refused {kind} changed the state"
        return None
    for e in events:
        if isinstance(e, v.LifeChanged) and e.reason == "reported":
            reported[e.seat] += e.delta
    return events


def note_coverage(state: VortexState, events: list[v.Event]) -> None:
    """Let --hypothesis-show-statistics tell whether the rare rules were exercised."""
    for e in events:
        if isinstance(e, v.EmptyPackPenalty | v.MulliganTaken | v.PackOverflowDiscard):
            event(type(e).__name__)
        if isinstance(e, v.SearchFinished):
            event(f"a search found {'something' if e.found else 'nothing'}")
    if not state.shoe and state.phase == "play":
        event("played with an empty shoe")


PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(tables(), st.data())
def test_random_play_keeps_every_invariant_and_a_reloaded_twin_in_step(table, data):
    """Random actions (legal ones mostly; refusals must change nothing), including shoe effects,
    growing packs and empty shoes. After every step: every card is in exactly one zone, no
    pack is over 7, no public view or public event names a hidden card, and the codec round
    trips. A twin reloaded from JSON takes the same actions and stays identical (same events,
    same random discards and shuffles)."""
    n, cube, seed = table
    state = v.new_game(cube, USERS[:n], seed=seed)
    twin = VortexState.from_dict(json.loads(json.dumps(state.to_dict())))
    reported: Counter = Counter()
    check_invariants(state, cube, [], reported)
    # The state's document is built once a step, for the twin's comparison, the codec's round trip
    # and (as text) what a refusal must leave unchanged next step, for both (they are equal).
    before = json.dumps(state.to_dict(), sort_keys=True)
    for _ in range(data.draw(st.integers(20, 120))):
        kind, action = choose_action(data, state)
        events = apply(state, kind, action, reported, before)
        twin_events = apply(twin, kind, action, Counter(), before)
        document = state.to_dict()
        assert twin_events == events and twin.to_dict() == document
        if events is not None:
            check_invariants(state, cube, events, reported, document)
            note_coverage(state, events)
        before = json.dumps(document, sort_keys=True)
    event(f"ended in phase {state.phase}")
