"""Running the site: on `WEB_HOST`:`WEB_PORT`, in the bot process or alone (`python -m bot.web`)."""

from __future__ import annotations

import gc
import logging

from aiohttp import web

from bot.settings import Settings
from bot.store.db import Database
from bot.web.app import make_app

log = logging.getLogger(__name__)


def freeze_startup_objects() -> None:
    """Put every object alive now out of the garbage collector's way (`gc.freeze`): the modules,
    classes and functions of a started process, about 135,000 objects, which a full collection takes
    80-100 ms of CPU to walk. A full collection comes every few hundred page builds, in the middle of
    one of them: without this, that page took 100-300 ms (the pages' p99 in `benchmarks.bench_web`);
    after it, a full collection walks only what was made since. What is frozen is still freed when
    its last reference goes; only a reference cycle among them would be kept."""
    gc.collect()
    gc.freeze()


class WebServer:
    def __init__(self, db: Database, settings: Settings, *, port: int | None = None) -> None:
        self.db, self.settings = db, settings
        self.port = port if port is not None else settings.web_port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        if self.port is None:
            raise ValueError("the web site needs a port (WEB_PORT)")
        # A stop waits at most 5 s for pages being answered.
        self._runner = web.AppRunner(make_app(self.db, self.settings), access_log=None, handle_signals=False,
                                     shutdown_timeout=5)
        await self._runner.setup()
        freeze_startup_objects()  # every module the pages use is imported and the app is built
        site = web.TCPSite(self._runner, self.settings.web_host, self.port)
        await site.start()
        log.info("web pages served on %s:%s (links point to %s)", self.settings.web_host, self.port,
                 self.settings.web_base_url)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
