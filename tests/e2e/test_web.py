"""The web pages from Discord, end to end: the real bot serving its site in its own process
(`WEB_PORT`), `/config set web on|off`, `/web link` (ephemeral, a "View on the web" link button),
`/web rotate` (Manage Server, asks first; old links then 404), and `/leaderboard`'s link button to
the leaderboard page, which shows the players' display names."""

from __future__ import annotations

import asyncio
import socket
import time

import aiohttp
import pytest

from bot.kit import event_results
from bot.store.db import Database
from bot.store.models import EventResult

pytestmark = pytest.mark.e2e
LABEL = "View on the web"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def bot_env(request) -> dict[str, str]:
    if "without_a_site" in request.node.name:
        return {}
    port = free_port()  # each test's bot serves its own port
    return {"WEB_PORT": str(port), "WEB_HOST": "127.0.0.1", "WEB_PUBLIC_URL": f"http://127.0.0.1:{port}"}


async def run(fake, world, user: int, command: str, **options):
    return await fake.slash(user, command, guild_id=world.guild, channel_id=world.channel, options=options or None)


def link_of(result) -> str | None:
    links = [c for c in result.components if c.get("style") == 5]
    assert len(links) <= 1 and all(c["label"] == LABEL for c in links), result.components
    return links[0]["url"] if links else None


def button(result, label: str) -> str:
    return next(c["custom_id"] for c in result.components if c.get("label") == label)


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def test_turn_on_link_rotate_and_turn_off(fake, bot, world, bot_env):
    off = await run(fake, world, world.member, "web link")
    assert off.ephemeral and "/config set web on" in off.content and link_of(off) is None

    on = await run(fake, world, world.admin, "config set", web="on")
    assert on.ephemeral and "Settings saved" in on.content and "/web link" in on.content, on.content

    shared = await run(fake, world, world.member, "web link")
    url = link_of(shared)
    assert shared.ephemeral and url and url.startswith(bot_env["WEB_PUBLIC_URL"] + "/s/"), shared.content
    assert url in shared.content
    status, html = await get(url)
    assert status == 200 and "MTG Club" in html

    refused = await run(fake, world, world.member, "web rotate")
    assert refused.ephemeral and "Manage Server" in refused.content and refused.components == []

    prompt = await run(fake, world, world.admin, "web rotate")
    assert prompt.ephemeral and "new address" in prompt.content
    rotated = await fake.click(world.admin, prompt.message, button(prompt, "Give a new address"))
    assert "old links no longer work" in rotated.content
    new_url = link_of(await run(fake, world, world.member, "web link"))
    assert new_url != url and new_url in rotated.content
    assert (await get(url))[0] == 404
    assert (await get(new_url))[0] == 200

    prompt = await run(fake, world, world.admin, "config set", web="off")
    assert "stops working" in prompt.content
    done = await fake.click(world.admin, prompt.message, button(prompt, "Turn them off"))
    assert "Settings saved" in done.content
    assert (await get(new_url))[0] == 404
    assert "/config set web on" in (await run(fake, world, world.member, "web link")).content


async def until(check, timeout: float = 10.0):
    """Wait (bounded) until `check()` returns something true; return it."""
    deadline = time.monotonic() + timeout
    while not (found := await check()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)  # polling the site for a condition, bounded by `timeout`
    return found


@pytest.mark.own_bot
async def test_leaderboard_has_a_link_to_its_page_with_names(fake, bot, world):
    db = Database(bot.database_url)
    try:
        async with db.write() as session:
            for place, user in enumerate((world.member, world.players[0]), start=1):
                session.add(EventResult(guild_id=world.guild, format="421", event_id=1, event_name="Autumn league",
                                        user_id=user, placement=place, points=float(3 - place), score=None))
            await event_results.rebuild_totals(session, world.guild)  # the leaderboard reads the results' totals
    finally:
        await db.dispose()

    assert link_of(await run(fake, world, world.member, "leaderboard")) is None  # the site is off
    await run(fake, world, world.admin, "config set", web="on")
    board = await run(fake, world, world.member, "leaderboard", format="421")
    url = link_of(board)
    assert url and "/leaderboard?format=421" in url, board.components

    async def named():  # the member's display name, remembered from their commands
        status, html = await get(url)
        return status == 200 and "member" in html and html

    html = await until(named)
    assert "Player …" in html  # world.players[0] never used a command: no name known


async def test_pages_turned_on_without_a_site_say_so(fake, bot, world):
    on = await run(fake, world, world.admin, "config set", web="on")
    assert "Settings saved" in on.content and "has not set up its web site yet" in on.content, on.content
    link = await run(fake, world, world.member, "web link")
    assert link.ephemeral and "has not set up its web site" in link.content and link_of(link) is None
    assert link_of(await run(fake, world, world.member, "leaderboard")) is None


async def test_help_links_each_formats_rules_on_the_servers_site_while_it_is_on(fake, bot, world, bot_env):
    """Issue 35 item 10: `/help format:` links the full rules on the server's site while it is on (the
    page is served there), and as configured without a site (here: the repository's file, named)."""
    def rules_of(result) -> str:
        return str(result.message["embeds"][0]["fields"][-1]["value"])

    before = await run(fake, world, world.member, "help", format="421")
    assert "`docs/rules/421.md` in the bot's repository" in rules_of(before)
    await run(fake, world, world.admin, "config set", web="on")
    shown = await run(fake, world, world.member, "help", format="421")
    url = f"{bot_env['WEB_PUBLIC_URL']}/rules/421"
    assert f"[421 on the web]({url})" in rules_of(shown), rules_of(shown)
    code, html = await get(url)
    assert code == 200 and "<h1>421: the rules</h1>" in html
    in_dms = await fake.slash(world.member, "help", options={"format": "421"})  # no server, no site
    assert "docs/rules/421.md" in rules_of(in_dms)
