"""Vortex's messages stay inside Discord's limits and show card names literally, with the longest names
a cube may hold (200 characters, full of markdown) and 5 players; the public status never names a card;
the custom_id codecs round-trip and refuse what no message of ours carries."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from types import SimpleNamespace

import discord
import pytest

from bot.games.vortex import FORMAT, ui
from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex.cog import VortexCog
from bot.games.vortex.service import (
    Announcement,
    BasicsPrompt,
    Drawing,
    GameBegan,
    GameView,
    HandView,
    Looked,
    LookPrompt,
    PickPrompt,
    SearchPrompt,
)
from bot.kit import limits, outbox
from bot.kit.delivery import Outbox
from bot.kit.dispatch import InvalidPayload
from bot.kit.formats import renderers_of
from bot.kit.tables import TableRef
from bot.kit.text import escape
from tests.games.battler.test_ui import assert_fits, assert_literal, long_name

USERS = [900_000_000_000_000_200 + i for i in range(engine.MAX_PLAYERS)]
CUBE = [long_name(i) for i in range(60)]


def played_state() -> engine.VortexState:
    """5 players in normal play, with full hands and packs of 200-character names."""
    state = engine.new_game(CUBE, USERS, seed=3)
    while state.phase == engine.OPENING:
        engine.pick(state, state.draft.seat, 0)
    for p in state.players:
        engine.choose_basics(state, p.seat, ["Island", "Island", "Forest"])
    return state


def view_of(state: engine.VortexState, status: str = "running", winner: int | None = None) -> GameView:
    return GameView(id=12, guild_id=1, channel_id=2, organizer_id=3, lobby_message_id=None, status=status,
                    max_seats=5, cube_name="Traps", cube_size=len(CUBE), seed=3, version=9,
                    player_ids=tuple(USERS), state=state, winner_id=winner)


def hidden_names(state: engine.VortexState) -> set[str]:
    cards = set(state.shoe) | set(state.passed_pack)
    for p in state.players:
        cards |= set(p.pack) | set(p.hand)
    return cards


def test_a_pick_dm_of_seven_long_names_fits_and_shows_them_literally():
    state = played_state()
    user = USERS[engine.active_seat(state)]
    pack = tuple(state.players[engine.active_seat(state)].pack)[:6]
    prompt = PickPrompt(12, 1, 2, user, 0, 44, pack + (long_name(99),), 1, 3, 0, 20, 0, 7)
    embed, view = ui.pick_embed(prompt, ui.took_text(long_name(98))), ui.pick_view(prompt)
    assert_fits(embeds=[embed], view=view)
    assert_literal(embed.description)
    labels = [item.item.label for item in view.children]
    assert all(len(label) <= limits.BUTTON_LABEL for label in labels) and labels[0].startswith("1. ")
    ids = [item.item.custom_id for item in view.children]
    assert ids[3] == ui.PickButton.custom_id_for(game=12, seat=0, offer=44, card=3) and len(ids[3]) <= 100


def test_the_status_embed_counts_and_never_names_a_card():
    state = played_state()
    engine.draw(state, engine.active_seat(state), 2)
    embed = ui.status_embed(view_of(state))
    assert_fits(embeds=[embed])
    text = str(embed.to_dict())
    assert not [card for card in hidden_names(state) if card[:20] in text]
    assert "Picking now" in embed.description and "2 picks left" in embed.description
    assert all(f"<@{u}>" in text for u in USERS)
    over = view_of(state, status="over", winner=USERS[2])
    engine.end_game(over.state, 2)
    assert "Winner: <@900000000000000202>" in ui.status_embed(over).description
    assert "Cancelled" in ui.status_embed(view_of(played_state(), status="cancelled")).description


def test_announcements_of_public_cards_are_escaped_and_split_within_limits():
    state = played_state()
    seat = engine.active_seat(state)
    events = engine.mill(state, seat, 40) + engine.shuffle_shoe(state, seat)
    news = Announcement(12, tuple(USERS), state.opening_turns, tuple(events))
    chunks = ui.split_messages(ui.event_lines(news))
    assert len(chunks) > 1 and all(len(chunk) <= limits.CONTENT for chunk in chunks)
    assert all("\\*" in chunk or "shuffled" in chunk for chunk in chunks)
    for chunk in chunks:
        assert_literal(chunk)
    mulligan = engine.MulliganTaken(1, tuple(long_name(i) for i in range(7)))
    [line] = ui.event_lines(Announcement(12, tuple(USERS), 20, (mulligan,)))
    assert_literal(line)
    assert ui.split_messages([line])[0] == limits.clip(line, ui.MAX_CONTENT)


def test_basics_look_and_hand_messages_fit():
    state = played_state()
    seat = engine.active_seat(state)
    hand = tuple(state.players[seat].hand) * 5
    prompt = BasicsPrompt(12, 1, 2, USERS[seat], seat, hand)
    for chosen in ([], [1], [1, 1, 4]):
        embed, view = ui.basics_embed(prompt, chosen), ui.basics_view(prompt, chosen)
        assert_fits(embeds=[embed], view=view)
        confirm = next(item.item for item in view.children if item.item.label == "Confirm")
        assert confirm.disabled == (len(chosen) < 3)
    look = LookPrompt(12, 1, 2, USERS[seat], seat, 5, tuple(CUBE[:20]))
    embed, view = ui.look_embed(look, frozenset({0, 19})), ui.look_view(look, frozenset({0, 19}))
    assert_fits(embeds=[embed], view=view)
    assert_literal(embed.description)
    assert ui.look_view(LookPrompt(12, 1, 2, USERS[seat], seat, 5, tuple(CUBE[:21]))) is None  # too many to arrange
    private = engine.private_view(state, seat)
    embed = ui.hand_embed(HandView(view_of(state), private))
    assert_fits(embeds=[embed])
    assert "You may mulligan" not in (embed.description or "")


def test_the_lobby_embed_fits_with_five_players():
    game = view_of(played_state())
    assert_fits(embeds=[ui.lobby_embed(game, note="❌ Cancelled by the organizer.")])
    lobby = view_of(None, status="lobby")
    assert "Players (5/5)" in str(ui.lobby_embed(lobby).to_dict())


@pytest.mark.parametrize("chosen", [[], [0], [4, 4], [0, 2, 4], [3, 3, 3]])
def test_chosen_lands_round_trip_through_a_custom_id_number(chosen):
    code = ui.encode_lands(chosen)
    assert 0 < code < 250 and ui.decode_lands(code) == chosen


@pytest.mark.parametrize("code", [0, 2, 4, 5 * 5 * 5 * 5 * 2, 5**4 * 1 + 5**4])
def test_a_land_code_no_message_carries_is_refused(code):
    with pytest.raises(InvalidPayload):
        ui.decode_lands(code)


def test_arrange_marks_are_a_bit_mask():
    assert ui.bits(0) == frozenset() and ui.bits(0b101) == frozenset({0, 2})


def search_prompt(shoe: list[str], count: int = 3, chosen: tuple[str, ...] = (), **options) -> SearchPrompt:
    ordered = tuple(sorted(shoe, key=lambda c: (c.casefold(), c)))
    return SearchPrompt(12, 1, 2, USERS[0], 0, 7, count, options.get("to", "hand"), options.get("reveal", False),
                        ordered, chosen)


def test_a_search_dm_pages_a_big_shoe_within_discords_limits():
    """250 distinct 200-character names: pages of four menus of 25 names and a row of buttons; the
    whole shoe is reachable, nothing breaks a limit, names show literally, and its order never shows."""
    shoe = [long_name(i) for i in range(250)] + ["Island"] * 5
    prompt = search_prompt(shoe, count=3, chosen=(long_name(7), "Island"))
    pages = ui.search_pages(prompt)
    assert pages == 3  # 251 names: 100 a page
    offered: list[int] = []
    for page in range(pages):
        embed, view = ui.search_embed(prompt, page), ui.search_view(prompt, page)
        assert_fits(embeds=[embed], view=view)
        assert_literal(embed.description)
        assert f"Page {page + 1} of 3" in embed.footer.text and "Chosen (2/3)" in embed.description
        menus = [item.item for item in view.children if isinstance(item.item, discord.ui.Select)]
        buttons = [item.item for item in view.children if isinstance(item.item, discord.ui.Button)]
        assert len(menus) <= ui.SEARCH_MENUS and {b.row for b in buttons} == {4}
        assert all(menu.max_values == 1 for menu in menus)  # one more card fits in this search
        for menu in menus:
            assert len(menu.options) <= 25 and all(len(o.label) <= limits.SELECT_LABEL for o in menu.options)
            offered += [int(o.value) for o in menu.options]
            assert all(len(c) <= 100 for c in (menu.custom_id, menu.placeholder))
        labels = {b.label: b for b in buttons}
        assert labels["◀ Previous"].disabled == (page == 0) and labels["Next ▶"].disabled == (page == pages - 1)
        assert not labels["Start over"].disabled and "Take 2 cards" in labels
    names = prompt.names
    # Every name with a copy left is offered once, by its index; the Island (5 copies, 1 chosen) too.
    assert sorted(offered) == [i for i, name in enumerate(names) if prompt.available(name)]
    assert prompt.available("Island") == 4 and prompt.available(long_name(7)) == 0
    assert names.index(long_name(7)) not in offered
    assert ui.SearchSelect.custom_id_for(game=12, seat=0, search=7, page=2, menu=3) == "vortex:find:12:0:7:2:3"


def test_a_full_search_offers_no_menu_and_an_empty_shoe_only_find_nothing():
    full = search_prompt(["Island", "Forest"], count=1, chosen=("Forest",))
    view = ui.search_view(full)
    assert [item.item.label for item in view.children] == ["Start over", "Take 1 card"]
    empty = ui.search_view(search_prompt([], count=2))
    assert [(item.item.label, item.item.disabled) for item in empty.children] == [
        ("Start over", True), ("Find nothing", False)]
    assert "The shoe is empty." in ui.search_embed(search_prompt([], count=2)).description
    assert "onto the battlefield" in ui.search_embed(search_prompt(["Island"], to="battlefield")).description
    assert ui.found_text([], "hand") == "You found nothing. The shoe was shuffled."
    assert ui.found_text(["A *b*"], "top").startswith("You found A \\*b\\*. The shoe was shuffled, then")


def test_reveals_and_searches_in_the_channel_name_only_public_cards():
    state = played_state()
    seat = engine.active_seat(state)
    n = len(state.shoe)
    revealed = engine.reveal_top(state, seat, 40)
    news = Announcement(12, tuple(USERS), state.opening_turns, tuple(revealed))
    lines = ui.event_lines(news)
    assert len(lines) == n + 1 and lines[0].startswith(f"👁️ <@{USERS[seat]}> revealed the top {n} cards of the shoe")
    chunks = ui.split_messages(lines)
    assert len(chunks) > 1 and all(len(chunk) <= limits.CONTENT for chunk in chunks)
    for card in state.shoe:  # every revealed card in full: a long reveal splits, it is never clipped
        assert any(escape(card) in chunk for chunk in chunks)
    began = engine.begin_search(state, seat, 2)
    top = state.shoe[0]
    engine.search_choose(state, seat, [top])
    finished = engine.finish_search(state, seat)
    news = Announcement(12, tuple(USERS), state.opening_turns,
                        tuple(e for e in began + finished if e.private_to is None))
    lines = ui.event_lines(news)
    assert lines == [f"🔎 <@{USERS[seat]}> searches the shoe for up to 2 cards for their hand; the shoe is in their DMs.",
                     f"🔎 <@{USERS[seat]}> put 1 card from the shoe into their hand; the shoe was shuffled "
                     f"({len(state.shoe)} cards)."]
    assert escape(top) not in " ".join(lines)
    status = ui.status_embed(view_of(state))
    assert "Searching" not in status.description
    engine.begin_search(state, seat, 1)
    assert f"Searching the shoe now: <@{USERS[seat]}>" in ui.status_embed(view_of(state)).description
    hand = ui.hand_embed(HandView(view_of(state), engine.private_view(state, seat)))
    assert "You are searching the shoe" in hand.description


def old_event(event) -> dict:
    """An event as the version before the kit's codec stored it: its bare class name and its fields."""
    return {"type": type(event).__name__, **json.loads(json.dumps(dataclasses.asdict(event)))}


async def test_messages_queued_before_typed_events_render_the_same():
    """Rows queued by the version before the kit's codec (bare event names, the service's own notes as
    dicts, a game id naming the game) may be sent after an upgrade: they render as they would have."""
    state = engine.new_game(CUBE, USERS, seed=3)
    began = GameBegan(tuple(state.turn_order), len(state.shoe))
    while state.phase == engine.OPENING:
        engine.pick(state, state.draft.seat, 0)
    events = [e for p in state.players for e in engine.choose_basics(state, p.seat, ["Island"] * 3)]
    seat = engine.active_seat(state)
    events += [Drawing(seat, 1), *engine.draw(state, seat, 1), *engine.pick(state, seat, 0), Looked(seat, 3),
               *engine.mill(state, seat, 2)]
    public = tuple(e for e in [began, *events] if isinstance(e, vortex.PUBLIC_EVENTS))
    news = Announcement(12, tuple(USERS), state.opening_turns, public, (USERS[seat],))
    # The service's notes were dicts it wrote; the engine's events were `{"type": <class name>, **asdict(e)}`.
    notes = {GameBegan: lambda e: {"turn_order": list(e.turn_order), "shoe_size": e.shoe_size},
             Drawing: lambda e: {"seat": e.seat, "count": e.count}, Looked: lambda e: {"seat": e.seat, "count": e.count}}
    old = {"game_id": 12, "users": USERS, "opening_turns": state.opening_turns, "ping": [USERS[seat]], "events": [
        {"type": type(e).__name__, **notes[type(e)](e)} if type(e) in notes else old_event(e) for e in public]}
    assert news.to_payload()["events"][0]["type"] == "vortex.GameBegan"
    decoded = Announcement.from_payload(old)
    assert decoded == news == Announcement.from_payload(json.loads(json.dumps(news.to_payload())))
    lines = ui.event_lines(decoded)
    assert lines == ui.event_lines(news) and lines[0].startswith("🌀 **Vortex #12** has begun.")
    assert any(line.startswith(f"🃏 <@{USERS[seat]}> draws 1 card: a pick from their pack, by DM") for line in lines)
    assert f"👀 <@{USERS[seat]}> looked at the top 3 cards of the shoe." in lines
    sender = Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))
    out = await sender._render(queued(vortex.ANNOUNCE, old), True)
    assert out.content == ui.split_messages(lines)[0] and [u.id for u in out.allowed_mentions.users] == [USERS[seat]]

    # The DMs' prompts kept their shape; the end and a cancellation named the game by `game_id`.
    prompt = PickPrompt(12, 1, 2, USERS[0], 0, 44, tuple(CUBE[:7]), 1, 3, 0, 20, 30, 7)
    stored = json.loads(json.dumps(dataclasses.asdict(prompt)))  # (the old base: its fields, tuples as lists)
    assert prompt.to_payload() == stored and PickPrompt.from_payload(stored) == prompt
    out = await sender._render(queued(vortex.PICK, stored, user_id=USERS[0]), True)
    assert out.embeds[0].to_dict() == ui.pick_embed(prompt).to_dict() and len(out.view.children) == 7
    assert TableRef.from_payload({"game_id": 12, outbox.TELL: {"user_id": 3, "what": "the result"}}) == TableRef(12)
    assert VortexCog.spec.cancel_notice == vortex.ENDED  # (defining the cog registered the kit's renderer)
    out = await sender._render(queued(vortex.ENDED, {"game_id": 12}), False)
    assert out.content == "❌ Vortex #12 was cancelled by an organizer: nothing was recorded."
    out = await sender._render(queued(vortex.DMS_CLOSED, {"user_id": USERS[1]}), False)
    assert out.content.startswith(f"<@{USERS[1]}>, I can't DM you your Vortex cards.")
    assert "`/vortex resend`" in out.content


def queued(kind: str, payload: dict, **where) -> outbox.Queued:
    message = outbox.Message(kind, payload, guild_id=1, **(where or {"channel_id": 2}))
    return outbox.Queued(7, message, 0, datetime(2026, 1, 2, tzinfo=UTC))


# --- one voice (issue 25): zones and life at the table, resend, the status words -----------------------------


def test_the_commands_move_cards_track_life_and_resend_with_no_dead_alias():
    commands = {c.name: c for c in VortexCog.group.commands}
    assert {"play", "move", "life", "resend", "hand", "status"} <= set(commands)
    assert [p.name for p in commands["hand"].parameters] == []  # no resend flag left on the hand
    assert [p.display_name for p in commands["move"].parameters] == ["from", "to", "card"]
    zones = [c.value for c in commands["move"].parameters[0].choices]
    assert zones == ["hand", "battlefield", "graveyard", "exile"]
    life = commands["life"].parameters[0]
    assert (life.min_value, life.max_value) == (-engine.MAX_LIFE_CHANGE, engine.MAX_LIFE_CHANGE)


def test_moves_and_life_changes_are_told_in_the_third_person_with_one_minus_sign():
    state = played_state()
    seat = engine.active_seat(state)
    hand = list(state.players[seat].hand)
    events = [*engine.play_card(state, seat, hand[0]), *engine.move_card(state, seat, hand[1], "hand", "graveyard"),
              *engine.move_card(state, seat, hand[0], "battlefield", "exile"),
              *engine.move_card(state, seat, hand[1], "graveyard", "hand"),
              *engine.adjust_life(state, seat, 3), *engine.adjust_life(state, seat, -25)]
    who = f"<@{USERS[seat]}>"
    lines = ui.event_lines(Announcement(12, tuple(USERS), state.opening_turns, tuple(events)))
    assert lines == [f"🃏 {who} plays **{escape(hand[0])}**.", f"🗑️ {who} discards **{escape(hand[1])}**.",
                     f"↪️ {who} moves **{escape(hand[0])}** from the battlefield into exile.",
                     f"↪️ {who} moves **{escape(hand[1])}** from their graveyard into their hand.",
                     f"💚 {who} gains 3 life (life 23).", f"🩸 {who} loses 25 life (life \u22122)."]
    turn = ui.event_lines(Announcement(12, tuple(USERS), 20, (engine.TurnStarted(21, 1, seat, engine.PLAY),)))
    assert turn == [f"▶️ **Turn 1**: {who}'s turn — upkeep (they may mulligan now), then **Draw** below."]
    penalty = engine.EmptyPackPenalty(seat, -1, 30)
    assert "(life \u22121)" in ui.event_lines(Announcement(12, tuple(USERS), 20, (penalty,)))[0]
    assert "-" not in "".join(lines).replace(escape(hand[0]), "").replace(escape(hand[1]), "")


def test_the_status_shows_every_zones_size_and_life():
    state = played_state()
    seat = engine.active_seat(state)
    hand = list(state.players[seat].hand)
    engine.play_card(state, seat, hand[0])
    engine.play_card(state, seat, hand[1])
    engine.move_card(state, seat, hand[2], "hand", "graveyard")
    engine.move_card(state, seat, hand[1], "battlefield", "exile")
    engine.adjust_life(state, seat, -22)
    embed = ui.status_embed(view_of(state))
    assert_fits(embeds=[embed])
    line = next(v for f in embed.fields for v in f.value.splitlines() if f"<@{USERS[seat]}>" in v)
    assert (f"life **\u22122** · pack {len(state.players[seat].pack)} · hand {len(hand) - 3} · battlefield 1 · "
            "graveyard 1 · exile 1 · 0 penalties") in line
    private = ui.hand_embed(HandView(view_of(state), engine.private_view(state, seat)))
    fields = {f.name: f.value for f in private.fields}
    assert fields["Battlefield (1)"] == escape(hand[0]) and fields["Life"] == "\u22122"


def test_status_words_are_the_players_words():
    state = played_state()
    assert [f.value for f in ui.lobby_embed(view_of(state)).fields if f.name == "Status"] == ["In progress"]
    assert ui.status_embed(dataclasses.replace(view_of(state, status="lobby"), state=None)).description == (
        "Open for players.")


async def test_a_finished_look_or_search_dm_is_shown_again_without_buttons():
    sender = Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))
    for kind, words in ((vortex.LOOK, "This look is over"), (vortex.SEARCH, "This search is over")):
        payload = vortex.Retired(12, kind, 3, 7000, 501).to_payload()
        out = await sender._render(queued(vortex.RETIRE, payload, user_id=USERS[0]), False)
        assert out.edit == (7000, 501) and out.view is None and words in out.embeds[0].description


def test_a_turn_too_long_for_one_message_keeps_its_first_line_and_its_newest():
    lines = ["▶️ **Turn 3**: <@1>'s turn", *(f"🩸 <@1> loses 1 life (life {n})." for n in range(200))]
    text = ui._fit(lines)
    assert len(text) <= ui.MAX_CONTENT and text.startswith(lines[0]) and text.endswith(lines[-1])
    skipped = 200 - (len(text.splitlines()) - 2)
    assert f"… {skipped} earlier lines on the game's page" in text
    assert ui._fit(lines[:3]) == "\n".join(lines[:3])
