"""The e2e harness never leaves a bot process behind."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.e2e.drivers.common import eventually
from tests.e2e.harness import REPO_ROOT, BotProcess

pytestmark = pytest.mark.e2e

GRANDPARENT = """
import subprocess, sys, time
from tests.e2e.harness import _die_with_the_tests
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], stdout=subprocess.DEVNULL,
                         preexec_fn=_die_with_the_tests)
print(child.pid, flush=True)
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
        child = int(await asyncio.wait_for(parent.stdout.readline(), 10))
        assert alive(child)
        parent.send_signal(signal.SIGKILL)  # the test process dies, however it dies
        await parent.wait()
        await eventually(lambda: _dead(child), timeout=5, what="the orphaned child to die")
    finally:
        if parent.returncode is None:
            parent.kill()
            await parent.wait()


async def _dead(pid: int) -> bool:
    return not alive(pid)
