"""A fake Discord (REST API v10 + Gateway) for end-to-end tests of the bot.

Usage (pytest)::

    @pytest.fixture
    async def fake():
        fake = FakeDiscord()
        await fake.start()
        fake.add_guild(GUILD_ID); fake.add_channel(GUILD_ID, CHANNEL_ID); fake.add_member(GUILD_ID, USER_ID, "alice")
        yield fake
        await fake.stop()

The bot under test must set ``discord.http.Route.BASE = fake.api_base`` before logging in.
"""

from .models import CommandNotAvailable, FakeDiscordTimeout, InteractionResult, RestCall, SnowflakeGenerator
from .server import ADMINISTRATOR, DEFAULT_MEMBER_PERMISSIONS, MANAGE_GUILD, FakeDiscord

__all__ = [
    "ADMINISTRATOR",
    "DEFAULT_MEMBER_PERMISSIONS",
    "MANAGE_GUILD",
    "CommandNotAvailable",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "InteractionResult",
    "RestCall",
    "SnowflakeGenerator",
]
