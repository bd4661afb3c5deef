"""How a chess clock looks: times, the countdown timestamp, which buttons work, the announcements,
and the command's help text (no Discord connection needed)."""

from __future__ import annotations

import pytest

from bot.cogs.clock import ClockCog
from bot.formats import clock as engine
from bot.services.clock import ClockView
from bot.ui import clock as ui
from bot.ui import limits
from tests.e2e.drivers.common import parts_of

A, B = 111, 222
T0 = 1_800_000_000.0


def view_of(state: engine.ClockState, clock_id: int = 7) -> ClockView:
    return ClockView(id=clock_id, guild_id=1, channel_id=2, message_id=3, started_by=A, players=(A, B),
                     status=state.status, version=1, state=state)


def enabled(clock: ClockView) -> dict[str, bool]:
    view = ui.clock_view(clock)
    assert view is not None
    return {parts_of(ui.ClockButton, item.item.custom_id)["action"]: not item.item.disabled for item in view.children}


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0:00"), (-3, "0:00"), (9.99, "0:09"), (60, "1:00"),
                                                (603, "10:03"), (3725, "1:02:05"), (10800, "3:00:00")])
def test_duration(seconds, shown):
    assert ui.duration(seconds) == shown


def test_running_paused_flagged_and_ended_clocks():
    state = engine.new_clock("bronstein", 10, 3, players=[A, B])
    engine.start(state, 0, T0)
    running = view_of(state)
    text = ui.clock_embed(running).description
    assert "Bronstein: time spent on a move is refunded up to 3 s · 10:03 each per game" in text
    assert f"▶️ <@{A}>: **running**, flag falls <t:{int(T0) + 603}:R> (10:03 when it started)" in text
    assert f"⌛ <@{B}>: 10:03 left" in text
    assert enabled(running) == {"pass": True, "pause": True, "resume": False, "end": True}

    engine.pass_clock(state, 0, T0 + 10)
    engine.pause(state, T0 + 40)
    paused = view_of(state)
    text = ui.clock_embed(paused).description
    assert f"⌛ <@{A}>: 9:56 left" in text and f"⏸️ <@{B}>: 9:33 left (paused during their move)" in text
    assert enabled(paused) == {"pass": False, "pause": False, "resume": True, "end": True}

    engine.resume(state, T0 + 100)
    engine.check_flag(state, T0 + 10_000)
    flagged = view_of(state)
    text = ui.clock_embed(flagged).description
    assert f"🚩 <@{B}>: flag fell <t:{int(T0) + 100 + 573}:T>" in text and "loses this game" in text
    assert ui.clock_view(flagged) is None

    delay = engine.new_clock("delay", 1, 0, players=[A, B])
    engine.start(delay, 1, T0)
    engine.end(delay, T0 + 30)
    ended = view_of(delay)
    assert "Delay: the first 0 s of each move are free · 1:00 each per game" in ui.clock_embed(ended).description
    assert f"⌛ <@{B}>: 0:30 left" in ui.clock_embed(ended).description and ui.clock_view(ended) is None


def test_announcements_and_their_pings():
    flag = {"what": "flag", "clock_id": 7, "users": [A, B], "side": 1, "at": T0 + 0.5, "remaining": [42.5, 0],
            "moves": 4, "mode": "delay"}
    text = ui.news_text(flag)
    assert text == (f"🚩 Chess clock #7: <@{B}>'s flag fell at <t:{int(T0) + 1}:T>. <@{B}> loses this game on time "
                    f"(an organizer can override); <@{A}> had 0:42 left.")
    assert ui.news_pings(flag) == (A, B)
    ended = {**flag, "what": "ended"}
    assert ui.news_text(ended) == f"⏹️ Chess clock #7 ended after 4 passes: <@{A}> 0:42 left, <@{B}> 0:00 left."
    assert ui.news_pings(ended) == () and len(ui.news_text(ended)) <= limits.CONTENT


def test_forged_custom_ids_do_not_match_or_are_refused():
    assert parts_of(ui.ClockButton, ui.ClockButton.custom_id_for(clock=5, action="pass")) == {"clock": "5",
                                                                                            "action": "pass"}
    assert parts_of(ui.ClockButton, "clk:5") is None
    assert parts_of(ui.ClockButton, "clk:5:pass:extra") is None


def test_every_command_and_option_has_help_text():
    group = ClockCog.group
    assert group.description
    for command in group.commands:
        assert command.description, command.name
        for parameter in command.parameters:
            assert parameter.description and parameter.description != "…", (command.name, parameter.name)
