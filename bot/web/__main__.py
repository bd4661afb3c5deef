"""`python -m bot.web`: serve the web pages alone, on the bot's database (migrated first, as the bot
does), until interrupted. Several such processes may serve one PostgreSQL behind a reverse proxy."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import pydantic

from bot.settings import Settings

DEFAULT_PORT = 8080
log = logging.getLogger("bot.web")


async def serve(settings: Settings, stop: asyncio.Event | None = None) -> None:
    from bot.store.db import Database
    from bot.store.migrate import upgrade
    from bot.web.server import WebServer

    db = Database(settings.database_url)
    try:
        await upgrade(db)
        server = WebServer(db, settings, port=settings.web_port or DEFAULT_PORT)
        await server.start()
        if stop is None:
            stop = asyncio.Event()
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                asyncio.get_running_loop().add_signal_handler(signal_number, stop.set)
        try:
            await stop.wait()
        finally:
            await server.stop()
    finally:
        await db.dispose()


def main() -> int:
    try:
        settings = Settings()
    except pydantic.ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in error.errors())
        print(f"error: invalid setting: {problems}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
                        stream=sys.stderr)
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
