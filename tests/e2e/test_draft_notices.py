"""The "📬 your next pack" notice in a reaction draft (issue 25, item 8), as the player reads their
DMs: it is a reply to the pack message (Discord shows a jump link to it), the player has at most
one in sight (each deletes the one before; one already gone is fine), and a player who picked
moments ago gets none (the pack message's edit is enough). End to end through the fake Discord."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.draft import age_last_picks, live_reaction_packs, pack_title, pick_by_reaction
from tests.e2e.test_draft_lifecycle import begin_pod, wait_complete
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e

AWAY = 120  # seconds since the player's last pick: longer than the bot's "watching" minute


def notices(fake, user: int) -> list[dict]:
    """The notices the player can see in their DMs (deleted ones are gone)."""
    return [m for m in fake.dms(user) if "your next pack" in (m.get("content") or "")]


def notice_posts(fake, user: int, since: int = 0) -> list:
    dm = f"/channels/{fake.dm_channel_id(user)}/messages"
    return [c for c in fake.rest_log[since:] if c.method == "POST" and c.path == dm
            and "your next pack" in ((c.json or {}).get("content") or "")]


async def picks_then_waits(fake, player: int) -> None:
    await pick_by_reaction(fake, player, live_reaction_packs(fake, player)[0], 0)


async def passes_to(fake, picker: int, waiting: int, title: str) -> dict:
    """`picker` picks; the pack they pass reaches `waiting`, whose pack message shows it (`title`)."""
    await pick_by_reaction(fake, picker, live_reaction_packs(fake, picker)[0], 0)
    [shown] = await fake.wait_for(
        lambda: [m for m in live_reaction_packs(fake, waiting) if pack_title(m) == title],
        what=f"{title} on the waiting player's pack message")
    return shown


async def test_a_notice_replies_to_the_pack_message_replaces_the_last_and_skips_a_watching_player(fake, bot, world):
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], bot=bot, packs=1, pack_size=5, pick_mode="reactions")
    await fake.wait_for(lambda: all(live_reaction_packs(fake, p) for p in (a, b)), what="both pack messages")
    pack_message = live_reaction_packs(fake, a)[0]

    # a picks, waits, and steps away; b's pick passes a pack to a.
    await picks_then_waits(fake, a)
    await age_last_picks(bot, pod_id, AWAY, users=[a])
    await passes_to(fake, b, a, "Pack 1, pick 2")
    [first] = await fake.wait_for(lambda: notices(fake, a), what="a's notice")
    assert first["content"] == (f"📬 Draft #{pod_id}: your next pack (pack 1, pick 2) is in your pack message (the "
                                "one this replies to): react with its letter.")
    # A reply to the pack message: Discord shows that message above it, with a jump link.
    assert first["message_reference"]["message_id"] == pack_message["id"]
    assert first["referenced_message"]["id"] == pack_message["id"]
    assert fake.pinged_users(first) == set()
    assert [m["id"] for m in live_reaction_packs(fake, a)] == [pack_message["id"]]  # still one pack message

    # Again: the new notice replaces the old one, which is deleted.
    await picks_then_waits(fake, a)
    await age_last_picks(bot, pod_id, AWAY, users=[a])
    await passes_to(fake, b, a, "Pack 1, pick 3")
    [second] = await fake.wait_for(lambda: [m for m in notices(fake, a) if "pick 3)" in m["content"]],
                                   what="a's second notice")
    await fake.wait_for(lambda: notices(fake, a) == [second], what="the first notice deleted")
    assert second["message_reference"]["message_id"] == pack_message["id"]
    deleted = [c for c in fake.rest_log if c.method == "DELETE" and c.path.endswith(f"/messages/{first['id']}")]
    assert len(deleted) == 1

    # A notice already gone (deleted by hand here) is fine: the next one comes all the same.
    fake.delete_message(second)
    await picks_then_waits(fake, a)
    await age_last_picks(bot, pod_id, AWAY, users=[a])
    await passes_to(fake, b, a, "Pack 1, pick 4")
    [third] = await fake.wait_for(lambda: notices(fake, a), what="a's third notice")
    assert "pick 4)" in third["content"] and third["message_reference"]["message_id"] == pack_message["id"]
    assert [c.status for c in fake.rest_log if c.method == "DELETE" and c.path.endswith(f"/messages/{second['id']}")
            ] == [404]

    # a picked moments ago: the pack that reaches them now is only the pack message's edit.
    since = len(fake.rest_log)
    await picks_then_waits(fake, a)
    await passes_to(fake, b, a, "Pack 1, pick 5")
    # (Finished first: a notice would have been sent right after that edit, long before the end.)
    await picks_then_waits(fake, a)
    await pick_by_reaction(fake, b, live_reaction_packs(fake, b)[0], 0)
    await wait_complete(fake, world, pod_id)
    assert notice_posts(fake, a, since) == [] and notices(fake, a) == [third]
    assert len(notice_posts(fake, a)) == 3 and notice_posts(fake, b) == []  # b always picked on their own pack
    nothing_logged_as_error(bot)
