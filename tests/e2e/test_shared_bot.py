"""The e2e tests of a module share a bot process where a test can't tell (tests/e2e/conftest.py):
each sharing test has a world of its own and empty logs; a test that names `bot` has its own
process; a busy process, a held gateway or another `bot_env` means a new process; a shared one
can't be killed."""

from __future__ import annotations

import pytest

from bot.kit import outbox
from bot.store.db import Database
from tests.e2e.conftest import WORLD, SharedBot, SharedBotMisuse, SharedBots, World, shares_bot
from tests.e2e.harness import BotProcess

pytestmark = pytest.mark.e2e


def ids(world: World) -> set[int]:
    return {world.guild, world.channel, world.leaderboard_channel, world.organizer_role, world.admin,
            world.organizer, world.member, *world.players}


async def owe_a_message(process: BotProcess, channel: int) -> None:
    """A message the bot owes (held, so nothing sends it yet), written into its database."""
    database = Database(process.database_url)
    try:
        async with database.write() as session:
            await outbox.queue(session, outbox.Message("test.owed", channel_id=channel), hold=True)
    finally:
        await database.dispose()


async def test_tests_sharing_a_bot_each_see_only_their_own_world(tmp_path):
    bots = SharedBots(tmp_path)
    try:
        first = bots.new_world()
        fake = await bots.prepare(first)
        process = await bots.bot_for({})
        generation = fake.generation
        await fake.slash(first.admin, "config set", guild_id=first.guild, channel_id=first.channel,
                         options={"pick_mode": "buttons"})
        assert fake.rest_log

        second = bots.new_world()
        assert not ids(first) & ids(second) and not ids(WORLD) & ids(second)
        assert await bots.prepare(second) is fake and fake.rest_log == []
        assert await bots.bot_for({}) is process and fake.generation == generation  # not restarted
        shown = await fake.slash(second.admin, "config show", guild_id=second.guild, channel_id=second.channel)
        assert "both" in shown.content  # the first world's setting is not this one's

        with pytest.raises(SharedBotMisuse, match="own_bot"):
            await SharedBot(process).kill()
        with pytest.raises(SharedBotMisuse, match="own_bot"):
            SharedBot(process).database_url  # noqa: B018

        # Another bot_env: another process.
        other = await bots.bot_for({"SWEEP_INTERVAL": "5"})
        assert other is not process and not process.running and other.running

        # A bot that still owes a message when the next test begins is replaced.
        await owe_a_message(other, second.channel)
        bots.settle_timeout = 0.5
        await bots.prepare(bots.new_world())
        assert not other.running and bots.process is None
        third = await bots.bot_for({"SWEEP_INTERVAL": "5"})

        # So is one whose gateway a test held closed; the fake's settings are put back.
        fake.callback_deadline = None
        await fake.disconnect_gateway(hold=True)
        fourth_world = bots.new_world()
        await bots.prepare(fourth_world)
        assert not third.running and fake.callback_deadline == 3.0
        await bots.bot_for({"SWEEP_INTERVAL": "5"})
        about = await fake.slash(fourth_world.member, "about", guild_id=fourth_world.guild,
                                 channel_id=fourth_world.channel)
        assert "sqlite" in about.content
    finally:
        await bots.close()
    assert await BotProcess.left_running() == []


async def test_a_test_that_only_needs_a_bot_running_shares_it(request, fake, world, bot):
    assert shares_bot(request.node)
    assert world != World() and world.guild in fake._guilds  # World(): the world of a test of its own


async def test_a_test_that_names_the_bot_has_its_own(request, world, bot):
    assert not shares_bot(request.node)
    assert world == WORLD and isinstance(bot, BotProcess) and not bot.shared


@pytest.fixture
def database_of_the_bot(bot) -> str:
    return bot.database_url


async def test_a_test_whose_fixture_names_the_bot_has_its_own(request, database_of_the_bot):
    assert not shares_bot(request.node)


@pytest.mark.own_bot
async def test_a_test_marked_own_bot_has_its_own(request, world, bot):
    assert not shares_bot(request.node) and world == WORLD


async def test_a_test_that_takes_tmp_path_has_its_own(request, world, bot, tmp_path):
    assert not shares_bot(request.node) and world == WORLD  # its tmp_path is the bot's working directory
