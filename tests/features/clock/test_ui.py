"""How a chess clock looks: times, the countdown timestamp, which buttons work, the announcements,
and the command's help text (no Discord connection needed)."""

from __future__ import annotations

import pytest

from bot.features.clock import rules as engine
from bot.features.clock import ui
from bot.features.clock.cog import ClockCog
from bot.features.clock.service import ClockGame, ClockNews, ClockView
from bot.kit import limits
from tests.e2e.drivers.common import parts_of

A, B = 111, 222
T0 = 1_800_000_000.0


GAME = ClockGame("turnabout", 4, "Turnabout #4", 9, 2, ("delay", 10, 3), decides=True)


def view_of(state: engine.ClockState, clock_id: int = 7, game: ClockGame | None = None) -> ClockView:
    return ClockView(id=clock_id, guild_id=1, channel_id=2, message_id=3, started_by=A, players=(A, B),
                     status=state.status, version=1, state=state, game=game)


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
    assert f"🚩 <@{B}>: flag fell <t:{int(T0) + 100 + 573}:T>" in text and text.endswith(f"<@{B}> ran out of time.")
    assert ui.clock_view(flagged) is None
    decided = ui.clock_embed(view_of(state, game=GAME)).description
    assert "For Turnabout #4, match 9, game 2: a flag fall loses that game (an organizer can override)." in decided
    assert decided.endswith(f"<@{B}> ran out of time and loses Turnabout #4, match 9, game 2 (an organizer can override).")

    delay = engine.new_clock("delay", 1, 0, players=[A, B])
    engine.start(delay, 1, T0)
    engine.end(delay, T0 + 30)
    ended = view_of(delay)
    assert "Delay: the first 0 s of each move are free · 1:00 each per game" in ui.clock_embed(ended).description
    assert f"⌛ <@{B}>: 0:30 left" in ui.clock_embed(ended).description and ui.clock_view(ended) is None


def test_an_offer_waits_for_the_opponent_and_shows_each_player_their_buttons():
    state = engine.new_clock("delay", 10, 3, players=[A, B])
    engine.offer(state, 0, 1)
    offered = view_of(state, game=GAME)
    text = ui.clock_embed(offered).description
    assert "For Turnabout #4, match 9, game 2: a flag fall loses that game" in text
    assert (f"Offered by <@{A}>: waiting for <@{B}> to accept. The clock does not run until then; once accepted, "
            f"<@{B}>'s clock runs first.") in text
    assert f"⌛ <@{A}>: 10:00 left" in text and f"⌛ <@{B}>: 10:00 left" in text
    assert ui.offer_text(offered) == (f"<@{B}>, <@{A}> offers you a chess clock for Turnabout #4, match 9, game 2. "
                                      "Press **Accept** to start it, or **Decline**; it does not run until you accept.")
    assert ui.offer_pinged(offered) == (B,)
    assert enabled(offered) == {"accept": True, "decline": True, "withdraw": True}

    def actions(for_user):
        view = ui.clock_view(offered, for_user=for_user)
        return [parts_of(ui.ClockButton, item.item.custom_id)["action"] for item in view.children]

    assert actions(B) == ["accept", "decline"] and actions(A) == ["withdraw"]
    informal = view_of(state, game=ClockGame("turnabout", 4, "Turnabout #4", 9, 1, None))
    assert ("This clock decides nothing: Turnabout #4 is played without a chess clock, so a flag fall records no "
            "result for match 9, game 1.") in ui.clock_embed(informal).description
    engine.decline(state, 1)
    declined = view_of(state)
    assert f"Declined by <@{B}>: it never ran." in ui.clock_embed(declined).description
    assert ui.clock_view(declined) is None and ui.offer_text(declined) is None and ui.offer_pinged(declined) == ()


def test_announcements_and_their_pings():
    flag = {"what": "flag", "clock_id": 7, "users": [A, B], "side": 1, "at": T0 + 0.5, "remaining": [42.5, 0],
            "moves": 4, "mode": "delay"}
    text = ui.news_text(ClockNews.from_payload(flag))
    assert text == f"🚩 Chess clock #7: <@{B}>'s flag fell at <t:{int(T0) + 1}:T>. <@{B}> ran out of time; <@{A}> had 0:42 left."
    assert ui.news_pings(ClockNews.from_payload(flag)) == (A, B)
    recorded = ui.news_text(ClockNews.from_payload({**flag, "game": GAME.to_payload(), "recorded": True}))
    assert (f"<@{B}> loses Turnabout #4, match 9, game 2 on time (an organizer can override); <@{A}> had 0:42 "
            "left.") in recorded
    already = ui.news_text(ClockNews.from_payload({**flag, "game": GAME.to_payload(), "recorded": False}))
    assert "That game (Turnabout #4, match 9, game 2) already has a result, so nothing is recorded" in already
    informal = ui.news_text(ClockNews.from_payload({**flag, "game": {**GAME.to_payload(), "decides": False},
                                                    "recorded": False}))
    assert "Nothing is recorded for Turnabout #4, match 9, game 2: the clock was informal" in informal
    ended = ClockNews.from_payload({**flag, "what": "ended"})
    assert ui.news_text(ended) == f"⏹️ Chess clock #7 ended after 4 passes: <@{A}> 0:42 left, <@{B}> 0:00 left."
    assert ui.news_pings(ended) == () and len(ui.news_text(ended)) <= limits.CONTENT


def test_announcements_queued_as_typed_events_read_like_the_old_ones():
    """The service queues the engine's own event; a row queued before (`what`, `side`, `at`) reads the same."""
    old = {"what": "flag", "clock_id": 7, "users": [A, B], "side": 1, "at": T0 + 0.5, "remaining": [42.5, 0],
           "moves": 4, "mode": "delay", "game": GAME.to_payload(), "recorded": True}
    news = ClockNews(7, (A, B), "delay", (42.5, 0.0), 4, engine.FlagFell(1, T0 + 0.5), GAME, True)
    assert news.to_payload()["event"] == {"type": "clock.FlagFell", "side": 1, "at": T0 + 0.5}
    assert ClockNews.from_payload(news.to_payload()) == news == ClockNews.from_payload(old)
    ended = ClockNews(7, (A, B), "delay", (42.5, 0.0), 4, engine.ClockEnded((42.5, 0.0)))
    assert ClockNews.from_payload(ended.to_payload()) == ended
    assert ui.news_text(ended) == ui.news_text(ClockNews.from_payload({**old, "what": "ended", "game": None,
                                                                       "recorded": False}))


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


def test_a_clock_with_other_settings_than_the_events_says_plainly_it_decides_nothing():
    """Issue 34: the offer itself says so, and what the event's clock is."""
    state = engine.new_clock("delay", 5, 0, players=[A, B])
    engine.offer(state, 0, 0)
    other = view_of(state, game=ClockGame("turnabout", 4, "Turnabout #4", 9, 1, ("bronstein", 25, 5)))
    assert ui.offer_text(other) == (
        f"<@{B}>, <@{A}> offers you a chess clock that decides nothing: its settings are not the clock of "
        "Turnabout #4 (Bronstein: time spent on a move is refunded up to 5 s · 25:05 each per game), so a flag fall "
        "records no result for match 9, game 1. Press **Accept** to start it, or **Decline**; it does not run until "
        "you accept.")
    assert ("This clock decides nothing: its settings are not the clock of Turnabout #4 (Bronstein: time spent on "
            "a move is refunded up to 5 s · 25:05 each per game), so a flag fall records no result for match 9, "
            "game 1.") in ui.clock_embed(other).description
    untimed = view_of(state, game=ClockGame("turnabout", 4, "Turnabout #4", 9, 1, None))
    assert ui.offer_text(untimed).startswith(
        f"<@{B}>, <@{A}> offers you a chess clock that decides nothing: Turnabout #4 is played without a chess "
        "clock, so a flag fall records no result for match 9, game 1.")


def test_a_request_to_pause_or_end_is_shown_and_pings_the_opponent():
    state = engine.new_clock("delay", 10, 3, players=[A, B])
    engine.start(state, 0, T0)
    engine.pause(state, T0 + 1, by=0)
    line = (f"<@{A}> asks to pause the clock (it is their move, so they cannot alone): <@{B}> presses **Pause** to "
            "agree.")
    assert line in ui.clock_embed(view_of(state)).description
    news = ClockNews(7, (A, B), "delay", (600, 600), 0, engine.ClockAsked(0, "end"))
    assert ui.news_text(news) == (f"⏸️ Chess clock #7: <@{A}> asks to end the clock (it is their move, so they "
                                  f"cannot alone): <@{B}> presses **End** to agree.")
    assert ui.news_pings(news) == (B,)
    assert ClockNews.from_payload(news.to_payload()) == news
