"""Starting without Discord (issue 23): the bot started while Discord can't be reached logs one line
per try, with pauses doubling, and connects once Discord answers; a bad token still ends it at once
with one line. A button or form routed to a cog or method that is not there stops the start
(issue 24), one line each, before the bot goes online."""

from __future__ import annotations

import asyncio
import re
import socket
import sys
from functools import partial

import pytest

from tests.conftest import create_scratch_database
from tests.e2e.conftest import WORLD, build_world
from tests.e2e.drivers.common import eventually
from tests.e2e.harness import BotProcess
from tests.fake_discord import FakeDiscord

pytestmark = pytest.mark.e2e
RETRY = re.compile(r"WARNING bot: Discord cannot be reached while logging in \((\w+): .*\); trying again in ([\d.]+) s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_a_bot_started_while_discord_is_unreachable_waits_and_connects_when_it_answers(tmp_path):
    port = free_port()  # nothing listens there yet: connections are refused
    fake = FakeDiscord()
    env = {"DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10", "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/gateway",
           "DISCORD_RETRY_PAUSE": "0.1"}
    async for url in create_scratch_database("sqlite", tmp_path):
        process = BotProcess(fake, url, tmp_path, env, cold=True)  # `python -m bot` itself
        await process.start(until_ready=False)
        try:
            tries = await eventually(partial(_tries, process, 4), timeout=30, what="four tries to reach Discord")
            assert {error for error, _pause in tries} == {"ClientConnectorError"}
            assert [float(pause) for _error, pause in tries[:4]] == [0.1, 0.2, 0.4, 0.8]  # doubling
            log = process.log_since_start()
            assert "Traceback" not in log and " ERROR " not in log, log
            lines = log.splitlines()
            after_first = lines[next(i for i, line in enumerate(lines) if RETRY.search(line)):]
            assert all(RETRY.search(line) for line in after_first), after_first  # one line a try, nothing else

            await fake.start(port=port)  # Discord is back
            build_world(fake)
            await fake.wait_for_ready(generation=1, timeout=60)
            assert process.running
            assert await eventually(partial(_logged, process, "ready as"), timeout=30, what="the bot ready")
            answer = await fake.slash(WORLD.member, "about", guild_id=WORLD.guild, channel_id=WORLD.channel)
            assert "Uptime" in answer.content
            assert "Traceback" not in process.log_since_start()
        finally:
            await process.stop()
            await fake.stop()


async def _tries(process: BotProcess, at_least: int) -> list[tuple[str, str]] | None:
    """The (error, pause) of each try to reach Discord logged so far, once there are `at_least`."""
    assert process.running, process.log_tail()
    tries = RETRY.findall(process.log_since_start())
    return tries if len(tries) >= at_least else None


async def _logged(process: BotProcess, words: str) -> str | None:
    log = process.log_since_start()
    return log if words in log else None


@pytest.mark.parametrize("cold", [True, False], ids=["python -m bot", "forked"])
async def test_a_bad_token_still_ends_the_bot_at_once_with_one_line(fake, tmp_path, cold):
    """`python -m bot` itself, and as the other tests start it (`tests.e2e.prefork`): the same exit status."""
    fake.inject_error("GET", r"^/users/@me$", status=401)
    async for url in create_scratch_database("sqlite", tmp_path):
        process = BotProcess(fake, url, tmp_path, cold=cold)
        await process.start(until_ready=False)
        assert await asyncio.wait_for(process.process.wait(), 60) == 2
        log = process.log_since_start()
        assert "error: Discord rejected DISCORD_TOKEN; reset it on the Developer Portal's Bot page." in log
        assert "Traceback" not in log and "cannot be reached" not in log, log


# The bot's own `main`, after this process declared a format whose button and form no cog handles,
# whose outbox kind has no renderer and whose deadline kind no handler (as a renamed or forgotten
# handler would leave them).
BROKEN_FORMAT = """
import sys
import bot.games
from bot.kit.dispatch import Component, modal_route, number
from bot.kit.formats import Format
class UnansweredButton(Component, prefix="renamed", parts=(number("game"),)):
    pass
declared = bot.games.formats()
broken = Format(key="broken", name="Broken", order=99, cog=declared[0].cog, components=(UnansweredButton,),
                forms=(modal_route("gone", (number("game"),)),), outbox_kinds=("broken.post",),
                deadline_kinds=("broken.timer",))
bot.games.formats = lambda: [*declared, broken]
from bot.__main__ import main
sys.exit(main())
"""


async def test_a_declared_piece_nothing_answers_refuses_the_start_with_one_line_each(fake, tmp_path):
    async for url in create_scratch_database("sqlite", tmp_path):
        env = BotProcess(fake, url, tmp_path)._env()
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", BROKEN_FORMAT, cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await asyncio.wait_for(process.communicate(), 60)
        log = output.decode(errors="replace")
        assert process.returncode == 2, log
        refusals = [line for line in log.splitlines() if " ERROR " in line]
        assert [line.split(" ERROR   bot: ", 1)[1] for line in refusals] == [
            "not starting: component UnansweredButton (custom_id renamed:…) has no handler in a loaded cog",
            "not starting: form gone:… has no handler in a loaded cog",
            "not starting: format broken: outbox kind 'broken.post' has no renderer",
            "not starting: format broken: deadline kind 'broken.timer' has no handler",
        ], log
        assert "Traceback" not in log and "Unclosed" not in log, log
        # Refused before going online: no gateway session, no commands synced.
        assert fake.generation == 0
        assert not [call for call in fake.rest_log if "/commands" in call.path]
