"""A button pick in a DM whose next pack is waiting is one write transaction: the pick and the
record that the message picked on shows the next pack (issue 36). That record is ahead of Discord
until the interaction's answer shows it, so a kill -9 between the two leaves the restart to edit
the message to the next pack: no new DM, no pick lost, no pack stuck."""

from __future__ import annotations

import asyncio

import pytest

from bot.games.draft import service as drafts
from bot.store.db import Database
from tests.e2e.drivers.draft import live_pack_messages, pack_title, pick_buttons
from tests.e2e.test_draft_lifecycle import begin_pod

pytestmark = pytest.mark.e2e
CALLBACK = r"^/interactions/\d+/[^/]+/callback$"


async def picks_made(bot, pod_id: int) -> int:
    db = Database(bot.database_url)
    try:
        return await drafts.count_picks(db, pod_id)
    finally:
        await db.dispose()


async def two_players_a_waiting_pack(fake, world, bot) -> tuple[int, int, dict]:
    """a's next pack is already waiting (b picked first): a's pick by button shows it in place."""
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], bot=bot, packs=1, pack_size=3, pick_mode="buttons")
    await fake.wait_for(lambda: all(live_pack_messages(fake, p) for p in (a, b)), what="both packs")
    theirs = live_pack_messages(fake, b)[0]
    await fake.click(b, theirs, pick_buttons(theirs)[0]["custom_id"])
    return pod_id, a, live_pack_messages(fake, a)[0]


async def test_a_button_pick_shows_the_waiting_pack_in_place(fake, bot, world):
    pod_id, a, mine = await two_players_a_waiting_pack(fake, world, bot)
    dms = len(fake.dms(a))
    result = await fake.click(a, mine, pick_buttons(mine)[0]["custom_id"])
    assert result.message is not None
    assert pack_title(fake.message(mine["id"])) == "Pack 1, pick 2"
    assert pick_buttons(fake.message(mine["id"]))
    assert len(fake.dms(a)) == dms  # in place: no new DM
    assert await picks_made(bot, pod_id) == 2


@pytest.mark.own_bot
async def test_a_button_picks_answer_lost_to_kill_9_is_shown_on_that_message_after_the_restart(fake, bot, world):
    pod_id, a, mine = await two_players_a_waiting_pack(fake, world, bot)
    dms = len(fake.dms(a))
    held = fake.hold_next("POST", CALLBACK)  # the answer never reaches Discord
    click = asyncio.ensure_future(fake.click(a, mine, pick_buttons(mine)[0]["custom_id"]))
    await asyncio.wait_for(held.arrived.wait(), 30)
    await bot.kill()
    held.release()
    click.cancel()
    await asyncio.gather(click, return_exceptions=True)
    assert pack_title(fake.message(mine["id"])) == "Pack 1, pick 1"  # Discord shows the pick's pack still
    assert await picks_made(bot, pod_id) == 2  # the pick was made

    await bot.start()  # the startup sweep edits the message to what the database says it shows
    await fake.wait_for(lambda: pack_title(fake.message(mine["id"])) == "Pack 1, pick 2", what="a's next pack, in place")
    assert len(fake.dms(a)) == dms
    now = fake.message(mine["id"])
    result = await fake.click(a, now, pick_buttons(now)[0]["custom_id"])  # and its buttons pick
    assert result.message is not None
    assert await picks_made(bot, pod_id) == 3
