"""Vortex at the table, counted (issue 35 items 3, 4, 5 and 9): a 3-player game of 3 turns through the
fake Discord, played the way players play it, with buttons on the messages they already see.

The opening (every player picking 4 times, then 3 basic lands) is one channel message edited as it
goes (beside the lobby's "has begun"); each turn of play is one channel message, posted when the turn
begins (pinging only its player) and edited as the turn goes, with [Draw] [Pass] [Play a card]; each
player's picks and basic lands are one DM edited in place. The test counts the channel's posts, the
pings and each player's new DMs, and the commands the players type, and asserts the goals: the opening
at most 2 posts, at most 2 posts a turn, at most 2 new DMs per player for the whole game, at most 3
kinds of typed commands. Nothing is left live: a finished turn's message and the ended game's lose
their buttons."""

from __future__ import annotations

import pytest

from bot.games.vortex import rules as engine
from bot.games.vortex import ui
from tests.e2e.drivers.common import components, embed_text
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e
SEED = 35_005
CARDS = [f"Table Card {i:02d}" for i in range(30)]
CUBE_FILE = "\n".join([*CARDS, "6 Island", "6 Forest"]).encode()
TURNS = 3


class Counted:
    """The typed commands the players used (organizers' set-up aside), by name."""

    def __init__(self, t: VortexDriver) -> None:
        self.t, self.typed = t, set()

    async def slash(self, user: int, command: str, **options):
        self.typed.add(command)
        return await self.t.slash(user, command, **options)


async def test_a_three_turn_game_is_quiet_and_played_with_buttons(fake, bot, world):
    t = VortexDriver(fake, world, bot.database_url)
    try:
        await _play(t, fake, bot, world)
    finally:
        await t.close()


async def _play(t: VortexDriver, fake, bot, world) -> None:
    players = world.players[:3]
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Table"}, attachments={"file": ("table.txt", CUBE_FILE)})
    assert "42 cards" in added.content, added.content
    lobby = await t.start(cube="Table", seed=SEED)
    await t.join_all(players)
    channel = world.channel
    before_begin = len(fake.messages(channel))
    await t.lobby(lobby, world.admin, "begin")
    counted = Counted(t)

    # The opening: every pick on the picker's desk, the basic lands there too.
    state = await t.state()
    while state.phase == engine.OPENING:
        picker = t.user_of(state, state.draft.seat)
        await t.pick(picker)
        state = await t.check()
        if state.phase == engine.OPENING:
            await t.wait_channel(f"Opening turn {state.turn}/")
    for user in players:
        await t.choose_basics(user, ["Island", "Forest", "Island"])
    state = await t.check()
    assert state.phase == engine.PLAY
    first_turn = await t.wait_channel("**Turn 1**")
    opening_posts = fake.messages(channel)[before_begin:]
    opening_posts = opening_posts[:opening_posts.index(first_turn)]
    assert len(opening_posts) <= 2, [m.get("content") for m in opening_posts]
    opening = next(m for m in opening_posts if "has begun. Turn order:" in (m.get("content") or ""))
    assert "play begins" in fake.message(opening["id"])["content"] and not fake.pinged_users(opening)

    turn_posts = []
    for turn in range(1, TURNS + 1):
        state = await t.check()
        active = t.active(state)
        message = await t.wait_channel(f"**Turn {turn}**")
        turn_posts.append(message)
        assert fake.pinged_users(message) == {active}
        await _turn(t, fake, counted, state, message, players, typed_life=turn == 2)
        if turn < TURNS:  # the finished turn's message keeps what happened and loses its buttons
            finished = await fake.wait_for(lambda m=message: not fake.message(m["id"]).get("components")
                                           and fake.message(m["id"]), what="the finished turn without buttons")
            assert "passed" in finished["content"]
    next_turn = await t.wait_channel(f"**Turn {TURNS + 1}**")
    ids = [m["id"] for m in fake.messages(channel)]
    bounds = [ids.index(m["id"]) for m in [*turn_posts, next_turn]]
    per_turn = [end - begin for begin, end in zip(bounds, bounds[1:], strict=False)]
    assert all(posts <= 2 for posts in per_turn), per_turn

    # The end (an organizer's command): the turn's message loses its buttons, the result is posted.
    last = fake.messages(channel)[-1]
    await t.confirmed_command(world.admin, "end", winner=players[0])
    await fake.wait_for(lambda: not fake.message(last["id"]).get("components"), what="the last turn without buttons")
    await t.wait_channel("is over")

    posts = fake.messages(channel)[before_begin:]
    pings = {user: sum(user in fake.pinged_users(m) for m in posts) for user in players}
    new_dms = {user: len(fake.dms(user)) for user in players}
    assert all(len(fake.pinged_users(m)) <= 1 for m in posts)
    assert all(count <= 2 for count in new_dms.values()), new_dms
    assert len(counted.typed) <= 3, counted.typed
    print(f"\nVortex, 3 players, {TURNS} turns: {len(posts)} channel posts after the lobby (opening "
          f"{len(opening_posts)}, per turn {per_turn}, and the result); pings per player {list(pings.values())}; "
          f"new DMs per player {list(new_dms.values())}; typed commands {sorted(counted.typed)}")
    nothing_logged_as_error(bot)


async def _turn(t: VortexDriver, fake, counted: Counted, state, message: dict, players: list[int], *,
                typed_life: bool) -> None:
    """Draw (another player's press refused privately), pick on the desk, play a card from the hand
    by the private select, maybe a life change typed, and pass: all on the turn's message."""
    active = t.active(state)
    other = next(u for u in players if u != active)

    def button(action: str) -> str:
        return components(fake.message(message["id"]), ui.TurnButton, game=t.game_id, turn=state.turn,
                          action=action)[0]["custom_id"]

    refused = await fake.click(other, message, button("draw"))
    assert refused.ephemeral and f"It is <@{active}>'s turn" in refused.content, refused.content
    drawn = await fake.click(active, message, button("draw"))
    assert drawn.ephemeral and "your pick is in your DMs" in drawn.content, drawn.content
    await t.pick(active)
    state = await t.check()
    hand = t.player(state, active).hand
    card = next(c for c in hand if c.startswith("Table Card"))
    offered = await fake.click(active, message, button("play"))
    assert offered.ephemeral and offered.components, offered.content
    select = components(offered.message, ui.PlaySelect, game=t.game_id)[0]
    played = await fake.select(active, offered.message, select["custom_id"], [card])
    assert "is on the battlefield" in (played.content or embed_text(played.message)), played.content
    t.revealed.add(card)
    await t.wait_channel(f"plays **{card}**")
    if typed_life:
        await counted.slash(other, "life", amount=-2)
        await t.wait_channel(f"<@{other}> loses 2 life")
    passed = await fake.click(active, message, button("pass"))
    assert passed.ephemeral and "You passed" in passed.content
    await t.check()


async def _two_player_game(t: VortexDriver, fake, world) -> tuple[dict, list[int]]:
    """A game of two players begun (the cube added, the lobby joined): its lobby and its players."""
    await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                     options={"name": "Table"}, attachments={"file": ("table.txt", CUBE_FILE)})
    lobby = await t.start(cube="Table", seed=SEED)
    players = world.players[:2]
    await t.join_all(players)
    await t.lobby(lobby, world.admin, "begin")
    return lobby, players


async def test_a_cancelled_game_leaves_no_live_button(fake, bot, world):
    """Cancelled in play: the turn's message loses its buttons, no DM keeps a live pick button, and
    nothing is posted but the cancellation."""
    t = VortexDriver(fake, world, bot.database_url)
    try:
        lobby, players = await _two_player_game(t, fake, world)
        while (await t.state()).phase == engine.OPENING:
            await t.pick_pending()
        for user in players:
            await t.choose_basics(user, ["Island", "Island", "Forest"])
        turn = await t.wait_channel("**Turn 1**")
        assert components(turn, ui.TurnButton, game=t.game_id)
        posts = len(fake.messages(world.channel))
        await t.confirmed_command(world.admin, "cancel")
        await fake.wait_for(lambda: not fake.message(turn["id"]).get("components"), what="the turn without buttons")
        await t.wait_channel("was cancelled by an organizer")
        assert len(fake.messages(world.channel)) == posts + 1  # the kit's cancellation, and nothing else
        assert not any(components(m, ui.PickButton) for user in players for m in fake.dms(user))
        lobby_now = fake.message(lobby["id"])
        assert lobby_now["content"] == "Vortex #1 was cancelled." and not lobby_now.get("components")
    finally:
        await t.close()


@pytest.mark.parametrize("when", ["opening", "basics"])
async def test_a_game_cancelled_before_play_says_so_in_its_opening_message(fake, bot, world, when):
    """Issue 35 item 4: cancelled in the opening turns or while the basic lands are chosen, the
    opening's message says so (no "picks in their DM" left above a dead game), no DM keeps a live
    button, and the channel hears the cancellation once."""
    t = VortexDriver(fake, world, bot.database_url)
    try:
        _, players = await _two_player_game(t, fake, world)
        opening = await t.wait_channel("has begun. Turn order:")
        await t.pick_pending()
        if when == "basics":
            while (await t.state()).phase == engine.OPENING:
                await t.pick_pending()
            await t.choose_basics(players[0], ["Island", "Island", "Forest"])
            await fake.wait_for(lambda: "(1/2 done)" in fake.message(opening["id"])["content"], what="basics 1/2")
        else:
            await fake.wait_for(lambda: "picks in their DM" in fake.message(opening["id"])["content"],
                                what="the opening's next picker")
        posts = len(fake.messages(world.channel))
        await t.confirmed_command(world.admin, "cancel")
        await t.wait_channel("was cancelled by an organizer")
        shown = await fake.wait_for(lambda: "cancelled" in fake.message(opening["id"])["content"]
                                    and fake.message(opening["id"]), what="the opening redrawn as cancelled")
        assert "picks in their DM" not in shown["content"] and "done)" not in shown["content"], shown["content"]
        assert not shown.get("components")
        assert len(fake.messages(world.channel)) == posts + 1
        live = [m for user in players for m in fake.dms(user)
                if components(m, ui.PickButton) or components(m, ui.LandButton)]
        assert live == [], [embed_text(m) for m in live]
    finally:
        await t.close()
