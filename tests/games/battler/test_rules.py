"""Tests for the Treasure Battler rules engine (FORMATS.md §2)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.battler import rules as b
from bot.games.battler.rules import (
    BASIC_TYPES,
    AlreadyDone,
    BattlerError,
    BattlerSettings,
    BattlerState,
    InvalidAction,
    NotAPlayer,
    NotEnoughTreasures,
    PlayerEliminated,
    WrongPhase,
)
from bot.kit import events as codec

# --------------------------------------------------------------------------- helpers


def cube_of(n_cards: int) -> list[str]:
    return [f"card{i:03d}" for i in range(n_cards)]


def make(n=4, *, seed=1, settings_=None, cube_size=None, basics=("Island", "Forest")) -> BattlerState:
    """A game with all basics chosen: PLAY phase of stage 1 round 1."""
    state = b.new_game(cube_of(cube_size or 30 * n), list(range(100, 100 + n)), seed=seed, settings=settings_)
    for seat in range(n):
        b.choose_basics(state, seat, list(basics))
    assert state.phase == "play"
    return state


def all_cards(state: BattlerState) -> Counter:
    # One Counter updated in place: adding Counters builds a new one each time, half the random
    # games' time in the checks after every action.
    c = Counter(state.packpile)
    for zone in (state.packyard, state.carousel_cards, *(z for p in state.players for z in (p.stash, p.pack))):
        c.update(zone)
    return c


def pairing_of(state: BattlerState, seat: int) -> b.Pairing:
    pr = b.open_pairing(state, seat)
    assert pr is not None, f"seat {seat} has no open pairing"
    return pr


def play_phase(state: BattlerState, losers=(), draws=()) -> list[b.Event]:
    """Report every open pairing: seats in `losers` lose, pairs containing a seat of `draws`
    draw, otherwise seat `a` wins."""
    events: list[b.Event] = []
    for pr in list(state.pairings):
        if pr.result is not None:
            continue
        if pr.a in draws or pr.b in draws:
            events += b.report(state, pr.a, "draw")
        elif pr.a in losers:
            events += b.report(state, pr.a, "lost")
        elif pr.b in losers:
            events += b.report(state, pr.b, "lost")
        else:
            events += b.report(state, pr.a, "won")
    return events


def finish_draft(state: BattlerState) -> list[b.Event]:
    assert state.phase == "draft"
    events: list[b.Event] = []
    for p in b.players_in_play(state):
        if not p.done:
            events += b.done(state, p.seat)
    return events


def to_draft(state: BattlerState, **kw) -> list[b.Event]:
    ev = play_phase(state, **kw)
    assert state.phase == "draft"
    return ev


def of_type(events, cls):
    return [e for e in events if isinstance(e, cls)]


# --------------------------------------------------------------------------- setup


def test_new_game_deals_five_cards_one_treasure_and_waits_for_basics():
    cube = cube_of(120)
    state = b.new_game(cube, [1, 2, 3, 4], seed=7)
    assert state.phase == "setup" and (state.stage, state.round) == (1, 1)
    for p in state.players:
        assert len(p.stash) == 5
        assert p.treasures == 1
        assert p.basics == [] and p.poison == 0 and p.pack == []
    assert len(state.packpile) == 120 - 20
    assert all_cards(state) == Counter(cube)
    assert state.packyard == []
    # shuffled, not dealt in cube order
    assert [c for p in state.players for c in p.stash] != cube[:20]


def test_new_game_validation():
    with pytest.raises(BattlerError):
        b.new_game(cube_of(100), [1, 2, 3], seed=1)  # odd
    with pytest.raises(BattlerError):
        b.new_game(cube_of(100), [1], seed=1)
    with pytest.raises(BattlerError):
        b.new_game(cube_of(100), [1, 1], seed=1)  # same user twice
    with pytest.raises(BattlerError):
        b.new_game(cube_of(79), [1, 2, 3, 4], seed=1)  # < 20 cards per player
    with pytest.raises(BattlerError):
        BattlerSettings(progression="linear")


def test_choose_basics_exactly_two_valid_then_play_starts():
    state = b.new_game(cube_of(80), [1, 2, 3, 4], seed=3)
    with pytest.raises(InvalidAction):
        b.choose_basics(state, 0, ["Island"])
    with pytest.raises(InvalidAction):
        b.choose_basics(state, 0, ["Island", "Island", "Swamp"])
    with pytest.raises(InvalidAction):
        b.choose_basics(state, 0, ["Island", "Wastes"])
    with pytest.raises(NotAPlayer):
        b.choose_basics(state, 4, ["Island", "Swamp"])
    b.choose_basics(state, 0, ["Island", "Island"])
    b.choose_basics(state, 0, ["Swamp", "Mountain"])  # may change until everyone chose
    assert state.phase == "setup"
    b.choose_basics(state, 1, ["Plains", "Forest"])
    b.choose_basics(state, 2, ["Plains", "Forest"])
    events = b.choose_basics(state, 3, ["Plains", "Forest"])
    assert state.players[0].basics == ["Swamp", "Mountain"]
    assert state.phase == "play" and (state.stage, state.round) == (1, 1)
    assert of_type(events, b.PhaseChanged)[0].phase == "play"
    assert of_type(events, b.PairingsMade)
    with pytest.raises(WrongPhase):
        b.choose_basics(state, 0, ["Island", "Island"])
    with pytest.raises(WrongPhase):
        b.trade(state, 0, state.players[0].stash[0], "x")


# --------------------------------------------------------------------------- rules tables


def test_hand_size_is_stage_plus_two():
    assert [b.hand_size(s) for s in range(1, 6)] == [3, 4, 5, 6, 7]


def test_poison_per_loss_progressions():
    assert [b.poison_for_loss(s, "fibonacci") for s in range(1, 6)] == [1, 1, 2, 3, 5]
    assert [b.poison_for_loss(s, "flat2") for s in range(1, 6)] == [2, 2, 2, 2, 2]
    assert b.poison_for_loss(1) == 1


@pytest.mark.parametrize(
    ("progression", "stage", "expected"),
    [
        ("fibonacci", 1, 1),
        ("fibonacci", 3, 2),
        ("fibonacci", 4, 3),
        ("fibonacci", 5, 5),
        ("flat2", 1, 2),
        ("flat2", 5, 2),
    ],
)
def test_loser_gets_poison_by_stage(progression, stage, expected):
    state = make(2, settings_=BattlerSettings(progression=progression))
    state.stage = stage
    events = play_phase(state, losers={1})
    assert state.players[1].poison == expected
    assert state.players[0].poison == 0
    assert of_type(events, b.PlayerPoisoned) == [b.PlayerPoisoned(1, expected, expected)]


def test_draw_is_a_loss_for_both():
    state = make(4)
    state.stage = 3
    play_phase(state, draws={0})  # 0 vs 2 draws, 1 vs 3: 1 wins
    assert [p.poison for p in state.players] == [2, 0, 2, 2]


EXPECTED_TABLE = """
| 1 | 1 | 3 | 5 | 1 | 1 |
| 1 | 2 | 3 | 6 | 1 | 1 |
| 1 | 3 | 3 | 7 | 1 | 1 |
| 2 | 1 | 4 | 8 | 1 | 1 |
| 2 | 2 | 4 | 9 | 1 | 1 |
| 2 | 3 | 4 | 10 | 1 | 1 |
| 3 | 1 | 5 | 11 | 1 | 2 |
| 3 | 2 | 5 | 12 | 1 | 2 |
| 3 | 3 | 5 | 13 | 1 | 2 |
| 4 | 1 | 6 | 14 | 1 | 3 |
| 4 | 2 | 6 | 15 | 1 | 3 |
| 4 | 3 | 6 | 15 | 2 | 3 |
| 5 | 1 | 7 | 15 | 2 | 5 |
| 5 | 2 | 7 | 15 | 2 | 5 |
| 5 | 3 | 7 | 15 | 2 | 5 |
"""
COLUMNS = ("stage", "round", "hand", "pool", "extra_treasures", "poison_per_loss")


def expected_rows():
    rows = []
    for line in EXPECTED_TABLE.strip().splitlines():
        cells = [int(c) for c in line.strip("| ").split("|")]
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows


def test_resource_overview_matches_formats_md_row_by_row():
    got = b.resource_overview()
    want = expected_rows()
    assert len(got) == len(want) == 15
    for g, w in zip(got, want, strict=True):
        assert g == w


def test_resource_overview_flat2_only_changes_poison():
    got = b.resource_overview("flat2")
    for g, w in zip(got, expected_rows(), strict=True):
        assert g == {**w, "poison_per_loss": 2}


def test_resource_overview_matches_a_real_game():
    """The table is what the engine really deals: replay 15 rounds and observe."""
    state = make(2, cube_size=60)
    observed = []
    income = state.players[0].treasures  # setup treasure
    while True:
        for p in state.players:
            p.poison = 0  # keep both alive
            p.treasures = 0  # so the draft income is visible
        row = {
            "stage": state.stage,
            "round": state.round,
            "hand": b.hand_size(state.stage),
            "pool": len(state.players[0].stash),
            "extra_treasures": income,
        }
        last = (state.stage, state.round) == (5, 3)
        play_phase(state, losers={1})
        row["poison_per_loss"] = state.players[1].poison
        observed.append(row)
        if last:
            break
        income = state.players[0].treasures
        finish_draft(state)
    assert observed == expected_rows()


# --------------------------------------------------------------------------- treasures


def test_concession_forfeits_next_treasure():
    state = make(4)
    b.report(state, 2, "conceded")  # 0 vs 2: 2 concedes
    events = b.report(state, 1, "won")  # 1 vs 3: 3 loses normally
    assert state.players[2].poison == 1  # a concession is a loss
    assert state.phase == "draft"
    income = {e.seat: e.delta for e in of_type(events, b.TreasuresChanged) if e.reason == "income"}
    assert income == {0: 1, 1: 1, 3: 1}  # 2 gets no treasure
    assert [p.treasures for p in state.players] == [2, 2, 1, 2]
    # only the next draft: the flag is cleared
    finish_draft(state)
    play_phase(state)
    assert state.players[2].treasures == 2


def test_treasures_left_after_a_game_are_capped_at_five_as_soon_as_reported():
    """FORMATS.md §2 PLAY 5: remaining treasure tokens, including ones made during the mini-game,
    go back to the stash, keeping at most 5 (5 or fewer: all kept; 6 or more: 5)."""
    state = make(2)
    events = b.report_treasures(state, 0, 8)  # started with 1, made 7 in the mini-game
    assert events == [b.TreasuresChanged(0, 7, 8, "reported"), b.TreasuresChanged(0, -3, 5, "cap")]
    assert state.players[0].treasures == 5  # capped at once, not only when the phase ends
    events = b.report(state, 1, "won", treasures={1: 0})  # 1 spent theirs
    assert not [e for e in of_type(events, b.TreasuresChanged) if e.reason == "cap"]
    # draft income comes on top of the capped value
    assert state.phase == "draft"
    assert state.players[0].treasures == 6
    assert state.players[1].treasures == 1


@pytest.mark.parametrize(("left", "kept"), [(0, 0), (4, 4), (5, 5), (6, 5), (9, 5), (40, 5)])
def test_treasures_left_cap_keeps_five_or_fewer_and_caps_six_or_more(left, kept):
    state = make(2)
    b.report(state, 0, "won", treasures={0: left, 1: left})
    assert [p.treasures for p in state.players] == [kept + 1, kept + 1]  # + the next draft's income


def test_treasures_cannot_be_reported_after_the_game_is_settled():
    state = make(4)
    b.report(state, 0, "won")
    with pytest.raises(AlreadyDone):
        b.report_treasures(state, 2, 9)
    assert state.players[2].treasures == 1


def test_treasures_capped_at_end_of_draft():
    state = make(2)
    to_draft(state)
    state.players[0].treasures = 9
    b.reroll(state, 0)  # 8 left
    events = finish_draft(state)
    assert state.players[0].treasures == 5
    assert b.TreasuresChanged(0, -3, 5, "cap") in events


def test_report_treasures_validation():
    state = make(2)
    with pytest.raises(InvalidAction):
        b.report_treasures(state, 0, -1)
    with pytest.raises(InvalidAction):
        b.report(state, 0, "won", treasures={1: -2})
    assert state.players[1].treasures == 1
    assert state.pairings[0].result is None  # refused report changed nothing


def test_random_card_until_pool_is_15_then_treasure():
    state = make(2, cube_size=80)
    state.players[0].stash += state.packpile[:9]  # 14 cards
    del state.packpile[:9]
    state.players[1].stash += state.packpile[:10]  # 15 cards
    del state.packpile[:10]
    events = to_draft(state)
    assert len(state.players[0].stash) == 15
    assert len(state.players[1].stash) == 15
    assert len(of_type(events, b.CardGained)) == 1
    assert state.players[0].treasures == 1 + 1  # income only
    assert state.players[1].treasures == 1 + 2  # income + pool-full treasure
    assert b.TreasuresChanged(1, 2, 3, "pool_full") in events


def test_interest_and_win_streak_bonuses():
    state = make(2, settings_=BattlerSettings(interest_threshold=3, win_streak=True), cube_size=120)
    b.report_treasures(state, 1, 3)
    to_draft(state, losers={1})
    # 1 had 3 treasures after the game: +1 interest next to the income
    assert state.players[1].treasures == 3 + 1 + 1
    assert state.players[0].treasures == 1 + 1
    for _ in range(2):
        for p in state.players:
            p.treasures = 0
        finish_draft(state)
        to_draft(state, losers={1})
    # seat 0 won three games in a row: +1 streak treasure
    assert state.players[0].treasures == 1 + 1
    assert state.players[0].win_streak == 3
    assert state.players[1].treasures == 1


def test_bonuses_off_by_default():
    state = make(2)
    b.report_treasures(state, 1, 4)
    to_draft(state, losers={1})
    assert state.players[1].treasures == 5


# --------------------------------------------------------------------------- draft actions


def test_trade_swaps_one_stash_card_with_one_pack_card_for_free():
    state = make(2)
    to_draft(state)
    p = state.players[0]
    before_t = p.treasures
    s_card, p_card = p.stash[0], p.pack[2]
    b.trade(state, 0, s_card, p_card)
    assert p_card in p.stash and s_card in p.pack
    assert len(p.stash) == 6 and len(p.pack) == 5
    assert p.treasures == before_t
    with pytest.raises(InvalidAction):
        b.trade(state, 0, "not-a-card", p.pack[0])
    with pytest.raises(InvalidAction):
        b.trade(state, 0, p.stash[0], p.stash[1])  # not in the pack
    with pytest.raises(InvalidAction):
        b.trade(state, 0, state.players[1].stash[0], p.pack[0])


def test_reroll_costs_one_and_replaces_the_pack():
    state = make(2)
    to_draft(state)
    p = state.players[0]
    old_pack, pile_before = list(p.pack), list(state.packpile)
    t = p.treasures
    events = b.reroll(state, 0)
    assert p.treasures == t - 1
    assert state.packyard == old_pack
    assert p.pack == pile_before[:5]
    assert of_type(events, b.PackDealt) == [b.PackDealt(0, tuple(p.pack))]


def test_shift_basics_costs_one_any_number():
    state = make(2)
    to_draft(state)
    p = state.players[0]  # Island, Forest
    t = p.treasures
    with pytest.raises(InvalidAction):
        b.shift_basics(state, 0, ["Forest", "Island"])  # no change
    with pytest.raises(InvalidAction):
        b.shift_basics(state, 0, ["Swamp"])  # wrong count
    with pytest.raises(InvalidAction):
        b.shift_basics(state, 0, ["Swamp", "Snow"])
    assert p.treasures == t
    b.shift_basics(state, 0, ["Swamp", "Mountain"])  # both changed, one treasure
    assert p.basics == ["Swamp", "Mountain"] and p.treasures == t - 1


def test_buy_basic_cost_grows_with_basics_owned():
    state = make(2)
    to_draft(state)
    p = state.players[0]
    p.treasures = 9
    assert b.action_costs(state, 0)["buy_basic"] == 3
    b.buy_basic(state, 0, "Plains")  # 3rd basic costs 3
    assert p.treasures == 6 and p.basics == ["Island", "Forest", "Plains"]
    assert b.action_costs(state, 0)["buy_basic"] == 4
    b.buy_basic(state, 0, "Plains")  # 4th costs 4
    assert p.treasures == 2 and len(p.basics) == 4
    with pytest.raises(InvalidAction):
        b.buy_basic(state, 0, "Wastes")


def test_unaffordable_actions_refused_and_state_unchanged():
    state = make(2)
    to_draft(state)
    state.players[0].treasures = 0
    before = state.to_dict()
    assert b.action_costs(state, 0) == {"trade": 0, "reroll": None, "shift_basics": None, "buy_basic": None}
    with pytest.raises(NotEnoughTreasures):
        b.reroll(state, 0)
    with pytest.raises(NotEnoughTreasures):
        b.shift_basics(state, 0, ["Swamp", "Swamp"])
    with pytest.raises(NotEnoughTreasures):
        b.buy_basic(state, 0, "Swamp")
    state.players[0].treasures = 2
    before = state.to_dict()
    assert b.action_costs(state, 0) == {"trade": 0, "reroll": 1, "shift_basics": 1, "buy_basic": None}
    with pytest.raises(NotEnoughTreasures):
        b.buy_basic(state, 0, "Swamp")  # costs 3
    assert state.to_dict() == before


def test_done_and_refusals():
    state = make(4)
    with pytest.raises(WrongPhase):
        b.done(state, 0)
    to_draft(state)
    b.done(state, 0)
    with pytest.raises(AlreadyDone):
        b.done(state, 0)
    with pytest.raises(AlreadyDone):
        b.reroll(state, 0)
    assert b.action_costs(state, 0) == dict.fromkeys(("trade", "reroll", "shift_basics", "buy_basic"))
    with pytest.raises(NotAPlayer):
        b.done(state, 9)
    with pytest.raises(NotAPlayer):
        b.seat_of(state, 42)
    assert b.seat_of(state, 102) == 2
    b.done(state, 1)
    b.done(state, 2)
    assert state.phase == "draft"
    b.done(state, 3)
    assert state.phase == "play"
    for p in state.players:
        assert p.pack == []


def test_force_end_draft():
    state = make(4)
    to_draft(state)
    b.done(state, 1)
    events = b.force_end_draft(state)
    assert state.phase == "play"
    assert {e.seat for e in of_type(events, b.PlayerDone)} == {0, 2, 3}
    with pytest.raises(WrongPhase):
        b.force_end_draft(state)


# --------------------------------------------------------------------------- packyard


def test_packs_go_to_packyard_and_reshuffle_at_round_3():
    state = make(4, cube_size=200)
    to_draft(state)  # round 2
    packs = [c for p in state.players for c in p.pack]
    events = finish_draft(state)
    assert Counter(state.packyard) == Counter(packs)  # plenty of cards: no reshuffle in round 2
    assert not of_type(events, b.PackyardReshuffled)
    to_draft(state)  # round 3
    assert state.round == 3
    events = finish_draft(state)
    assert state.packyard == []
    assert of_type(events, b.PackyardReshuffled)
    assert all_cards(state) == Counter(cube_of(200))


def test_reshuffle_when_packpile_runs_short():
    state = make(2, cube_size=40)  # 30 in the packpile after setup
    to_draft(state)  # round 2: 2 cards + 2 packs dealt -> 18 left
    assert len(state.packpile) == 18
    state.players[0].treasures = 5
    b.reroll(state, 0)
    b.reroll(state, 0)  # 8 left: cannot deal next round's 2 cards + 2 packs
    assert len(state.packpile) == 8
    events = finish_draft(state)
    assert state.round == 2 and of_type(events, b.PackyardReshuffled)
    assert state.packyard == [] and len(state.packpile) == 28


def test_reroll_reshuffles_packyard_when_packpile_is_empty():
    state = make(2, cube_size=40)
    to_draft(state)
    state.players[0].treasures = 5
    for _ in range(3):
        b.reroll(state, 0)
    assert len(state.packpile) == 3
    events = b.reroll(state, 0)
    assert of_type(events, b.PackyardReshuffled)
    assert len(state.players[0].pack) == 5
    assert all_cards(state) == Counter(cube_of(40))


# --------------------------------------------------------------------------- pairing


@pytest.mark.parametrize("n", [2, 4, 6, 8])
def test_first_game_is_across_the_table(n):
    state = make(n)
    assert sorted((p.a, p.b) for p in state.pairings) == [(i, i + n // 2) for i in range(n // 2)]
    assert all(p.method == "across" for p in state.pairings)


def test_d20_method_with_four_players():
    branches = Counter()
    for seed in range(300):
        state = make(4, seed=seed)
        to_draft(state)  # played 0-2, 1-3
        finish_draft(state)
        first = state.pairings[0]
        assert first.method == "d20"
        assert first.roller == 0
        # the two players seat 0 did not just play are Even and Odd (recorded)
        assert {first.even_seat, first.odd_seat} == {1, 3}
        roll = first.d20_roll
        assert 1 <= roll <= 20
        opp = first.other(0)
        if roll in (1, 20):
            assert opp == 2
            branches["replay"] += 1
        elif roll % 2 == 0:
            assert opp == first.even_seat
            branches["even"] += 1
        else:
            assert opp == first.odd_seat
            branches["odd"] += 1
        others = sorted({0, 1, 2, 3} - {0, opp})
        assert (state.pairings[1].a, state.pairings[1].b) == tuple(others)
    assert branches["replay"] > 0 and branches["even"] > 60 and branches["odd"] > 60
    assert branches["replay"] < 60  # ~10 %


def test_random_pairing_avoids_previous_opponent():
    for seed in range(40):
        state = make(6, seed=seed)
        to_draft(state)  # played 0-3, 1-4, 2-5
        finish_draft(state)
        pairs = {(p.a, p.b) for p in state.pairings}
        assert state.pairings[0].method == "random"
        assert not pairs & {(0, 3), (1, 4), (2, 5)}
        assert sorted(s for pr in state.pairings for s in pr.seats()) == list(range(6))


def test_two_players_always_play_each_other():
    state = make(2)
    for _ in range(3):
        assert [(p.a, p.b) for p in state.pairings] == [(0, 1)]
        to_draft(state)
        finish_draft(state)


def test_who_goes_first_most_poison_chooses_tie_random():
    state = make(4)
    to_draft(state)  # 2 and 3 lost: poison 1
    state.players[1].poison = 4
    finish_draft(state)
    for pr in state.pairings:
        pa, pb = state.players[pr.a], state.players[pr.b]
        if pa.poison == pb.poison:
            assert pr.chooser is None and pr.first in pr.seats()
        else:
            assert pr.first is None
            assert pr.chooser == (pr.a if pa.poison > pb.poison else pr.b)
    # first game: all tied -> random, recorded
    fresh = make(4)
    assert all(pr.chooser is None and pr.first in pr.seats() for pr in fresh.pairings)


def test_who_goes_first_random_when_only_two_remain():
    state = make(2)
    state.players[0].poison = 5
    to_draft(state)
    finish_draft(state)
    pr = state.pairings[0]
    assert pr.chooser is None and pr.first in (0, 1)


# --------------------------------------------------------------------------- deaths


def test_elimination_at_ten_and_last_player_standing_wins():
    state = make(2)
    state.players[1].poison = 9
    events = play_phase(state, losers={1})
    assert state.players[1].poison == 10
    assert state.phase == "over" and state.winner == 0
    assert b.GameOver(0) in events
    assert b.PlayerOut(1) in events
    with pytest.raises(WrongPhase):
        b.report(state, 0, "won")
    assert b.standings(state) == [[0], [1]]


def test_nine_poison_is_not_dead():
    state = make(4)
    state.players[2].poison = 8
    play_phase(state, losers={2})
    assert state.players[2].poison == 9 and state.players[2].status == "alive"
    assert state.phase == "draft"


def _four_with_ghost(seed=1) -> BattlerState:
    """4 players; seat 2 died first and is the Ghost; DRAFT phase."""
    state = make(4, seed=seed)
    state.players[2].poison = 9
    events = play_phase(state, losers={2, 3})  # 0 beats 2, 1 beats 3
    assert b.BecameGhost(2, False) in events
    assert state.players[2].status == "ghost"
    assert state.phase == "draft"
    return state


def test_ghost_keeps_playing_and_drafting():
    state = _four_with_ghost()
    ghost = state.players[2]
    assert len(ghost.pack) == 5 and not ghost.done  # drafts as usual
    assert [p.seat for p in b.live_players(state)] == [0, 1, 3]
    b.trade(state, 2, ghost.stash[0], ghost.pack[0])
    finish_draft(state)
    assert any(2 in pr.seats() for pr in state.pairings)  # paired as usual
    assert len(state.pairings) == 2
    # the Ghost losing again changes nothing
    play_phase(state, losers={2})
    assert ghost.poison == 10 and ghost.status == "ghost"
    assert state.phase == "draft"


def test_second_death_removes_the_ghost_and_final_two_play():
    state = _four_with_ghost()
    finish_draft(state)
    victim = next(s for s in (0, 1, 3) if 2 not in pairing_of(state, s).seats())
    state.players[victim].poison = 9
    events = play_phase(state, losers={victim})
    assert b.PlayerOut(2) in events and b.PlayerOut(victim) in events
    assert state.players[2].status == "out" and state.players[victim].status == "out"
    assert state.phase == "draft"
    assert state.players[2].pack == [] and state.players[victim].pack == []
    with pytest.raises(PlayerEliminated):
        b.reroll(state, victim)
    assert b.action_costs(state, victim)["trade"] is None
    finish_draft(state)
    survivors = sorted({0, 1, 3} - {victim})
    assert [(p.a, p.b) for p in state.pairings] == [tuple(survivors)]
    assert state.pairings[0].method == "final"
    with pytest.raises(PlayerEliminated):
        b.report(state, victim, "won")


def test_ghost_cannot_decide_the_game_playoff():
    state = _four_with_ghost()
    finish_draft(state)
    ghost_pr = pairing_of(state, 2)
    x = ghost_pr.other(2)  # loses to the Ghost
    other_pr = next(p for p in state.pairings if p is not ghost_pr)
    y, z = other_pr.a, other_pr.b  # y loses to z
    state.players[x].poison = 9
    state.players[y].poison = 9
    events = play_phase(state, losers={x, y})
    # not game over: the two eliminated players play off, the Ghost is out
    assert state.phase == "play" and state.winner is None
    assert b.PlayoffStarted(min(x, y), max(x, y), z) in events
    assert state.players[2].status == "out"
    assert len(state.pairings) == 1 and state.pairings[0].playoff
    assert set(state.pairings[0].seats()) == {x, y}
    with pytest.raises(InvalidAction):
        b.report(state, z, "won")  # the survivor has no game now
    # a drawn play-off must be replayed
    ev = b.report(state, x, "draw")
    assert of_type(ev, b.ReplayRequired) and state.pairings[0].result is None
    ev = b.report(state, y, "won")
    assert state.players[y].status == "alive" and state.players[y].poison == 9
    assert state.players[x].status == "out"
    assert state.phase == "draft"  # the final is a normal round: draft, then play
    finish_draft(state)
    assert [(p.a, p.b) for p in state.pairings] == [(min(y, z), max(y, z))]


def test_draw_that_would_eliminate_two_live_players_is_replayed():
    state = make(2)
    state.players[0].poison = 9
    state.players[1].poison = 9
    events = b.report(state, 0, "draw")
    assert events == [b.ReplayRequired(0, 1, "double_elimination_draw")]
    assert state.phase == "play" and [p.poison for p in state.players] == [9, 9]
    assert state.pairings[0].replays == 1
    b.report(state, 1, "draw")  # again
    assert state.pairings[0].replays == 2 and state.phase == "play"
    b.report(state, 1, "won")  # no drafting between: same pairing, now decided
    assert state.winner == 1


def test_cannot_finish_sets_both_to_nine():
    state = make(4)
    state.stage = 3  # 2 poison per loss
    state.players[0].poison = 8
    state.players[2].poison = 8
    with pytest.raises(InvalidAction):
        b.cannot_finish(state, 0)  # nothing to replay yet
    b.report(state, 0, "draw")
    events = b.cannot_finish(state, 2)
    assert b.PoisonSet(0, 9, "cannot_finish") in events
    assert state.phase == "play"  # other game still open
    b.report(state, 1, "won")
    assert [p.poison for p in state.players] == [9, 0, 9, 2]
    assert state.phase == "draft"
    assert all(p.status == "alive" for p in state.players)


def test_draw_killing_only_one_is_applied():
    state = make(2)
    state.players[0].poison = 9
    play_phase(state, draws={0})
    assert state.winner == 1


def test_draw_with_ghost_is_not_replayed():
    state = _four_with_ghost()
    finish_draft(state)
    x = pairing_of(state, 2).other(2)
    state.players[x].poison = 9
    b.report(state, x, "draw")
    assert next(p for p in state.pairings if 2 in p.seats()).result == "draw"


# --------------------------------------------------------------------------- rounds


def test_stage_round_rollover_and_overtime():
    state = make(2, cube_size=60)
    seen = [(state.stage, state.round)]
    for _ in range(17):
        for p in state.players:
            p.poison = 0
        to_draft(state)
        seen.append((state.stage, state.round))
        finish_draft(state)
        assert state.phase == "play"
    assert seen[:16] == [(s, r) for s in range(1, 6) for r in range(1, 4)] + [(5, 1)]
    assert seen[16:] == [(5, 2), (5, 3)][: len(seen) - 16]
    assert b.next_round(1, 3) == (2, 1)
    assert b.next_round(5, 3) == (5, 1)  # overtime: stage stays 5
    assert b.poison_for_loss(state.stage) == 5


def test_hand_size_follows_stage_in_game():
    state = make(2, cube_size=60)
    for _ in range(3):
        to_draft(state)
        finish_draft(state)
    assert (state.stage, state.round) == (2, 1)
    assert b.hand_size(state.stage) == 4


# --------------------------------------------------------------------------- carousel


def carousel_settings(mode="round", source="packpile") -> BattlerSettings:
    return BattlerSettings(carousel=mode, carousel_from=source)


def pick_all(state: BattlerState) -> list[b.Event]:
    """Every pick left: the picker takes the carousel's last card (full pools pass)."""
    events: list[b.Event] = []
    while state.phase == "carousel":
        seat = b.carousel_picker(state)
        if len(state.players[seat].stash) >= b.POOL_MAX:
            events += b.carousel_pass(state, seat)
        else:
            events += b.carousel_pick(state, seat, state.carousel_cards[-1])
    return events


def fill_pool(state: BattlerState, seat: int) -> None:
    need = b.POOL_MAX - len(state.players[seat].stash)
    state.players[seat].stash += state.packpile[:need]
    del state.packpile[:need]


def test_carousel_settings_and_the_old_boolean():
    assert (BattlerSettings().carousel, BattlerSettings().carousel_from) == ("off", "packpile")
    assert BattlerSettings(carousel=True).carousel == "round"
    assert BattlerSettings(carousel=False).carousel == "off"
    with pytest.raises(BattlerError, match="carousel"):
        BattlerSettings(carousel="always")
    with pytest.raises(BattlerError, match="source"):
        BattlerSettings(carousel_from="graveyard")
    # A version-1 document (the stored-only boolean, no carousel fields) loads as before.
    old = make(2).to_dict()
    old["v"] = 1
    old["settings"] = {"progression": "fibonacci", "interest_threshold": None, "win_streak": False, "carousel": True}
    for key in ("carousel_cards", "carousel_order", "carousel_turn"):
        del old[key]
    loaded = BattlerState.from_dict(json.loads(json.dumps(old)))
    assert loaded.settings == carousel_settings("round")
    assert (loaded.carousel_cards, loaded.carousel_order, loaded.carousel_turn) == ([], [], 0)
    assert loaded.to_dict()["v"] == b.SCHEMA_VERSION


@pytest.mark.parametrize("mode", ["round", "stage"])
def test_a_carousel_skips_the_random_card_and_the_full_pool_treasure(mode):
    state = make(2, settings_=carousel_settings(mode), cube_size=80)
    fill_pool(state, 1)
    events = to_draft(state)
    assert not of_type(events, b.CardGained)
    assert [len(p.stash) for p in state.players] == [5, 15]
    assert [p.treasures for p in state.players] == [2, 2]  # the income only
    assert b.draft_income(15, False, carousel=True) == (0, 1)
    assert b.draft_income(3, True, carousel=True) == (0, 0)


def test_round_carousel_comes_after_the_packs_and_before_the_cap():
    state = make(4, settings_=carousel_settings("round"), cube_size=200)
    to_draft(state)  # 2 and 3 lost: poison 1
    state.players[0].treasures = 9
    packs = [c for p in state.players for c in p.pack]
    fresh = state.packpile[:4]
    events = finish_draft(state)
    assert state.phase == "carousel" and state.packyard == packs
    assert state.carousel_cards == fresh  # exactly one fresh card per pick
    (started,) = of_type(events, b.CarouselStarted)
    assert (started.cards, started.picks_each, started.source) == (tuple(fresh), 1, "packpile")
    assert set(started.order[:2]) == {0, 1} and set(started.order[2:]) == {2, 3}  # fewest poison first
    assert events.index(of_type(events, b.PacksDisposed)[0]) < events.index(started)
    assert of_type(events, b.CarouselTurn) == [b.CarouselTurn(started.order[0], 1)]
    assert state.players[0].treasures == 9  # the cap comes after the carousel
    assert b.action_costs(state, 0) == dict.fromkeys(("trade", "reroll", "shift_basics", "buy_basic"))
    with pytest.raises(WrongPhase):
        b.done(state, 0)
    for pick, seat in enumerate(started.order, start=1):
        assert b.carousel_picker(state) == seat
        card = state.carousel_cards[-1]
        events = b.carousel_pick(state, seat, card)
        assert state.players[seat].stash[-1] == card and len(state.players[seat].stash) == 6
        assert events[0] == b.CarouselPicked(seat, card, None)
        if pick < 4:
            assert events[1:] == [b.CarouselTurn(started.order[pick], pick + 1)]
    assert state.phase == "play" and state.carousel_cards == [] and b.carousel_picker(state) is None
    kinds = [type(e) for e in events]
    assert kinds.index(b.CarouselEnded) < kinds.index(b.TreasuresChanged) < kinds.index(b.PhaseChanged)
    assert of_type(events, b.CarouselEnded) == [b.CarouselEnded(())]
    assert state.players[0].treasures == 5
    assert all_cards(state) == Counter(cube_of(200))


def test_stage_carousel_three_each_in_snake_order_on_the_last_round_then_the_reshuffle():
    state = make(4, settings_=carousel_settings("stage"), cube_size=200)
    to_draft(state)  # stage 1 round 2
    assert b.carousel_picks(state) == 0
    events = finish_draft(state)
    assert state.phase == "play" and not of_type(events, b.CarouselStarted)
    to_draft(state)  # round 3, the last of the stage
    assert b.carousel_picks(state) == 3
    for seat, poison in enumerate([3, 0, 2, 1]):
        state.players[seat].poison = poison
    sizes = [len(p.stash) for p in state.players]
    events = finish_draft(state)
    (started,) = of_type(events, b.CarouselStarted)
    assert started.order == (1, 3, 2, 0, 0, 2, 3, 1, 1, 3, 2, 0) and not started.random_tiebreak
    assert len(state.carousel_cards) == 12
    assert not of_type(events, b.PackyardReshuffled)  # the reshuffle waits for the carousel
    events = pick_all(state)
    assert [len(p.stash) for p in state.players] == [n + 3 for n in sizes]
    kinds = [type(e) for e in events]
    assert kinds.index(b.CarouselEnded) < kinds.index(b.PackyardReshuffled)
    assert state.packyard == [] and state.phase == "play" and (state.stage, state.round) == (1, 3)
    assert all_cards(state) == Counter(cube_of(200))


def test_equal_poison_is_ordered_by_the_seeded_shuffle():
    orders = set()
    for seed in range(30):
        runs = []
        for _ in range(2):
            state = make(4, seed=seed, settings_=carousel_settings())
            to_draft(state)  # poison 0, 0, 1, 1
            (started,) = of_type(finish_draft(state), b.CarouselStarted)
            runs.append(started)
        assert runs[0] == runs[1]  # the same seed, the same order
        assert runs[0].random_tiebreak and set(runs[0].order[:2]) == {0, 1}
        orders.add(runs[0].order)
    assert len(orders) == 4  # each tie goes either way


def test_carousel_from_the_packyard_and_the_leftovers_go_back():
    state = make(2, settings_=carousel_settings("round", "packyard"))
    to_draft(state)
    b.reroll(state, 0)
    yard = list(state.packyard) + [c for p in state.players for c in p.pack]
    events = finish_draft(state)
    assert state.carousel_cards == yard and state.packyard == []
    assert of_type(events, b.CarouselStarted)[0].source == "packyard"
    picked = [state.carousel_cards[3], state.carousel_cards[7]]
    b.carousel_pick(state, b.carousel_picker(state), picked[0])
    events = b.carousel_pick(state, b.carousel_picker(state), picked[1])
    assert Counter(state.packyard) == Counter(yard) - Counter(picked)
    assert len(of_type(events, b.CarouselEnded)[0].leftover) == len(yard) - 2


def test_a_short_packpile_is_refilled_from_the_packyard_before_fresh_cards_are_dealt():
    state = make(2, settings_=carousel_settings("round"), cube_size=40)
    to_draft(state)
    state.players[0].treasures = 5
    for _ in range(4):
        b.reroll(state, 0)
    assert state.packpile == []
    events = finish_draft(state)
    kinds = [type(e) for e in events]
    assert kinds.index(b.PackyardReshuffled) < kinds.index(b.CarouselStarted)
    assert len(state.carousel_cards) == 2
    assert all_cards(state) == Counter(cube_of(40))


@pytest.mark.parametrize(("carousel", "reshuffled"), [("off", True), ("round", False)])
def test_the_packpile_is_refilled_when_it_cannot_deal_the_next_draft(carousel, reshuffled):
    """Exactly 2 packs are left: enough for the next draft with a carousel (no random cards), not without."""
    state = make(2, settings_=carousel_settings(carousel, "packyard"), cube_size=80)
    to_draft(state)  # round 2: not the stage's last
    state.packyard += state.packpile[10:]
    del state.packpile[10:]
    events = finish_draft(state) + pick_all(state)
    assert state.phase == "play"
    assert bool(of_type(events, b.PackyardReshuffled)) == reshuffled


def test_a_full_pool_swaps_or_passes_and_no_pool_passes_fifteen():
    state = make(2, settings_=carousel_settings())
    to_draft(state)
    fill_pool(state, 0)
    state.players[1].poison = 1  # seat 0 picks first
    finish_draft(state)
    full, small = state.players
    card = state.carousel_cards[0]
    before = state.to_dict()
    with pytest.raises(InvalidAction, match="give a stash card back"):
        b.carousel_pick(state, 0, card)
    with pytest.raises(InvalidAction, match="not in your stash"):
        b.carousel_pick(state, 0, card, give_back="no-such-card")
    with pytest.raises(InvalidAction, match="not in the carousel"):
        b.carousel_pick(state, 0, "no-such-card", give_back=full.stash[0])
    with pytest.raises(InvalidAction, match="not your turn"):
        b.carousel_pick(state, 1, card)
    with pytest.raises(InvalidAction, match="not your turn"):
        b.carousel_pass(state, 1)
    assert state.to_dict() == before  # refusals change nothing
    given = full.stash[3]
    events = b.carousel_pick(state, 0, card, give_back=given)
    assert events[0] == b.CarouselPicked(0, card, given)
    assert full.stash[3] == card and len(full.stash) == 15 and given in state.carousel_cards
    with pytest.raises(InvalidAction, match="only a full pool"):
        b.carousel_pass(state, 1)
    with pytest.raises(InvalidAction, match="Only a full pool"):
        b.carousel_pick(state, 1, given, give_back=small.stash[0])
    events = b.carousel_pick(state, 1, given)  # the card given back is in the carousel for others
    assert small.stash[-1] == given and len(small.stash) == 6
    assert len(of_type(events, b.CarouselEnded)[0].leftover) == 1
    with pytest.raises(WrongPhase):
        b.carousel_pick(state, 0, card)


def test_a_full_pool_may_pass():
    state = make(2, settings_=carousel_settings())
    to_draft(state)
    fill_pool(state, 1)
    state.players[0].poison = 1  # seat 1 picks first
    finish_draft(state)
    assert b.carousel_pass(state, 1)[:2] == [b.CarouselPassed(1), b.CarouselTurn(0, 2)]
    assert len(state.players[1].stash) == 15


def test_an_organizer_ends_the_carousel_with_random_picks_and_full_pools_pass():
    state = make(4, settings_=carousel_settings("stage"), cube_size=200)
    to_draft(state)
    finish_draft(state)
    to_draft(state)  # stage 1 round 3
    fill_pool(state, 0)
    sizes = [len(p.stash) for p in state.players]
    finish_draft(state)
    first = b.carousel_picker(state)
    if first == 0:
        b.carousel_pass(state, 0)
    else:
        b.carousel_pick(state, first, state.carousel_cards[0])
    copy = BattlerState.from_dict(state.to_dict())
    events = b.force_end_carousel(state)
    assert events == b.force_end_carousel(copy) and state == copy  # seeded: replays exactly
    assert state.phase == "play" and not of_type(events, b.CarouselTurn)
    assert {e.seat for e in of_type(events, b.CarouselPassed)} == {0}
    assert all(e.forced for e in of_type(events, b.CarouselPicked) + of_type(events, b.CarouselPassed))
    assert [len(p.stash) for p in state.players] == [15] + [n + 3 for n in sizes[1:]]
    with pytest.raises(WrongPhase):
        b.force_end_carousel(state)


def test_round_trip_mid_carousel_and_its_events():
    state = make(4, seed="carousel", settings_=carousel_settings("stage", "packyard"), cube_size=200)
    for _ in range(2):
        to_draft(state)
        events = finish_draft(state)
    b.carousel_pick(state, b.carousel_picker(state), state.carousel_cards[5])
    clone = BattlerState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert clone == state
    assert pick_all(clone) == pick_all(state) and clone == state
    for event in events:
        stored = json.loads(json.dumps(codec.encode(event)))
        assert stored["type"] == f"battler.{type(event).__name__}"
        assert codec.decode(stored, b.Event) == event


# --------------------------------------------------------------------------- serialisation


def test_round_trip_mid_game_is_exact_and_replays_identically():
    state = make(
        4, seed="abc", settings_=BattlerSettings(progression="flat2", interest_threshold=2, win_streak=True)
    )
    to_draft(state, losers={2})
    b.reroll(state, 0)
    d = state.to_dict()
    wire = json.loads(json.dumps(d))
    assert wire == d
    clone = BattlerState.from_dict(wire)
    assert clone == state
    assert clone.to_dict() == d
    # continuing from the reloaded state gives exactly the same game
    for s in (state, clone):
        b.reroll(s, 1)
        s.players[1].treasures = 3
        b.buy_basic(s, 1, "Swamp")
        finish_draft(s)
        play_phase(s, draws={0})
    assert clone.to_dict() == state.to_dict()
    assert BattlerState.from_dict(json.loads(json.dumps(clone.to_dict()))) == state


def test_round_trip_in_every_phase():
    state = b.new_game(cube_of(80), [1, 2, 3, 4], seed=5)
    assert BattlerState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    for seat in range(4):
        b.choose_basics(state, seat, ["Plains", "Plains"])
    assert BattlerState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    state.players[2].poison = 9
    play_phase(state, losers={2})
    assert BattlerState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


# --------------------------------------------------------------------------- properties


CUBE_SIZE_PER_PLAYER = 20


def _check_conservation(state: BattlerState, cube: list[str]) -> None:
    assert all_cards(state) == Counter(cube)


def _play_random_game(
    n: int, rng: random.Random, progression: str, interest, streak, carousel="off", carousel_from="packpile"
) -> BattlerState:
    # a cube with some duplicate names, minimal size
    cube = [f"c{i % (15 * n)}" for i in range(CUBE_SIZE_PER_PLAYER * n)]
    settings_ = BattlerSettings(progression=progression, interest_threshold=interest, win_streak=streak,
                                carousel=carousel, carousel_from=carousel_from)
    state = b.new_game(cube, [1000 + i for i in range(n)], seed=rng.randrange(10**9), settings=settings_)
    _check_conservation(state, cube)
    for seat in range(n):
        b.choose_basics(state, seat, [rng.choice(BASIC_TYPES), rng.choice(BASIC_TYPES)])
    cannot_finish_budget = 2
    actions = 0
    while state.phase != "over":
        actions += 1
        assert actions < 20_000
        assert state.play_phases <= 20 * n + 10, "game does not terminate"
        if actions % 25 == 0:  # continue from a reloaded copy now and then
            state = BattlerState.from_dict(json.loads(json.dumps(state.to_dict())))
        if state.phase == "play":
            pr = rng.choice([p for p in state.pairings if p.result is None])
            seat = rng.choice(pr.seats())
            roll = rng.random()
            if roll < 0.1:
                events = b.report_treasures(state, seat, rng.randrange(0, 9))
            elif pr.replays and cannot_finish_budget and roll < 0.3:
                cannot_finish_budget -= 1
                events = b.cannot_finish(state, seat)
            else:
                outcomes = ["won", "lost", "conceded"] + (["draw"] if pr.replays < 3 else [])
                events = b.report(state, seat, rng.choice(outcomes))
        elif state.phase == "carousel":
            events = _random_carousel_action(state, rng)
        else:
            assert state.phase == "draft"
            p = rng.choice([q for q in b.players_in_play(state) if not q.done])
            events = _random_draft_action(state, p, rng)
        _check_conservation(state, cube)
        _check_phase_end_caps(state, events)
        _check_carousel_rules(state, events)
    assert state.winner is not None
    alive = [p for p in state.players if p.status == "alive"]
    assert [p.seat for p in alive] == [state.winner]
    assert all(p.status == "out" for p in state.players if p.seat != state.winner)
    assert alive[0].poison < b.POISON_TO_DIE
    return state


def _check_phase_end_caps(state: BattlerState, events: list[b.Event]) -> None:
    """Treasures never exceed 5 at the end of a phase.

    At the end of a DRAFT the next PLAY starts with nothing added; at the end of a PLAY the
    next DRAFT adds income on top of the capped value, so subtract what it paid."""
    changes = [e for e in events if isinstance(e, b.PhaseChanged)]
    if not changes or state.phase == "carousel":  # the draft's cap comes after its carousel
        return
    paid = Counter()
    started_draft = any(e.phase == "draft" for e in changes)
    if started_draft:
        idx = max(i for i, e in enumerate(events) if isinstance(e, b.PhaseChanged) and e.phase == "draft")
        for e in events[idx:]:
            if isinstance(e, b.TreasuresChanged) and e.reason in ("income", "pool_full", "bonus"):
                paid[e.seat] += e.delta
    for p in state.players:
        assert p.treasures - paid[p.seat] <= b.MAX_TREASURES
        assert p.treasures >= 0


def _random_draft_action(state: BattlerState, p: b.Player, rng: random.Random) -> list[b.Event]:
    costs = b.action_costs(state, p.seat)
    before = state.to_dict()
    total_before = sum(q.treasures for q in state.players)
    kind = rng.choice(["trade", "trade", "reroll", "shift_basics", "buy_basic", "done", "done", "bad_trade"])
    try:
        if kind == "trade":
            events = b.trade(state, p.seat, rng.choice(p.stash), rng.choice(p.pack))
        elif kind == "bad_trade":
            events = b.trade(state, p.seat, "no-such-card", rng.choice(p.pack))
        elif kind == "reroll":
            events = b.reroll(state, p.seat)
        elif kind == "shift_basics":
            events = b.shift_basics(state, p.seat, [rng.choice(BASIC_TYPES) for _ in p.basics])
        elif kind == "buy_basic":
            events = b.buy_basic(state, p.seat, rng.choice(BASIC_TYPES))
        else:
            events = b.done(state, p.seat)
    except BattlerError:
        assert state.to_dict() == before, "a refused action changed the state"
        assert kind in ("bad_trade", "shift_basics") or costs.get(kind) is None
        return []
    assert kind != "bad_trade"
    if kind == "done":
        return events
    cost = costs[kind]
    assert cost is not None, f"{kind} succeeded although action_costs said it was not affordable"
    assert sum(q.treasures for q in state.players) == total_before - cost
    assert state.players[p.seat].treasures == before["players"][p.seat]["treasures"] - cost
    return events


def _random_carousel_action(state: BattlerState, rng: random.Random) -> list[b.Event]:
    seat = b.carousel_picker(state)
    p = state.players[seat]
    before = state.to_dict()
    wrong = rng.choice([q.seat for q in b.players_in_play(state)])
    if wrong != seat:  # anyone else is refused, and nothing changes
        with pytest.raises(InvalidAction):
            b.carousel_pick(state, wrong, state.carousel_cards[0])
        assert state.to_dict() == before
    roll = rng.random()
    if roll < 0.03:
        return b.force_end_carousel(state)
    card = rng.choice(state.carousel_cards)
    if len(p.stash) < b.POOL_MAX:
        return b.carousel_pick(state, seat, card)
    with pytest.raises(InvalidAction):
        b.carousel_pick(state, seat, card)  # a full pool must give a card back
    assert state.to_dict() == before
    if roll < 0.5:
        return b.carousel_pass(state, seat)
    return b.carousel_pick(state, seat, card, give_back=rng.choice(p.stash))


def _check_carousel_rules(state: BattlerState, events: list[b.Event]) -> None:
    """Pools never pass 15; a carousel's order is fewest poison first, snaking; no random card
    per draft while a carousel is on."""
    assert all(len(p.stash) <= b.POOL_MAX for p in state.players)
    if state.settings.carousel != "off":
        assert not of_type(events, b.CardGained)
    for started in of_type(events, b.CarouselStarted):
        n = len(b.players_in_play(state))
        assert len(started.order) == n * started.picks_each
        first_lap = list(started.order[:n])
        assert sorted(first_lap) == sorted(p.seat for p in b.players_in_play(state))
        poisons = [state.players[s].poison for s in first_lap]
        assert poisons == sorted(poisons)
        for lap in range(started.picks_each):
            expected = first_lap if lap % 2 == 0 else first_lap[::-1]
            assert list(started.order[lap * n : (lap + 1) * n]) == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.sampled_from([2, 4, 6]),
    game_seed=st.integers(0, 2**32),
    carousel=st.sampled_from(["round", "stage"]),
    carousel_from=st.sampled_from(b.CAROUSEL_SOURCES),
)
def test_random_legal_games_with_a_carousel_keep_invariants_and_terminate(n, game_seed, carousel, carousel_from):
    rng = random.Random(game_seed)
    _play_random_game(n, rng, "fibonacci", None, False, carousel, carousel_from)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.sampled_from([2, 4, 6]),
    game_seed=st.integers(0, 2**32),
    progression=st.sampled_from(sorted(b.POISON_PROGRESSIONS)),
    interest=st.sampled_from([None, 2, 4]),
    streak=st.booleans(),
)
def test_random_legal_games_keep_invariants_and_terminate(n, game_seed, progression, interest, streak):
    _play_random_game(n, random.Random(game_seed), progression, interest, streak)


@settings(max_examples=30, deadline=None)
@given(n=st.sampled_from([4, 6, 8]), seed=st.integers(0, 10**6))
def test_pairings_cover_everyone_in_play_once(n, seed):
    rng = random.Random(seed)
    state = make(n, seed=seed)
    for _ in range(6):
        if state.phase != "play":
            break
        in_play = sorted(p.seat for p in b.players_in_play(state))
        seats = sorted(s for pr in state.pairings for s in pr.seats())
        assert seats == in_play
        for pr in list(state.pairings):
            b.report(state, rng.choice(pr.seats()), rng.choice(["won", "lost"]))
        if state.phase == "draft":
            finish_draft(state)


def test_the_winner_reports_that_the_opponent_conceded():
    """Issue 34: the seed's "play it out" rule holds without the conceder reporting against themselves."""
    state = make(4)
    [reported] = b.report(state, 0, "opponent_conceded")  # 0 vs 2: 0 won, 2 conceded
    assert reported == b.ResultReported(0, 2, "a", 2)
    events = b.report(state, 1, "won")
    income = {e.seat: e.delta for e in of_type(events, b.TreasuresChanged) if e.reason == "income"}
    assert income == {0: 1, 1: 1, 3: 1} and state.players[2].poison == 1
