"""Outbox rows a Goldfish event queued before their payloads were typed (`bot.kit.events` `Payload`s)
may still be waiting after an upgrade: each reads as the typed payload the service queues now, and
the renderers that need no database say the same as they did."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from bot.games.goldfish import FORMAT
from bot.games.goldfish import service as goldfish
from bot.kit import outbox
from bot.kit.delivery import Outbox
from bot.kit.formats import renderers_of
from bot.kit.text import escape

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_old_goldfish_rows_read_as_their_payloads():
    told = outbox.telling({"event_id": 12}, 4, "the final standings of **Fish**")
    assert goldfish.EventRef.from_payload(told) == goldfish.EventRef(12)
    assert goldfish.Rejected.from_payload({"event_id": 12, "event_name": "Fish", "reason": "no"}) == (
        goldfish.Rejected(12, "Fish", "no"))


async def test_an_old_rejection_renders_as_it_did():
    rejected = {"event_id": 12, "event_name": "Fish **x**", "reason": "no <@1>"}
    queued = outbox.Queued(9, outbox.Message(goldfish.REJECTED, rejected, user_id=7, guild_id=1), 0, NOW)
    out = await Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))._render(queued, True)
    assert out.content == (
        f"Your score in **{escape('Fish **x**')}** was rejected by the organizer: {escape('no <@1>')}\n"
        "You can report again with `/goldfish report` until the event ends.")
