"""Driving a draft pod's matches (`/pod …`) through the fake Discord: a small draft played out by
DM buttons, the pairing posts read back, reports confirmed or disputed with the kit's buttons."""

from __future__ import annotations

import re

from tests.e2e.drivers.draft import join_all, live_pack_messages, pick_buttons, start_lobby
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import flatten_components

PAIR = re.compile(r"<@(\d+)> vs <@(\d+)>")
BYE = re.compile(r"<@(\d+)> has a bye")
ROUND = re.compile(r"round (\d+) of (\d+)")


async def pod(fake: FakeDiscord, world, user: int, command: str, **options):
    return await fake.slash(user, f"pod {command}", guild_id=world.guild, channel_id=world.channel, options=options)


async def run_draft(fake: FakeDiscord, world, players: list[int], **options) -> int:
    """A 1 × 3 draft of `players` (and any `bots`), every pick a DM button; returns the pod id."""
    options.setdefault("packs", 1)
    options.setdefault("pack_size", 3)
    pod_id, lobby = await start_lobby(fake, world, **options)
    await join_all(fake, lobby, pod_id, players)
    picks, total = 0, len(players) * options["packs"] * options["pack_size"]

    def ready() -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in players if (msgs := live_pack_messages(fake, p))]

    while picks < total:
        player, message = (await fake.wait_for(ready, timeout=20, what="a pack DM"))[0]
        result = await fake.click(player, message, pick_buttons(message)[0]["custom_id"])
        assert "you took" in result.content, result.content
        picks += 1
    await fake.wait_for(lambda: any("is complete" in m.get("content", "") for m in fake.messages(world.channel)),
                        what="the draft summary")
    return pod_id


async def pairings(fake: FakeDiscord, world, round_number: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Round `round_number`'s pairing post: its pairs and byes."""
    def post() -> dict | None:
        return next((m for m in fake.messages(world.channel)
                     if (found := ROUND.search(m.get("content", ""))) and int(found.group(1)) == round_number), None)

    message = await fake.wait_for(post, timeout=20, what=f"round {round_number}'s pairings")
    text = message["content"]
    return [(int(a), int(b)) for a, b in PAIR.findall(text)], [int(p) for p in BYE.findall(text)]


async def report(fake: FakeDiscord, world, user: int, won: int, lost: int):
    return await pod(fake, world, user, "report", won=won, lost=lost)


def button(message: dict, label: str) -> str:
    return next(c["custom_id"] for c in flatten_components(message.get("components")) if c.get("label") == label)


async def report_and_confirm(fake: FakeDiscord, world, a: int, b: int, won: int, lost: int) -> None:
    reported = await report(fake, world, a, won, lost)
    assert reported.message is not None and "confirm or dispute" in reported.content, reported.content
    confirmed = await fake.click(b, reported.message, button(reported.message, "Confirm"))
    assert "confirmed" in confirmed.content, confirmed.content


def final_post(fake: FakeDiscord, channel: int) -> dict | None:
    return next((m for m in fake.messages(channel) if "is over" in m.get("content", "")
                 and any("Final standings" in (e.get("title") or "") for e in m.get("embeds") or [])), None)
