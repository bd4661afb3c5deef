"""What a modified client can send: custom_ids no message of ours carries (30-digit ids, a letter
where a number belongs, another server's lobby) and forged forms. Each gets a clear ephemeral
refusal, and nothing changes."""

from __future__ import annotations

import pytest

from bot.games.battler import ui as battler_ui
from bot.games.draft import ui as draft_ui
from bot.games.goldfish.ui import SCORE_FORM
from bot.kit.dispatch import INVALID
from tests.e2e.drivers.battler import BattlerDriver
from tests.e2e.drivers.common import forged_click, forged_select, message_text
from tests.e2e.drivers.draft import start_lobby
from tests.fake_discord import MANAGE_GUILD

pytestmark = pytest.mark.e2e

OTHER_GUILD, OTHER_CHANNEL = 900_000_000_000_001_001, 900_000_000_000_001_010
OTHER_ADMIN, OTHER_MEMBER = 900_000_000_000_001_100, 900_000_000_000_001_101
HUGE_ID = "9" * 30


def add_other_server(fake) -> None:
    """A second server with the bot, whose admin (Manage Server there) knows our ids."""
    fake.add_guild(OTHER_GUILD, "Other Club", owner_id=OTHER_ADMIN)
    fake.add_channel(OTHER_GUILD, OTHER_CHANNEL, "elsewhere")
    fake.add_member(OTHER_GUILD, OTHER_ADMIN, "other-admin", permissions=MANAGE_GUILD)
    fake.add_member(OTHER_GUILD, OTHER_MEMBER, "other-member")


async def message_in_other_server(fake) -> dict:
    roll = await fake.slash(OTHER_ADMIN, "goldfish roll", guild_id=OTHER_GUILD, channel_id=OTHER_CHANNEL,
                            options={"first": 1})
    assert roll.message is not None and not roll.ephemeral, roll.content
    return roll.message


def lobby_text(fake, lobby: dict) -> str:
    return message_text(fake.message(lobby["id"]))


def nothing_logged_as_error(bot) -> None:
    """A forged input is the sender's problem, not a bug: no error or traceback in the bot's log."""
    log = bot.log_text()
    assert "Traceback" not in log and " ERROR " not in log, bot.log_tail()


def refused(result, *words: str) -> None:
    assert result.ephemeral, result.content
    assert all(word in result.content for word in words), result.content


async def test_another_servers_lobby_cannot_be_joined_or_cancelled(fake, bot, world):
    add_other_server(fake)
    pod_id, lobby = await start_lobby(fake, world, seats=4)
    battler = BattlerDriver(fake, world, bot.database_url)
    game_lobby = await battler.start(cube="battler", seats=4)
    elsewhere = await message_in_other_server(fake)

    for user in (OTHER_ADMIN, OTHER_MEMBER):
        for action in ("join", "cancel", "begin"):
            custom_id = draft_ui.LobbyButton.custom_id_for(table=pod_id, action=action)
            refused(await forged_click(fake, user, elsewhere, custom_id), "another server")
            for button in (battler_ui.LobbyButton, battler_ui.LegacyLobbyButton):
                custom_id = button.custom_id_for(table=battler.table_id, action=action)
                refused(await forged_click(fake, user, elsewhere, custom_id), "another server")

    # Both lobbies are untouched: still open, nobody in them, and they still work at home.
    player = world.players[0]
    await fake.click(player, lobby, draft_ui.LobbyButton.custom_id_for(table=pod_id, action="join"))
    assert "1/4" in lobby_text(fake, lobby) and f"<@{player}>" in lobby_text(fake, lobby)
    await battler.lobby(game_lobby, player, "join")
    assert f"<@{player}>" in lobby_text(fake, game_lobby) and "(1/" in lobby_text(fake, game_lobby)
    await battler.close()
    nothing_logged_as_error(bot)


async def test_forged_ids_and_values_are_refused(fake, bot, world):
    pod_id, lobby = await start_lobby(fake, world, seats=4)
    player = world.players[0]
    forged = [
        f"draft:lobby:{HUGE_ID}:join",  # a 30-digit table id
        f"draft:lobby:{pod_id}:explode",  # an action no lobby has
        f"draft:lobby:{pod_id}",  # a part missing
        "draft:lobby:٣:join",  # digits of another script
        f"dp:{pod_id}:0:0:{HUGE_ID}",
        f"dp:{pod_id}:x:0:0",
        f"bt:{HUGE_ID}:0:0:take",
    ]
    for custom_id in forged:
        result = await forged_click(fake, player, lobby, custom_id)
        refused(result)
        assert result.content == INVALID or "not valid" in result.content, (custom_id, result.content)
    select_id = draft_ui.PickSelect.custom_id_for(pod=pod_id, pack=0, pick=0, part=0)
    for value in ("abc", "-1", HUGE_ID):
        result = await forged_select(fake, player, lobby, select_id, value)
        refused(result, "not valid")
    # A well-formed pick for a pod that is not drafting yet is refused too, in words.
    result = await forged_click(fake, player, lobby, draft_ui.PickButton.custom_id_for(pod=pod_id, pack=1, pick=0, index=0))
    refused(result)

    # Nothing changed: the lobby is open and empty, and still works.
    assert "nobody yet" in lobby_text(fake, lobby)
    await fake.click(player, lobby, draft_ui.LobbyButton.custom_id_for(table=pod_id, action="join"))
    assert "1/4" in lobby_text(fake, lobby)
    nothing_logged_as_error(bot)


async def test_forged_score_forms_change_nothing(fake, bot, world):
    add_other_server(fake)
    player = world.players[0]
    await fake.slash(world.admin, "goldfish start", guild_id=world.guild, channel_id=world.channel,
                     options={"name": "Paper", "turns": 7})
    values = {"life_lost": "99", "cards_milled": "0", "poison": "0", "game_wins": "0", "writeup": "forged"}
    for custom_id in (f"gfs:{HUGE_ID}:0:0:-", "gfs:1:2:0:-", "gfs:1:0:0:abc", "gfs:1:0:0"):
        opened = await fake.slash(player, "goldfish report", guild_id=world.guild, channel_id=world.channel)
        opened.modal["custom_id"] = custom_id
        result = await fake.submit_modal(player, opened, values)
        refused(result, "not valid")
    # The event of this server, reported from another server's channel.
    opened = await fake.slash(player, "goldfish report", guild_id=world.guild, channel_id=world.channel)
    fake.add_member(OTHER_GUILD, player, "player0")
    event_id = SCORE_FORM.parse(opened.modal["custom_id"])["event"]
    opened.modal["custom_id"] = SCORE_FORM.custom_id_for(event=event_id, lost=0, prevented=0, file="-")
    opened.guild_id, opened.channel_id = OTHER_GUILD, OTHER_CHANNEL
    result = await fake.submit_modal(player, opened, values)
    refused(result)
    scores = await fake.slash(world.member, "goldfish status", guild_id=world.guild, channel_id=world.channel)
    assert "No scores yet." in message_text(scores.message), scores.content
    nothing_logged_as_error(bot)
