"""Acting as draft players through the fake Discord."""

from __future__ import annotations

import json
import re

from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import flatten_components

PICK_ID = re.compile(r"^dp:(\d+):(\d+):(\d+):(\d+)$")


def pick_buttons(message: dict) -> list[dict]:
    return [c for c in flatten_components(message.get("components")) if PICK_ID.match(c.get("custom_id") or "")]


def live_pack_messages(fake: FakeDiscord, user_id: int) -> list[dict]:
    """The user's DMs that still offer picks (a pick edits the buttons away)."""
    return [m for m in fake.dms(user_id) if pick_buttons(m)]


def card_of(button: dict) -> str:
    return button["label"].split(" · ", 1)[1]


def embed_text(message: dict) -> str:
    return "\n".join(f"{e.get('title', '')}\n{e.get('description', '')}" for e in message.get("embeds") or [])


async def start_lobby(fake: FakeDiscord, world, **options) -> tuple[int, dict]:
    options.setdefault("cube", "goldfish")
    result = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel, options=options)
    lobby = result.message
    assert lobby is not None, result.content
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    return pod_id, lobby


async def join_all(fake: FakeDiscord, lobby: dict, pod_id: int, players: list[int]) -> None:
    for player in players:
        await fake.click(player, lobby, f"draft:lobby:{pod_id}:join")


async def download_log(fake: FakeDiscord, world) -> dict:
    result = await fake.slash(world.admin, "draft log", guild_id=world.guild, channel_id=world.channel)
    message = result.message or result.followups[-1]
    return json.loads(fake.attachment_bytes(message["attachments"][0]))
