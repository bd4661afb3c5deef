"""Acting as draft players through the fake Discord (custom ids from `bot.ui.draft`)."""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timedelta

from sqlalchemy import select

from bot.store.db import Database
from bot.store.models import Deadline, DraftPod, DraftSeat, OutboxMessage
from bot.ui import draft as ui
from tests.e2e.drivers.common import components, embed_text
from tests.e2e.drivers.table import TableDriver
from tests.fake_discord import FakeDiscord

__all__ = ["DraftDriver", "age_waits", "card_of", "download_log", "embed_text", "join_all", "live_pack_messages",
           "pick_buttons", "start_lobby"]


class DraftDriver(TableDriver):
    command = "draft"
    lobby_button = ui.LobbyButton


def pick_buttons(message: dict) -> list[dict]:
    return components(message, ui.PickButton)


def live_pack_messages(fake: FakeDiscord, user_id: int) -> list[dict]:
    """The user's DMs that still offer picks (a pick edits the buttons away)."""
    return [m for m in fake.dms(user_id) if pick_buttons(m)]


def card_of(button: dict) -> str:
    return button["label"].split(" · ", 1)[1]


async def start_lobby(fake: FakeDiscord, world, **options) -> tuple[int, dict]:
    options.setdefault("cube", "goldfish")
    result = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel, options=options)
    lobby = result.message
    assert lobby is not None, result.content
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    return pod_id, lobby


async def join_all(fake: FakeDiscord, lobby: dict, pod_id: int, players: list[int]) -> None:
    for player in players:
        await fake.click(player, lobby, ui.LobbyButton.custom_id_for(table=pod_id, action="join"))


async def download_log(fake: FakeDiscord, world) -> dict:
    result = await fake.slash(world.admin, "draft log", guild_id=world.guild, channel_id=world.channel)
    message = result.message or result.followups[-1]
    return json.loads(fake.attachment_bytes(message["attachments"][0]))


async def age_waits(bot, pod_id: int, seconds: float, *, users: list[int] | None = None) -> int:
    """Pretend `seconds` passed for the seats of `pod_id` that wait for a pack (all, or `users`'):
    their clocks, the pod's timer deadline and the messages queued for them move back in the bot's
    own database, which is exactly what the passing of time looks like to the bot. Returns how
    many seats were waiting."""
    db = Database(bot.database_url)
    back = timedelta(seconds=seconds)
    try:
        async with db.write() as session:
            pod = (await session.execute(select(DraftPod).where(DraftPod.id == pod_id))).scalar_one()
            seats = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id))).scalars().all()
            chosen = {row.seat for row in seats if users is None or row.user_id in users}
            bookkeeping = copy.deepcopy(pod.bookkeeping)
            aged = 0
            for seat, clock in enumerate(bookkeeping["seats"]):
                if seat in chosen and clock["waiting_since"] is not None:
                    clock["waiting_since"] = (datetime.fromisoformat(clock["waiting_since"]) - back).isoformat()
                    aged += 1
            if bookkeeping.get("timer_due"):
                bookkeeping["timer_due"] = (datetime.fromisoformat(bookkeeping["timer_due"]) - back).isoformat()
            pod.bookkeeping = bookkeeping
            timer = select(Deadline).where(Deadline.kind == "draft.timer", Deadline.key == str(pod_id))
            for deadline in (await session.execute(timer)).scalars():
                deadline.due_at = deadline.due_at - back
            waiting_users = [row.user_id for row in seats if row.seat in chosen]
            for row in (await session.execute(
                select(OutboxMessage).where(OutboxMessage.status == "pending", OutboxMessage.user_id.in_(waiting_users))
            )).scalars():
                row.next_attempt_at = row.next_attempt_at - back
            return aged
    finally:
        await db.dispose()
