"""The names the pages show, the link buttons and signed links other code asks for, and the site
served alone (`python -m bot.web`) by several processes on one database."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.web import access, buttons, links, names
from tests.common import GUILD, OTHER_GUILD, PLAYERS
from tests.e2e.test_web import free_port
from tests.web.helpers import add_results, site_settings

ROOT = Path(__file__).resolve().parents[2]


async def test_names_are_remembered_per_server_and_updated(db):
    await names.remember(db, GUILD, PLAYERS[0], "  Alice   the\u3000Great ")
    await names.remember(db, OTHER_GUILD, PLAYERS[0], "Alicia")
    await names.remember(db, GUILD, PLAYERS[1], "Bob")
    await names.remember(db, GUILD, PLAYERS[1], "Robert " + "x" * 200)
    await names.remember(db, GUILD, PLAYERS[2], "   ")  # nothing to show: not stored
    async with db.read() as session:
        shown = await names.names_of(session, GUILD, [PLAYERS[0], PLAYERS[1], PLAYERS[2], PLAYERS[0]])
    assert shown == {PLAYERS[0]: "Alice the Great", PLAYERS[1]: ("Robert " + "x" * 200)[:100],
                     PLAYERS[2]: "Player …1003"}


def test_the_name_cache_writes_a_name_once_and_again_when_it_changes():
    cache = names.NameCache(size=2)
    assert cache.is_new(1, 10, "a") and not cache.is_new(1, 10, "a")
    assert cache.is_new(1, 10, "b") and cache.is_new(2, 10, "b")
    assert cache.is_new(1, 11, "c")  # three keys: the oldest (1, 10) is forgotten
    assert cache.is_new(1, 10, "b")
    cache.forget(1, 10)
    assert cache.is_new(1, 10, "b")


async def test_link_buttons_only_while_the_pages_are_on_and_served(db):
    served = site_settings(web_public_url="https://mtg.example.org/")
    assert await buttons.event_buttons(db, served, GUILD, "421", 5) == []  # off
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    assert await buttons.event_buttons(db, site_settings(), GUILD, "421", 5) == []  # the host serves no site
    [button] = await buttons.event_buttons(db, served, GUILD, "421", 5)
    assert button.style is discord.ButtonStyle.link and button.label == "View on the web"
    assert button.url == f"https://mtg.example.org/s/{site.address}/events/421/5"
    [board] = await buttons.leaderboard_buttons(db, served, GUILD, format="421", season="all")
    assert board.url == f"https://mtg.example.org/s/{site.address}/leaderboard?format=421&season=all"
    [local] = await buttons.web_buttons(db, site_settings(web_port=8123), GUILD, lambda to: to.home)
    assert local.url == f"http://localhost:8123/s/{site.address}"
    too_long = site_settings(web_public_url="https://mtg.example.org/" + "x" * 500)
    assert await buttons.event_buttons(db, too_long, GUILD, "421", 5) == []
    assert buttons.view_of([]) is None and len(buttons.view_of([button]).children) == 1


async def test_a_signed_link_for_the_bot_to_dm(db):
    served = site_settings(web_public_url="https://mtg.example.org", web_secret="s3cret")
    assert await links.private_link(db, served, GUILD, kind="draft-pool", user_id=PLAYERS[0], ref=3) is None
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    url = await links.private_link(db, served, GUILD, kind="draft-pool", user_id=PLAYERS[0], ref=3, hours=1)
    prefix = f"https://mtg.example.org/s/{site.address}/me/"
    assert url.startswith(prefix)
    grant = access.verify(site, url.removeprefix(prefix), "s3cret")
    assert grant is not None and (grant.kind, grant.user_id, grant.ref) == ("draft-pool", PLAYERS[0], 3)


async def _serve_alone(database_url: str, port: int) -> asyncio.subprocess.Process:
    env = {**os.environ, "DATABASE_URL": database_url, "WEB_PORT": str(port), "WEB_HOST": "127.0.0.1"}
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.web", cwd=ROOT, env=env,
                                                stderr=asyncio.subprocess.PIPE)


async def _until_up(session: aiohttp.ClientSession, url: str, process: asyncio.subprocess.Process) -> None:
    async with asyncio.timeout(30):
        while True:
            assert process.returncode is None, await process.stderr.read()
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.1)  # waiting for the process to listen, bounded by the timeout


async def test_several_processes_serve_the_site_alone_on_one_database(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    await add_results(db, GUILD, "421", 1, "League", PLAYERS[:2])
    ports = [free_port(), free_port()]
    processes = [await _serve_alone(db.url, port) for port in ports]
    try:
        async with aiohttp.ClientSession() as session:
            etags = []
            for port, process in zip(ports, processes, strict=True):
                await _until_up(session, f"http://127.0.0.1:{port}/healthz", process)
                async with session.get(f"http://127.0.0.1:{port}/s/{site.address}") as response:
                    assert response.status == 200 and "League" in await response.text()
                    etags.append(response.headers["ETag"])
            assert etags[0] == etags[1]  # any process answers any request the same
    finally:
        for process in processes:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        codes = [await asyncio.wait_for(process.wait(), 15) for process in processes]
    assert codes == [0, 0]


@pytest.mark.parametrize("setting", [{"WEB_PUBLIC_URL": "mtg.example.org"}, {"WEB_PORT": "99999"}])
async def test_the_site_alone_refuses_bad_settings_in_one_line(setting, tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/x.sqlite3", **setting}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.web", cwd=tmp_path, env=env,
                                                   stderr=asyncio.subprocess.PIPE)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2 and stderr.decode().startswith("error: invalid setting: WEB_"), stderr
