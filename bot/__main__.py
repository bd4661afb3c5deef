"""`python -m bot`: migrate the database, then run the bot until interrupted."""

from __future__ import annotations

import asyncio
import logging
import sys

import aiohttp
import discord
import pydantic
import yarl

from bot.settings import Settings, SettingsError

log = logging.getLogger("bot")
# Discord not reachable (no network yet, a DNS failure, a refused connection, Discord's own 5xx):
# worth waiting for. A bad token (`discord.LoginFailure`) is not: it ends the process at once.
UNREACHABLE = (aiohttp.ClientConnectionError, OSError, TimeoutError, discord.DiscordServerError,
               discord.GatewayNotFound)
MAX_PAUSE = 300.0  # seconds between two tries to reach Discord, at most


def _configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # Their DEBUG output is one line per SQL call or websocket frame: too much even for debugging.
    for noisy in ("discord", "aiosqlite", "asyncio"):
        logging.getLogger(noisy).setLevel(max(logging.getLevelName(level), logging.INFO))
    # Each try to reach Discord is one line (ours): discord.py's "logging in" is said once.
    logging.getLogger("discord.client").addFilter(_Once("logging in using static token"))


class _Once(logging.Filter):
    def __init__(self, message: str) -> None:
        super().__init__()
        self.message, self.seen = message, False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != self.message:
            return True
        seen, self.seen = self.seen, True
        return not seen


async def _run(settings: Settings, token: str) -> None:
    from bot.app import MtgBot
    from bot.store.db import Database, driver_threads_ended
    from bot.store.migrate import upgrade
    from bot.store.outage import BOT_WRITE_WAIT

    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)
    db = Database(settings.database_url, write_wait=BOT_WRITE_WAIT)
    try:
        await upgrade(db)
        async with MtgBot(settings, db) as client:
            await _until_reached(client, lambda: client.login(token), settings.discord_retry_pause, "logging in",
                                 after_failure=_new_http_session)
            await _until_reached(client, client.connect, settings.discord_retry_pause, "connecting")
    finally:
        await db.dispose()
        await driver_threads_ended()


async def _until_reached(client, step, first_pause: float, what: str, *, after_failure=None) -> None:
    """Run `step` (logging in, connecting) until Discord answers it: while it can't be reached,
    try again after pauses doubling from `first_pause` up to `MAX_PAUSE`, one log line each time
    (and `after_failure(client)` before the pause)."""
    pause = first_pause
    while True:
        try:
            return await step()
        except UNREACHABLE as error:
            if client.is_closed():
                raise
            log.warning("Discord cannot be reached while %s (%s: %s); trying again in %g s",
                        what, type(error).__name__, str(error).splitlines()[0] if str(error) else "-", pause)
        if after_failure is not None:
            await after_failure(client)
        await asyncio.sleep(pause)  # backing off from an outage, not synchronisation
        pause = min(pause * 2, MAX_PAUSE)


async def _new_http_session(client) -> None:
    """A login opens a new HTTP session: close the failed one's, and its connector, first."""
    await client.http.close()
    client.http.connector = discord.utils.MISSING


def main() -> int:
    try:
        settings = Settings()
        token = settings.require_token()
        settings.parsed_shard_ids  # noqa: B018 - validate early, with a clear message
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except pydantic.ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in error.errors())
        print(f"error: invalid setting: {problems}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    from bot.kit.dispatch import RoutesUnresolved

    try:
        asyncio.run(_run(settings, token))
    except RoutesUnresolved as error:
        for problem in error.problems:
            log.error("not starting: %s", problem)
        return 2
    except discord.LoginFailure:
        print("error: Discord rejected DISCORD_TOKEN; reset it on the Developer Portal's Bot page.", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:
        print("error: this bot asked for a privileged intent it is not allowed.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
