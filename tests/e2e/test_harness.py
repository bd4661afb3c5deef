"""The e2e harness never leaves a bot process behind."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.e2e import prefork
from tests.e2e.drivers.common import eventually
from tests.e2e.harness import REPO_ROOT, BotProcess

pytestmark = pytest.mark.e2e

# A test process that starts a bot both ways: `python -m bot` itself, and a fork of the prefork
# server (whose parent is the server). Nothing answers at the Discord address, so both keep trying.
GRANDPARENT = """
import os, subprocess, sys, tempfile, time
from pathlib import Path
from tests.e2e import prefork
from tests.e2e.harness import TEST_TOKEN
here = Path(tempfile.mkdtemp())
env = {**os.environ, "DISCORD_TOKEN": TEST_TOKEN, "DATABASE_URL": f"sqlite+aiosqlite:///{here}/bot.sqlite3",
       "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"}
cold = subprocess.Popen([sys.executable, "-m", "bot"], cwd=here, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, preexec_fn=prefork.die_with_parent)
forked = prefork.PreforkServer.get().start(env, here, here / "bot.log")
print(cold.pid, forked.pid, prefork.PreforkServer.get().process.pid, flush=True)
time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")  # a zombie is dead, waiting to be reaped


async def test_a_bot_left_running_is_killed_and_named(fake, tmp_path):
    bot = BotProcess(fake, f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}", tmp_path)
    await bot.start()
    assert await BotProcess.left_running() == [bot]
    assert not bot.running and await BotProcess.left_running() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
async def test_the_bot_dies_with_the_process_that_started_it():
    parent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", GRANDPARENT, cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        children = [int(pid) for pid in (await asyncio.wait_for(parent.stdout.readline(), 30)).split()]
        assert len(children) == 3 and all(alive(pid) for pid in children)
        parent.send_signal(signal.SIGKILL)  # the test process dies, however it dies
        await parent.wait()
        for child in children:
            await eventually(lambda child=child: _dead(child), timeout=5, what=f"the orphaned process {child} to die")
    finally:
        if parent.returncode is None:
            parent.kill()
            await parent.wait()


async def _dead(pid: int) -> bool:
    return not alive(pid)


# A test process that starts the prefork server and ends normally; it says how much CPU time its
# reaped children used, once everything else registered to run at its exit has run.
COUNTED = """
import atexit, resource
atexit.register(lambda: print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, flush=True))
from tests.e2e import prefork
prefork.PreforkServer.get()
"""


@pytest.mark.skipif(not prefork.supported(), reason="no prefork server on this platform")
async def test_the_prefork_servers_cpu_time_counts_as_the_test_processs():
    """A test process reaps its prefork server when it ends, so `time` counts the server's CPU (and
    that of the bots it forked): about a second of imports here, none if it were left unreaped."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", COUNTED, cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    assert float(out.split()[-1]) > 0.3, out
