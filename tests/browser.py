"""A real browser for the web pages' tests: Debian's headless Chromium driven by Playwright for
Python (`playwright install` is never needed). One browser serves the whole test session
(`browser`, a fixture every test module may take); each test opens its own context.

Without Chromium (`/usr/bin/chromium`, or `CHROMIUM`) or Playwright the browser tests are skipped,
saying so, except under CI=true, where they fail (as for PostgreSQL).

The browser lives on a thread of its own, with its own event loop, which also serves the sites the
tests load: the tests are plain functions that hand their coroutines to it (`browser.run(...)`),
so they never hold the event loops of the other (pytest-asyncio) tests of the session."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
T = TypeVar("T")
not_run: list[str] = []  # why the browser tests were skipped (the session's summary says it)


def _missing() -> str | None:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists() and shutil.which(str(CHROMIUM)) is None:
        return f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)"
    return None


class Browser:
    """Headless Chromium (`chromium`, Playwright's async `Browser`) and the event loop it runs in."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="browser", daemon=True)
        self.thread.start()
        self._playwright = None
        self.chromium: Any = None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        """Run `coroutine` in the browser's event loop; its result (or its exception)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _launch(self) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self.chromium = await self._playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)

    async def _close(self) -> None:
        if self.chromium is not None:
            await self.chromium.close()
        if self._playwright is not None:
            await self._playwright.stop()

    def start(self) -> Browser:
        self.run(self._launch())
        return self

    def close(self) -> None:
        try:
            self.run(self._close(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium, shared by every test of the session that asks for it."""
    problem = _missing()
    if problem is not None:
        if IN_CI:
            pytest.fail(f"CI=true requires a browser for the web pages' tests: {problem}")
        not_run.append(problem)
        pytest.skip(f"browser tests skipped: {problem}")
    found = Browser()
    try:
        yield found.start()
    finally:
        found.close()
