"""The end of a draft through the fake Discord, in both pick modes (issue 22, items 5 and 6): a
player who made their last pick while the others draft is told so (not "waiting for the next pack"),
and when the draft ends every player's pack message turns into their pool; the channel's summary
pings the players, since an edit notifies nobody. Letters clicked meanwhile say where the player
stands."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.common import embed_text
from tests.e2e.drivers.draft import (
    live_pack_messages,
    live_reaction_packs,
    pick_buttons,
    pick_by_reaction,
    toggle_letter,
)
from tests.e2e.test_draft_lifecycle import begin_pod, wait_complete

pytestmark = pytest.mark.e2e


def footer(message: dict) -> str:
    return ((message.get("embeds") or [{}])[0].get("footer") or {}).get("text", "")


def pack_of(fake, mode: str, player: int) -> dict | None:
    live = live_pack_messages(fake, player) if mode == "buttons" else live_reaction_packs(fake, player)
    return live[-1] if live else None


async def pick(fake, mode: str, player: int) -> dict:
    """The player picks the first card of their pack; returns the message they picked on, as it is now."""
    message = await fake.wait_for(lambda: pack_of(fake, mode, player), what=f"a pack for {player}")
    if mode == "buttons":
        await fake.click(player, message, pick_buttons(message)[0]["custom_id"])
    else:
        await pick_by_reaction(fake, player, message, 0)
    return fake.message(message["id"])


def pool_file(fake, message: dict) -> list[str]:
    text = next(a for a in message["attachments"] if a["filename"].endswith(".txt"))
    return fake.attachment_bytes(text).decode().splitlines()


@pytest.mark.parametrize("mode", ["buttons", "reactions"])
async def test_a_finished_player_is_told_so_and_every_pack_message_turns_into_the_pool(fake, bot, world, mode):
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], bot=bot, packs=1, pack_size=3, pick_mode=mode)
    # Two seats, packs of three: a, b, a, b, a (a's last pick, b still drafting), b (the end).
    first = await pick(fake, mode, a)
    # Waiting: the one pack message will show the next pack; with buttons only, a new message will.
    assert footer(first) == ("Your next pack comes in a new message when it reaches you." if mode == "buttons"
                             else "Waiting for the next pack to reach you…")
    if mode == "reactions":  # a letter clicked while waiting names the player the next pack is with
        before = len(fake.dms(a))
        await toggle_letter(fake, a, first, 1)
        answer = await fake.wait_for(lambda: [m for m in fake.dms(a)[before:] if m.get("content")], what="the answer")
        assert answer[0]["content"].endswith(f"You have no pack right now: you are waiting on <@{b}>.")
        assert fake.pinged_users(answer[0]) == set()
    await pick(fake, mode, b)
    await pick(fake, mode, a)
    await pick(fake, mode, b)
    last = await pick(fake, mode, a)
    await fake.wait_for(lambda: "That was your last pick" in footer(fake.message(last["id"])), what="a's last pick")
    shown = fake.message(last["id"])
    assert "you took" in embed_text(shown) and "the draft's channel is told" in footer(shown)
    if mode == "reactions":
        before = len(fake.dms(a))
        await toggle_letter(fake, a, shown, 1)
        answer = await fake.wait_for(lambda: [m for m in fake.dms(a)[before:] if m.get("content")], what="the answer")
        assert "You have made all your picks: the draft goes on with the others" in answer[0]["content"]

    dms_before = {p: len(fake.dms(p)) for p in (a, b)}
    since = len(fake.rest_log)
    ending = await pick(fake, mode, b)
    await wait_complete(fake, world, pod_id)
    for player, message_id in ((a, last["id"]), (b, ending["id"])):
        await fake.wait_for(lambda m=message_id: "is complete: your pool" in embed_text(fake.message(m)),
                            what=f"{player}'s pack message turned into the pool")
        pool = fake.message(message_id)
        assert len(pool_file(fake, pool)) == 3 and "/draft export" in footer(pool)
        assert len(fake.dms(player)) == dms_before[player]  # an edit, no new DM
        assert not [m for m in fake.dms(player) if "Waiting for the next pack" in footer(m)]
    assert "Last pick" in embed_text(fake.message(ending["id"])) and "you took" in embed_text(fake.message(ending["id"]))
    summary = next(m for m in fake.messages(world.channel) if f"Draft #{pod_id} is complete" in (m.get("content") or ""))
    assert fake.pinged_users(summary) == {a, b} and "pack message" in summary["content"]
    # What the end cost: one edit of a's message; b's answer (a button's callback, or one edit).
    dm_calls = [c for c in fake.rest_log[since:] if c.path.startswith("/channels/")
                and not c.path.startswith(f"/channels/{world.channel}/") and "/reactions/" not in c.path]
    assert sorted(c.method for c in dm_calls) == (["PATCH"] if mode == "buttons" else ["PATCH", "PATCH"])
    if mode == "reactions":  # a letter clicked on the pool says the draft is over
        before = len(fake.dms(a))
        await toggle_letter(fake, a, fake.message(last["id"]), 2)
        answer = await fake.wait_for(lambda: [m for m in fake.dms(a)[before:] if m.get("content")], what="the answer")
        assert answer[0]["content"].startswith(f"Draft #{pod_id} is over: your pool is in your pack message")
