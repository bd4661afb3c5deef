"""The lobby every format shares, driven through the fake Discord."""

from __future__ import annotations

import re

from sqlalchemy import select

from bot.store.db import Database
from bot.store.models import EventResult
from tests.fake_discord import FakeDiscord


class TableDriver:
    """`command` is the format's command group (`draft`, `battler`, …), `lobby_button` its ui class."""

    command: str
    lobby_button: type

    def __init__(self, fake: FakeDiscord, world, database_url: str) -> None:
        self.fake, self.world = fake, world
        self.db = Database(database_url)
        self.table_id = 0
        self.lobby_message: dict | None = None

    async def close(self) -> None:
        await self.db.dispose()

    async def slash(self, user: int, subcommand: str, **options):
        return await self.fake.slash(user, f"{self.command} {subcommand}", guild_id=self.world.guild,
                                     channel_id=self.world.channel, options=options or None)

    async def start(self, user: int | None = None, **options) -> dict:
        result = await self.slash(user or self.world.admin, "start", **options)
        assert result.message is not None and not result.ephemeral, result.content
        self.table_id = int(re.search(r"#(\d+)", result.content or str(result.message.get("embeds"))).group(1))
        self.lobby_message = result.message
        return result.message

    def lobby_id(self, action: str, table_id: int | None = None) -> str:
        return self.lobby_button.custom_id_for(table=table_id or self.table_id, action=action)

    async def lobby(self, lobby: dict | None, user: int, action: str):
        return await self.fake.click(user, lobby or self.lobby_message, self.lobby_id(action))

    async def join_all(self, players: list[int], lobby: dict | None = None) -> None:
        for player in players:
            await self.lobby(lobby, player, "join")

    async def results(self) -> dict[int, int]:
        """user id -> placement on the leaderboard for this table."""
        async with self.db.read() as session:
            rows = (await session.execute(
                select(EventResult).where(EventResult.format == self.command, EventResult.event_id == self.table_id)
            )).scalars().all()
            return {r.user_id: r.placement for r in rows}

    async def wait_channel(self, needle: str, since: int = 0) -> dict:
        def found():
            msgs = [m for m in self.fake.messages(self.world.channel)[since:] if needle in (m.get("content") or "")]
            return msgs[-1] if msgs else None

        return await self.fake.wait_for(found, what=f"channel message with {needle!r}")

    async def confirmed_command(self, user: int, subcommand: str, button: str | None = None, **options):
        """A command that asks first (end, cancel, drop): run it and press `button`."""
        prompt = await self.slash(user, subcommand, **options)
        assert prompt.ephemeral and prompt.components, prompt.content
        custom_id = next(c["custom_id"] for c in prompt.components  # `button`: a label; default the one that acts
                         if (c["custom_id"].endswith(":yes") if button is None else c.get("label") == button))
        return prompt, await self.fake.click(user, prompt.message, custom_id)
