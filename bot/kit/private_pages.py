"""A player's own web pages (their pool of a draft, …), owed to them by DM when their event ends.

A format whose event has pages of each player's own (a `registry.private_page` of the web pages)
queues the links in the transaction that ends the event (`queue_links`), like any message it owes:
one outbox row per player, sent once. Only while the server's pages are on. The row carries what
the link shows, not the link: the web layer renders it when it is sent (`PRIVATE_LINK`, rendered
by `bot.server.web`), signing it with the server's key then, so the kit knows nothing of the site.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import outbox
from bot.kit.events import Payload
from bot.store.models import GuildSettings

PRIVATE_LINK = "web.private_link"


@dataclass(frozen=True)
class PrivateLink(Payload):
    """A DM to one player: the signed link to their page `page` (a `registry.private_page` kind) of
    object `ref`, which `title` names ("Draft #12")."""

    page: str
    ref: int
    title: str


async def site_is_on(session: AsyncSession, guild_id: int) -> bool:
    address = select(GuildSettings.web_address).where(GuildSettings.guild_id == guild_id)
    return (await session.execute(address)).scalar_one_or_none() is not None


async def queue_links(session: AsyncSession, guild_id: int, *, page: str, ref: int, title: str,
                      user_ids: Iterable[int]) -> list[outbox.Queued]:
    """In the transaction that ends the event: each of `user_ids` is owed their link by DM, once.
    Nothing while the server's pages are off."""
    user_ids = list(dict.fromkeys(user_ids))
    if not user_ids or not await site_is_on(session, guild_id):
        return []
    payload = PrivateLink(page, ref, title).to_payload()
    return await outbox.queue(session, *(outbox.Message(PRIVATE_LINK, payload, user_id=user_id, guild_id=guild_id)
                                         for user_id in user_ids))
