"""A draft of the worst names a cube may hold — 200 characters each, with a masked link, a mass
ping and markdown — through the fake Discord, which refuses any message over Discord's limits
with a 400 as Discord does: every pack arrives, every pick lands, and nothing the bot shows
(packs, pools, the public summary) renders a link, pings anyone or overflows."""

from __future__ import annotations

import re

import pytest

from tests.e2e.drivers.common import message_text
from tests.e2e.drivers.draft import join_all, live_pack_messages, pick_buttons, start_lobby
from tests.e2e.test_battler import _long_name

pytestmark = pytest.mark.e2e

PLAYERS, PACKS, PACK_SIZE = 2, 2, 15
# The only links the bot makes are its own card links to Scryfall (the fake base in tests).
LINK_TARGET = re.compile(r"(?<!\\)\]\((?P<target>[^)\s]*)")


def shown_literally(text: str) -> bool:
    """No trap renders: links lead only to Scryfall, and no mass ping or markup is left unescaped."""
    targets = [m["target"] for m in LINK_TARGET.finditer(text)]
    return (all(t.startswith(("https://api.scryfall.com/", "http://127.0.0.1")) for t in targets)
            and "evil.example/phish)" not in text.replace("%2F", "/") and "@everyone" not in text
            and "**__~~||" not in text)


async def test_a_draft_of_200_character_trap_names(fake, bot, world):
    players = world.players[:PLAYERS]
    names = [_long_name(i) for i in range(PLAYERS * PACKS * PACK_SIZE)]
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Traps"}, attachments={"file": ("traps.txt", "\n".join(names).encode())})
    assert f"{len(names)} cards" in added.content, added.content
    pod_id, lobby = await start_lobby(fake, world, cube="Traps", packs=PACKS, pack_size=PACK_SIZE, seats=PLAYERS,
                                      pick_mode="buttons")
    await join_all(fake, lobby, pod_id, players)

    def ready() -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in players if (msgs := live_pack_messages(fake, p))]

    for _ in range(PLAYERS * PACKS * PACK_SIZE):
        player, message = (await fake.wait_for(ready, timeout=20, what="a pack DM"))[0]
        result = await fake.click(player, message, pick_buttons(message)[-1]["custom_id"])
        assert "you took" in result.content, result.content
    summary = await fake.wait_for(
        lambda: [m for m in fake.messages(world.channel) if "is complete" in (m.get("content") or "")],
        what="the public summary",
    )
    pools = [await fake.slash(p, "draft pool", guild_id=world.guild, channel_id=world.channel) for p in players]

    shown = [*summary, *(m for p in players for m in fake.dms(p)), *(r.message for r in pools if r.message)]
    bad = [message_text(m) for m in shown if not shown_literally(message_text(m))]
    assert shown and not bad, bad[0][:3000]
    # The summary pings the players (their pools are edits of their pack messages); nothing else pings.
    assert fake.pinged_users(summary[0]) == set(players)
    assert all(m.get("mentions") == [] and not m.get("mention_everyone") for m in shown if m not in summary)
    # Discord refused nothing: every send and edit went through the first time.
    assert [c for c in fake.calls() if c.status == 400] == []
