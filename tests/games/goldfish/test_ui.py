"""Goldfish's embeds and form, as players read them."""

from __future__ import annotations

from bot.games.goldfish import ui as goldfish_ui
from bot.games.goldfish.service import EventView


def test_goldfish_standings_say_the_event_state_and_method_in_words():
    for status, shown in (("open", "taking scores"), ("closed", "ended")):
        event = EventView(4, 1, 2, "Fish", 1, "sum", None, 9, status)
        footer = goldfish_ui.standings_embed(event, [], final=status == "closed").footer.text
        assert footer == f"Event #4 · 1 turn · score: life lost, cards milled, poison and wins added up · {shown}"
    assert goldfish_ui.standings_embed(EventView(4, 1, 2, "Fish", 7, "max", None, 9, "open"), []).footer.text == (
        "Event #4 · 7 turns · score: the largest of life lost, cards milled, poison and wins · taking scores")


EVENT = EventView(4, 1, 2, "Fish", 7, "sum", None, 9, "open")


def fields(modal) -> dict[str, tuple[str, str | None]]:
    """Each field's custom_id -> (its hint, its value)."""
    return {label.component.custom_id: (label.description, label.component.default) for label in modal.children}


def test_the_form_fills_in_what_it_is_given_and_each_hint_describes_its_field():
    empty = fields(goldfish_ui.ScoreModal(EVENT, "gfs:4:0:0:-"))
    assert list(empty) == ["life_lost", "cards_milled", "poison", "game_wins", "writeup"]
    assert all(len(hint) <= goldfish_ui.LABEL_DESCRIPTION for hint, _ in empty.values())
    assert [value for _, value in empty.values()] == ["0", "0", "0", "0", None]
    assert "life the goldfish lost" in empty["life_lost"][0] and "graveyard" in empty["cards_milled"][0]
    typed = {"life_lost": "l4", "cards_milled": "3", "poison": "1", "game_wins": "0", "writeup": "T1 go"}
    again = fields(goldfish_ui.ScoreModal(EVENT, "gfs:4:0:0:-", values=typed))
    assert {key: value for key, (_, value) in again.items()} == typed
    lost = fields(goldfish_ui.ScoreModal(EVENT, "gfs:4:1:0:-", with_numbers=False, values=typed))
    assert list(lost) == ["writeup"] and lost["writeup"] == (goldfish_ui.LOST_WRITEUP_HINT, "T1 go")


def test_the_final_post_names_the_winner_or_winners():
    assert goldfish_ui.winner_line(EVENT, [7]).startswith("🏆 **Fish** has ended: <@7> wins.")
    assert "<@7> and <@8> share the win" in goldfish_ui.winner_line(EVENT, [7, 8])
    assert "no scores reported" in goldfish_ui.winner_line(EVENT, [])
