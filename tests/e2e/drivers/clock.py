"""Acting as the two players on a chess clock through the fake Discord (custom ids from `bot.features.clock.ui`)."""

from __future__ import annotations

import copy
import re
from datetime import timedelta

from sqlalchemy import select

from bot.features.clock import rules as engine
from bot.features.clock import service, ui
from bot.features.clock.models import ChessClock
from bot.store.db import Database
from bot.store.models import Deadline
from tests.e2e.drivers.common import components, embed_text
from tests.fake_discord import FakeDiscord

__all__ = ["ClockDriver", "embed_text"]


class ClockDriver:
    def __init__(self, fake: FakeDiscord, world, database_url: str) -> None:
        self.fake, self.world = fake, world
        self.db = Database(database_url)
        self.clock_id = 0
        self.message_id = 0

    async def close(self) -> None:
        await self.db.dispose()

    async def slash_start(self, user: int, **options):
        return await self.fake.slash(user, "clock start", guild_id=self.world.guild, channel_id=self.world.channel,
                                     options=options)

    async def offer(self, user: int, opponent: int, **options) -> dict:
        """`/clock start`: the answer is ephemeral, the offer's message comes through the outbox."""
        result = await self.slash_start(user, opponent=opponent, **options)
        assert result.ephemeral and "offered" in result.content, result.content
        self.clock_id = int(re.search(r"#(\d+)", result.content).group(1))
        message = await self.wait_posted()
        self.message_id = int(message["id"])
        return message

    async def wait_posted(self, clock_id: int | None = None) -> dict:
        clock_id = clock_id or self.clock_id

        def posted():
            found = [m for m in self.fake.messages(self.world.channel) if components(m, ui.ClockButton, clock=clock_id)]
            return found[0] if found else None

        return await self.fake.wait_for(posted, what=f"clock #{clock_id}'s message")

    async def start(self, user: int, opponent: int, **options) -> dict:
        """`/clock start` and the opponent's Accept: the clock runs; returns its message once it shows that."""
        await self.offer(user, opponent, **options)
        accepted = await self.press(opponent, "accept")
        assert not accepted.ephemeral or "accepted" in accepted.content, accepted.content
        await self.wait_shown("▶️ ")
        return self.message

    @property
    def message(self) -> dict:
        return self.fake.message(self.message_id)

    def custom_id(self, action: str) -> str:
        return ui.ClockButton.custom_id_for(clock=self.clock_id, action=action)

    async def press(self, user: int, action: str):
        return await self.fake.click(user, self.message, self.custom_id(action))

    async def wait_shown(self, *needles: str) -> str:
        """The clock message's text once it contains every needle (it is edited through the outbox)."""
        def shown():
            text = embed_text(self.message)
            return text if all(n in text for n in needles) else None

        return await self.fake.wait_for(shown, what=f"clock message showing {needles}")

    async def stored(self) -> tuple[ChessClock, engine.ClockState]:
        async with self.db.read() as session:
            row = (await session.execute(select(ChessClock).where(ChessClock.id == self.clock_id))).scalar_one()
            return row, engine.ClockState.from_dict(row.state)

    async def age(self, seconds: float) -> None:
        """Pretend `seconds` passed on the running clock: its move started that much earlier and its
        flag-fall deadline moves back as much, in the bot's own database (what time passing looks
        like to the bot)."""
        back = timedelta(seconds=seconds)
        async with self.db.write() as session:
            row = (await session.execute(select(ChessClock).where(ChessClock.id == self.clock_id))).scalar_one()
            state = copy.deepcopy(row.state)
            assert state["status"] == engine.RUNNING
            state["segment_start"] -= seconds
            state["last_time"] -= seconds
            row.state = state
            deadline = select(Deadline).where(Deadline.kind == service.FLAG, Deadline.key == str(self.clock_id))
            for found in (await session.execute(deadline)).scalars():
                found.due_at = found.due_at - back
