"""Every message exactly once (issue 23): a kill -9 after Discord created a message, before the bot
recorded it, leaves one copy, not two.

A Vortex opening pick queues two messages in one transaction: the channel's opening message edited
to "Opening turn 2/…" and the next picker's first pick DM (with its buttons). The fake Discord makes
both and holds its answer to the DM, the bot is killed, and the restart sends both rows again (they
were never recorded): the edit shows once whatever happens, and with the DM row's nonce and
`enforce_nonce`, Discord answers with the message it created before (no MESSAGE_CREATE, no second
copy) and the bot records it. The DM's buttons work. Beyond Discord's
nonce window the restart makes a second copy: at least once, as the README says.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from bot.games.vortex import service as vortex
from bot.games.vortex import ui
from bot.store.db import Database
from bot.store.models import OutboxMessage
from tests.e2e.drivers.common import components, eventually
from tests.e2e.drivers.vortex import VortexDriver
from tests.fake_discord.constants import NONCE_WINDOW

pytestmark = pytest.mark.e2e
SEED = 20_251_123
CUBE_FILE = "\n".join([*(f"Once Card {i:02d}" for i in range(20)), "6 Island", "6 Forest"]).encode()


async def outbox_rows(database_url: str, *kinds: str) -> list[OutboxMessage]:
    db = Database(database_url)
    try:
        async with db.read() as session:
            query = select(OutboxMessage).where(OutboxMessage.kind.in_(kinds)).order_by(OutboxMessage.id)
            return list((await session.execute(query)).scalars().all())
    finally:
        await db.dispose()


@pytest.mark.parametrize(("window", "copies"), [(NONCE_WINDOW, 1), (0.0, 2)], ids=["within-window", "beyond-window"])
async def test_a_kill_before_sends_are_recorded_leaves_one_copy_of_each(fake, bot, world, window, copies):
    t = VortexDriver(fake, world, bot.database_url)
    try:
        added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                                 options={"name": "Once"}, attachments={"file": ("once.txt", CUBE_FILE)})
        assert "32 cards" in added.content, added.content
        lobby = await t.start(cube="Once", seed=SEED)
        await t.join_all(world.players[:2])
        await t.lobby(lobby, world.admin, "begin")
        state = await t.state()
        picker = t.user_of(state, state.draft.seat)
        other = next(u for u in world.players[:2] if u != picker)
        await t.wait_pick(picker, await t.offer())  # the deal's DM is out: the hold below is for the pick's
        channel_before, dms_before = len(fake.messages(world.channel)), len(fake.dms(other))

        # Discord creates the channel line and the DM; the bot never hears back about the DM.
        held = fake.hold_answer("POST", rf"^/channels/(?!{world.channel}/)\d+/messages$")
        await t.pick(picker)
        await asyncio.wait_for(held.arrived.wait(), 30)
        await bot.kill()
        held.release()
        opening = next(m for m in fake.messages(world.channel) if "has begun. Turn order" in m["content"])
        assert "Opening turn 2/" in opening["content"] and not fake.messages(world.channel)[channel_before:]
        [dm] = fake.dms(other)[dms_before:]
        assert components(dm, ui.PickButton, game=t.game_id)
        unrecorded = await outbox_rows(bot.database_url, vortex.ANNOUNCE, vortex.PICK)
        assert [(r.kind, r.status) for r in unrecorded[-2:]] == [(vortex.ANNOUNCE, "pending"), (vortex.PICK, "pending")]

        fake.nonce_window = window
        replays = len(fake.nonce_replays)
        await bot.start()  # sends both rows again, at once (they were queued before it started)

        async def recorded() -> list[OutboxMessage] | None:
            rows = (await outbox_rows(bot.database_url, vortex.ANNOUNCE, vortex.PICK))[-2:]
            return rows if all(r.status == "sent" for r in rows) else None

        rows = await eventually(recorded, timeout=30, what="the restart to record both rows as sent")
        dms = fake.dms(other)[dms_before:]
        assert not fake.messages(world.channel)[channel_before:] and len(dms) == copies  # the edit made no post
        if copies == 1:
            assert fake.nonce_replays[replays:] == [int(dm["id"])]  # answered again, not created
            assert [r.message_id for r in rows] == [int(opening["id"]), int(dm["id"])]  # what Discord returned
        else:
            assert fake.nonce_replays[replays:] == []
        assert [r.message_id for r in rows] == [int(opening["id"]), int(dms[-1]["id"])]

        # The DM's buttons work: the pick is made, and the game goes on.
        await t.pick(other, message=fake.message(dms[-1]["id"]))
        await t.wait_channel("Opening turn 3/")
        assert not fake.messages(world.channel)[channel_before:]
    finally:
        await t.close()
