"""Tests for the Turnabout rules engine (FORMATS.md §3)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.turnabout import rules as t
from bot.games.turnabout.rules import (
    AlreadyReported,
    InvalidScore,
    InvalidSetting,
    NotAPlayer,
    NotEnoughPlayers,
    NotInMatch,
    RoundUnfinished,
    Settings,
    TurnaboutError,
    TurnaboutState,
    WrongPhase,
)
from bot.kit.swiss import max_rounds

# --------------------------------------------------------------------------- helpers

OPTIONS = ("dominaria", "tolaria", "phyrexia")


def make_event(n=8, *, seed=1, options=None, close=True, **settings_) -> TurnaboutState:
    state = t.new_event(seed, Settings(**settings_))
    for i in range(n):
        option = options[i] if options else OPTIONS[i % 3]
        t.register(state, 100 + i, f"Deck {i}", option)
    if close:
        t.close_registration(state)
    return state


def open_matches(state: TurnaboutState) -> list[t.Match]:
    return [m for m in state.round_matches() if m.b is not None and not m.finished]


def value_for(state, m, game, winner, rng=None) -> int:
    need = t.value_needed(state, m.number, game, winner)
    if rng is None:
        return {"life": 7, "library": 20, "poison": 2}[need]
    return rng.randint(0, {"life": 25, "library": 50, "poison": 9}[need])


def play(state, m, game, winner, value=None) -> list[t.Event]:
    """The winner's opponent reports (checked), and the result counts (as once its report is confirmed)."""
    if value is None and winner is not None:
        value = value_for(state, m, game, winner)
    reporter = m.a if winner is None else m.other(winner)
    t.reported(state, reporter, winner=winner, value=value, game=game, match=m.number)
    return t.record_game(state, m.number, game, winner=winner, value=value)


def play_round(state, rng=None) -> None:
    for m in open_matches(state):
        for game in (1, 2):
            winner = m.a if rng is None else rng.choice([m.a, m.b])
            play(state, m, game, winner, None if rng is None else value_for(state, m, game, winner, rng))


def snapshot(state) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


# --------------------------------------------------------------------------- match points


@pytest.mark.parametrize(
    ("option", "kwargs", "expected"),
    [
        ("dominaria", {"life": 5}, 15),
        ("dominaria", {"life": 0}, 10),
        ("dominaria", {"life": 20}, 30),
        ("tolaria", {"library": 14}, 17),
        ("tolaria", {"library": 15}, 18),  # half rounded up
        ("tolaria", {"library": 1}, 11),
        ("tolaria", {"library": 0}, 10),
        ("phyrexia", {"poison": 0}, 30),
        ("phyrexia", {"poison": 3}, 24),
        ("phyrexia", {"poison": 9}, 12),
        # A winner with 10 or more poison (Platinum Angel): the raw value goes under 10, the clamp holds.
        ("phyrexia", {"poison": 10}, 10),
        ("phyrexia", {"poison": 11}, 10),
        ("phyrexia", {"poison": 40}, 10),
        ("phyrexia", {"poison": t.MAX_POISON}, 10),
        ("dominaria", {"life": t.MAX_LIFE}, 30),
        ("tolaria", {"library": t.MAX_LIBRARY}, 30),
    ],
)
def test_match_points_formulas(option, kwargs, expected):
    assert t.match_points(option, **kwargs) == expected


@pytest.mark.parametrize(
    ("option", "kwargs"),
    [
        ("dominaria", {"life": 21}),
        ("dominaria", {"life": 999}),
        ("dominaria", {"life": t.MAX_LIFE}),
        ("tolaria", {"library": 41}),
        ("tolaria", {"library": t.MAX_LIBRARY}),
    ],
)
def test_match_points_are_clamped_to_thirty(option, kwargs):
    assert t.match_points(option, **kwargs) == 30


def test_match_points_never_below_ten():
    # With valid inputs the raw value never goes under 10; the clamp keeps it so for any option.
    for option, key, top in (
        ("dominaria", "life", 50),
        ("tolaria", "library", 100),
        ("phyrexia", "poison", 60),
    ):
        assert min(t.match_points(option, **{key: v}) for v in range(top + 1)) >= 10


@pytest.mark.parametrize(
    ("option", "kwargs", "match"),
    [
        ("dominaria", {"life": -t.MAX_LIFE - 1}, "cannot be less than"),
        ("tolaria", {"library": -3}, "negative"),
        ("phyrexia", {"poison": -1}, "negative"),
        ("dominaria", {"life": t.MAX_LIFE + 1}, "more than"),
        ("tolaria", {"library": t.MAX_LIBRARY + 1}, "more than"),
        ("phyrexia", {"poison": t.MAX_POISON + 1}, f"more than {t.MAX_POISON:,}"),
        ("dominaria", {"life": 2.5}, "whole number"),
        ("dominaria", {"life": True}, "whole number"),
        ("dominaria", {}, "needs the winner's life"),
        ("tolaria", {"life": 20}, "needs the winner's number of cards"),
        ("phyrexia", {"library": 3}, "needs the winner's number of poison"),
        ("phyrexia", {"poison": 1, "library": -5}, "negative"),
        ("other", {"life": 1}, "Unknown scoring option"),
    ],
)
def test_match_points_refuses_bad_input(option, kwargs, match):
    with pytest.raises(InvalidScore, match=match):
        t.match_points(option, **kwargs)
    assert issubclass(InvalidScore, ValueError)


# --------------------------------------------------------------------------- victory points

VP_ROWS = [
    (0, 0, 15),
    (1, 3, 16),
    (4, 6, 17),
    (7, 9, 18),
    (10, 12, 19),
    (13, 15, 20),
    (16, 18, 21),
    (19, 22, 22),
    (23, 26, 23),
    (27, 30, 24),
    (31, 35, 25),
    (36, 40, 26),
    (41, 45, 27),
    (46, 50, 28),
    (51, 55, 29),
    (56, 60, 30),
]


@pytest.mark.parametrize(("low", "high", "winner_vp"), VP_ROWS)
def test_every_row_of_the_vp_table_at_both_ends(low, high, winner_vp):
    for diff in (low, high):
        assert t.victory_points(diff, 0) == (winner_vp, 30 - winner_vp)
        assert t.victory_points(0, diff) == (30 - winner_vp, winner_vp)
        assert t.victory_points(60, 60 - diff) == (winner_vp, 30 - winner_vp)


def test_vp_bands_cover_every_difference_exactly_once():
    covered = [d for low, high, _ in VP_ROWS for d in range(low, high + 1)]
    assert covered == list(range(61))


@given(st.integers(0, 60), st.integers(0, 60))
def test_vp_always_sum_to_thirty_and_favour_the_higher_mp(a, b):
    vp_a, vp_b = t.victory_points(a, b)
    assert vp_a + vp_b == 30
    assert (vp_a > vp_b) == (a > b) and (vp_a == vp_b) == (a == b)


@pytest.mark.parametrize(("a", "b"), [(-1, 0), (0, -1), (61, 0), (0, 61), (1.5, 0)])
def test_vp_refuses_impossible_totals(a, b):
    with pytest.raises(ValueError):
        t.victory_points(a, b)


# --------------------------------------------------------------------------- rating


@pytest.mark.parametrize(("players", "expected"), [(4, 4), (16, 6), (100, 9), (5, 5), (8, 5), (1000, 12)])
def test_first_place_multiplier(players, expected):
    assert t.placement_multiplier(players, 1) == expected


def test_worked_examples_from_the_seed():
    assert t.placement_multiplier(16, 5) == 3  # 6 - 3
    assert t.placement_multiplier(100, 64) == 3  # 9 - 6


@pytest.mark.parametrize(
    ("position", "minus"), [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (16, 4)]
)
def test_position_modifier_per_doubling(position, minus):
    assert t.placement_multiplier(16, position) == 6 - minus


def test_multiplier_is_at_least_two_and_refuses_bad_positions():
    assert min(t.placement_multiplier(n, p) for n in range(1, 130) for p in range(1, n + 1)) == 2
    for players, position in ((16, 0), (16, 17), (0, 1), (True, 1)):
        with pytest.raises(ValueError):
            t.placement_multiplier(players, position)


def test_rating_award_counts_draws_half_and_the_bonus_only_when_completed():
    # The seed: 1-3 in a four-round event counts as two match wins.
    assert t.rating_award(1, 0, completed=True, players=16, position=5) == 2 * 3
    # ... had they dropped before the last round, only one.
    assert t.rating_award(1, 0, completed=False, players=16, position=5) == 1 * 3
    assert t.rating_award(2, 1, completed=True, players=16, position=5) == 3.5 * 3
    assert t.rating_award(0, 0, completed=False, players=4, position=4) == 0
    with pytest.raises(ValueError):
        t.rating_award(-1, 0, completed=True, players=4, position=1)


# --------------------------------------------------------------------------- settings and registration


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rounds": 0},
        {"rounds": 21},
        {"bye_vp": 31},
        {"bye_vp": -1},
        {"scoring_options": []},
        {"scoring_options": ["atlantis"]},
        {"clock_minutes": 0},
        {"clock_mode": "hourglass"},
        {"clock": "yes"},
    ],
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(InvalidSetting):
        t.new_event(1, Settings(**kwargs))


def test_register_and_re_register():
    state = t.new_event(1)
    [ev] = t.register(state, 7, "  Mill   Deluxe ", "tolaria")
    assert ev == t.PlayerRegistered(0, 7, "Mill Deluxe", "tolaria", None, False)
    [ev] = t.register(state, 7, "Poison Party", "phyrexia", [(60, "Plague Myr")])
    assert ev.updated and ev.cards == 60
    assert len(state.players) == 1 and state.players[0].decklist == [[60, "Plague Myr"]]
    t.register(state, 8, "Burn")
    assert state.players[1].scoring == "dominaria"  # the default option


def test_registration_refusals_change_nothing():
    state = t.new_event(1, Settings(scoring_options=["dominaria", "phyrexia"]))
    t.register(state, 1, "Mill Deluxe", "phyrexia")
    before = snapshot(state)
    with pytest.raises(TurnaboutError, match="not a scoring option"):
        t.register(state, 2, "Mill", "tolaria")
    with pytest.raises(TurnaboutError, match="already registered a deck called"):
        t.register(state, 2, "MILL DELUXE")
    with pytest.raises(TurnaboutError, match="name"):
        t.register(state, 2, "   ")
    assert snapshot(state) == before
    t.close_registration(state)
    with pytest.raises(WrongPhase, match="registration is closed"):
        t.register(state, 3, "Late")


def test_settings_changes_during_the_event():
    state = make_event(4, close=False)
    with pytest.raises(InvalidSetting, match="must stay allowed"):
        t.update_settings(state, scoring_options=["dominaria"])
    t.update_settings(state, scoring_options=["phyrexia", "tolaria", "dominaria"], rounds=2)
    t.close_registration(state)
    with pytest.raises(WrongPhase):
        t.update_settings(state, scoring_options=list(OPTIONS))
    t.pair_next_round(state)
    play_round(state)
    t.pair_next_round(state)
    with pytest.raises(InvalidSetting, match="rounds"):
        t.update_settings(state, rounds=1)
    with pytest.raises(InvalidSetting, match="Unknown setting"):
        t.update_settings(state, colour="blue")
    t.update_settings(state, rounds=3, bye_vp=20, clock=True)
    assert (state.settings.rounds, state.settings.bye_vp, state.settings.clock) == (3, 20, True)


def test_drop_during_registration_withdraws_and_renumbers():
    state = make_event(4, close=False)
    assert t.drop(state, 1) == [t.PlayerWithdrew(101)]
    assert [p.seat for p in state.players] == [0, 1, 2]
    assert t.seat_of(state, 102) == 1
    with pytest.raises(NotAPlayer):
        t.seat_of(state, 101)


# --------------------------------------------------------------------------- pairing


def test_pairing_refused_before_registration_closes():
    state = make_event(8, close=False)
    with pytest.raises(WrongPhase, match="Close registration"):
        t.pair_next_round(state)


def test_pairing_needs_four_players_registered_and_then_pairs_three_left_with_a_bye():
    state = make_event(3)
    with pytest.raises(NotEnoughPlayers, match="at least 4"):
        t.pair_next_round(state)
    state = make_event(4)
    t.pair_next_round(state)
    play_round(state)
    t.drop(state, 0)
    [paired] = t.pair_next_round(state)
    assert paired.bye is not None and len(paired.matches) == 1 and paired.rematches == 0


def test_pairing_refused_while_the_round_is_unfinished():
    state = make_event(8)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    play(state, m, 1, m.a)
    before = snapshot(state)
    with pytest.raises(RoundUnfinished, match="Round 1 is not finished"):
        t.pair_next_round(state)
    assert snapshot(state) == before


def test_pairing_refused_after_the_last_round():
    state = make_event(4, rounds=1)
    t.pair_next_round(state)
    play_round(state)
    with pytest.raises(WrongPhase, match="one round has been played"):
        t.pair_next_round(state)


def test_game_one_plays_the_opponents_deck_and_game_two_swaps_who_starts():
    state = make_event(8)
    [ev] = t.pair_next_round(state)
    assert len(ev.matches) == 4 and ev.bye is None and ev.rematches == 0
    firsts = set()
    for plan in ev.matches:
        g1, g2 = plan.games
        assert set(g1.decks) == {(plan.a, plan.b), (plan.b, plan.a)}  # each plays the other's deck
        assert set(g2.decks) == {(plan.a, plan.a), (plan.b, plan.b)}  # their own
        assert {g1.first, g2.first} == {plan.a, plan.b}  # first in game 1 plays second in game 2
        assert (g1.prep_minutes, g2.prep_minutes) == (5, 3)
        m = state.match(plan.match)
        assert (m.games[0].first, m.games[1].first) == (g1.first, g2.first)  # recorded
        firsts.add(g1.first == plan.a)
    assert firsts == {True, False}, "who starts game 1 should be a coin flip, not always a"
    again = make_event(8)
    assert t.pair_next_round(again) == [ev]  # same seed, same pairings and coin flips


def test_three_rounds_of_eight_never_rematch():
    state = make_event(8, rounds=3)
    met = set()
    rng = random.Random(4)
    for _ in range(3):
        t.pair_next_round(state)
        for m in state.round_matches():
            pair = frozenset((m.a, m.b))
            assert pair not in met
            met.add(pair)
        play_round(state, rng)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 9])
def test_no_more_rounds_than_a_round_robin(n):
    """Closing registration refuses more rounds than n players can play without a rematch
    (n − 1 for an even n, n for an odd n), changing nothing and saying the most; the most is
    accepted. Once running, the rounds cannot be raised past it either."""
    most = max_rounds(n)
    state = make_event(n, close=False, rounds=most + 1)
    before = snapshot(state)
    with pytest.raises(t.TooManyRounds) as refused:
        t.close_registration(state)
    needed = n + 1 if n % 2 == 0 else n + 2  # the fewest players for most + 1 rounds
    assert (refused.value.players, refused.value.most, refused.value.needed) == (n, most, needed)
    assert str(refused.value) == (f"{n} players can play at most {most} rounds without anyone meeting the same "
                                  f"opponent twice; this event is set to {most + 1}.")
    assert snapshot(state) == before and state.phase == t.REGISTRATION
    t.update_settings(state, rounds=most)
    t.close_registration(state)
    with pytest.raises(t.TooManyRounds):
        t.update_settings(state, rounds=most + 1)
    assert state.settings.rounds == most


@pytest.mark.parametrize("n", [5, 6])
def test_five_or_six_players_over_five_rounds_meet_everyone_once(n):
    """Issue 22 item 9 through the engine: the pairing looks ahead to the last scheduled round
    (before, one such event in three ended in a rematch)."""
    for seed in range(25):
        state = make_event(n, seed=seed, rounds=5)
        rng = random.Random(seed)
        met, byes = set(), []
        for _ in range(5):
            [ev] = t.pair_next_round(state)
            assert ev.rematches == 0
            for m in state.round_matches():
                if m.b is None:
                    byes.append(m.a)
                    continue
                assert frozenset((m.a, m.b)) not in met
                met.add(frozenset((m.a, m.b)))
            play_round(state, rng)
        assert len(met) == n * (n - 1) // 2 and sorted(byes) == (list(range(n)) if n % 2 else [])


def test_after_a_drop_a_round_that_needs_a_rematch_is_dropped_from_the_schedule():
    """5 players over 5 rounds, one drops after round 3: every pairing of the last round's 4
    players would repeat a match, so round 5 leaves the schedule at once (the channel is told)
    and round 4 is paired so that it needs no rematch either."""
    state = make_event(5, seed=0, rounds=5)
    rng = random.Random(0)
    paired = []
    for number in range(1, 5):
        [ev] = t.pair_next_round(state)
        paired.append(ev)
        play_round(state, rng)
        if number == 3:
            events = t.drop(state, 0)
            assert events[1:] == [t.RoundsCut(5, 4, True)]
    assert [ev.rematches for ev in paired] == [0] * 4 and state.settings.rounds == 4
    with pytest.raises(WrongPhase, match="All 4 rounds"):
        t.pair_next_round(state)


# --------------------------------------------------------------------------- reporting


def test_the_losing_decks_option_decides_the_match_points():
    """The option belongs to the deck that lost, whoever was playing it.

    a registered Tolaria, b Phyrexia. In game 1 each plays the other's deck, so when a wins
    game 1, b was holding a's Tolaria deck: Tolaria scores it (10 + ⌈library / 2⌉) with a's
    library. In game 2 each plays their own deck, so when a wins again b's Phyrexia deck
    lost: Phyrexia scores it (30 − 2 × poison) with a's poison. Swapping the rule would give
    different numbers for both games.
    """
    state = make_event(4, options=("tolaria", "phyrexia", "phyrexia", "phyrexia"))
    t.pair_next_round(state)
    m = t.current_match(state, 0)  # the only Tolaria deck meets a Phyrexia deck
    a, b = (m.a, m.b) if state.players[m.a].scoring == "tolaria" else (m.b, m.a)
    assert t.value_needed(state, m.number, 1, a) == "library"
    assert t.value_needed(state, m.number, 2, a) == "poison"
    assert t.value_needed(state, m.number, 1, b) == "poison"
    assert t.value_needed(state, m.number, 2, b) == "library"
    reported = t.reported(state, b, winner=a, value=20, game=1)
    assert max(reported.match_points) == 20  # Tolaria: 10 + 10 (Phyrexia would be 30 - 40 -> 10)
    [recorded, *_] = t.record_game(state, m.number, 1, winner=a, value=20)
    assert recorded == t.GameRecorded(m.number, 1, a, 20, reported.match_points)
    reported = t.reported(state, b, winner=a, value=3)  # the first game without a result
    assert max(reported.match_points) == 24  # Phyrexia: 30 - 6 (Tolaria would be 10 + 2 = 12)


def test_a_phyrexia_winner_with_ten_or_more_poison_is_reported_and_clamped():
    """Platinum Angel keeps a player with 10+ poison alive: the report is accepted and scores 10 MP
    (30 − 2 × 12 = 6, clamped to 10). Only an absurd count is refused."""
    state = make_event(4, options=("phyrexia",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    with pytest.raises(InvalidScore, match="more than"):
        t.reported(state, m.b, winner=m.a, value=t.MAX_POISON + 1, game=1)
    reported = t.reported(state, m.b, winner=m.a, value=12, game=1)
    assert reported.value == 12 and max(reported.match_points) == 10
    t.record_game(state, m.number, 1, winner=m.a, value=12)
    assert t.game_points(state, m, m.games[0]) == (10, 0)


def test_a_full_match_gives_its_mp_and_vp_split():
    state = make_event(4, options=("dominaria",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    play(state, m, 1, m.a, 12)  # 22 MP to a
    events = play(state, m, 2, m.b, 3)  # 13 MP to b
    finished = [e for e in events if isinstance(e, t.MatchFinished)]
    assert finished == [t.MatchFinished(t.MatchResult(m.number, m.a, m.b, (22, 13), (18, 12), m.a), False)]
    assert t.match_result(state, m).victory_points == (18, 12)


def test_a_drawn_game_scores_nothing_and_equal_mp_draw_the_match():
    state = make_event(4, options=("dominaria",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    play(state, m, 1, None)
    play(state, m, 2, None)
    assert t.match_result(state, m) == t.MatchResult(m.number, m.a, m.b, (0, 0), (15, 15), None)


def test_round_finished_after_the_last_confirmation():
    state = make_event(4, rounds=1)
    t.pair_next_round(state)
    first, second = open_matches(state)
    play(state, first, 1, first.a)
    play(state, first, 2, first.a)
    play(state, second, 1, second.a)
    events = play(state, second, 2, second.b)
    assert events[-1] == t.RoundFinished(1, True)


def test_reporting_refusals_change_nothing():
    state = make_event(8)
    t.pair_next_round(state)
    m, other = open_matches(state)[:2]
    before = snapshot(state)
    with pytest.raises(NotInMatch, match=f"not playing in match {other.number}"):
        t.reported(state, m.a, winner=m.a, value=5, match=other.number)
    with pytest.raises(NotInMatch, match="winner must be one of the two"):
        t.reported(state, m.a, winner=other.a, value=5)
    with pytest.raises(InvalidScore):
        t.reported(state, m.a, winner=m.a, value=-1)
    with pytest.raises(NotAPlayer):
        t.reported(state, 99, winner=m.a, value=5)
    with pytest.raises(TurnaboutError, match="games 1 and 2"):
        t.reported(state, m.a, winner=m.a, value=5, game=3)
    with pytest.raises(NotInMatch, match="winner must be one of the two"):
        t.record_game(state, m.number, 1, winner=other.a, value=5)
    with pytest.raises(InvalidScore, match="needs the winner's"):
        t.record_game(state, m.number, 1, winner=m.a, value=None)
    with pytest.raises(NotInMatch, match="no match 99|There is no match"):
        t.record_game(state, 99, 1, winner=m.a, value=5)
    assert snapshot(state) == before
    play(state, m, 1, m.a)
    before = snapshot(state)
    with pytest.raises(AlreadyReported, match="already reported \\(final\\)"):
        t.record_game(state, m.number, 1, winner=m.b, value=5)
    with pytest.raises(AlreadyReported, match="already reported \\(final\\)"):
        t.reported(state, m.b, winner=m.b, value=5, game=1)
    assert snapshot(state) == before


def test_a_report_is_only_checked_and_nothing_waits_in_the_engine():
    """Issue 34: the report step is the kit's claims flow (the service's book), not the engine's.
    A report is checked (:func:`reported`) and changes nothing; the game gets a result only when
    it counts (:func:`record_game`) or is decided; the state holds no pending report."""
    state = make_event(4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    before = snapshot(state)
    value = value_for(state, m, 1, m.a)
    report = t.reported(state, m.b, winner=m.a, value=value)
    assert report == t.Report(m.b, m.a, value, t.value_needed(state, m.number, 1, m.a), report.match_points)
    assert t.reported(state, m.b, winner=m.a) == t.Report(m.b, m.a, None, report.measure, None)  # a number to come
    assert t.reported(state, m.a, winner=None) == t.Report(m.a, None, None, None, (0, 0))
    assert snapshot(state) == before and t.report_target(state, m.a) is m.games[0]
    # Game 1's report waits in the caller's claims flow, disputed: a report without a game is about game 2.
    assert t.report_target(state, m.a, disputed=(1,)) is m.games[1]
    with pytest.raises(AlreadyReported, match="a disputed one waits for an organizer"):
        t.report_target(state, m.a, disputed=(1, 2))
    # Nothing of a waiting report is kept: no report, confirm or dispute operation, no such field or status.
    assert not {"report_game", "confirm_game", "dispute_game", "Claim", "ReportWaiting"} & set(dir(t))
    assert {f for f in t.Game.__dataclass_fields__} == {"number", "first", "status", "winner", "value", "flagged",
                                                          "decided", "note"}
    assert (t.PENDING, t.FLAGGED, t.FINAL) == ("pending", "flagged", "final") and not hasattr(t, "REPORTED")
    [recorded] = t.record_game(state, m.number, 1, winner=m.a, value=value)
    assert recorded == t.GameRecorded(m.number, 1, m.a, value, report.match_points)
    assert (m.games[0].status, m.games[0].winner, m.games[0].value) == (t.FINAL, m.a, value)
    assert t.report_target(state, m.a) is m.games[1]


def test_a_bye_has_nothing_to_report():
    state = make_event(5)
    [paired] = t.pair_next_round(state)
    with pytest.raises(NotInMatch, match="bye"):
        t.reported(state, paired.bye, winner=paired.bye, value=5)


def test_reporting_before_the_event_runs_is_refused():
    state = make_event(4, close=False)
    with pytest.raises(WrongPhase):
        t.reported(state, 0, winner=0, value=5)
    with pytest.raises(WrongPhase):
        t.record_game(state, 1, 1, winner=0, value=5)


def test_an_organizer_decides_a_game_without_a_result():
    """A disputed report waits in the claims flow; the engine only sees the decision."""
    state = make_event(4, options=("dominaria",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    assert t.reported(state, m.a, winner=m.a, value=10) == t.Report(m.a, m.a, 10, "life", (20, 0))
    [decided] = t.decide_game(state, m.number, 1, winner=m.b, value=4, note="judge call")
    assert decided == t.GameDecided(m.number, 1, m.b, 4, (0, 14), "judge call")
    assert m.games[0].status == "final" and m.games[0].decided


def test_organizer_override_of_a_finished_match_is_reported_as_a_correction():
    state = make_event(4, options=("dominaria",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    play(state, m, 1, m.a, 20)
    play(state, m, 2, m.a, 20)
    assert t.match_result(state, m).victory_points == (30, 0)
    events = t.decide_game(state, m.number, 2, winner=m.b, value=0)
    assert events[-1] == t.MatchFinished(t.MatchResult(m.number, m.a, m.b, (30, 10), (22, 8), m.a), True)


def test_report_against_a_dropped_opponent_is_final_at_once():
    state = make_event(4, options=("dominaria",) * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    [dropped] = t.drop(state, m.b)
    assert dropped == t.PlayerDropped(m.b, 1, m.number)
    other = next(x for x in open_matches(state) if x is not m)
    assert t.answerer(state, m.number, m.a) is None  # nobody is left to confirm: it counts at once
    assert t.answerer(state, other.number, other.a) == other.b
    play(state, m, 1, m.a)
    assert m.games[0].status == "final"


# --------------------------------------------------------------------------- chess clock


def test_flag_fall_needs_a_timed_event():
    state = make_event(4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    assert t.new_match_clock(state) is None
    with pytest.raises(TurnaboutError, match="not played with a chess clock"):
        t.flag_fell(state, m.number, 1, m.a)
    # A clock the players ran themselves (/clock) counts when the caller says so.
    [ev] = t.flag_fell(state, m.number, 1, m.a, require_clock=False)
    assert ev == t.GameLostOnTime(m.number, 1, m.a, m.b, t.value_needed(state, m.number, 1, m.b))


def test_flag_fall_reports_the_game_lost_and_the_organizer_may_override():
    state = make_event(4, options=("dominaria",) * 4, clock=True, clock_mode="bronstein")
    clock = t.new_match_clock(state, players=[1, 2])
    assert clock.mode == "bronstein" and clock.banks == [603, 603]
    t.pair_next_round(state)
    m = open_matches(state)[0]
    [ev] = t.flag_fell(state, m.number, 1, m.a)
    assert ev == t.GameLostOnTime(m.number, 1, m.a, m.b, "life")
    before = snapshot(state)
    with pytest.raises(TurnaboutError, match="lost on time"):
        t.reported(state, m.a, winner=m.a, value=5, game=1)
    with pytest.raises(TurnaboutError, match="lost on time"):
        t.record_game(state, m.number, 1, winner=m.a, value=5)
    with pytest.raises(AlreadyReported):
        t.flag_fell(state, m.number, 1, m.b)
    assert snapshot(state) == before
    reported = t.reported(state, m.a, winner=m.b, value=6, game=1)  # the number is still needed
    assert reported.match_points == (0, 16)
    t.record_game(state, m.number, 1, winner=m.b, value=6)
    [decided, *_] = t.decide_game(state, m.number, 1, winner=m.a, value=3, note="clock malfunction")
    assert decided.match_points == (13, 0)


# --------------------------------------------------------------------------- drops, byes, end


def test_a_dropped_player_is_no_longer_paired_and_the_odd_player_gets_a_bye():
    state = make_event(8)
    t.pair_next_round(state)
    play_round(state)
    t.drop(state, 3)
    with pytest.raises(TurnaboutError, match="already dropped"):
        t.drop(state, 3)
    [paired] = t.pair_next_round(state)
    seated = {s for plan in paired.matches for s in (plan.a, plan.b)}
    assert 3 not in seated and paired.bye not in seated and len(seated) == 6
    assert paired.bye is not None and paired.bye_vp == 30
    bye_match = next(m for m in state.round_matches() if m.b is None)
    assert t.match_result(state, bye_match).victory_points == (30, 0)


def test_bye_victory_points_and_what_a_bye_counts_as():
    state = make_event(5)
    t.pair_next_round(state)
    play_round(state)
    table = {row.seat: row for row in t.standings(state)}
    bye_seat = next(m.a for m in state.matches if m.b is None)
    assert table[bye_seat].victory_points == 30 and table[bye_seat].wins == 1 and table[bye_seat].byes == 1
    t.update_settings(state, bye_vp=15)
    t.pair_next_round(state)
    second_bye = next(m for m in state.round_matches() if m.b is None)
    assert second_bye.a != bye_seat  # nobody gets a second bye while others have none
    play_round(state)
    table = {row.seat: row for row in t.standings(state)}
    assert table[bye_seat].victory_points >= 30  # the first bye kept its 30
    assert t.match_result(state, second_bye).victory_points == (15, 0)
    assert t.match_result(state, second_bye).winner is None
    first_bye = next(m for m in state.matches if m.b is None and m.round == 1)
    assert t.match_result(state, first_bye).winner == bye_seat
    assert table[second_bye.a].draws >= 1  # a 15-VP bye counts as a draw


def test_drop_after_the_last_round_is_refused():
    state = make_event(4, rounds=1)
    t.pair_next_round(state)
    play_round(state)
    with pytest.raises(WrongPhase, match="last round is over"):
        t.drop(state, 0)


def test_end_refusals():
    state = make_event(4)
    with pytest.raises(WrongPhase, match="No round"):
        t.end_event(state)
    t.pair_next_round(state)
    with pytest.raises(RoundUnfinished):
        t.end_event(state)
    state = make_event(4, close=False)
    with pytest.raises(WrongPhase):
        t.end_event(state)


def test_end_ranks_everyone_and_awards_ratings_by_hand():
    state = make_event(4, options=("dominaria",) * 4, rounds=2, seed=3)
    t.pair_next_round(state)
    m1, m2 = open_matches(state)
    play(state, m1, 1, m1.a, 20)  # 30 MP
    play(state, m1, 2, m1.a, 0)  # 10 MP -> a 40 : 0, VP 27-3
    play(state, m2, 1, m2.a, 1)  # 11 MP
    play(state, m2, 2, m2.b, 0)  # 10 MP -> a 11 : 10, VP 16-14
    t.pair_next_round(state)
    t.drop(state, m2.b)  # drops during round 2: no bonus
    for m in open_matches(state):
        play(state, m, 1, m.a, 5)
        play(state, m, 2, m.a, 5)  # 30 : 0 MP -> VP 27-3
    [ended] = t.end_event(state)
    assert state.phase == "ended"
    vp = {p.seat: p.victory_points for p in ended.placings}
    assert sum(vp.values()) == 4 * 30
    for placing in ended.placings:
        bonus = 0 if placing.seat == m2.b else 1
        assert placing.completed == (bonus == 1)
        assert placing.multiplier == t.placement_multiplier(4, placing.position)
        assert placing.award == (placing.wins + placing.draws / 2 + bonus) * placing.multiplier
        assert placing.wins + placing.draws + placing.losses == 2
    assert [p.position for p in ended.placings] == [1, 2, 3, 4]
    assert ended.placings[0].multiplier == 4 and ended.placings[-1].multiplier == 2
    with pytest.raises(WrongPhase, match="ended"):
        t.pair_next_round(state)


# --------------------------------------------------------------------------- codec and random events


def test_codec_version():
    state = make_event(4)
    d = state.to_dict()
    assert d["v"] == 2  # 1: reports waited in the games (migration 0032 moves them to the kit's book)
    for bad in ({**d, "v": 1}, {**d, "v": 3}, {k: v for k, v in d.items() if k != "v"}):
        with pytest.raises(ValueError, match="version"):
            TurnaboutState.from_dict(bad)


def _random_step(state: TurnaboutState, rng: random.Random) -> None:
    """One random action, refused or not (refusals must change nothing)."""
    action = rng.choice(["report", "report", "record", "decide", "pair", "drop", "flag"])
    seat = rng.randrange(len(state.players))
    opens = open_matches(state)
    m = rng.choice(opens) if opens else None
    before = snapshot(state)
    try:
        if action == "pair":
            t.pair_next_round(state)
        elif action == "drop" and rng.random() < 0.2:
            t.drop(state, seat)
        elif m is None:
            return
        elif action in ("report", "record"):  # a report is only checked; a result that counts is recorded
            winner = rng.choice([m.a, m.b, None])
            game = rng.choice([1, 2])
            value = None if winner is None else value_for(state, m, game, winner, rng)
            if action == "report":
                t.reported(state, rng.choice([m.a, m.b]), winner=winner, value=value, game=game, match=m.number)
                assert snapshot(state) == before
            else:
                t.record_game(state, m.number, game, winner=winner, value=value)
        elif action == "decide":
            game = rng.choice([1, 2])
            winner = rng.choice([m.a, m.b])
            t.decide_game(state, m.number, game, winner=winner, value=value_for(state, m, game, winner, rng))
        elif action == "flag":
            t.flag_fell(state, m.number, rng.choice([1, 2]), rng.choice([m.a, m.b]))
    except TurnaboutError:
        assert snapshot(state) == before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 11), steps=st.integers(0, 120))
def test_random_events_round_trip_and_keep_the_invariants(seed, n, steps):
    rng = random.Random(seed)
    state = make_event(n, seed=seed, rounds=min(4, max_rounds(n)), clock=rng.random() < 0.5)
    for _ in range(steps):
        _random_step(state, rng)
    assert TurnaboutState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    for m in state.matches:
        result = t.match_result(state, m)
        if result is not None and m.b is not None:
            assert sum(result.victory_points) == 30
    for r in range(1, state.round + 1):
        seats = [s for m in state.round_matches(r) for s in m.seats()]
        assert len(seats) == len(set(seats))  # nobody twice in a round
        dropped_before = {p.seat for p in state.players if p.dropped and p.dropped_in_round < r}
        assert not dropped_before & set(seats)


# --------------------------------------------------------------------------- issue 34: life below 0

def test_a_dominaria_winner_below_zero_life_scores_as_zero():
    assert t.match_points("dominaria", life=-7) == 10
    assert t.match_points("dominaria", life=-t.MAX_LIFE) == 10
    with pytest.raises(InvalidScore, match="cannot be less than"):
        t.match_points("dominaria", life=-t.MAX_LIFE - 1)
    with pytest.raises(InvalidScore, match="negative"):
        t.match_points("tolaria", library=-1)
    with pytest.raises(InvalidScore, match="negative"):
        t.match_points("phyrexia", poison=-1)


def test_a_report_of_a_winner_below_zero_life_is_recorded_as_zero():
    state = make_event(4, options=["dominaria"] * 4)
    t.pair_next_round(state)
    m = open_matches(state)[0]
    reported = t.reported(state, m.b, winner=m.a, value=-3, game=1)
    assert reported.value == 0 and reported.match_points == (10, 0)
    [recorded, *_] = t.record_game(state, m.number, 1, winner=m.a, value=-3)
    assert recorded.value == 0 and m.games[0].value == 0
    decided = t.decide_game(state, m.number, 2, winner=m.b, value=-12)
    assert decided[0].value == 0 and m.games[1].value == 0 and decided[0].match_points == (0, 10)


# --------------------------------------------------------------------------- issue 34: drops never stop a playable event


def test_three_players_left_pair_with_a_bye_until_the_last_round():
    state = make_event(4, rounds=3)
    t.pair_next_round(state)
    play_round(state)
    assert [e for e in t.drop(state, 3) if isinstance(e, t.RoundsCut)] == []
    for _ in (2, 3):
        [paired] = t.pair_next_round(state)
        assert len(paired.matches) == 1 and paired.bye is not None and paired.rematches == 0
        play_round(state)
    assert state.settings.rounds == 3 and t.end_event(state)


def test_rounds_that_can_no_longer_be_played_are_dropped_from_the_schedule():
    """Two of four drop after round 1; the two left have met: no more round can be played."""
    state = make_event(4, rounds=3)
    t.pair_next_round(state)
    play_round(state)
    first, second = state.round_matches(1)
    assert [e for e in t.drop(state, second.a) if isinstance(e, t.RoundsCut)] == []  # three left: a bye
    events = t.drop(state, second.b)
    assert events[-1] == t.RoundsCut(3, 1, True) and state.settings.rounds == 1
    with pytest.raises(WrongPhase, match="been played"):
        t.pair_next_round(state)
    assert t.end_event(state)


@pytest.mark.parametrize("left_have_met", [True, False])
def test_a_drop_during_a_round_cuts_only_what_comes_after_it(left_have_met):
    """Four players, three rounds; in round 2 two drop. The two left play on in round 3 if they
    have not met; else round 3 is dropped, and round 2 (in progress) is the last."""
    state = make_event(4, rounds=3)
    t.pair_next_round(state)
    play_round(state)
    t.pair_next_round(state)
    a, b = state.round_matches(1)[0].a, state.round_matches(1)[0].b
    partner = t.current_match(state, a).other(a)
    stays = b if left_have_met else next(s for s in range(4) if s not in (a, b, partner))
    events = [e for seat in range(4) if seat not in (a, stays) for e in t.drop(state, seat)]
    cut = [e for e in events if isinstance(e, t.RoundsCut)]
    play_round(state)  # the round in progress is still played out
    if left_have_met:
        assert cut == [t.RoundsCut(3, 2, False)] and state.settings.rounds == 2
        assert state.round == 2
    else:
        assert cut == [] and state.settings.rounds == 3
        [paired] = t.pair_next_round(state)
        assert [(p.a, p.b) for p in paired.matches] in ([(a, stays)], [(stays, a)])


def test_pairing_refuses_fewer_than_two_players_still_in():
    state = make_event(4, rounds=3)
    t.pair_next_round(state)
    play_round(state)
    for seat in (1, 2, 3):
        t.drop(state, seat)
    assert state.settings.rounds == 1  # one player cannot play a round
    before = snapshot(state)
    with pytest.raises(WrongPhase, match="been played"):
        t.pair_next_round(state)
    assert snapshot(state) == before
    state.settings.rounds = 3  # (as if it were not cut): pairing still needs two players
    with pytest.raises(NotEnoughPlayers, match="at least 2 players still in"):
        t.pair_next_round(state)


def _drop_some(state, rng, *, keep=2):
    """Some players drop; every cut of the schedule keeps exactly the rounds still playable."""
    for seat in [p.seat for p in state.players if not p.dropped]:
        if len([p for p in state.players if not p.dropped]) > keep and rng.random() < 0.25:
            try:
                events = t.drop(state, seat)
            except WrongPhase:  # the last round is over
                return
            for cut in (e for e in events if isinstance(e, t.RoundsCut)):
                assert cut.rounds < cut.scheduled
                assert t.playable_rounds(state, cut.scheduled - state.round) == cut.rounds - state.round


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 9))
def test_after_drops_pairing_never_rematches_and_pairs_everyone_it_can(seed, n):
    """Drops at random, during rounds and between them: every round pairs each player still in
    once (a bye for the odd one), nobody meets anyone twice, and the schedule is only cut to the
    rounds the players left can still play without a rematch (checked at each cut)."""
    rng = random.Random(seed)
    state = make_event(n, seed=seed, rounds=max_rounds(n))
    met: set[frozenset] = set()
    while True:
        try:
            [paired] = t.pair_next_round(state)
        except WrongPhase:
            break
        active = {p.seat for p in state.players if not p.dropped}
        seated = [s for plan in paired.matches for s in (plan.a, plan.b)] + ([paired.bye] if paired.bye is not None else [])
        assert sorted(seated) == sorted(active) and paired.rematches == 0
        for plan in paired.matches:
            assert frozenset((plan.a, plan.b)) not in met
            met.add(frozenset((plan.a, plan.b)))
        if rng.random() < 0.5:
            _drop_some(state, rng)
        play_round(state, rng)
        if rng.random() < 0.5:
            _drop_some(state, rng)
    assert state.round == state.settings.rounds  # every round left on the schedule was played


def test_rounds_cut_after_drops_cannot_be_added_back():
    state = make_event(5, seed=0, rounds=4)
    rng = random.Random(0)
    for _ in range(3):
        t.pair_next_round(state)
        play_round(state, rng)
    t.drop(state, 0)
    assert state.settings.rounds == 4
    before = snapshot(state)
    with pytest.raises(InvalidSetting, match="at most 4 rounds"):
        t.update_settings(state, rounds=5)
    assert snapshot(state) == before


def test_drops_before_round_one_keep_at_least_one_round_and_say_nothing_when_nothing_changes():
    state = make_event(4, rounds=3)
    assert t.drop(state, 0)[1:] == []  # three left: three rounds, each sitting out once
    assert t.drop(state, 1)[1:] == [t.RoundsCut(3, 1, False)]  # two left: one round
    assert t.drop(state, 2)[1:] == []  # one left: still one round on the schedule, nothing to say
    with pytest.raises(NotEnoughPlayers, match="at least 2 players still in; there are 1"):
        t.pair_next_round(state)
