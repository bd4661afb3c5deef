"""Turnabout rendering stays inside Discord's limits and shows user text literally, whatever the
names and however many players."""

from __future__ import annotations

import dataclasses
import json

from bot.games.turnabout import rules as engine
from bot.games.turnabout import ui
from bot.games.turnabout.service import (
    Announcement,
    Decklist,
    EventView,
    PendingGame,
    Rating,
    Registration,
    result_words,
)
from bot.kit import claims, claims_ui, limits

NASTY = "@everyone **bold** [link](https://x.y) " + "é" * 60  # 100 characters of markdown, pings and accents


def event_state(n: int) -> engine.TurnaboutState:
    state = engine.new_event(3)
    for i in range(n):
        engine.register(state, 10_000 + i, f"{NASTY[:90]} {i}", engine.SCORING_OPTIONS[i % 3])
    engine.close_registration(state)
    return state


def view_of(state: engine.TurnaboutState) -> EventView:
    return EventView(1, 2, 3, 4, None, "running", 2000, state.settings, 1, (), state)


def announcement(state: engine.TurnaboutState, events) -> Announcement:
    return Announcement(1, 4, tuple(p.user_id for p in state.players), tuple(p.deck for p in state.players),
                        tuple(p.scoring for p in state.players), state.settings.rounds,
                        tuple(events))


def test_pairings_of_a_big_event_split_into_messages_with_names_escaped():
    state = event_state(101)
    events = engine.pair_next_round(state)
    chunks = ui.split_messages(ui.event_lines(announcement(state, events)))
    assert len(chunks) > 1 and all(len(c) <= limits.CONTENT for c in chunks)
    text = "\n".join(chunks)
    assert "@everyone" not in text.replace("@\u200beveryone", "") and "\\*\\*bold\\*\\*" in text
    assert text.count("**Match ") == 50 and "has a bye: 30–0 Victory Points" in text


def test_standings_and_ratings_are_paginated():
    state = event_state(45)
    first = ui.standings_page(view_of(state), 0)
    assert first.pages == 3 and limits.embed_size(first.embed) <= limits.EMBED_TOTAL
    last = ui.standings_page(view_of(state), 7)  # clamped
    assert last.page == 2 and last.embed.description.startswith("41. ")
    ratings = [Rating(i, 10_000 + i, 30 - i / 2, 1 + i % 2) for i in range(1, 31)]
    page = ui.ratings_page(ratings, 1)
    assert page.pages == 2 and page.embed.description.startswith("21. ") and "(2 events)" in page.embed.description
    assert "No finished" in ui.ratings_page([], 0).embed.description


def test_report_and_final_text():
    pending = PendingGame(1, 3, 2, 10, 11, 11, 9, "library", 15)
    assert ui.report_text(pending) == ("📝 Match 3, game 2: <@10> reports <@11> **won** with 9 cards left in library "
                                       "(**15 match points**). <@11> confirms or disputes it, or reports it too (an "
                                       "organizer who does not play in it can confirm it for them if they are absent).")
    assert ui.report_text(pending, again=True).startswith("📝 Match 3, game 2: <@10> reports <@11> **won** with 9 cards "
                                                          "left in library (**15 match points**) (still waiting).")
    assert ui.repeated_note(pending, differs=False, game_given=False) is None
    assert "Your earlier report of game 2 stands" in ui.repeated_note(pending, differs=True, game_given=True)
    first = PendingGame(1, 3, 1, 10, 11, None, None, None, 0)
    assert ui.repeated_note(first, differs=False, game_given=False) == (
        "To report game 2, run `/turnabout report` again with `game:2`.")
    state = event_state(4)
    engine.pair_next_round(state)
    for m in state.round_matches():
        engine.decide_game(state, m.number, 1, winner=m.a, value=0)
        engine.decide_game(state, m.number, 2, winner=None)
    events = engine.end_event(state)
    lines = ui.final_lines(announcement(state, events))
    assert lines[1].startswith("1. <@") and "Rating **" in lines[1] and "× 4" in lines[1]
    assert all(len(line) < limits.CONTENT for line in lines)


def test_a_decklist_dm_is_one_message_and_a_long_list_is_attached():
    payload = {"event_id": 1, "match": 2, "round": 1, "owner": 10, "deck": NASTY, "scoring": "tolaria",
               "cards": [[4, "Lightning *Bolt*"], [56, "Mountain"]]}
    content, file = ui.decklist_messages(Decklist.from_payload(payload))
    assert file is None and "4 Lightning \\*Bolt\\*\n56 Mountain" in content and len(content) <= limits.CONTENT
    long = {**payload, "cards": [[1, f"{'Q' * 185} {i}"] for i in range(250)]}
    content, file = ui.decklist_messages(Decklist.from_payload(long))
    assert file is not None and len(content) <= limits.CONTENT
    assert "(250 lines) is attached" in content and "250 cards" in content and "Q" * 185 not in content
    text = file.fp.read().decode()
    assert text.splitlines()[0] == f"1 {'Q' * 185} 0" and len(text.splitlines()) == 250
    assert file.filename.endswith(".txt") and file.filename.isascii()


def test_the_lobby_says_how_many_players_the_rounds_need():
    """Rounds are set before anyone registers: the lobby says how many players they need so that
    nobody meets an opponent twice (Begin refuses fewer)."""
    for rounds, needed in [(3, "at least 4 players)"), (4, "at least 5 players for 4 rounds without a rematch)"),
                           (7, "at least 7 players for 7 rounds without a rematch)")]:
        settings = engine.Settings(rounds=rounds)
        lobby = ui.lobby_embed(EventView(1, 2, 3, 4, None, "registration", 2000, settings, 1, (), None))
        assert lobby.footer.text.endswith(f"closes registration with Begin ({needed}.")
        assert lobby.footer.text.startswith("Join with /turnabout join deck [scoring] [decklist]")


def test_closing_and_rematches_are_announced_with_plurals_right():
    state = event_state(4)
    closed = ui.event_lines(announcement(state, [engine.RegistrationClosed(4)]))
    assert "registration is closed with 4 players, 3 rounds." in closed[0]
    state.settings.rounds = 1
    assert "4 players, 1 round." in ui.event_lines(announcement(state, [engine.RegistrationClosed(4)]))[0]
    [paired] = engine.pair_next_round(state)
    for count, text in [(1, "⚠️ 1 rematch: no pairing without one was possible."),
                        (2, "⚠️ 2 rematches: no pairing without one was possible.")]:
        lines = ui.event_lines(announcement(state, [dataclasses.replace(paired, rematches=count)]))
        assert text in lines
    assert not any("rematch" in line for line in ui.event_lines(announcement(state, [paired])))


def test_an_announcement_queued_before_typed_events_renders_the_same():
    """Rows queued by the version before the kit's codec named events by their bare class name; the
    outbox may send them after an upgrade."""
    state = event_state(5)
    events = [engine.RegistrationClosed(5), *engine.pair_next_round(state)]
    news = announcement(state, events)
    old = {**json.loads(json.dumps(dataclasses.asdict(news))),
           "events": [{"type": type(e).__name__, **json.loads(json.dumps(dataclasses.asdict(e)))} for e in events]}
    assert old["events"][1]["type"] == "RoundPaired" and news.to_payload()["events"][1]["type"] == "turnabout.RoundPaired"
    decoded = Announcement.from_payload(old)
    assert decoded == news and ui.event_lines(decoded) == ui.event_lines(news)
    assert Announcement.from_payload(json.loads(json.dumps(news.to_payload()))) == news


def test_an_answered_report_says_who_won_with_what_number():
    """Issue 25 item 3: the report message's text is replaced, and the result stays readable (the
    match's result is the channel's own post: issue 35 item 3, one post per piece of news). Its words
    are the kit's (`claims.words`: the format's title and result words, `Rules.title` / `Rules.reads`)."""
    won = result_words(10, 45, "library", 30)

    def said(how: str, by: int | None = 11, **more) -> str:
        return claims_ui.said(claims.Words("Match 1, game 2", more.pop("result", won), how, by, **more))

    assert said(claims.CONFIRM) == (
        "✅ Match 1, game 2: <@10> **won** with 45 cards left in library (**30 match points**), confirmed by <@11>.")
    assert said(claims.AGREED, result=result_words(10, 7, "life", 17)) == (
        "✅ Match 1, game 2: <@10> **won** with 7 life (**17 match points**), confirmed by <@11>'s matching report.")
    assert said(claims.UNOPPOSED, 10) == ("✅ Match 1, game 2: <@10> **won** with 45 cards left in library (**30 match "
                                          "points**), reported by <@10>: final, as their opponent has dropped.")
    assert said(claims.DECIDE, 12) == ("⚖️ Match 1, game 2: <@10> **won** with 45 cards left in library (**30 match "
                                       "points**), decided by <@12>.")
    assert said(claims.CONFIRM, result=result_words(None, None, None, 0)) == (
        "✅ Match 1, game 2: a **draw** (no match points), confirmed by <@11>.")
    assert said(claims.DISPUTE, reporter=10) == (
        "⚠️ Match 1, game 2: <@10> reported <@10> **won** with 45 cards left in library (**30 match points**); <@11> "
        "disputed it. An organizer who does not play in it decides it.")


def test_a_dispute_shows_the_organizer_both_claims():
    """Issue 25 item 4: what each player claimed, and the organizer called (third person)."""
    state = event_state(4)
    engine.pair_next_round(state)
    m = state.round_matches()[0]
    claimed = engine.reported(state, m.a, winner=m.a, value=12, game=1)
    counter = engine.reported(state, m.b, winner=m.b, value=3, game=1)
    [line] = ui.event_lines(announcement(state, [engine.GameDisputed(m.number, 1, m.b, "", claimed, counter)]))
    a, b = state.players[m.a].user_id, state.players[m.b].user_id
    measure = ui.MEASURE[engine.value_needed(state, m.number, 1, m.a)]
    assert line.startswith(f"⚠️ Match {m.number}, game 1 is disputed by <@{b}>. <@{a}> reported: <@{a}> won with "
                           f"12 {measure} (")
    assert f"; <@{b}> reported: <@{b}> won with 3 " in line
    assert line.endswith(f"<@4> decides it with `/turnabout settle match:{m.number} game:1`.")
    claimed = engine.reported(state, m.a, winner=m.a, value=12, game=2)
    [line] = ui.event_lines(announcement(state, [engine.GameDisputed(m.number, 2, m.b, "", claimed, None)]))
    assert f"<@{a}> reported: <@{a}> won with 12 " in line and f"; <@{b}> disputes that. <@4> decides it" in line


def test_round_complete_names_the_organizer_and_pairings_speak_in_the_third_person():
    state = event_state(4)
    lines = ui.event_lines(announcement(state, engine.pair_next_round(state)))
    assert lines[-1] == "Each player reports their games with `/turnabout report`; their opponent confirms."
    assert not any(" you" in line.lower() or "your " in line.lower() for line in lines)
    done = ui.event_lines(announcement(state, [engine.RoundFinished(1, False)]))
    assert done == ["🔔 Round 1 is complete. <@4> pairs round 2 with `/turnabout pair`."]
    last = ui.event_lines(announcement(state, [engine.RoundFinished(3, True)]))
    assert last == ["🔔 Round 3 is complete. That was the last round: <@4> ends the event with `/turnabout end`."]


def test_counts_and_status_words_read_as_english():
    """Issue 25 item 13: counts through plural, status words people use, no command names gone."""
    settings = engine.Settings(rounds=1)
    reg = Registration(10, "Burn", "dominaria", 1)
    lobby = ui.lobby_embed(EventView(1, 2, 3, 4, None, "registration", 2000, settings, 1, (reg,), None))
    assert lobby.title == "Turnabout #1 · Open for players" and "1 Swiss round ·" in lobby.description
    assert "(Dominaria · list of 1 card)" in lobby.fields[0].value
    for status, word in [("running", "In progress"), ("ended", "Ended"), ("cancelled", "Cancelled")]:
        embed = ui.lobby_embed(EventView(1, 2, 3, 4, None, status, 2000, settings, 1, (reg,), None))
        assert embed.title.endswith(f"· {word}") and embed.fields[-1].value == word
    ratings = ui.ratings_page([Rating(1, 10, 3.0, 1)], 0).embed.description
    assert "(1 event)" in ratings
    state = event_state(4)
    state.settings.rounds = 1
    engine.pair_next_round(state)
    for m in state.round_matches():
        engine.decide_game(state, m.number, 1, winner=m.a, value=0)
        engine.decide_game(state, m.number, 2, winner=None)
    page = ui.standings_page(view_of(state), 0).embed
    assert "Round 1 of 1: 2 of 2 matches finished" in page.fields[0].value
    lines = ui.final_lines(announcement(state, engine.end_event(state)))
    assert "(1 win + ½ × 0 draws + 1 bonus" in lines[1] and "(4 players;" in lines[0]


def test_rounds_dropped_from_the_schedule_are_announced():
    state = event_state(4)
    [one] = ui.event_lines(announcement(state, [engine.RoundsCut(3, 2, False)]))
    assert one == ("✂️ Round 3 is dropped from the schedule: the players still in cannot play it without meeting "
                   "an opponent twice. The event now ends after round 2.")
    [many] = ui.event_lines(announcement(state, [engine.RoundsCut(5, 2, True)]))
    assert many == ("✂️ Rounds 3–5 are dropped from the schedule: the players still in cannot play them without "
                    "meeting an opponent twice. Round 2 was the last: <@4> ends the event with `/turnabout end`.")


def test_records_read_wins_losses_draws_with_their_legend():
    """Issue 35 item 11: a player with a win and a loss reads 1–1–0 (never "1-0-1"), and every post
    that shows records says what they and VP mean."""
    state = event_state(4)
    state.settings.rounds = 2
    for _ in range(2):
        engine.pair_next_round(state)
        for m in state.round_matches():
            engine.decide_game(state, m.number, 1, winner=m.a, value=0)
            engine.decide_game(state, m.number, 2, winner=m.a, value=0)
    one_each = [row for row in engine.standings(state) if row.wins == 1 and row.losses == 1]
    assert one_each
    line = next(text for text in ui.standings_lines(state) if f"<@{one_each[0].user_id}>" in text)
    assert " · 1–1–0 · " in line and "1-0-1" not in line, line
    page = ui.standings_page(view_of(state), 0).embed
    assert "W–L–D: match wins–losses–draws" in page.fields[-1].value and "VP: Victory Points" in page.fields[-1].value
    lines = ui.final_lines(announcement(state, engine.end_event(state)))
    assert "VP: Victory Points" in lines[0] and "W–L–D: match wins–losses–draws" in lines[0]
    loser_of_the_winners = next(text for text in lines[1:] if f"<@{one_each[0].user_id}>" in text)
    assert " VP, 1–1–0. " in loser_of_the_winners, loser_of_the_winners


def test_the_reports_number_says_which_deck_lost_and_what_it_asks_as_it_is_typed():
    state = engine.new_event(3)
    for user, deck, option in ((1, "Infect", "phyrexia"), (2, "Burn", "dominaria"), (3, "Mill", "tolaria"),
                               (4, NASTY, "dominaria")):
        engine.register(state, user, deck, option)
    engine.close_registration(state)
    engine.pair_next_round(state)
    seat = engine.seat_of(state, 1)
    match = engine.current_match(state, seat)
    opponent = state.players[match.other(seat)]

    def said(result, typed, game=None):
        return [(c.name, c.value) for c in ui.number_choices(state, 1, result, game, typed)]

    theirs = f"your opponent's {opponent.deck}" if opponent.deck != NASTY else "your opponent's "
    asks = {"dominaria": "life", "tolaria": "cards left in library", "phyrexia": "poison counters"}
    # Game 1: each plays the other's deck, so the deck that lost is the winner's own.
    assert said("won", "3") == [("3 · your Infect deck lost: the winner's poison counters", 3)]
    [(lost, value)] = said("lost", " 12")
    assert value == 12
    assert lost.startswith(f"12 · {theirs}") and lost.endswith(f" deck lost: the winner's {asks[opponent.scoring]}")
    assert len(lost) <= 100
    # Game 2: their own decks.
    [(won_two, value)] = said("won", 5, game=2)
    assert value == 5
    assert won_two.startswith(f"5 · {theirs}") and won_two.endswith(asks[opponent.scoring])
    assert said("lost", "5", game=2) == [("5 · your Infect deck lost: the winner's poison counters", 5)]
    # Nothing to say before a number, for a draw, or to someone not playing.
    assert said("won", "") == said("draw", "4") == said(None, "4") == []
    assert ui.number_choices(state, 99, "won", None, "4") == []
