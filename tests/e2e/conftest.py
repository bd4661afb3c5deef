"""End-to-end fixtures: the fake Discord (a server with an admin, an organizer role and players)
and the real bot process connected to it, on a fresh SQLite file (or PostgreSQL database)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import create_scratch_database
from tests.e2e.harness import BotProcess
from tests.fake_discord import MANAGE_GUILD, FakeDiscord


@dataclass(frozen=True)
class World:
    guild: int = 900_000_000_000_000_001
    channel: int = 900_000_000_000_000_010
    leaderboard_channel: int = 900_000_000_000_000_011
    organizer_role: int = 900_000_000_000_000_020
    admin: int = 900_000_000_000_000_100  # has Manage Server
    organizer: int = 900_000_000_000_000_101  # has the organizer role only
    member: int = 900_000_000_000_000_102  # plain member

    @property
    def players(self) -> list[int]:
        return [900_000_000_000_000_200 + i for i in range(16)]


WORLD = World()


def build_world(fake: FakeDiscord) -> None:
    fake.add_guild(WORLD.guild, "MTG Club", owner_id=WORLD.admin)
    fake.add_channel(WORLD.guild, WORLD.channel, "drafts")
    fake.add_channel(WORLD.guild, WORLD.leaderboard_channel, "leaderboard")
    fake.add_role(WORLD.guild, WORLD.organizer_role, "Organizer")
    fake.add_member(WORLD.guild, WORLD.admin, "admin", permissions=MANAGE_GUILD)
    fake.add_member(WORLD.guild, WORLD.organizer, "organizer", roles=[WORLD.organizer_role])
    fake.add_member(WORLD.guild, WORLD.member, "member")
    for index, user in enumerate(WORLD.players):
        fake.add_member(WORLD.guild, user, f"player{index}")


@pytest.fixture(autouse=True)
async def no_bot_left_behind():
    """After each e2e test (and its fixtures): no bot process it started may still run."""
    yield
    left = await BotProcess.left_running()
    assert not left, f"the test left {len(left)} bot process(es) running: {[p.log_path for p in left]}"


@pytest.fixture
def world() -> World:
    return WORLD


@contextlib.asynccontextmanager
async def fake_discord(**options) -> AsyncIterator[FakeDiscord]:
    """A fake Discord serving the test server (`WORLD`)."""
    discord_fake = FakeDiscord(**options)
    await discord_fake.start()
    try:
        build_world(discord_fake)
        yield discord_fake
    finally:
        await discord_fake.stop()


@contextlib.asynccontextmanager
async def launched_bot(
    fake: FakeDiscord, workdir: Path, env: dict[str, str] | None = None, *, backend: str = "sqlite"
) -> AsyncIterator[BotProcess]:
    """The bot process, started on a fresh database of `backend`, stopped (and its log shown) after."""
    workdir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a local directory, once
    async for url in create_scratch_database(backend, workdir):
        process = BotProcess(fake, url, workdir, env)
        await process.start()
        try:
            yield process
        finally:
            await process.stop()
            # Shown by pytest only when the test failed.
            print(f"----- bot log ({process.log_path}) -----\n{process.log_tail(150)}")


@pytest.fixture
async def fake() -> FakeDiscord:
    async with fake_discord() as discord_fake:
        yield discord_fake


@pytest.fixture
def bot_env() -> dict[str, str]:
    """Extra environment for the bot process; tests may override this fixture."""
    return {}


@pytest.fixture
async def bot(fake, tmp_path, bot_env) -> BotProcess:
    async with launched_bot(fake, tmp_path, bot_env) as process:
        yield process
