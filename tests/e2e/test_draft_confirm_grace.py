"""A reaction pick that leaves the player waiting holds its "you took …" edit back for a moment
(`PICK_CONFIRM_GRACE`, issue 11): a pack that reaches the player meanwhile shows both in one edit
and sends no "next pack" notice. The held confirmation survives kill -9. End to end through the
fake Discord; the grace is long here, so nothing depends on timing."""

from __future__ import annotations

import pytest

from bot.games.draft import service as drafts
from bot.store.db import Database
from tests.e2e.drivers.common import embed_text, eventually
from tests.e2e.drivers.draft import (
    age_last_picks,
    cards_shown,
    live_reaction_packs,
    pack_title,
    toggle_letter,
)
from tests.e2e.test_draft_lifecycle import begin_pod, players_with_a_pack

pytestmark = pytest.mark.e2e


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"PICK_CONFIRM_GRACE": "30"}  # longer than any test: only a pack or a restart shows it


async def picks_made(bot, pod_id: int) -> int:
    db = Database(bot.database_url)
    try:
        return await drafts.count_picks(db, pod_id)
    finally:
        await db.dispose()


def dm_calls(fake, user: int, since: int) -> list:
    dm = f"/channels/{fake.dm_channel_id(user)}/"
    return [c for c in fake.rest_log[since:] if c.path.startswith(dm)]


async def two_players_with_packs(fake, world, bot) -> tuple[int, int, int, dict, dict]:
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], bot=bot, packs=1, pack_size=3, pick_mode="reactions")
    await fake.wait_for(lambda: all(live_reaction_packs(fake, p) for p in (a, b)), what="both packs")
    for player in (a, b):
        message = live_reaction_packs(fake, player)[0]
        await fake.wait_for(lambda m=message: len(fake.reactions(m["id"])) == 3, what="the bot's letters")
    return pod_id, a, b, live_reaction_packs(fake, a)[0], live_reaction_packs(fake, b)[0]


async def test_a_pack_that_reaches_a_player_who_just_picked_is_one_edit_and_no_notice(fake, bot, world):
    pod_id, a, b, mine, theirs = await two_players_with_packs(fake, world, bot)
    card, title = cards_shown(mine)[1], pack_title(mine)
    since = len(fake.rest_log)
    await toggle_letter(fake, a, mine, 1)  # a picks and now waits for b's pack
    await eventually(lambda: _at_least(bot, pod_id, 1), what="a's pick committed")
    assert dm_calls(fake, a, since) == []  # the confirmation is held back

    await toggle_letter(fake, b, theirs, 0)  # b picks: b's pack goes to a, a's (passed before) shows for b
    await fake.wait_for(lambda: f"{title}: you took" in embed_text(fake.message(mine["id"]))
                        and "Pack 1, pick 2" in fake.message(mine["id"])["embeds"][0]["title"],
                        what="a's next pack, with a's pick on it")
    assert card in embed_text(fake.message(mine["id"]))
    assert live_reaction_packs(fake, a) == [fake.message(mine["id"])]
    calls = dm_calls(fake, a, since)
    assert [c.method for c in calls] == ["PATCH"], calls  # one edit: no "you took" edit, no notice
    assert not [m for m in fake.dms(a) if "your next pack" in (m.get("content") or "")]
    assert await players_with_a_pack(bot, pod_id, [a, b]) == {a, b}


async def test_a_held_confirmation_survives_kill_9_and_the_next_pack_then_notifies(fake, bot, world):
    pod_id, a, b, mine, theirs = await two_players_with_packs(fake, world, bot)
    title = pack_title(mine)
    await toggle_letter(fake, a, mine, 2)
    await eventually(lambda: _at_least(bot, pod_id, 1), what="a's pick committed")
    assert "you took" not in embed_text(fake.message(mine["id"]))
    await bot.kill()  # within the grace: the confirmation was never shown

    await bot.start()  # the startup sweep shows what the dead process held back
    await fake.wait_for(lambda: f"{title}: you took" in embed_text(fake.message(mine["id"])),
                        what="a's confirmation after the restart")
    assert "Waiting for the next pack" in fake.message(mine["id"])["embeds"][0]["footer"]["text"]
    assert live_reaction_packs(fake, a) == []

    await fake.wait_for(lambda: live_reaction_packs(fake, b), what="b's pack")
    await age_last_picks(bot, pod_id, 120, users=[a])  # a stepped away after that pick
    await toggle_letter(fake, b, live_reaction_packs(fake, b)[0], 0)  # the pack reaches a, who was waiting
    await fake.wait_for(lambda: live_reaction_packs(fake, a), what="a's next pack")
    await fake.wait_for(lambda: [m for m in fake.dms(a) if "your next pack" in (m.get("content") or "")],
                        what="the notification: a was shown the wait")
    assert await picks_made(bot, pod_id) == 2


async def _at_least(bot, pod_id: int, picks: int) -> bool:
    return await picks_made(bot, pod_id) >= picks
