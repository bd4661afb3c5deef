"""Outbox rows a draft queued before their payloads were typed (`bot.kit.events`
`Payload`s) may still be waiting after an upgrade: each reads as the typed payload the service
queues now, and the renderers that need no database say the same as they did."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from bot.games.draft import FORMAT
from bot.games.draft import service as drafts
from bot.games.draft.service.deliveries import pack_message
from bot.kit import events, outbox
from bot.kit.delivery import Outbox
from bot.kit.formats import renderers_of

NOW = datetime(2026, 1, 1, tzinfo=UTC)
PROMPT = {
    "pod_id": 3, "guild_id": 1, "channel_id": 2, "user_id": 7, "seat": 1, "pack_id": 4, "pack_pick": 2, "round": 0,
    "pick_number": 3, "pack_size": 15, "packs": 2, "cards": ["Card A", "Card B"], "queued_behind": 0,
    "pick_mode": "both", "dm_closed": False, "direction": "left",
}
PICKED = {"card": "Card Z", "round": 0, "pick_number": 2}


async def rendered(kind: str, payload: dict, *, user_id: int | None = 7, channel_id: int | None = None):
    message = outbox.Message(kind, payload, user_id=user_id, channel_id=channel_id, guild_id=1)
    queued = outbox.Queued(9, message, 0, NOW)
    out = await Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))._render(queued, True)
    mentions = out.allowed_mentions.to_dict() if out.allowed_mentions is not None else None
    return out.content, out.edit, mentions


def test_old_pack_rows_read_as_the_typed_prompt_with_what_else_they_said():
    prompt = drafts.PackPrompt(**{**PROMPT, "cards": ("Card A", "Card B")})
    assert drafts.PackPost.from_payload(PROMPT) == drafts.pack_post(prompt)
    assert drafts.prompt_of(outbox.Queued(1, outbox.Message(drafts.PACK, PROMPT, user_id=7), 0, NOW)) == prompt
    old = {**PROMPT, "resend": True, "rejoined": True, "picked": PICKED}
    post = drafts.PackPost.from_payload(old)
    assert post.resend and post.rejoined and post.picked == drafts.Picked("Card Z", 0, 2)
    # A row queued now holds the same keys (and the options at their defaults); the hand-written
    # payloads of the pick path are what the kit's codec writes.
    assert drafts.pack_post(prompt).to_payload() == {**PROMPT, "resend": False, "picked": None, "rejoined": False}
    for options in ({}, {"resend": True}, {"rejoined": True}):
        queued = pack_message(prompt, **options).payload
        assert queued == events.encode(drafts.pack_post(prompt, **options)) == drafts.pack_post(prompt, **options).to_payload()
    assert prompt.to_payload() == events.encode(prompt)
    with_pick = drafts.pack_post(prompt, picked=drafts.Picked("Card Z", 0, 2))
    assert with_pick.to_payload() == events.encode(with_pick) and with_pick.to_payload()["picked"] == PICKED


def test_old_rows_of_every_other_draft_kind_read_as_their_payloads():
    assert drafts.MessageRef.from_payload({"channel_id": 5, "message_id": 6}) == drafts.MessageRef(5, 6)
    assert drafts.ClosePack.from_payload(
        {"pod_id": 3, "pack_id": 4, "pack_pick": 2, "reason": "timeout", **PICKED}
    ) == drafts.ClosePack(3, 4, 2, drafts.Closed.TIMEOUT, "Card Z", 0, 2)
    assert drafts.ClosePack.from_payload({"pod_id": 3, "pack_id": 4, "pack_pick": 2, "reason": "bot"}) == (
        drafts.ClosePack(3, 4, 2, drafts.Closed.BOT))
    assert drafts.FinalPool.from_payload({"pod_id": 3, "seat": 1, "picked": PICKED}) == (
        drafts.FinalPool(3, 1, drafts.Picked("Card Z", 0, 2)))
    assert drafts.FinalPool.from_payload({"pod_id": 3}) == drafts.FinalPool(3, None)  # no seat: a new DM
    assert drafts.PodRef.from_payload({"pod_id": 3}) == drafts.PodRef(3)
    assert drafts.Confirmation.from_payload(
        {"pod_id": 3, "seat": 1, "channel_id": 5, "message_id": 6, "pack_id": 4, "pack_pick": 2, **PICKED,
         "done": True}
    ) == drafts.Confirmation(3, 1, 5, 6, 4, 2, "Card Z", 0, 2, done=True)
    confirmation = drafts.Confirmation(3, 1, 5, 6, 4, 2, "Card Z", 0, 2)
    assert confirmation.to_payload() == events.encode(confirmation)
    assert outbox.DmsClosed.from_payload({"pod_id": 3, "user_id": 7}) == outbox.DmsClosed(7)


async def test_old_rows_render_as_they_did():
    assert (await rendered(drafts.REMINDER, {"pod_id": 3}))[0] == (
        "⏰ Half your pick time is gone in draft #3: your pack is waiting above.")
    note = {"pod_id": 3, **PICKED, "to_bot": True, "completed": False}
    assert (await rendered(drafts.TIMED_OUT, note))[0] == (
        "⌛ Time ran out in draft #3: I picked **Card Z** for you. After repeated time-outs a bot now plays your "
        "seat: `/draft rejoin` takes it back at once (what the bot picks meanwhile stays in your pool).")
    organizer = {"pod_id": 3, "player_id": 7, "to_organizer": True, "completed": True}
    assert (await rendered(drafts.TIMED_OUT, organizer, user_id=4))[0] == (
        "Draft #3: <@7> timed out repeatedly; a bot took their seat.")
    content, _, mentions = await rendered(drafts.DMS_CLOSED, {"pod_id": 3, "user_id": 7}, user_id=None, channel_id=2)
    assert content == ("<@7>, I can't DM you your draft pack. Turn on Direct Messages from server members, then run "
                       "`/draft resend`. Meanwhile, pick here with `/draft pick`.")
    assert mentions["users"] == [7]
