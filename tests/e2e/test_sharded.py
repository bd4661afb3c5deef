"""Two bot processes, one shard each, sharing one PostgreSQL database — as a big deployment runs.

The server lives on shard 1 (lobby, /draft commands) while DMs arrive on shard 0 (picks): every
handler must work from the database, not from memory of the process that started the draft.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import create_scratch_database
from tests.e2e.conftest import WORLD, build_world
from tests.e2e.drivers.draft import join_all, live_pack_messages, pick_buttons, start_lobby, stored_picks
from tests.e2e.harness import BotProcess
from tests.fake_discord import FakeDiscord

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]


@pytest.fixture
async def two_shard_fake():
    fake = FakeDiscord(shard_count=2)
    await fake.start()
    build_world(fake)
    yield fake
    await fake.stop()


async def pick_one(fake, players) -> None:
    ready = await fake.wait_for(
        lambda: [(p, m[-1]) for p in players if (m := live_pack_messages(fake, p))], what="a pack DM"
    )
    player, message = ready[0]
    result = await fake.click(player, message, pick_buttons(message)[0]["custom_id"])
    assert "you took" in result.content, result.content


async def test_two_shard_processes_share_one_postgres_database(two_shard_fake, tmp_path):
    fake = two_shard_fake
    assert (WORLD.guild >> 22) % 2 == 1, "the test server must live on shard 1"
    async for url in create_scratch_database("postgresql", tmp_path):
        shard0 = BotProcess(fake, url, tmp_path, shard=0)
        shard1 = BotProcess(fake, url, tmp_path, shard=1)
        try:
            # Both start (and migrate) at once: the advisory lock lets one migrate, the other wait.
            await asyncio.gather(shard0.start(), shard1.start())
            players = WORLD.players[:3]
            pod_id, lobby = await start_lobby(fake, WORLD, packs=1, pack_size=4, seats=3, pick_mode="buttons")
            await join_all(fake, lobby, pod_id, players)  # shard 1 begins the draft and DMs the packs

            for _ in range(4):
                await pick_one(fake, players)  # DM buttons: handled by shard 0's process

            await shard1.kill()  # the server's shard dies; DMs keep working
            for _ in range(4):
                await pick_one(fake, players)
            await shard1.start()

            status = await fake.slash(WORLD.admin, "draft status", guild_id=WORLD.guild, channel_id=WORLD.channel)
            assert "8 of 12 picks made" in status.content

            for _ in range(4):
                await pick_one(fake, players)
            log = await stored_picks(shard0)
            assert log["status"] == "complete" and len(log["picks"]) == 12
            assert {entry["user_id"] for entry in log["picks"]} == set(players)
            assert "synced" in shard0.log_text() and "synced" not in shard1.log_text()  # shard 0 owns commands
        finally:
            await asyncio.gather(shard0.stop(), shard1.stop())
            print(f"----- shard 0 -----\n{shard0.log_tail(60)}\n----- shard 1 -----\n{shard1.log_tail(60)}")
