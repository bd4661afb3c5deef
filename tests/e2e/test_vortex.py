"""A whole 3-player Vortex game through the fake Discord: a cube uploaded with markdown in its card
names, the lobby (a sixth player refused), the opening hands picked by DM (with a kill -9 right after a
pick), the basic lands chosen by DM, turns of draws (one pick at a time, the next one shown in the same
DM) and passes, a kill -9 with a pick pending (its button still works afterwards), a look at the top
of the shoe put back by DM, a card put on the shoe, the shoe milled empty, a draw from an empty shoe,
a mulligan, an empty-pack penalty, bad input and forged custom_ids that change nothing, and the end
with a winner on the leaderboard. After every step: every card is in exactly one zone (from the
database, through the engine's codec), `/vortex status` shows the stored counts, no channel message
names a hidden card, and nobody is pinged but the player whose turn begins."""

from __future__ import annotations

import pytest

from bot.cards.model import is_basic_land
from bot.games.vortex import rules as engine
from bot.games.vortex import ui
from bot.kit.text import escape
from tests.e2e.drivers.common import components, embed_text, forged_click
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e
SEED = 20_241_124
GEMS = [f"Secret *Gem* {i:02d}" for i in range(24)]  # markdown: shown escaped, never rendered
CUBE_FILE = "\n".join([*GEMS, "8 Island", "8 Forest"]).encode()


async def test_three_player_game(fake, bot, world):
    table = VortexDriver(fake, world, bot.database_url)
    try:
        await _play(table, fake, bot, world)
    finally:
        await table.close()


async def _play(t: VortexDriver, fake, bot, world) -> None:
    players = world.players[:3]
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Vortex test"}, attachments={"file": ("vortex.txt", CUBE_FILE)})
    assert "40 cards" in added.content, added.content
    await _lobby(t, fake, world, players)
    await _opening(t, fake, bot, players)
    await _first_turn(t, fake, bot)
    await _second_turn(t, fake)
    await _mulligan_and_penalty(t)
    await _end(t, fake, world)
    nothing_logged_as_error(bot)  # forged input and stale buttons are the sender's problem, not bugs


async def _lobby(t: VortexDriver, fake, world, players: list[int]) -> None:
    choices = await fake.autocomplete(world.admin, "vortex start", focused="cube", options={"cube": "vort"},
                                      guild_id=world.guild, channel_id=world.channel)
    assert [c["value"] for c in choices] == ["Vortex test"]
    refused = await t.slash(world.member, "start", cube="Vortex test")
    assert refused.ephemeral and "organizer" in refused.content
    lobby = await t.start(cube="Vortex test", seed=SEED)
    assert "Vortex #" in lobby["content"] and "40 cards" in embed_text(lobby)
    five = [*players, *world.players[3:5]]
    await t.join_all(five)
    sixth = await t.lobby(lobby, world.players[5], "join")
    assert sixth.ephemeral and "full (5 players)" in sixth.content
    for extra in world.players[3:5]:
        await t.lobby(lobby, extra, "leave")
    assert "Players (3/5)" in embed_text(fake.message(lobby["id"]))
    not_organizer = await t.lobby(lobby, players[0], "begin")
    assert not_organizer.ephemeral and "organizer" in not_organizer.content
    early = await t.slash(players[0], "draw")
    assert early.ephemeral and "has not begun yet: an organizer begins it with `/vortex begin`" in early.content
    begun = await t.lobby(lobby, world.admin, "begin")
    assert "has begun" in begun.content and not fake.message(lobby["id"])["components"]
    state = await t.check()
    assert "Turn order" in embed_text(fake.message(lobby["id"]))
    await t.wait_channel("has begun. Turn order:")
    assert len(state.shoe) == 40 + 15 - 28


async def _opening(t: VortexDriver, fake, bot, players: list[int]) -> None:
    """Four turns each of one pick by DM and a pass, then 3 basic lands each by DM."""
    for turn in range(1, 13):
        state = await t.state()
        assert state.phase == engine.OPENING and state.turn == turn
        picker = t.user_of(state, state.draft.seat)
        other = next(u for u in players if u != picker)
        if turn == 1:  # nothing but the pick: draws, passes and mulligans are refused, and change nothing
            for command, words in (("draw", "opening"), ("pass", "opening"), ("mulligan", "opening")):
                refused = await t.slash(other, command)
                assert refused.ephemeral and words in refused.content, refused.content
            message = await t.wait_pick(picker, await t.offer())
            assert "opening turn 1/12" in embed_text(message)
            assert not t.dms_with(other, ui.PickButton)  # nobody else has a pick to make
            assert await t.state() == state
        await t.pick(picker)
        if turn == 5:
            await bot.restart()  # kill -9 right after a pick: the next picker's DM still arrives
        await t.check()
        if turn < 12:
            await t.wait_channel(f"Opening turn {turn + 1}/12")
    state = await t.state()
    assert state.phase == engine.BASICS and all(len(p.hand) == 4 for p in state.players)
    await t.wait_channel("each player chooses 3 basic lands")
    first = players[0]
    await t.choose_basics(first, ["Island", "Island", "Forest"], start_over=True)
    await t.check()
    # The confirmed choice is final: a forged confirm of other lands is refused.
    old = fake.dms(first)[-1]
    forged = await forged_click(fake, first, old, ui.LandButton.custom_id_for(
        game=t.game_id, seat=engine.seat_of(state, first), chosen=ui.encode_lands([0, 0, 0]), action="confirm"))
    assert forged.ephemeral and "already chosen" in forged.content, forged.content
    damaged = await forged_click(fake, first, old, f"vortex:land:{t.game_id}:0:3:confirm")  # 1 land, "confirm"
    assert damaged.ephemeral and "not valid" in damaged.content
    for user in players[1:]:
        await t.choose_basics(user, ["Forest", "Swamp", "Island"])
        state = await t.check()
    assert state.phase == engine.PLAY and all(len(p.hand) == 7 for p in state.players)
    began = await t.wait_channel("play begins")  # the opening's message, edited: it pings nobody
    assert not fake.pinged_users(began)
    turn = await t.wait_channel("**Turn 1**")  # the first turn's message, a post of its own
    assert fake.pinged_users(turn) == {t.active(state)}


async def _first_turn(t: VortexDriver, fake, bot) -> None:
    """Bad input; a draw of 2 (refills from the shoe, the second pick shown in the same DM) with a
    kill -9 while it is pending; a stale DM; a look put back by DM; a pass, and a second pass refused."""
    state = await t.check()
    a = t.active(state)
    b = next(p.user_id for p in state.players if p.user_id != a)
    for user, command, words in ((b, "pass", "not your turn"), (b, "mulligan", "your own upkeep")):
        refused = await t.slash(user, command)
        assert refused.ephemeral and words in refused.content, refused.content
    assert await t.state() == state
    shoe, refill = len(state.shoe), engine.PACK_SIZE - len(t.player(state, a).pack)
    drawn = await t.slash(a, "draw", count=2)
    assert drawn.ephemeral and "pick 1 of 2" in drawn.content
    for command, words in (("mulligan", "upkeep"), ("pass", "pending pick")):
        refused = await t.slash(a, command)
        assert refused.ephemeral and words in refused.content, refused.content
    state = await t.check()
    assert len(t.player(state, a).pack) == 7 and len(state.shoe) == shoe - refill
    await t.wait_channel(f"<@{a}> draws 2")
    offer = await t.offer()
    first = await t.wait_pick(a, offer)
    stale = components(first, ui.PickButton, offer=offer)[0]["custom_id"]  # clicked below, after the pick
    # Another player's button (forged into their own DM) and out-of-range ids: refused, nothing changed.
    elsewhere = fake.dms(b)[-1]
    seat_a = engine.seat_of(state, a)
    for custom_id, words in (
        (ui.PickButton.custom_id_for(game=t.game_id, seat=seat_a, offer=offer, card=0), "not yours"),
        (ui.PickButton.custom_id_for(game=10**30, seat=seat_a, offer=offer, card=0), "not valid"),
        (f"vortex:pick:{t.game_id}:{seat_a}:{offer}:9", "not valid"),
        (f"vortex:pick:{t.game_id}:{seat_a}:{offer}:take", "not valid"),
    ):
        forged = await forged_click(fake, b, elsewhere, custom_id)
        assert forged.ephemeral and words in forged.content, (custom_id, forged.content)
    assert await t.state() == state
    # /vortex draw again and /vortex resend each send the pending pick again (nothing more is
    # drawn); each new copy takes the buttons off the one before (issue 35 item 4): one message
    # has live pick buttons, the others say where the pick went.
    again = await t.slash(a, "draw")
    assert again.ephemeral and "Make your pending pick first (pick 1 of 2): nothing else was drawn" in again.content
    assert await t.state() == state
    hand = await t.slash(a, "hand")
    assert hand.ephemeral and "pick 1 of 2" in hand.content and not hand.followups  # the hand only shows the hand
    resent = await t.slash(a, "resend")
    await resent.wait_followup()
    assert resent.ephemeral and "Sent: check your DMs" in resent.content

    def copies_of_the_pick() -> list[dict]:
        return [m for m in fake.dms(a) if "pick 1 of 2" in embed_text(m) or "sent again" in embed_text(m)]

    live = await fake.wait_for(lambda: len(copies_of_the_pick()) == 3 and t.dms_with(a, ui.PickButton, offer=offer)
                               == copies_of_the_pick()[-1:] and copies_of_the_pick()[-1], what="one live pick")
    assert all("sent again in a newer DM" in embed_text(m) for m in copies_of_the_pick()[:-1])
    picked = await t.pick(a, live)
    assert "pick 2 of 2" in embed_text(picked.message)  # the next pick, shown in place
    answer = await forged_click(fake, a, first, stale)  # a click that left before its message lost the button
    assert answer.ephemeral and "already made" in answer.content and "pick 2 of 2" in answer.content
    state = await t.check()
    assert len(t.player(state, a).pack) == 7 and len(state.shoe) == shoe - refill - 1
    await bot.restart()  # kill -9 with the second pick pending: the shown button still works
    await t.pick(a, fake.message(picked.message["id"]))
    state = await t.check()
    assert state.draft is None and state.step == engine.MAIN and len(t.player(state, a).hand) == 9

    # A look at the top 3 by DM (only a sees the cards); the first one goes to the bottom.
    top = state.shoe[:3]
    looked = await t.slash(a, "shoe", action="look", count=3)
    assert looked.ephemeral and "in your DMs" in looked.content
    message = await fake.wait_for(lambda: t.dms_with(a, ui.LookButton, action="done"), what="the look DM")
    message = message[-1]
    assert all(escape(card) in embed_text(message) for card in top)
    bad = await forged_click(fake, a, message, ui.LookButton.custom_id_for(
        game=t.game_id, seat=seat_a, look=1, bottom=0, action="toggle", card=15))
    assert bad.ephemeral and "not valid" in bad.content
    toggle = components(message, ui.LookButton, action="toggle", card=0)[0]["custom_id"]
    message = (await fake.click(a, message, toggle)).message
    assert "⬇️ to the bottom" in embed_text(message)
    done = components(message, ui.LookButton, action="done")[0]["custom_id"]
    put = await fake.click(a, message, done)
    assert "Put back: 2 on top, 1 at the bottom" in embed_text(put.message)
    state = await t.check()
    assert state.shoe[:2] == top[1:] and state.shoe[-1] == top[0]
    await t.wait_channel(f"<@{a}> looked at the top 3 cards")
    await t.wait_channel(f"<@{a}> put back 2 on top and 1 at the bottom")
    # A look left open ends with the turn: its DM then loses its buttons (nothing live-looking does nothing).
    await t.slash(a, "shoe", action="look", count=1)
    left_open = await fake.wait_for(lambda: (m := t.dms_with(a, ui.LookButton, look=2, action="done")) and m[-1],
                                    what="the second look DM")

    passed = await t.slash(a, "pass")
    assert passed.ephemeral and "You passed" in passed.content
    retired = await fake.wait_for(lambda: (m := fake.message(left_open["id"])) and not m.get("components") and m,
                                  what="the open look's DM without its buttons")
    assert "This look is over" in embed_text(retired)
    twice = await t.slash(a, "pass")
    assert twice.ephemeral and "already passed" in twice.content
    state = await t.check()
    turn = await t.wait_channel("**Turn 2**")
    assert fake.pinged_users(turn) == {t.active(state)}


async def _second_turn(t: VortexDriver, fake) -> None:
    """A card from the hand on top of the shoe (named by autocomplete), the shoe milled empty, and a
    draw from the empty shoe (nothing refilled)."""
    state = await t.state()
    b = t.active(state)
    choices = await fake.autocomplete(b, "vortex shoe", focused="card", options={"action": "top", "card": "gem"},
                                      guild_id=t.world.guild, channel_id=t.world.channel)
    hand = t.player(state, b).hand
    assert choices and {c["value"] for c in choices} <= set(hand)
    card = choices[0]["value"]
    wrong = await t.slash(b, "shoe", action="top", count=2)
    assert wrong.ephemeral and "Name the card" in wrong.content
    put = await t.slash(b, "shoe", action="top", card=card)
    assert put.ephemeral and "on top" in put.content
    state = await t.check()
    assert state.shoe[0] == card and card not in t.player(state, b).hand
    await t.wait_channel(f"<@{b}> put 1 card from their hand on top of the shoe")
    shoe = list(state.shoe)
    milled = await t.slash(b, "shoe", action="mill", count=100)
    assert milled.ephemeral and "Milled" in milled.content
    state = await t.check()
    assert state.shoe == [] and t.player(state, b).graveyard == shoe
    news = await t.wait_channel(f"<@{b}> milled {len(shoe)} cards from the shoe")
    assert escape(card) in news["content"]  # milled cards are public: shown, escaped
    pack = len(t.player(state, b).pack)
    drawn = await t.slash(b, "draw")
    assert drawn.ephemeral and "pick 1 of 1" in drawn.content
    state = await t.check()
    assert len(t.player(state, b).pack) == pack  # the empty shoe refills nothing
    await t.wait_channel(f"<@{b}> draws 1 card: a pick from their pack, by DM; the shoe is empty: the pack was not refilled")
    await t.pick(b)
    await t.check()
    await _zones_and_life(t, fake, b)
    await t.slash(b, "pass")
    await t.check()


async def _zones_and_life(t: VortexDriver, fake, b: int) -> None:
    """A card played from the hand (offered by autocomplete from the hand only), moved on to the
    graveyard and back, and life lost and gained: each told in the channel, counted by the status."""
    def offered(command: str, **options):
        return fake.autocomplete(b, f"vortex {command}", focused="card", options={**options, "card": ""},
                                 guild_id=t.world.guild, channel_id=t.world.channel)

    state = await t.state()
    hand = t.player(state, b).hand
    card = next(c for c in hand if not is_basic_land(c))
    assert {c["value"] for c in await offered("play")} <= set(hand)
    played = await t.slash(b, "play", card=card)
    assert played.ephemeral and "is on the battlefield" in played.content
    state = await t.check()
    assert t.player(state, b).battlefield == [card]
    await t.wait_channel(f"🃏 <@{b}> plays **{escape(card)}**.")
    t.revealed.add(card)  # public now (and still public if it goes back to the hand)
    # The shoe's top/bottom and /vortex play offer only cards in the hand; /vortex move the `from` zone's.
    for command, options in (("shoe", {"action": "top"}), ("play", {})):
        assert card not in {c["value"] for c in await offered(command, **options)} or hand.count(card) > 1
    assert [c["value"] for c in await offered("move", **{"from": "battlefield", "to": "graveyard"})] == [card]
    assert await offered("move", **{"from": "exile", "to": "hand"}) == []
    moved = await t.slash(b, "move", **{"from": "battlefield", "to": "graveyard", "card": card})
    assert moved.ephemeral and "from the battlefield to your graveyard" in moved.content
    await t.wait_channel(f"<@{b}> moves **{escape(card)}** from the battlefield into their graveyard.")
    missing = await t.slash(b, "move", **{"from": "exile", "to": "hand", "card": card})
    assert missing.ephemeral and "is not in your exile" in missing.content
    await t.slash(b, "move", **{"from": "graveyard", "to": "hand", "card": card})
    state = await t.check()
    assert card in t.player(state, b).hand and card not in t.player(state, b).graveyard
    lost = await t.slash(b, "life", amount=-23)
    assert lost.ephemeral and "Your life is now \u22123" in lost.content
    await t.wait_channel(f"<@{b}> loses 23 life (life \u22123).")
    await t.check()
    await t.slash(b, "life", amount=23)
    await t.wait_channel(f"<@{b}> gains 23 life (life 20).")
    await t.check()


async def _mulligan_and_penalty(t: VortexDriver) -> None:
    """Turns of a draw and a pass until a player starts their turn with 5+ basic lands in their pack:
    they mulligan (asked first), and their next draw, from an empty pack and an empty shoe, costs a
    life and the turn. A mulligan with fewer basic lands is refused."""
    mulliganed = penalized = refused = False
    for _ in range(12):
        state = await t.check()
        user = t.active(state)
        pack = t.player(state, user).pack
        empty = not pack
        basics = sum(1 for card in pack if is_basic_land(card))
        if not refused and basics < engine.MULLIGAN_BASICS:
            few = await t.slash(user, "mulligan")
            assert few.ephemeral and f"5 or more basic lands in your pack; it has {basics}" in few.content
            assert await t.state() == state
            refused = True
        if not mulliganed and basics >= engine.MULLIGAN_BASICS:
            _, done = await t.confirmed_command(user, "mulligan")
            assert "You mulliganed" in done.content
            news = await t.wait_channel(f"<@{user}> mulliganed: revealed and exiled their pack")
            assert all(escape(card) in news["content"] for card in pack)
            mulliganed = empty = True  # the shoe is empty: nothing refills the exiled pack
            assert t.player(await t.check(), user).exile == pack
        if empty:
            turn = state.turn
            drawn = await t.slash(user, "draw")
            assert drawn.ephemeral and "Your pack was empty" in drawn.content, drawn.content
            state = await t.check()
            assert state.turn == turn + 1 and t.player(state, user).life == engine.STARTING_LIFE - 1
            await t.wait_channel(f"<@{user}> had to pick from an **empty pack**")
            penalized = True
        else:
            await t.slash(user, "draw")
            await t.check()
            await t.pick(user)
            await t.check()
            await t.slash(user, "pass")
        if mulliganed and penalized:
            break
    assert mulliganed and penalized and refused
    status = await t.slash(t.world.member, "status")
    assert "1 penalty" in embed_text(status.message)


async def _end(t: VortexDriver, fake, world) -> None:
    state = await t.check()
    winner = state.players[0].user_id
    refused = await t.slash(winner, "end", winner=winner)
    assert refused.ephemeral and "organizer" in refused.content
    outsider = await t.slash(world.admin, "end", winner=world.member)
    assert outsider.ephemeral and "not playing" in outsider.content
    since = len(fake.messages(world.leaderboard_channel))
    here = len(fake.messages(world.channel))
    _, ended = await t.confirmed_command(world.admin, "end", winner=winner)
    assert "has ended" in ended.content
    final = await fake.wait_for(lambda: [m for m in fake.messages(world.leaderboard_channel)[since:]
                                         if "is over" in (m.get("content") or "")], what="the final post")
    assert f"<@{winner}> wins" in final[0]["content"] and not fake.pinged_users(final[0])
    # The game's own channel is told who won too (not only the results channel).
    told = await fake.wait_for(lambda: [m for m in fake.messages(world.channel)[here:]
                                        if "is over" in (m.get("content") or "")], what="the final post in the game")
    assert f"<@{winner}> wins" in told[0]["content"] and not fake.pinged_users(told[0])
    lobby = next(m for m in fake.messages(world.channel)
                 if any(f.get("name") == "Turn order" for e in m.get("embeds") or [] for f in e.get("fields") or []))
    await fake.wait_for(lambda: "Status\nOver" in embed_text(fake.message(lobby["id"])), what="the lobby redrawn as over")
    assert await t.results() == {p.user_id: 1 if p.user_id == winner else 2 for p in state.players}
    after = await t.slash(winner, "draw")
    assert after.ephemeral and f"has ended: its result is posted in <#{world.channel}>" in after.content, after.content
    status = await t.slash(world.member, "status")
    assert f"Winner: <@{winner}>" in embed_text(status.message)
    t.assert_nothing_hidden_shown(await t.state())
    for message in fake.messages(world.channel):  # nobody but the player whose turn began was pinged
        assert len(fake.pinged_users(message)) <= 1
