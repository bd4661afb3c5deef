"""`python -m bot`: migrate the database, then run the bot until interrupted."""

from __future__ import annotations

import asyncio
import logging
import sys

import discord
import pydantic
import yarl

from bot.settings import Settings, SettingsError


def _configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # Their DEBUG output is one line per SQL call or websocket frame: too much even for debugging.
    for noisy in ("discord", "aiosqlite", "asyncio"):
        logging.getLogger(noisy).setLevel(max(logging.getLevelName(level), logging.INFO))


async def _run(settings: Settings, token: str) -> None:
    from bot.app import MtgBot
    from bot.store.db import Database
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
            await client.start(token)
    finally:
        await db.dispose()


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
    try:
        asyncio.run(_run(settings, token))
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
