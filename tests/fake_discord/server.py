"""An in-memory fake of Discord's REST API v10 + Gateway, good enough for a real discord.py 2.7 bot.

The bot (in-process or a ``python -m bot`` subprocess) talks to it after setting
``discord.http.Route.BASE = fake.api_base``; tests act as Discord users through the async methods
of :class:`FakeDiscord` (``slash``, ``click``, ``select``, ``submit_modal``, ``add_reaction`` ...).

:class:`FakeDiscord` is assembled from one mixin per concern:

* ``world.py``        users, guilds, channels, roles, members, permissions, DM channels
* ``gateway.py``      websocket sessions, IDENTIFY / RESUME, dispatch, disconnects
* ``messages.py``     the message store: create / edit / delete, mentions, attachments, reactions
* ``rest.py``         routes, request parsing, the call log, error injection, most REST handlers
* ``commands.py``     application commands: REST sync, and building a user's ``/command``
* ``interactions.py`` interaction callbacks and webhooks; sending an interaction and awaiting its answer
* ``driver.py``       the test-facing API (``slash``, ``click``, ``messages``, ``wait_for`` ...)

``base.py`` has what they share (configuration, the change signal, ``ApiError``), ``constants.py``
Discord's numbers, ``validation.py`` its payload limits and ``models.py`` the types tests see.
"""

from __future__ import annotations

import asyncio
import logging
import socket

from aiohttp import web

from .base import ApiError
from .commands import Commands
from .constants import (
    ADMINISTRATOR,
    API_PREFIX,
    DEFAULT_BOT_USER_ID,
    DEFAULT_MEMBER_PERMISSIONS,
    DEFAULT_OWNER_ID,
    MANAGE_GUILD,
    NONCE_WINDOW,
)
from .driver import Driver
from .gateway import Gateway
from .interactions import Interactions
from .messages import Messages
from .models import SnowflakeGenerator
from .rest import Rest
from .world import World

__all__ = ["ADMINISTRATOR", "DEFAULT_MEMBER_PERMISSIONS", "MANAGE_GUILD", "ApiError", "FakeDiscord"]

log = logging.getLogger("fake_discord")


class FakeDiscord(Driver, Interactions, Commands, Rest, Messages, Gateway, World):
    """Fake Discord REST + Gateway server with in-memory state.  See the package README in __init__."""

    def __init__(
        self,
        *,
        bot_user_id: int = DEFAULT_BOT_USER_ID,
        application_id: int | None = None,
        shard_count: int = 1,
        bot_name: str = "FakeBot",
        bot_permissions: int = ADMINISTRATOR,
        owner_id: int = DEFAULT_OWNER_ID,
        callback_deadline: float | None = 3.0,
        heartbeat_interval: int = 41250,
        nonce_window: float = NONCE_WINDOW,
    ) -> None:
        self.bot_user_id = bot_user_id
        self.application_id = application_id if application_id is not None else bot_user_id
        self.shard_count = shard_count
        self.bot_permissions = bot_permissions
        self.owner_id = owner_id
        self.callback_deadline = callback_deadline
        self.heartbeat_interval = heartbeat_interval
        self.nonce_window = nonce_window  # seconds `enforce_nonce` finds an earlier message (see messages.py)
        self.port = 0
        self.api_base = ""
        self.gateway_url = ""
        self._snowflake = SnowflakeGenerator()
        self._changed_event = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._init_gateway()
        self._init_rest()
        self._init_world(bot_name)
        self._init_messages()
        self._init_commands()
        self._init_interactions()
        self._setup_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self, port: int = 0) -> None:
        """Serve on 127.0.0.1:`port` (0: a free port, see `self.port`)."""
        self._changed_event = asyncio.Event()  # bind to the running loop
        app = web.Application(client_max_size=200 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._cdn)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._not_api)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.api_base = self.base_url + API_PREFIX
        self.gateway_url = f"ws://127.0.0.1:{self.port}/gateway"
        log.info("fake Discord listening on %s", self.base_url)

    async def stop(self) -> None:
        self._gateway_open.set()  # let held connection attempts end with the server
        for conn in list(self._conns):
            await self._close_conn(conn, 1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
