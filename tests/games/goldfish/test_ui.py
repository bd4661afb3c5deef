"""Goldfish's embeds and form, as players read them."""

from __future__ import annotations

from bot.games.goldfish import ui as goldfish_ui
from bot.games.goldfish.service import EventView


def test_goldfish_standings_say_the_event_state_and_method_in_words():
    for status, shown in (("open", "taking scores"), ("closed", "ended")):
        event = EventView(4, 1, 2, "Fish", 1, "sum", None, 9, status)
        footer = goldfish_ui.standings_embed(event, [], final=status == "closed").footer.text
        assert footer == f"Event #4 · 1 turn · components added up · {shown}"
    assert goldfish_ui.standings_embed(EventView(4, 1, 2, "Fish", 7, "max", None, 9, "open"), []).footer.text == (
        "Event #4 · 7 turns · largest component counts · taking scores")
