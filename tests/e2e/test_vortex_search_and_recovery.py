"""Vortex through the fake Discord: searching the shoe and revealing its top (issue 22), and no step of
the game stuck behind a lost message (issue 23).

A search shows the searcher the whole shoe by DM, by name and a page at a time (the menus hold 25
names each), takes what the effect allows and shuffles; the channel hears how many cards went where,
never which, and a reveal shows the top cards to everyone. Every step that waits for a press on a
message — the opening-hand picks, a draw's picks, the basic-land choice, a look, a search — is
recovered when that message is lost: a DM Discord refused is sent again by repeating the command
(`/vortex draw`, `/vortex shoe action:search`) or by `/vortex resend`, and a click whose
answer was lost to a kill -9 (the action saved, the reply never sent) leaves the next step reachable
after the restart."""

from __future__ import annotations

import pytest

from bot.games.vortex import rules as engine
from bot.games.vortex import ui
from bot.kit.text import escape
from tests.e2e.drivers.common import (
    component,
    components,
    embed_text,
    forged_click,
    forged_select,
    lose_the_reply,
)
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e
SEED = 4_242
RELICS = [f"Relic {i:03d}" for i in range(150)]  # 150 names: the search DM has two pages
CUBE_FILE = "\n".join([*RELICS, "4 Island", "4 Forest"]).encode()


async def _game(t: VortexDriver, fake, world, players: list[int]) -> None:
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Relics"}, attachments={"file": ("relics.txt", CUBE_FILE)})
    assert "158 cards" in added.content, added.content
    lobby = await t.start(cube="Relics", seed=SEED)
    await t.join_all(players, lobby)
    await t.lobby(lobby, world.admin, "begin")


async def _opening(t: VortexDriver) -> engine.VortexState:
    state = await t.state()
    while state.phase == engine.OPENING:
        await t.pick_pending()
        state = await t.state()
    for p in state.players:
        await t.choose_basics(p.user_id, ["Island", "Forest", "Forest"])
    return await t.check()


async def _lose_the_next_dm(fake, user: int, action, *, desk: bool = False) -> None:
    """Run `action`; the DM it sends `user` is refused by Discord (a 404: never retried). `desk`: it
    is shown on the player's desk (their DM of picks and basic lands, edited in place), which the
    player deleted."""
    method, path = ("PATCH", rf"^/channels/{fake.dm_channel_id(user)}/messages/\d+$") if desk else (
        "POST", rf"^/channels/{fake.dm_channel_id(user)}/messages$")
    since = len(fake.rest_log)
    fake.inject_error(method, path, status=404)
    await action()
    await fake.wait_for(lambda: [c for c in fake.calls(method, path, since=since) if c.status == 404],
                        what="the DM Discord refused")


def _footer(message: dict) -> str:
    return message["embeds"][0]["footer"]["text"]


def _newest(t: VortexDriver, user: int, component_type, **parts) -> dict | None:
    found = t.dms_with(user, component_type, **parts)
    return found[-1] if found else None


async def test_a_search_takes_what_the_effect_allows_from_the_shoe_by_dm_and_a_reveal_shows_the_top(fake, bot, world):
    t = VortexDriver(fake, world, bot.database_url)
    try:
        players = world.players[:2]
        await _game(t, fake, world, players)
        state = await _opening(t)
        active = t.active(state)
        other = next(u for u in players if u != active)

        # A reveal: the top 3, in the channel, in order; they stay on top.
        top = state.shoe[:3]
        revealed = await t.slash(active, "shoe", action="reveal", count=3)
        assert revealed.ephemeral and "Revealed" in revealed.content
        news = await t.wait_channel(f"<@{active}> revealed the top 3 cards of the shoe")
        assert [f"{i}. {escape(card)}" in news["content"] for i, card in enumerate(top, 1)] == [True] * 3
        assert (await t.state()).shoe[:3] == top
        t.revealed |= set(top)  # public now, though still in the shoe

        # A search for up to 2 cards: the shoe by DM, two pages of names; nobody else touches the shoe.
        wrong = await t.slash(active, "shoe", action="search", card="Island")
        assert wrong.ephemeral and "`card` is for top and bottom only" in wrong.content
        began = await t.slash(active, "shoe", action="search", count=2)
        assert began.ephemeral and "The shoe is in your DMs: take up to 2 cards there" in began.content
        await t.wait_channel(f"<@{active}> searches the shoe for up to 2 cards for their hand")
        message = await fake.wait_for(lambda: _newest(t, active, ui.SearchButton, action="take"), what="the search DM")
        assert "Page 1 of 2" in _footer(message) and "Chosen (0/2)" in embed_text(message)
        for command, options, words in (("shoe", {"action": "mill", "count": 1}, "another player is searching"),
                                        ("draw", {}, "another player is searching"),
                                        ("pass", {}, "Finish your search")):
            user = other if command != "pass" else active
            refused = await t.slash(user, command, **options)
            assert refused.ephemeral and words in refused.content, refused.content
        await t.check()
        menu = components(message, ui.SearchSelect)[0]
        for value, words in (("99999", "not valid"), ("x1", "not valid")):  # no menu lists 99999
            forged = await forged_select(fake, active, message, menu["custom_id"], value)
            assert forged.ephemeral and words in forged.content, forged.content
        following = component(message, ui.SearchButton, action="page", page=1)["custom_id"]
        message = (await fake.click(active, message, following)).message
        assert "Page 2 of 2" in _footer(message)
        menu = components(message, ui.SearchSelect)[0]
        second_page = menu["options"][0]["label"]
        message = (await fake.select(active, message, menu["custom_id"], [menu["options"][0]["value"]])).message
        assert "Chosen (1/2)" in embed_text(message) and escape(second_page) in embed_text(message)
        back = component(message, ui.SearchButton, action="page", page=0)["custom_id"]
        message = (await fake.click(active, message, back)).message
        menu = components(message, ui.SearchSelect)[0]
        assert menu["max_values"] == 1  # one more card fits
        first_page = menu["options"][1]["label"]
        message = (await fake.select(active, message, menu["custom_id"], [menu["options"][1]["value"]])).message
        assert "Chosen (2/2)" in embed_text(message) and not components(message, ui.SearchSelect)  # full
        hand = list(t.player(await t.state(), active).hand)
        take = component(message, ui.SearchButton, action="take")
        assert take["label"] == "Take 2 cards"
        done = await fake.click(active, message, take["custom_id"])
        assert "You found" in embed_text(done.message) and not done.message.get("components")
        await t.wait_channel(f"<@{active}> put 2 cards from the shoe into their hand; the shoe was shuffled")
        state = await t.check()  # the channel never named them
        assert t.player(state, active).hand == [*hand, second_page, first_page] and state.search is None
        stale = await forged_click(fake, active, message, take["custom_id"])  # the buttons are gone; a forged press
        assert stale.ephemeral and "That search is over" in stale.content

        # Onto the battlefield, one of several copies: the channel names it (it is public there).
        await t.slash(active, "shoe", action="search", count=1, to=engine.BATTLEFIELD)
        message = await fake.wait_for(lambda: _newest(t, active, ui.SearchButton, action="take"), what="the search DM")
        island = next(o for m in components(message, ui.SearchSelect) for o in m["options"] if o["label"] == "Island")
        menu = next(m for m in components(message, ui.SearchSelect) if island in m["options"])
        message = (await fake.select(active, message, menu["custom_id"], [island["value"]])).message
        await fake.click(active, message, component(message, ui.SearchButton, action="take")["custom_id"])
        await t.wait_channel(f"<@{active}> put 1 card from the shoe onto the battlefield: Island")
        state = await t.check()
        assert t.player(state, active).battlefield == ["Island"]
        nothing_logged_as_error(bot)
    finally:
        await t.close()


async def test_no_step_of_a_vortex_game_waits_on_a_lost_message(fake, bot, world):
    t = VortexDriver(fake, world, bot.database_url)
    try:
        players = world.players[:2]
        await _game(t, fake, world, players)

        # An opening pick whose answer is lost to a kill: the pick counted, the next player's pick
        # comes after the restart, and the old message's buttons say so.
        state = await t.state()
        picker = t.user_of(state, state.draft.seat)
        message = await t.wait_pick(picker, await t.offer())
        button = components(message, ui.PickButton, card=0)[0]["custom_id"]
        await lose_the_reply(fake, bot, fake.click(picker, message, button))
        state = await t.check()
        assert state.turn == 2 and len(t.player(state, picker).hand) == 1
        again = await fake.click(picker, message, button)
        assert again.ephemeral and "already made" in again.content
        await t.pick_pending()

        # An opening pick DM Discord refused: the picker's /vortex draw sends it again.
        state = await t.state()
        picker = t.user_of(state, state.draft.seat)
        nxt = next(u for u in players if u != picker)
        await _lose_the_next_dm(fake, nxt, lambda: t.pick(picker), desk=True)
        state = await t.state()
        assert t.user_of(state, state.draft.seat) == nxt and not t.dms_with(nxt, ui.PickButton, offer=await t.offer())
        shown = await t.slash(nxt, "draw")
        assert shown.ephemeral and "Make your pending pick first (pick 1 of 1)" in shown.content
        assert await t.state() == state  # nothing drawn
        await t.pick(nxt)
        while (state := await t.state()).phase == engine.OPENING:
            if state.turn < 8:
                await t.pick_pending()
                continue
            # The last opening pick: the basic-land DMs go out, and Discord refuses one.
            picker = t.user_of(state, state.draft.seat)
            message = await t.wait_pick(picker, await t.offer())  # delivered before the refusal is set up
            await _lose_the_next_dm(fake, players[0], lambda p=picker, m=message: t.pick(p, m), desk=True)

        # The basic-land DM Discord refused: /vortex resend sends it again.
        assert not t.dms_with(players[0], ui.LandButton, action="confirm")
        resent = await t.slash(players[0], "resend")
        await resent.wait_followup()
        assert "Sent: check your DMs" in resent.content
        for user in players:
            await t.choose_basics(user, ["Island", "Island", "Forest"])
        state = await t.check()
        assert state.phase == engine.PLAY
        active = t.active(state)

        # A draw of 2 whose first pick's answer is lost to a kill: the second pick, held for that
        # answer, is sent by the restarted bot.
        await t.slash(active, "draw", count=2)
        offer = await t.offer()
        message = await t.wait_pick(active, offer)
        await lose_the_reply(fake, bot, fake.click(active, message, components(message, ui.PickButton, card=0)[0]["custom_id"]))
        second = await fake.wait_for(lambda: _newest(t, active, ui.PickButton, offer=offer + 1), timeout=20,
                                     what="the second pick, sent after the restart")
        assert "pick 2 of 2" in embed_text(second)
        await t.pick(active, second)
        state = await t.check()
        assert state.draft is None and state.step == engine.MAIN

        # A look whose DM Discord refused: /vortex resend, then put back.
        await _lose_the_next_dm(fake, active, lambda: t.slash(active, "shoe", action="look", count=2))
        assert not t.dms_with(active, ui.LookButton, action="done")
        resent = await t.slash(active, "resend")
        await resent.wait_followup()
        look = await fake.wait_for(lambda: _newest(t, active, ui.LookButton, action="done"), what="the look again")
        put = await fake.click(active, look, component(look, ui.LookButton, action="done")["custom_id"])
        assert "Put back: 2 on top, 0 at the bottom" in embed_text(put.message)

        # A search whose DM Discord refused: the same command sends it again (nothing new begins).
        await _lose_the_next_dm(fake, active, lambda: t.slash(active, "shoe", action="search", count=1))
        assert not t.dms_with(active, ui.SearchButton, action="take")
        again = await t.slash(active, "shoe", action="search", count=3, to=engine.TOP)
        assert again.ephemeral and "Your search of the shoe is still open" in again.content
        search = await fake.wait_for(lambda: _newest(t, active, ui.SearchButton, action="take"), what="the search again")
        assert "up to 1 card into your hand" in embed_text(search)
        done = await fake.click(active, search, component(search, ui.SearchButton, action="take")["custom_id"])
        assert "You found nothing" in embed_text(done.message)
        await t.wait_channel(f"<@{active}> found nothing; the shoe was shuffled")
        await t.check()
        assert bot.starts == 3
    finally:
        await t.close()
