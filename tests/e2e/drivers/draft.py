"""Acting as draft players through the fake Discord (custom ids from `bot.games.draft.ui`)."""

from __future__ import annotations

import copy
import re
from datetime import datetime, timedelta

from sqlalchemy import select

from bot.games.draft import ui
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.store.db import Database
from bot.store.models import Deadline, OutboxMessage
from tests.e2e.drivers.common import components, embed_text
from tests.e2e.drivers.table import TableDriver
from tests.fake_discord import FakeDiscord

__all__ = ["DraftDriver", "age_last_picks", "age_waits", "card_of", "cards_shown", "download_log", "embed_text", "join_all",
           "live_pack_messages", "live_reaction_packs", "pack_title", "pick_buttons", "pick_by_reaction", "start_lobby",
           "stored_picks",
           "toggle_letter"]


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


def live_reaction_packs(fake: FakeDiscord, user_id: int) -> list[dict]:
    """The user's pack messages that show a pack to pick from by reaction now (a pick turns the
    one pack message into the next pack, or into "you took …" while the player waits)."""
    return [
        m for m in fake.dms(user_id)
        if any((e.get("footer") or {}).get("text", "").startswith("React with a letter") for e in m.get("embeds") or [])
    ]


def cards_shown(message: dict) -> list[str]:
    """The card names a pack message lists, in order ("🇦 [Name](link)" lines)."""
    return re.findall(r"^\S+ \[(.+?)\]\(", message["embeds"][0]["description"], flags=re.M)


def pack_title(message: dict) -> str:
    """"Pack 1, pick 3" of a pack message."""
    return re.search(r"Pack \d+, pick \d+", message["embeds"][0]["title"]).group(0)


async def toggle_letter(fake: FakeDiscord, user_id: int, message: dict, index: int) -> bool:
    """Click letter `index` on the message, as a player does: it adds the player's reaction, or
    removes the one they left there before. Returns True if it added."""
    emoji = ui.regional_indicator(index)
    added = user_id not in fake.reactions(message["id"]).get(emoji, set())
    if added:
        await fake.add_reaction(user_id, message, emoji)
    else:
        await fake.remove_reaction(user_id, message, emoji)
    return added


async def pick_by_reaction(fake: FakeDiscord, user_id: int, message: dict, index: int) -> str:
    """Pick card `index` by toggling its letter and wait for the bot's confirmation on the same
    message; returns the card."""
    message = fake.message(message["id"])
    card, shown = cards_shown(message)[index], pack_title(message)
    await toggle_letter(fake, user_id, message, index)
    await fake.wait_for(lambda: f"{shown}: you took" in embed_text(fake.message(message["id"])),
                        what=f"reaction pick by {user_id} from {shown}")
    return card


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


async def stored_picks(bot, pod_id: int | None = None) -> dict:
    """The draft's status and every pick in order (its seat, the seat's user id, card, pack and
    how it was made), read from the bot's own database (newest pod by default): what tests check
    the players' and bots' picks against. Players get logs without ids (`download_log`)."""
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            query = select(DraftPod) if pod_id is None else select(DraftPod).where(DraftPod.id == pod_id)
            pod = (await session.execute(query.order_by(DraftPod.id.desc()).limit(1))).scalar_one()
            seats = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod.id))).scalars().all()
            users = {row.seat: row.user_id for row in seats}
            picks = (await session.execute(select(DraftPick).where(DraftPick.pod_id == pod.id)
                                           .order_by(DraftPick.sequence))).scalars().all()
            return {"pod": pod.id, "status": pod.status,
                    "seats": [{"seat": row.seat, "user_id": row.user_id, "bot": row.is_bot} for row in seats],
                    "picks": [{"sequence": p.sequence, "seat": p.seat, "user_id": users.get(p.seat), "card": p.card,
                               "pack": p.pack_id, "round": p.round + 1, "pick": p.pick_number, "source": p.source}
                              for p in picks]}
    finally:
        await db.dispose()


async def download_log(fake: FakeDiscord, world, user: int, fmt: str, **options) -> tuple[str, bytes] | str:
    """`/draft log format:<fmt>` as `user`: the file's (name, bytes), or the refusal's text."""
    result = await fake.slash(user, "draft log", guild_id=world.guild, channel_id=world.channel,
                              options={"format": fmt, **options})
    message = result.message or result.followups[-1]
    assert result.ephemeral
    if not message.get("attachments"):
        return result.content
    attachment = message["attachments"][0]
    return attachment["filename"], fake.attachment_bytes(attachment)


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


async def age_last_picks(bot, pod_id: int, seconds: float, *, users: list[int]) -> None:
    """Pretend `users` made their last pick of `pod_id` `seconds` earlier (they stepped away): their
    seats' clocks move back in the bot's own database, as the passing of time looks to the bot."""
    db = Database(bot.database_url)
    try:
        async with db.write() as session:
            pod = (await session.execute(select(DraftPod).where(DraftPod.id == pod_id))).scalar_one()
            seats = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id))).scalars().all()
            chosen = {row.seat for row in seats if row.user_id in users}
            bookkeeping = copy.deepcopy(pod.bookkeeping)
            for seat, clock in enumerate(bookkeeping["seats"]):
                if seat in chosen and clock["last_pick_at"] is not None:
                    clock["last_pick_at"] = (datetime.fromisoformat(clock["last_pick_at"])
                                             - timedelta(seconds=seconds)).isoformat()
            pod.bookkeeping = bookkeeping
    finally:
        await db.dispose()
