"""Tests for the two-player chess clock (bot/features/clock/rules.py), driven by an explicit fake time."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.features.clock import rules as c
from bot.features.clock.rules import ClockError, ClockState, NotAClockPlayer, NotYourClock, WrongClockState

T0 = 1_700_000_000.0  # an arbitrary epoch second: the fake "now" starts here


def started(mode="delay", minutes=10, increment=3, first=0) -> ClockState:
    state = c.new_clock(mode, minutes, increment, players=[111, 222])
    c.start(state, first, T0)
    return state


# --------------------------------------------------------------------------- set-up


def test_defaults_are_ten_minutes_and_three_seconds_delay():
    state = c.new_clock()
    assert (state.mode, state.increment, state.banks) == ("delay", 3, [600, 600])
    assert c.remaining(state, 0, T0) == c.remaining(state, 1, T0) == 600


def test_bronstein_starts_at_ten_minutes_three():
    state = c.new_clock("bronstein")
    assert state.banks == [603, 603]
    state = c.new_clock("bronstein", minutes=5, increment=2)
    assert state.banks == [302, 302]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "fischer"},
        {"minutes": 0},
        {"minutes": -1},
        {"minutes": c.MAX_MINUTES + 1},
        {"increment": -1},
        {"increment": c.MAX_INCREMENT + 1},
        {"minutes": float("nan")},
        {"minutes": True},
        {"players": [1, 1]},
        {"players": [1, 2, 3]},
    ],
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ClockError):
        c.new_clock(**kwargs)


def test_only_the_two_players_may_press():
    state = started()
    assert c.side_of(state, 111) == 0 and c.side_of(state, 222) == 1
    with pytest.raises(NotAClockPlayer):
        c.side_of(state, 333)


# --------------------------------------------------------------------------- delay


def test_delay_the_first_seconds_of_a_move_are_free():
    state = started("delay")
    assert c.remaining(state, 0, T0 + 3) == 600  # within the delay: nothing used
    assert c.remaining(state, 0, T0 + 10) == 593
    [passed] = c.pass_clock(state, 0, T0 + 10)
    assert (passed.side, passed.to, passed.spent, passed.charged, passed.remaining) == (0, 1, 10, 7, 593)
    assert state.running == 1
    assert c.remaining(state, 1, T0 + 12) == 600  # the opponent's delay runs first


def test_delay_never_adds_time():
    state = started("delay")
    c.pass_clock(state, 0, T0 + 1)  # a quick move: charged 0, not refunded 2
    assert state.banks == [600, 600]
    c.pass_clock(state, 1, T0 + 1.5)
    assert state.banks == [600, 600]


def test_delay_flag_falls_exactly_at_flag_due_at():
    state = started("delay", minutes=1)
    due = c.flag_due_at(state)
    assert due == T0 + 3 + 60
    assert not c.flag_fallen(state, due - 0.001)
    assert c.remaining(state, 0, due - 1) == pytest.approx(1)
    assert c.check_flag(state, due - 0.001) == []
    assert c.flag_fallen(state, due)
    assert c.remaining(state, 0, due) == 0
    assert c.check_flag(state, due) == [c.FlagFell(0, due)]
    assert state.status == "flagged" and state.flagged == 0
    assert c.check_flag(state, due + 5) == []  # recorded once


# --------------------------------------------------------------------------- Bronstein


def test_bronstein_refund_is_capped_at_the_limit():
    state = started("bronstein")
    [passed] = c.pass_clock(state, 0, T0 + 10)  # 10 s spent, 3 refunded
    assert (passed.spent, passed.charged) == (10, 7)
    assert state.banks[0] == 603 - 7
    [passed] = c.pass_clock(state, 1, T0 + 12)  # 2 s spent, all 2 refunded (not 3)
    assert (passed.spent, passed.charged) == (2, 0)
    assert state.banks[1] == 603


def test_bronstein_counts_time_during_the_move_and_flags_without_refund():
    state = started("bronstein", minutes=1)
    assert c.remaining(state, 0, T0 + 2) == 61  # no free seconds during the move
    assert c.flag_due_at(state) == T0 + 63
    assert not c.flag_fallen(state, T0 + 62.999)
    # A pass that comes too late is a flag fall, not a refund.
    assert c.pass_clock(state, 0, T0 + 63) == [c.FlagFell(0, T0 + 63)]
    assert c.remaining(state, 0, T0 + 64) == 0


# --------------------------------------------------------------------------- pass, pause, resume, end


def test_only_the_running_player_can_pass():
    state = started(first=1)
    with pytest.raises(NotYourClock):
        c.pass_clock(state, 0, T0 + 1)
    assert state.running == 1 and state.moves == 0
    with pytest.raises(ClockError):
        c.pass_clock(state, 2, T0 + 1)


def test_pass_before_start_and_after_end_is_refused():
    state = c.new_clock()
    with pytest.raises(WrongClockState, match="not been started"):
        c.pass_clock(state, 0, T0)
    c.start(state, 0, T0)
    with pytest.raises(WrongClockState):
        c.start(state, 1, T0)
    c.end(state, T0 + 5)
    with pytest.raises(WrongClockState, match="ended"):
        c.pass_clock(state, 0, T0 + 6)


def test_pause_freezes_time_and_a_paused_clock_never_flags():
    state = started("delay", minutes=1)
    [paused] = c.pause(state, T0 + 20)  # 3 s delay + 17 s used
    assert paused == c.ClockPaused(0, 43)
    later = T0 + 10_000
    assert c.flag_due_at(state) is None
    assert not c.flag_fallen(state, later)
    assert c.check_flag(state, later) == []
    assert c.remaining(state, 0, later) == 43
    with pytest.raises(WrongClockState, match="paused"):
        c.pass_clock(state, 0, later)
    with pytest.raises(WrongClockState):
        c.pause(state, later)
    [resumed] = c.resume(state, later)
    assert resumed.flag_due_at == later + 43  # the delay was used up before the pause
    assert c.remaining(state, 0, later + 3) == 40


def test_pause_during_the_delay_keeps_the_rest_of_the_delay():
    state = started("delay")
    c.pause(state, T0 + 1)
    c.resume(state, T0 + 100)
    assert c.flag_due_at(state) == T0 + 100 + 2 + 600
    [passed] = c.pass_clock(state, 0, T0 + 104)  # 1 + 4 = 5 s spent, 3 free
    assert (passed.spent, passed.charged) == (5, 2)


def test_end_stops_the_clock_and_keeps_the_times():
    state = started("bronstein")
    c.pass_clock(state, 0, T0 + 10)
    [ended] = c.end(state, T0 + 15)  # side 1 used 5 s of its last move: no refund for a non-pass
    assert ended == c.ClockEnded((596, 598))
    assert c.flag_due_at(state) is None
    assert not c.flag_fallen(state, T0 + 10_000)


def test_end_after_the_flag_fell_reports_the_flag():
    state = started("delay", minutes=1)
    assert c.end(state, T0 + 100) == [c.FlagFell(0, T0 + 63)]


def test_new_game_resets_both_clocks():
    state = started("bronstein")
    c.pass_clock(state, 0, T0 + 30)
    with pytest.raises(WrongClockState):
        c.new_game(state)  # still running
    c.end(state, T0 + 40)
    [reset] = c.new_game(state)
    assert reset == c.GameReset(2, (603, 603))
    assert state.banks == [603, 603] and state.status == "ready" and state.moves == 0
    assert state.history[0]["banks"] == [576, 593]
    c.start(state, 1, T0 + 100)
    assert c.flag_due_at(state) == T0 + 100 + 603


def test_time_never_runs_backwards():
    state = started("delay")
    c.pass_clock(state, 0, T0 + 10)
    # Another process with a clock 50 ms behind: treated as the last time seen.
    c.pass_clock(state, 1, T0 + 9.95)
    assert state.banks[1] == 600
    with pytest.raises(ClockError):
        c.pass_clock(state, 0, float("inf"))


# --------------------------------------------------------------------------- an offered clock


def offered(first=0) -> ClockState:
    state = c.new_clock(players=[111, 222])
    assert c.offer(state, 0, first) == [c.ClockOffered(0, first)]
    return state


def test_an_offered_clock_does_not_run_until_the_other_player_accepts():
    state = offered(first=1)
    assert state.status == c.OFFERED and c.flag_due_at(state) is None
    assert c.check_flag(state, T0 + 10**6) == [] and not c.flag_fallen(state, T0 + 10**6)
    assert c.remaining(state, 0, T0 + 10**6) == c.remaining(state, 1, T0 + 10**6) == 600
    for refused in (lambda: c.pass_clock(state, 0, T0), lambda: c.pause(state, T0), lambda: c.end(state, T0),
                    lambda: c.start(state, 0, T0)):
        with pytest.raises(WrongClockState, match="not been accepted yet"):
            refused()
    with pytest.raises(NotYourClock, match="only your opponent can accept"):
        c.accept(state, 0, T0)
    with pytest.raises(NotYourClock, match="only your opponent can decline"):
        c.decline(state, 0)
    with pytest.raises(NotYourClock, match="Only the player who offered"):
        c.withdraw(state, 1)
    assert state.status == c.OFFERED
    events = c.accept(state, 1, T0 + 50)
    assert events == [c.ClockAccepted(1), c.ClockStarted(1, T0 + 50 + 603)]
    assert state.status == c.RUNNING and state.running == 1 and c.flag_due_at(state) == T0 + 653
    with pytest.raises(WrongClockState):
        c.accept(state, 1, T0 + 60)


def test_an_offer_can_be_withdrawn_or_declined_and_then_never_runs():
    state = offered()
    assert c.withdraw(state, 0) == [c.ClockWithdrawn(0)] and state.status == c.WITHDRAWN
    with pytest.raises(WrongClockState, match="withdrawn"):
        c.accept(state, 1, T0)
    state = offered()
    assert c.decline(state, 1) == [c.ClockDeclined(1)] and state.status == c.DECLINED
    for refused in (lambda: c.accept(state, 1, T0), lambda: c.start(state, 0, T0), lambda: c.withdraw(state, 0)):
        with pytest.raises(WrongClockState, match="declined"):
            refused()
    running = started()
    with pytest.raises(WrongClockState):
        c.offer(running, 0, 0)


def test_an_offer_round_trips_and_old_documents_read_as_before():
    state = offered(first=1)
    assert ClockState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    old = {k: v for k, v in started().to_dict().items() if k not in ("offered_by", "first")}
    assert ClockState.from_dict(old).offered_by is None


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["accept", "decline", "withdraw", "pass", "pause", "end", "check"]),
                                st.integers(0, 1), st.floats(0, 10**6)), max_size=12))
def test_an_offered_clock_never_flags_before_it_is_accepted(steps):
    state = offered()
    now = T0
    for action, side, dt in steps:
        now += dt
        was = state.status
        try:
            if action in ("accept", "pass"):
                {"accept": c.accept, "pass": c.pass_clock}[action](state, side, now)
            elif action in ("decline", "withdraw"):
                {"decline": c.decline, "withdraw": c.withdraw}[action](state, side)
            else:
                {"pause": c.pause, "end": c.end, "check": c.check_flag}[action](state, now)
        except ClockError:
            assert state.status == was  # a refusal changes nothing
        if state.status in (c.OFFERED, c.WITHDRAWN, c.DECLINED):
            assert state.flagged is None and state.banks == [600, 600] and c.flag_due_at(state) is None
        if was == c.OFFERED and state.status == c.RUNNING:
            assert action == "accept" and side == 1  # only the other player's consent starts it


# --------------------------------------------------------------------------- codec


def test_codec_has_a_version_and_rejects_unknown_ones():
    state = started()
    d = state.to_dict()
    assert d["v"] == 1
    with pytest.raises(ValueError, match="version"):
        ClockState.from_dict({**d, "v": 2})
    with pytest.raises(ValueError, match="version"):
        ClockState.from_dict({k: v for k, v in d.items() if k != "v"})


@settings(max_examples=60, deadline=None)
@given(
    mode=st.sampled_from(c.MODES),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["start", "pass0", "pass1", "pause", "resume", "end", "new", "check"]),
            st.floats(0, 30),
        ),
        max_size=25,
    ),
)
def test_codec_round_trip_and_banks_never_grow(mode, steps):
    state = started(mode)
    now = T0
    for action, dt in steps:
        now += dt
        before = list(state.banks)
        try:
            if action.startswith("pass"):
                c.pass_clock(state, int(action[-1]), now)
            elif action == "start":
                c.start(state, 0, now)
            elif action == "new":
                c.new_game(state)
                before = list(state.banks)
            else:
                {"pause": c.pause, "resume": c.resume, "end": c.end, "check": c.check_flag}[action](
                    state, now
                )
        except ClockError:
            pass
        assert all(b <= a for a, b in zip(before, state.banks, strict=True))
        assert all(c.remaining(state, s, now) >= 0 for s in (0, 1))
        reloaded = ClockState.from_dict(json.loads(json.dumps(state.to_dict())))
        assert reloaded == state


# --------------------------------------------------------------------------- issue 34: pause and end need both


@pytest.mark.parametrize("action", ["pause", "end"])
def test_the_running_player_only_asks_and_the_opponent_agrees(action):
    """The player whose time runs cannot stop it alone: their press is a request (the clock runs
    on); the opponent's press of the same button does it."""
    operation = {"pause": c.pause, "end": c.end}[action]
    state = started("delay", minutes=1)
    assert operation(state, T0 + 5, by=0) == [c.ClockAsked(0, action)]
    assert state.status == c.RUNNING and state.asked == action and c.flag_due_at(state) == T0 + 63
    with pytest.raises(WrongClockState, match=f"already asked to {action}"):
        operation(state, T0 + 6, by=0)
    done = operation(state, T0 + 10, by=1)
    assert state.status == (c.PAUSED if action == "pause" else c.ENDED) and state.asked is None
    assert done == ([c.ClockPaused(0, 53)] if action == "pause" else [c.ClockEnded((53, 60))])


def test_a_request_lapses_when_the_move_ends_and_the_opponent_acts_alone():
    state = started("delay")
    c.pause(state, T0 + 1, by=0)
    c.pass_clock(state, 0, T0 + 2)
    assert state.asked is None
    assert c.pause(state, T0 + 3, by=0) == [c.ClockPaused(1, 600)]  # side 0 waits: its press pauses side 1
    c.resume(state, T0 + 4)
    assert c.end(state, T0 + 5, by=0)[0] == c.ClockEnded((600, 600))


def test_while_paused_the_running_player_still_only_asks_to_end():
    state = started("delay")
    c.pause(state, T0 + 1, by=1)
    assert c.end(state, T0 + 2, by=0) == [c.ClockAsked(0, "end")] and state.status == c.PAUSED
    assert c.end(state, T0 + 3, by=1)[0] == c.ClockEnded((600, 600))


def test_an_organizer_who_does_not_play_pauses_and_ends_alone():
    state = started("delay")
    assert c.pause(state, T0 + 1) == [c.ClockPaused(0, 600)]  # by=None: not a player of this clock
    c.resume(state, T0 + 2)
    assert c.end(state, T0 + 3)[0] == c.ClockEnded((600, 600))


def test_old_documents_without_a_request_read_as_before():
    data = started().to_dict()
    del data["asked"]
    assert ClockState.from_dict(data).asked is None


@settings(max_examples=80, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["pass", "pause", "resume", "end"]), st.sampled_from([0, 1, None]),
                                st.floats(0, 5)), max_size=30))
def test_the_player_whose_move_it_is_never_stops_the_clock_alone(steps):
    """Whatever happens, a Pause or End by the side whose move it is leaves the clock as it was but
    for the request; the other side's (or an organizer's, ``None``) press does it."""
    state = started("delay", minutes=5)
    now = T0
    for action, by, dt in steps:
        now += dt
        before = (state.status, state.running, list(state.banks))
        mover = by is not None and by == state.running and state.status in (c.RUNNING, c.PAUSED)
        try:
            if action == "pass":
                events = c.pass_clock(state, state.running if by is None else by, now)
            elif action == "resume":
                events = c.resume(state, now)
            else:
                events = {"pause": c.pause, "end": c.end}[action](state, now, by=by)
        except ClockError:
            continue
        if action in ("pause", "end") and mover and not any(isinstance(e, c.FlagFell) for e in events):
            assert events == [c.ClockAsked(by, action)] and (state.status, state.running, state.banks) == before
