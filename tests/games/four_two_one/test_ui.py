"""421 rendering stays inside Discord's limits and shows user text (card, set and player names)
literally, whatever the names: announcements, the pool and deck pages, standings, the lobby, the
forms and menus; and what the outbox sends, from typed payloads and from rows queued before them."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from bot.cards.model import Card
from bot.cards.parse import parse_cube_text
from bot.cards.sets import CardSet
from bot.games.four_two_one import FORMAT, service, ui
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one.service import Announcement, Claim, Decided, LeagueView, SetInfo
from bot.kit import limits, outbox
from bot.kit.delivery import Outbox
from bot.kit.dispatch import InvalidPayload
from bot.kit.errors import UserError
from bot.kit.formats import renderers_of

NASTY = "@everyone **bold** [link](https://x.y) <@123> " + "é" * 40
BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")


def long_set(code: str, n: int = 120) -> CardSet:
    """Cards with 200-character names full of markdown."""
    cards = [Card(f"{NASTY} {code} {i:03d} " + "x" * (200 - len(NASTY) - 10), "common") for i in range(n)]
    return CardSet(code=code, name=f"{NASTY} set {code}", cards=tuple(cards), basics=BASICS)


def card_set_of(code: str, n: int = 60) -> CardSet:
    """Cards with ordinary names."""
    return CardSet(code=code, name=f"Set {code}", cards=tuple(Card(f"{code} card {i:02d}", "common") for i in range(n)),
                   basics=BASICS)


def league_state(players: int = 3) -> engine.LeagueState:
    return engine.new_league([long_set("aaa"), long_set("bbb")], [100 + i for i in range(players)], seed=1,
                             names=[f"{NASTY} {i}" for i in range(players)])


def deck_of(state: engine.LeagueState) -> dict[str, int]:
    names = sorted(n for n in state.pool if n not in BASICS and state.pool[n])[:10]
    basic = max(BASICS, key=lambda b: state.pool[b])
    return {**dict.fromkeys(names, 4), basic: 20}


def view(state: engine.LeagueState | None, status: str = "running") -> LeagueView:
    sets = (SetInfo("aaa", f"{NASTY} one", 120), SetInfo("bbb", f"{NASTY} two", 120))
    players = tuple(p.user_id for p in state.players) if state else (100, 101)
    return LeagueView(7, 1, 2, 3, None, status, 6, 4, 21, sets, players, state)


def news(state: engine.LeagueState, events) -> Announcement:
    return Announcement(7, tuple(p.user_id for p in state.players), tuple(events),
                        scores=tuple(p.score for p in state.players))


def built(state: engine.LeagueState) -> list[engine.Event]:
    events: list[engine.Event] = []
    while state.phase == "building":
        events += engine.build_deck(state, state.step.seat, deck_of(state))
    return events


def test_announcements_escape_names_and_fit_messages():
    state = league_state()
    events = built(state)
    events += engine.report(state, state.matches[0].a, "won")
    events += engine.choose(state, state.matches[0].b, "B")
    events += engine.build_deck(state, state.step.seat, deck_of(state))
    chunks = ui.split_messages(ui.event_lines(news(state, events)))
    assert all(len(c) <= limits.CONTENT for c in chunks)
    text = "\n".join(chunks)
    assert "round 1**" in text and "sits out this round" in text and "chose option B" in text
    assert "built deck #4. Every list is public" in text and "of the league)" not in text
    added = [engine.SetAdded(0, "bbb", f"{NASTY} two", 6, (("Snow-Covered Island", 12),))]
    line = ui.event_lines(news(state, added))[0]
    assert "\\*\\*bold\\*\\*" in line and "@everyone" not in line.replace("@\u200beveryone", "")
    assert "<@123>" not in line and "12 Snow\\-Covered Island" in line


def test_the_pool_pages_long_names_within_limits():
    state = league_state()
    first = ui.pool_page(view(state), 0, None)
    assert first.pages == 4  # the first set's 120 cards and the 5 basics, 40 a page
    assert limits.embed_size(first.embed) <= limits.EMBED_TOTAL and len(first.embed.description) <= limits.DESCRIPTION
    assert "\\*\\*bold\\*\\*" in first.embed.description
    found = ui.pool_page(view(state), 0, "aaa 007")
    assert found.pages == 1 and found.embed.description.startswith("`4/4` @")
    assert "bbb" in found.embed.fields[1].value  # the set still to come, and when
    assert "No card of the league matches" in ui.pool_page(view(state), 0, "nothing like this").embed.description
    assert "has not begun" in ui.pool_page(view(None, "lobby"), 0, None).embed.description


def test_deck_pages_show_each_list_and_who_uses_every_deck():
    """Decks share pages (issue 25): as many whole lists as an embed holds, each with who uses it;
    a list too long for its field says how much more there is, and where to get it all."""
    state = league_state()
    built(state)
    page = ui.decks_page(view(state), 0)
    assert limits.embed_size(page.embed) <= limits.EMBED_TOTAL
    assert all(len(f.value) <= limits.FIELD_VALUE for f in page.embed.fields)
    bye = state.players[state.bye].user_id
    shown = {f.name: f.value for p in range(page.pages) for f in ui.decks_page(view(state), p).embed.fields}
    assert set(shown) == {f"Deck #{d.id} · 60 cards" for d in state.decks}
    values = "\n".join(shown.values())
    assert f"<@{bye}>'s, sitting out: untouchable" in values and values.count("in use by") == 2
    assert "more lines: `/421 decks file:True`" in values  # 200-character names: a list is longer than a field
    short = engine.new_league([card_set_of("aaa"), card_set_of("bbb")], [100, 101, 102], seed=1)
    built(short)
    for _ in range(2):  # five decks of ordinary names: one page shows them all, each list whole
        engine.report(short, short.matches[0].a, "won")
        engine.choose(short, short.matches[0].b, "B")
        engine.build_deck(short, short.step.seat, deck_of(short))
    one = ui.decks_page(view(short), 0)
    assert one.pages == 1 and len(one.embed.fields) == len(short.decks) == 5, one.pages
    for deck, field in zip(short.decks, one.embed.fields, strict=True):
        assert field.value.splitlines()[1:] == [ui.escape(line) for line in ui.deck_lines(deck.cards)]
    assert "No deck" in ui.decks_page(view(league_state()), 0).embed.description


def test_standings_lobby_claim_and_final():
    state = league_state()
    built(state)
    embed = ui.status_embed(view(state))
    assert "report Match A" in embed.fields[-2].value and limits.embed_size(embed) <= limits.EMBED_TOTAL
    lobby = ui.lobby_embed(view(None, "lobby"))
    assert "\\*\\*bold\\*\\*" in lobby.description and "2–6" in lobby.footer.text
    claim = Claim(7, 3, 2, "A", 100, 101, None)
    assert ui.claim_text(claim) == ("📝 421 league #7, round 2, Match A: <@100> reports a **draw**. <@101> confirms or "
                                    "disputes it, or reports it too (an organizer who does not play in it can confirm it for them if they are "
                                    "absent).")
    assert "a **draw** (still waiting). <@101> confirms" in ui.claim_text(claim, again=True)
    assert ui.waiting_for_you_text(claim).startswith("Match A already has a report waiting for you: <@100> reports a "
                                                     "**draw**. Confirm it, or dispute it")
    events = engine.end_league(state)
    lines = ui.final_lines(news(state, events))
    assert lines[:2] == ["🏁 An organizer ended 421 league #7: nobody leads alone.", "The final standings:"]


def test_menus_forms_and_page_keys_refuse_forged_values():
    assert ui.parse_pool_key(ui.pool_key(12, "bolt")) == (12, "bolt")
    assert ui.parse_pool_key("12:") == (12, None)
    for bad in ("x:bolt", "1" * 20 + ":", "12:" + "y" * 31):
        with pytest.raises(InvalidPayload):
            ui.parse_pool_key(bad)
    decks = ui.TakeApartSelect.value_part  # two values, each a deck id (the count is checked by dispatch)
    assert ui.TakeApartSelect.value_count == 2 and [decks.read(v) for v in ("3", "5")] == [3, 5]
    for bad in ("x", "-1", "9" * 20):
        with pytest.raises(InvalidPayload):
            decks.read(bad)
    state = league_state()
    built(state)
    engine.report(state, state.matches[0].a, "won")
    loser = state.matches[0].b
    engine.choose(state, loser, "A")
    modal = ui.deck_modal(view(state), engine.ALTER, state.players[loser].user_id)
    deck = state.deck(state.players[loser].deck).cards
    assert modal.children[0].default == "\n".join(ui.deck_lines(deck))  # altering starts from the deck
    assert modal.children[0].max_length == ui.FORM_LIMIT
    assert ui.deck_modal(view(state), engine.BUILD, 1).children[0].default is None
    select = ui.take_apart_view(7, [1, 2, 3], state).children[0]
    assert select.item.min_values == 2 and all(len(o.label) <= limits.SELECT_LABEL for o in select.item.options)


def test_a_result_decided_by_an_organizer_says_so():
    state = league_state()
    built(state)
    match = state.matches[0]
    events = engine.report(state, match.a, "won")
    users = tuple(p.user_id for p in state.players)
    lines = ui.event_lines(Announcement(7, users, tuple(events), decided=Decided(555, "settled")))
    assert lines[0] == (f"🏁 Match A: <@{state.players[match.a].user_id}> beat <@{state.players[match.b].user_id}>. "
                        "Settled by the organizer <@555> after a dispute.")
    lines = ui.event_lines(Announcement(7, users, tuple(events), decided=Decided(555, "confirmed")))
    assert lines[0].endswith("Confirmed by the organizer <@555>.")
    lines = ui.event_lines(Announcement(7, users, tuple(events), decided=Decided(555, "confirmed", 101)))
    assert lines[0].endswith("Confirmed for <@101> (absent) by the organizer <@555>.")


def test_an_announcement_queued_before_typed_events_renders_the_same():
    """Rows queued by the version before the kit's codec: events named by their bare class name, and
    the organizer who decided a result inside its MatchReported event. The outbox may send them
    after an upgrade."""
    state = league_state()
    events = built(state)
    match = state.matches[0]
    events += engine.report(state, match.a, "won")
    news = Announcement(7, tuple(p.user_id for p in state.players), tuple(events), (101,), (),
                        tuple(p.score for p in state.players), 12, Decided(555, "settled"))
    old_events = [{"type": type(e).__name__, **json.loads(json.dumps(dataclasses.asdict(e)))} for e in events]
    for event in old_events:
        if event["type"] == "MatchReported":
            event["decided"] = {"by": 555, "how": "settled"}
    old = {"league_id": 7, "users": list(news.users), "events": old_events, "ping": [101], "take_apart": [],
           "scores": list(news.scores), "version": 12}
    assert [e["type"] for e in news.to_payload()["events"]] == [f"421.{e['type']}" for e in old_events]
    decoded = Announcement.from_payload(old)
    assert decoded == news and ui.event_lines(decoded) == ui.event_lines(news)
    assert "Settled by the organizer <@555> after a dispute." in "\n".join(ui.event_lines(decoded))
    assert Announcement.from_payload(json.loads(json.dumps(news.to_payload()))) == news
    # an older shape still: no scores, no version (the fields' defaults)
    bare = Announcement.from_payload({"league_id": 7, "users": [100, 101], "events": old_events[:1]})
    assert bare.decided is None and bare.scores == () and ui.event_lines(bare) == ui.event_lines(news)[:1]


def test_the_lobby_and_standings_show_when_the_later_sets_join():
    from dataclasses import replace

    from bot.games.four_two_one.service import Schedule

    sets = tuple(SetInfo(code, f"{NASTY} {code}", 100) for code in ("mir", "vis", "wth", "tmp", "sth"))
    lobby = replace(view(None, "lobby"), sets=sets, schedule=Schedule.of(5, "saga", 10))
    # When a set joins is said by the deck it comes with: "once the league has 5 decks" reads as due
    # already in a league of 5, and "deck 6" would be a second number for decks, which are named by
    # their own ("deck #13") everywhere (issues 25, 35).
    assert ui.schedule_text(lobby) == (
        "New sets (Weatherlight saga, blocks of 3 sets, each new block after 10 more points), each added by whoever "
        "builds the deck it joins with: `vis` joins with the 6th deck, `wth` joins with the 11th deck, `tmp` joins "
        "with the 11th deck if someone has 10 points by then, else with the first deck after, `sth` joins with the "
        "16th deck; at most 20 decks.")
    assert ui.schedule_text(lobby) in ui.lobby_embed(lobby).description
    standard = replace(lobby, schedule=Schedule.of(5))
    assert ui.schedule_text(standard) == (
        "New sets (standard), each added by whoever builds the deck it joins with: `vis` joins with the 6th deck, "
        "`wth` joins with the 11th deck, `tmp` joins with the 16th deck, `sth` joins with the 21st deck; at most "
        "20 decks.")
    assert [ui.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 111, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th", "101st"]
    one = replace(lobby, sets=sets[:1], schedule=Schedule.of(1))
    assert ui.schedule_text(one) == "One set: at most 5 decks."
    twelve = replace(lobby, sets=tuple(SetInfo(f"s{i:02d}", NASTY, 100) for i in range(12)), schedule=Schedule.of(12, "saga", 10))
    assert len(ui.lobby_embed(twelve).description) <= limits.DESCRIPTION
    state = league_state()
    built(state)
    waiting = ui.status_embed(replace(view(state), disputes=("A",))).fields[-2].value
    assert "report Match A (disputed: report again, or an organizer settles it with `/421 settle`)" in waiting
    assert "disputed" not in ui.status_embed(view(state)).fields[-2].value


async def test_the_outbox_renders_announcements_the_final_standings_and_a_cancellation():
    """The renderers registered in the UI module (and the kit's, by the cog, for a cancellation):
    each row's payload as the service queues it, and as rows queued before the kit had it."""
    def render(kind: str, payload: dict):
        row = outbox.Queued(1, outbox.Message(kind, payload, channel_id=5), 0, datetime(2026, 1, 2, tzinfo=UTC))
        return Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))._render(row, True)

    state = league_state()
    events = built(state)
    sent = await render(service.ANNOUNCE, news(state, events).to_payload())
    assert sent.content == ui.split_messages(ui.event_lines(news(state, events)))[0]
    assert "round 1**" in "\n".join([sent.content, *sent.continued])
    assert await render(service.ANNOUNCE, news(state, []).to_payload()) is None  # nothing to tell
    ended = engine.end_league(state)
    final = outbox.telling(news(state, ended).to_payload(), 1, "the final standings")
    sent = await render(service.FINAL, final)
    assert sent.content.startswith("🏁 An organizer ended 421 league #7")
    assert sent.content.count("🏆") == 0 and "\nThe final standings:\n1. " in sent.content  # one headline
    for payload in ({"table_id": 7}, {"league_id": 7}):  # the latter as the format queued it before the kit
        sent = await render(service.CANCELLED, payload)
        assert sent.content == "❌ 421 league #7 was cancelled by an organizer: nothing was recorded."


# --- one voice (issue 25) -------------------------------------------------------------------------------


def test_public_announcements_speak_in_the_third_person_with_one_number_per_deck():
    """What the channel hears names players in the third person ("dan keeps their deck", never
    "you keep yours"), names every deck by its one number ("deck #11", never "deck 9 of the
    league"), and writes negative numbers with the minus sign."""
    state = league_state()
    events = built(state)
    match = state.matches[0]
    events += engine.report(state, match.a, "won")
    events += [
        engine.OptionChosen(match.b, "A", "A", None, match.a), engine.ActionPending(engine.ALTER, match.b, "A"),
        engine.DeckAltered(match.b, 2, (("x", 4),), (("y", 4),)),
        engine.OptionChosen(match.b, "B", "A", None, match.a), engine.DeckSetAside(match.b, 2),
        engine.OptionChosen(match.b, "C", "A", 3, match.a), engine.DeckClaimed(match.b, 3),
        engine.OptionChosen(match.b, "D", "A", None, match.a), engine.DeckSetAside(match.a, 1),
        engine.SetAdded(match.a, "bbb", "Beta", 11, ()), engine.ActionPending(engine.TAKE_APART, match.a, "A"),
        engine.DecksTakenApart(match.a, (4, 5), 120), engine.ActionPending(engine.BUILD, match.a, "A", 9, 11),
        engine.DeckBuilt(match.a, 11, 9), engine.ActionPending(engine.CHOOSE, match.b, "B"),
    ]
    text = "\n".join(ui.event_lines(news(state, events)))
    winner, loser = (f"<@{state.players[s].user_id}>" for s in (match.a, match.b))
    assert re.findall(r"\b(you|your|yours|yourself)\b", text, re.IGNORECASE) == []
    assert re.findall(r"\bdecks? \d", text, re.IGNORECASE) == []  # a deck's number always has its "#"
    assert f"{loser} chose option D: {winner} sets their winning deck aside and builds a new one; {loser} keeps " \
           "their deck." in text
    assert f"{winner} builds deck #11 next: `/421 build`" in text and "built deck #11. Every list" in text
    assert f"🔨 A new deck would be one too many: {winner} first takes apart two decks" in text
    assert f"{loser} lost Match B and chooses next with the button below (or `/421 choose`)" in text
    assert "The league has 10 decks: " in text and "120 cards are back in the pool" in text
    assert f"{loser} −1 (loss) → **−1**" in text and "-1" not in text
    assert "1 cards" not in text and "4 cards in" in text
    one = ui.event_lines(news(state, [engine.DecksTakenApart(0, (1, 2), 1)]))[0]
    assert "1 card is back in the pool" in one


def test_status_final_standings_and_lobby_in_words_with_one_minus_sign():
    state = league_state()
    built(state)
    for player, score in zip(state.players, (21, 1, -1), strict=True):
        player.score = score
    state.players[2].byes = 1
    status = ui.status_embed(view(state))
    text = status.description
    assert "**21** points" in text and "**1** point ·" in text and "**−1** points" in text and "-1" not in text
    assert "· 1 bye" in text and "1 byes" not in text
    assert "builds deck #" not in status.fields[-2].value  # nobody builds now: the round is on
    final = "\n".join(ui.final_lines(news(state, [engine.LeagueWon(0, 21)])))
    assert "— **−1** points" in final and "— **1** point" in final and "with 21 points!" in final
    assert ui.lobby_embed(view(None, "lobby")).title == "421 league #7 · Open for players"
    assert ui.lobby_embed(view(state)).title == "421 league #7 · In progress"
    assert ui.lobby_embed(view(state, "finished")).title == "421 league #7 · Finished"
    fresh = league_state()
    assert "builds deck #1" in ui.status_embed(view(fresh)).fields[-2].value
    assert ui.deck_modal(view(fresh), engine.BUILD, 100).title == "Build deck #1"


def test_the_pool_shows_every_card_even_all_used_up_and_comes_as_files():
    """A card whose copies are all in decks still shows, `0/4` (issue 25); the pool comes as two
    files: the copies left in Arena's format, and every card with where its other copies are."""
    state = league_state()
    built(state)
    used_up = next(n for n, c in sorted(state.pool.items()) if c == 0)
    page = ui.pool_page(view(state), 0, re.search(r"aaa \d{3}", used_up).group())
    assert page.pages == 1 and page.embed.description.count("\n") == 0  # that card alone
    assert page.embed.description.startswith("`0/4` ") and "`/421 pool file:True`" in page.embed.fields[0].value
    files = ui.pool_files(view(state))
    arena = files["pool-7-arena.txt"].splitlines()
    assert len(arena) == sum(1 for c in state.pool.values() if c)
    assert all(re.fullmatch(r"[1-9]\d* \S.*", line) for line in arena)
    assert f"{state.pool['Island']} Island" in arena and not any(line.endswith(used_up) for line in arena)
    assert parse_cube_text(files["pool-7-arena.txt"]).names().count(used_up) == 0  # a deck builder reads it
    plain = files["pool-7.txt"]
    holder = next(d for d in state.decks if used_up in d.cards)
    owner = state.players[engine.holder_of(state, holder.id)].name
    assert f"0/4 {used_up} (common) — 4 in deck #{holder.id} (" in plain and owner in plain
    assert "@everyone" in plain  # a file shows names as typed: nothing in it renders or pings
    message = ui.pool_file_message(view(state))
    assert [f.filename for f in message["files"]] == ["pool-7-arena.txt", "pool-7.txt"]
    with pytest.raises(UserError, match="has not begun"):
        ui.pool_file_message(view(None, "lobby"))
    decks = ui.decks_file(view(state))["decks-7.txt"]
    for deck in state.decks:
        assert f"Deck #{deck.id} (" in decks and "\n".join(ui.deck_lines(deck.cards)) in decks


async def test_a_finished_step_leaves_no_live_buttons_or_menus():
    """The edits the outbox makes once a step is done (issue 25): the take-apart announcement keeps
    its text and loses its menu; a report's message says what became of it and loses its buttons."""
    def render(kind: str, payload: dict):
        row = outbox.Queued(1, outbox.Message(kind, payload, channel_id=5), 0, datetime(2026, 1, 2, tzinfo=UTC))
        return Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))._render(row, True)

    state = league_state()
    events = built(state)
    announcement = news(state, [*events, engine.ActionPending(engine.TAKE_APART, 0, "A")])
    posted = Announcement(7, announcement.users, announcement.events, take_apart=(1, 2))
    original = await render(service.ANNOUNCE, posted.to_payload())
    assert original.view is not None  # the menu rides on the announcement
    shown = service.ShownMenu(5, 99, posted)
    edit = await render(service.MENU_DONE, json.loads(json.dumps(shown.to_payload())))
    assert edit.edit == (5, 99) and edit.view is None and not edit.continued
    # The same news; the round's how-to ("the buttons below") goes with the buttons.
    assert edit.content == "\n".join(line for line in original.content.splitlines() if "buttons below" not in line)
    assert "buttons below" in original.content


def test_a_choice_that_waits_for_the_round_says_why():
    state = league_state()
    users = tuple(p.user_id for p in state.players)
    [line] = ui.event_lines(Announcement(7, users, (engine.ChoiceWaits(1, "A", 0),)))
    assert line == (f"⏳ <@{users[0]}> has reached the target: <@{users[1]}> does not choose for Match A yet, as the "
                    "round's last result may end the league.")


def test_a_round_post_carries_the_report_and_choose_buttons_and_a_loser_is_called_on_one():
    """Issue 35 item 9: nobody has to type `/421 report` or `/421 choose`."""
    state = league_state()
    users = tuple(p.user_id for p in state.players)
    round_news = Announcement(7, users, (engine.RoundStarted(1, (("A", 0, 1),), 2),))
    items = ui.announcement_view(round_news).children
    assert [item.item.label for item in items] == ["Report: I won", "Report: I lost", "Report: Draw", ui.CHOOSE_LABEL]
    assert [item.item.custom_id for item in items[:3]] == ["421r:7:won", "421r:7:lost", "421r:7:draw"]
    assert items[3].item.custom_id == ui.ChooseButton.custom_id_for(league=7) == "421o:7"
    assert "with the buttons below (or `/421 report`)" in "\n".join(ui.event_lines(round_news))
    called = Announcement(7, users, (engine.ActionPending(engine.CHOOSE, 1, "A"),))
    assert [type(item) for item in ui.announcement_view(called).children] == [ui.ChooseButton]
    assert ui.announcement_view(Announcement(7, users, (engine.DeckBuilt(0, 1, 1),))) is None
    [select] = ui.option_view(7).children
    assert [o.value for o in select.item.options] == ["A", "B", "C", "D"]
    assert all(len(o.label) <= 100 for o in select.item.options)
