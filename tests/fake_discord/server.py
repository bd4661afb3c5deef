# ruff: noqa: ASYNC109  (the test-facing API takes explicit timeout= arguments by design)
"""An in-memory fake of Discord's REST API v10 + Gateway, good enough for a real discord.py 2.7 bot.

The bot (in-process or a ``python -m bot`` subprocess) talks to it after setting
``discord.http.Route.BASE = fake.api_base``; tests act as Discord users through the async methods
of :class:`FakeDiscord` (``slash``, ``click``, ``select``, ``submit_modal``, ``add_reaction`` ...).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import mimetypes
import re
import secrets
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from aiohttp import WSMsgType, web

from .models import (
    CommandNotAvailable,
    FakeDiscordTimeout,
    InteractionResult,
    RestCall,
    SnowflakeGenerator,
    flatten_components,
    iso_now,
    snowflake_time,
)
from .validation import validate_choices, validate_commands, validate_message, validate_modal

log = logging.getLogger("fake_discord")

API_PREFIX = "/api/v10"

# permission bits
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_MEMBER_PERMISSIONS = (
    (1 << 0)  # create instant invite
    | (1 << 6)  # add reactions
    | (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 17)  # mention everyone
    | (1 << 18)  # use external emojis
    | (1 << 20)  # connect
    | (1 << 21)  # speak
    | (1 << 25)  # use VAD
    | (1 << 26)  # change nickname
    | (1 << 31)  # use application commands
    | (1 << 35)  # send messages in threads
    | (1 << 38)  # use embedded activities
)

# gateway intents
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_GUILD_MESSAGE_REACTIONS = 1 << 10
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_DIRECT_MESSAGE_REACTIONS = 1 << 13
INTENT_MESSAGE_CONTENT = 1 << 15

EPHEMERAL = 1 << 6
LOADING = 1 << 7

DEFAULT_BOT_USER_ID = 1098765432109876543
DEFAULT_OWNER_ID = 1012345678901234567

OPTION_TYPE_NAMES = {
    1: "SUB_COMMAND",
    2: "SUB_COMMAND_GROUP",
    3: "STRING",
    4: "INTEGER",
    5: "BOOLEAN",
    6: "USER",
    7: "CHANNEL",
    8: "ROLE",
    9: "MENTIONABLE",
    10: "NUMBER",
    11: "ATTACHMENT",
}


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"message": message, "code": code}
        if errors:
            self.body["errors"] = errors


def _invalid_form(errors: dict[str, Any]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", errors)


@dataclass
class _Req:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: dict[int, tuple[str, str | None, bytes]]
    request: web.Request


@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    compressor: Any  # zlib compressobj or None
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    writer: asyncio.Task[None] | None = None
    session: _Session | None = None
    closed: bool = False

    def send(self, payload: Any) -> None:
        if not self.closed:
            self.queue.put_nowait(payload)


@dataclass(eq=False)
class _Session:
    session_id: str
    shard_id: int
    shard_count: int
    intents: int
    conn: _Conn | None = None
    seq: int = 0
    history: collections.deque[dict[str, Any]] = field(default_factory=lambda: collections.deque(maxlen=5000))
    superseded: bool = False

    def dispatch(self, event: str, data: Any) -> None:
        self.seq += 1
        payload = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.history.append(payload)
        if self.conn is not None:
            self.conn.send(payload)


@dataclass(eq=False)
class _Interaction:
    id: int
    token: str
    type: int
    user_id: int
    guild_id: int | None
    channel_id: int
    data: dict[str, Any]
    created: float
    source_message_id: int | None = None  # message the component was on (component / modal submit)
    callback_type: int | None = None
    callback_data: dict[str, Any] | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    edited_original: bool = False
    ephemeral: bool = False
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    error: str | None = None

    @property
    def final(self) -> bool:
        if self.callback_type in (1, 4, 7, 8, 9):
            return True
        if self.callback_type in (5, 6):
            return self.edited_original or bool(self.followup_ids)
        return False


def _route_regex(template: str) -> re.Pattern[str]:
    out = ""
    for part in re.split(r"(\{\w+\})", template):
        if part.startswith("{") and part.endswith("}"):
            out += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            out += re.escape(part)
    return re.compile(f"^{out}/?$")


def _json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> web.Response:
    if status == 204 or data is None:
        return web.Response(status=204, headers=headers)
    hdrs = {"Content-Type": "application/json"}  # exactly this: discord.py compares the header verbatim
    hdrs.update(headers or {})
    return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)


def _emoji_key(emoji: str) -> str:
    """'👍' -> '👍'; '<:name:123>' / '<a:name:123>' / 'name:123' -> 'name:123'."""
    emoji = emoji.strip()
    m = re.fullmatch(r"<a?:(\w+):(\d+)>", emoji)
    if m:
        return f"{m.group(1)}:{m.group(2)}"
    return emoji


def _emoji_obj(key: str) -> dict[str, Any]:
    m = re.fullmatch(r"(\w+):(\d+)", key)
    if m:
        return {"id": m.group(2), "name": m.group(1), "animated": False}
    return {"id": None, "name": key}


class FakeDiscord:
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
    ) -> None:
        self.bot_user_id = bot_user_id
        self.application_id = application_id if application_id is not None else bot_user_id
        self.shard_count = shard_count
        self.bot_permissions = bot_permissions
        self.owner_id = owner_id
        self.callback_deadline = callback_deadline
        self.heartbeat_interval = heartbeat_interval
        self.port = 0
        self.api_base = ""
        self.gateway_url = ""
        self.generation = 0

        self.rest_log: list[RestCall] = []
        self.gateway_log: list[
            tuple[float, str, int | None, str | None]
        ] = []  # (time, "in"/"out"/"drop", op, t)
        self.unknown_routes: list[RestCall] = []

        self._snowflake = SnowflakeGenerator()
        self._changed_event = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._conns: set[_Conn] = set()
        self._sessions: dict[str, _Session] = {}
        self._shard_sessions: dict[int, _Session] = {}
        self._identified_shards: set[int] = set()
        self.shard_identifies: collections.Counter[int] = collections.Counter()  # shard id -> IDENTIFYs done
        self._injections: list[dict[str, Any]] = []
        self._background: set[asyncio.Task[Any]] = set()

        self.bot_user: dict[str, Any] = {
            "id": str(bot_user_id),
            "username": bot_name,
            "global_name": None,
            "discriminator": "0000",
            "avatar": None,
            "bot": True,
            "system": False,
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "public_flags": 0,
            "banner": None,
            "accent_color": None,
            "email": None,
            "locale": "en-US",
        }
        self._users: dict[int, dict[str, Any]] = {bot_user_id: self.bot_user}
        self._dms_closed: set[int] = set()
        self._guilds: dict[
            int, dict[str, Any]
        ] = {}  # id -> {"data": guild fields, "roles": {}, "members": {}, "channels": [ids]}
        self._channels: dict[int, dict[str, Any]] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> channel id
        self._messages: dict[int, dict[str, Any]] = {}
        self._msg_meta: dict[int, dict[str, Any]] = {}
        self._channel_messages: dict[int, list[int]] = collections.defaultdict(list)
        self._reactions: dict[int, dict[str, dict[int, None]]] = {}
        self._attachments: dict[int, tuple[str, str, bytes]] = {}  # id -> (filename, content type, bytes)
        self._commands: dict[int | None, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}
        self._interactions: dict[int, _Interaction] = {}
        self._interactions_by_token: dict[str, _Interaction] = {}

        self._routes: list[
            tuple[str, str, re.Pattern[str], Callable[[_Req], Awaitable[tuple[int, Any]]]]
        ] = []
        self._setup_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
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
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.api_base = self.base_url + API_PREFIX
        self.gateway_url = f"ws://127.0.0.1:{self.port}/gateway"
        log.info("fake Discord listening on %s", self.base_url)

    async def stop(self) -> None:
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

    # ------------------------------------------------------------------ change notification / waiting

    def _changed(self) -> None:
        ev = self._changed_event
        self._changed_event = asyncio.Event()
        ev.set()

    async def wait_for(
        self, predicate: Callable[[], Any], *, timeout: float = 10, what: str | None = None
    ) -> Any:
        """Re-evaluate ``predicate`` on every state change until it returns something truthy (returned)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(
                    f"fake Discord: timed out after {timeout}s waiting for {what or getattr(predicate, '__name__', predicate)}\n"
                    + self.describe_recent()
                )
            ev = self._changed_event
            try:
                await asyncio.wait_for(ev.wait(), remaining)
            except TimeoutError:
                pass

    def describe_recent(self, n: int = 25) -> str:
        lines = ["--- last REST calls ---"]
        lines += [
            f"  {c}" + (f"  body={json.dumps(c.json)[:300]}" if c.json is not None else "")
            for c in self.rest_log[-n:]
        ]
        if self.unknown_routes:
            lines.append("--- UNKNOWN ROUTES hit by the bot ---")
            lines += [f"  {c}" for c in self.unknown_routes[-10:]]
        lines.append("--- last gateway frames ---")
        lines += [f"  {d} op={op} t={t}" for _, d, op, t in self.gateway_log[-12:]]
        live = {s: (sess.conn is not None) for s, sess in self._shard_sessions.items()}
        lines.append(f"shard sessions (shard -> connected): {live}; generation={self.generation}")
        return "\n".join(lines)

    async def wait_for_shard(self, shard_id: int, *, identifies: int, timeout: float = 30) -> None:
        """Wait until shard `shard_id` has IDENTIFYed (and got READY + GUILD_CREATEs) `identifies`
        times: for bots whose shards run in separate processes that restart one at a time."""
        await self.wait_for(
            lambda: self.shard_identifies[shard_id] >= identifies,
            timeout=timeout,
            what=f"shard {shard_id} READY (#{identifies})",
        )

    async def wait_for_ready(self, *, generation: int | None = None, timeout: float = 30) -> None:
        target = 1 if generation is None else generation
        await self.wait_for(
            lambda: self.generation >= target, timeout=timeout, what=f"bot READY (generation {target})"
        )

    # ------------------------------------------------------------------ world setup

    def add_user(self, user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
        user = self._users.get(user_id)
        if user is None:
            user = {
                "id": str(user_id),
                "username": name,
                "global_name": name,
                "discriminator": "0",
                "avatar": None,
                "bot": bot,
                "system": False,
                "public_flags": 0,
                "flags": 0,
                "banner": None,
                "accent_color": None,
                "avatar_decoration_data": None,
            }
            self._users[user_id] = user
        self._changed()
        return user

    def set_dms_closed(self, user_id: int, closed: bool = True) -> None:
        if closed:
            self._dms_closed.add(user_id)
        else:
            self._dms_closed.discard(user_id)

    def add_guild(
        self, guild_id: int, name: str = "Test Guild", owner_id: int | None = None
    ) -> dict[str, Any]:
        if guild_id in self._guilds:
            return self._guilds[guild_id]["data"]
        owner = owner_id if owner_id is not None else self.owner_id
        data = {
            "id": str(guild_id),
            "name": name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(owner),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "nsfw_level": 0,
            "nsfw": False,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            "incidents_data": None,
            "emojis": [],
            "stickers": [],
        }
        g = {"data": data, "roles": {}, "members": {}, "channels": [], "joined_at": iso_now()}
        self._guilds[guild_id] = g
        g["roles"][guild_id] = self._role_obj(guild_id, "@everyone", DEFAULT_MEMBER_PERMISSIONS, position=0)
        bot_role_id = self._snowflake()
        role = self._role_obj(
            bot_role_id, self.bot_user["username"], self.bot_permissions, position=1, managed=True
        )
        role["tags"] = {"bot_id": str(self.bot_user_id)}
        g["roles"][bot_role_id] = role
        g["members"][self.bot_user_id] = {
            "roles": [bot_role_id],
            "permissions": None,
            "joined_at": iso_now(),
            "nick": None,
        }
        if owner not in self._users:
            self.add_user(owner, "GuildOwner")
        if owner != self.bot_user_id:
            g["members"].setdefault(
                owner, {"roles": [], "permissions": None, "joined_at": iso_now(), "nick": None}
            )
        session = self._shard_sessions.get((guild_id >> 22) % self.shard_count)
        if session is not None:
            self._dispatch(
                "GUILD_CREATE",
                self._guild_create_payload(guild_id, session.intents),
                guild_id=guild_id,
                intent=INTENT_GUILDS,
            )
        self._changed()
        return data

    def _role_obj(
        self, role_id: int, name: str, permissions: int, *, position: int, managed: bool = False
    ) -> dict[str, Any]:
        return {
            "id": str(role_id),
            "name": name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": position,
            "permissions": str(permissions),
            "managed": managed,
            "mentionable": False,
            "flags": 0,
        }

    def _guild(self, guild_id: int) -> dict[str, Any]:
        try:
            return self._guilds[guild_id]
        except KeyError:
            raise KeyError(f"fake Discord: unknown guild {guild_id}; call add_guild() first") from None

    def add_channel(
        self, guild_id: int, channel_id: int, name: str = "general", *, type: int = 0
    ) -> dict[str, Any]:
        g = self._guild(guild_id)
        ch = {
            "id": str(channel_id),
            "type": type,
            "guild_id": str(guild_id),
            "name": name,
            "position": len(g["channels"]),
            "permission_overwrites": [],
            "parent_id": None,
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        self._channels[channel_id] = ch
        g["channels"].append(channel_id)
        if g["data"]["system_channel_id"] is None and type == 0:
            g["data"]["system_channel_id"] = str(channel_id)
        self._dispatch("CHANNEL_CREATE", ch, guild_id=guild_id, intent=INTENT_GUILDS)
        self._changed()
        return ch

    def add_role(self, guild_id: int, role_id: int, name: str, permissions: int = 0) -> dict[str, Any]:
        g = self._guild(guild_id)
        role = self._role_obj(role_id, name, permissions, position=len(g["roles"]))
        g["roles"][role_id] = role
        self._dispatch(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(guild_id), "role": role},
            guild_id=guild_id,
            intent=INTENT_GUILDS,
        )
        self._changed()
        return role

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        name: str,
        *,
        roles: Iterable[int] = (),
        permissions: int | None = None,
    ) -> dict[str, Any]:
        g = self._guild(guild_id)
        self.add_user(user_id, name)
        existed = user_id in g["members"]
        g["members"][user_id] = {
            "roles": [int(r) for r in roles],
            "permissions": permissions,
            "joined_at": iso_now(),
            "nick": None,
        }
        member = self._member_obj(guild_id, user_id)
        if existed:
            self._dispatch(
                "GUILD_MEMBER_UPDATE",
                {**member, "guild_id": str(guild_id)},
                guild_id=guild_id,
                intent=INTENT_GUILD_MEMBERS,
            )
        else:
            self._dispatch(
                "GUILD_MEMBER_ADD",
                {**member, "guild_id": str(guild_id)},
                guild_id=guild_id,
                intent=INTENT_GUILD_MEMBERS,
            )
        self._changed()
        return member

    def set_member_roles(self, guild_id: int, user_id: int, roles: Iterable[int]) -> None:
        g = self._guild(guild_id)
        g["members"][user_id]["roles"] = [int(r) for r in roles]
        self._dispatch(
            "GUILD_MEMBER_UPDATE",
            {**self._member_obj(guild_id, user_id), "guild_id": str(guild_id)},
            guild_id=guild_id,
            intent=INTENT_GUILD_MEMBERS,
        )
        self._changed()

    # ------------------------------------------------------------------ object builders

    def _user(self, user_id: int) -> dict[str, Any]:
        try:
            return self._users[user_id]
        except KeyError:
            raise KeyError(
                f"fake Discord: unknown user {user_id}; call add_user()/add_member() first"
            ) from None

    def member_permissions(self, guild_id: int, user_id: int) -> int:
        g = self._guild(guild_id)
        m = g["members"].get(user_id)
        if m is None:
            raise KeyError(f"fake Discord: user {user_id} is not a member of guild {guild_id}")
        if m["permissions"] is not None:
            return int(m["permissions"])
        if int(g["data"]["owner_id"]) == user_id:
            return ALL_PERMISSIONS
        perms = int(g["roles"][guild_id]["permissions"])
        for rid in m["roles"]:
            role = g["roles"].get(rid)
            if role is not None:
                perms |= int(role["permissions"])
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def _member_obj(
        self, guild_id: int, user_id: int, *, with_user: bool = True, with_permissions: bool = False
    ) -> dict[str, Any]:
        m = self._guild(guild_id)["members"][user_id]
        out: dict[str, Any] = {
            "roles": [str(r) for r in m["roles"]],
            "joined_at": m["joined_at"],
            "nick": m["nick"],
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            out["user"] = self._user(user_id)
        if with_permissions:
            out["permissions"] = str(self.member_permissions(guild_id, user_id))
        return out

    def _guild_create_payload(self, guild_id: int, intents: int | None = None) -> dict[str, Any]:
        g = self._guild(guild_id)
        members = list(g["members"])
        if intents is not None and not intents & INTENT_GUILD_MEMBERS:
            members = [self.bot_user_id]
        return {
            **g["data"],
            "roles": list(g["roles"].values()),
            "channels": [self._channels[c] for c in g["channels"]],
            "members": [self._member_obj(guild_id, u) for u in members],
            "member_count": len(g["members"]),
            "joined_at": g["joined_at"],
            "large": False,
            "unavailable": False,
            "lazy": True,
            "voice_states": [],
            "presences": [],
            "threads": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "application_command_counts": {},
        }

    def _guild_rest_payload(self, guild_id: int) -> dict[str, Any]:
        g = self._guild(guild_id)
        return {
            **g["data"],
            "roles": list(g["roles"].values()),
            "approximate_member_count": len(g["members"]),
            "approximate_presence_count": 0,
        }

    def _dm_channel(self, user_id: int) -> dict[str, Any]:
        cid = self._dm_channels.get(user_id)
        if cid is None:
            cid = self._snowflake()
            self._dm_channels[user_id] = cid
            self._channels[cid] = {
                "id": str(cid),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self._user(user_id)],
                "_recipient": user_id,
            }
            self._changed()
        return self._channels[cid]

    @staticmethod
    def _public(obj: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    def _channel(self, channel_id: int) -> dict[str, Any]:
        ch = self._channels.get(channel_id)
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    def _channel_guild_id(self, channel_id: int) -> int | None:
        gid = self._channels.get(channel_id, {}).get("guild_id")
        return int(gid) if gid else None

    # ------------------------------------------------------------------ gateway

    def _dispatch(
        self, event: str, data: Any, *, guild_id: int | None = None, intent: int | None = None
    ) -> bool:
        shard = 0 if guild_id is None else (guild_id >> 22) % self.shard_count
        session = self._shard_sessions.get(shard)
        if session is None:
            return False
        if intent is not None and not session.intents & intent:
            self.gateway_log.append((time.monotonic(), "drop(intent)", 0, event))
            return False
        session.dispatch(event, data)
        self._changed()
        return True

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        compressor = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        conn = _Conn(ws=ws, compressor=compressor)
        conn.writer = asyncio.create_task(self._writer(conn))
        self._conns.add(conn)
        conn.send(
            {
                "op": 10,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": self.heartbeat_interval, "_trace": ["fake-gateway"]},
            }
        )
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    payload = json.loads(msg.data)
                elif msg.type is WSMsgType.BINARY:
                    payload = json.loads(msg.data.decode())
                else:
                    break
                self.gateway_log.append((time.monotonic(), "in", payload.get("op"), None))
                await self._gateway_op(conn, payload)
                self._changed()
        except Exception:  # the peer vanishing (kill -9) must never crash the fake
            log.debug("gateway connection error", exc_info=True)
        finally:
            conn.closed = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            if conn.writer is not None:
                conn.writer.cancel()
            self._conns.discard(conn)
            self._changed()
        return ws

    async def _writer(self, conn: _Conn) -> None:
        try:
            while True:
                item = await conn.queue.get()
                if callable(item):
                    item()
                    continue
                if isinstance(item, tuple) and item[0] == "close":
                    await conn.ws.close(code=item[1])
                    return
                text = json.dumps(item, separators=(",", ":"))
                self.gateway_log.append((time.monotonic(), "out", item.get("op"), item.get("t")))
                if conn.compressor is not None:
                    data = conn.compressor.compress(text.encode()) + conn.compressor.flush(zlib.Z_SYNC_FLUSH)
                    await conn.ws.send_bytes(data)
                else:
                    await conn.ws.send_str(text)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("gateway writer stopped", exc_info=True)

    async def _close_conn(self, conn: _Conn, code: int) -> None:
        conn.closed = True
        if conn.writer is not None:
            conn.writer.cancel()
        try:
            await conn.ws.close(code=code)
        except Exception:
            pass

    async def _gateway_op(self, conn: _Conn, payload: dict[str, Any]) -> None:
        op, d = payload.get("op"), payload.get("d")
        if op == 1:
            conn.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:
            await self._identify(conn, d or {})
        elif op == 6:
            self._resume(conn, d or {})
        elif op == 8:
            self._request_members(conn, d or {})
        elif op in (3, 4):
            pass  # presence / voice state updates: accepted, ignored
        else:
            log.warning("fake Discord gateway: unknown op %s", op)

    async def _identify(self, conn: _Conn, d: dict[str, Any]) -> None:
        if conn.session is not None:
            conn.send(("close", 4005))
            return
        shard_id, shard_count = d.get("shard") or [0, 1]
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            log.error(
                "fake Discord: IDENTIFY with shard %s/%s but fake has %s shards",
                shard_id,
                shard_count,
                self.shard_count,
            )
            conn.send(("close", 4010))
            return
        session = _Session(
            session_id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=int(d.get("intents", 0)),
            conn=conn,
        )
        old = self._shard_sessions.get(shard_id)
        if old is not None:
            old.superseded = True
        conn.session = session
        self._sessions[session.session_id] = session
        self._shard_sessions[shard_id] = session
        guild_ids = [gid for gid in self._guilds if (gid >> 22) % shard_count == shard_id]
        session.dispatch(
            "READY",
            {
                "v": 10,
                "user": self.bot_user,
                "guilds": [{"id": str(gid), "unavailable": True} for gid in guild_ids],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "shard": [shard_id, shard_count],
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
                "_trace": ["fake-gateway"],
            },
        )
        if session.intents & INTENT_GUILDS:  # like Discord: no GUILD_CREATE without the GUILDS intent
            for gid in guild_ids:
                session.dispatch("GUILD_CREATE", self._guild_create_payload(gid, session.intents))

        def identified() -> None:
            self.shard_identifies[shard_id] += 1
            self._identified_shards.add(shard_id)
            if len(self._identified_shards) >= self.shard_count:
                self._identified_shards.clear()
                self.generation += 1
                log.info("fake Discord: bot generation %s ready", self.generation)
            self._changed()

        conn.send(identified)

    def _resume(self, conn: _Conn, d: dict[str, Any]) -> None:
        session = self._sessions.get(d.get("session_id", ""))
        seq = d.get("seq") or 0
        if session is None or session.superseded or (session.history and session.history[0]["s"] > seq + 1):
            conn.send({"op": 9, "s": None, "t": None, "d": False})
            return
        old = session.conn
        if old is not None and old is not conn:
            old.session = None
            task = asyncio.create_task(self._close_conn(old, 4000))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        session.conn = conn
        conn.session = session
        for payload in list(session.history):
            if payload["s"] > seq:
                conn.send(payload)
        session.dispatch("RESUMED", {"_trace": ["fake-gateway"]})

    def _request_members(self, conn: _Conn, d: dict[str, Any]) -> None:
        session = conn.session
        if session is None:
            return
        gids = d.get("guild_id")
        for gid in gids if isinstance(gids, list) else [gids]:
            g = self._guilds.get(int(gid))
            if g is None:
                continue
            query = (d.get("query") or "").lower()
            user_ids = {int(u) for u in d.get("user_ids") or []}
            members = [
                u
                for u in g["members"]
                if (not user_ids or u in user_ids) and self._user(u)["username"].lower().startswith(query)
            ]
            if d.get("limit"):
                members = members[: d["limit"]]
            chunk = {
                "guild_id": str(gid),
                "members": [self._member_obj(int(gid), u) for u in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [str(u) for u in user_ids if u not in g["members"]],
            }
            if d.get("nonce"):
                chunk["nonce"] = d["nonce"]
            session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    async def disconnect_gateway(self, *, code: int = 4000, shard_id: int | None = None) -> None:
        """Drop the bot's websocket(s) as if the network failed; the bot is expected to RESUME."""
        for conn in list(self._conns):
            if shard_id is None or (conn.session is not None and conn.session.shard_id == shard_id):
                await self._close_conn(conn, code)

    def gateway_connected(self, shard_id: int = 0) -> bool:
        s = self._shard_sessions.get(shard_id)
        return s is not None and s.conn is not None and not s.conn.closed

    # ------------------------------------------------------------------ REST plumbing

    def _setup_routes(self) -> None:
        r = self._add_route
        r("GET", "/users/@me", self._r_get_me)
        r("GET", "/oauth2/applications/@me", self._r_get_application)
        r("GET", "/applications/@me", self._r_get_application)
        r("GET", "/gateway/bot", self._r_gateway_bot)
        r("GET", "/gateway", self._r_gateway)
        for prefix in (
            "/applications/{application_id}/commands",
            "/applications/{application_id}/guilds/{guild_id}/commands",
        ):
            r("GET", prefix, self._r_get_commands)
            r("PUT", prefix, self._r_put_commands)
            r("POST", prefix, self._r_post_command)
            r("GET", prefix + "/{command_id}", self._r_get_command)
            r("PATCH", prefix + "/{command_id}", self._r_patch_command)
            r("DELETE", prefix + "/{command_id}", self._r_delete_command)
        r("POST", "/users/@me/channels", self._r_create_dm)
        r("GET", "/users/{user_id}", self._r_get_user)
        r("GET", "/channels/{channel_id}", self._r_get_channel)
        r("POST", "/channels/{channel_id}/typing", self._r_typing)
        r("GET", "/channels/{channel_id}/messages", self._r_get_messages)
        r("POST", "/channels/{channel_id}/messages", self._r_post_message)
        r("GET", "/channels/{channel_id}/messages/{message_id}", self._r_get_message)
        r("PATCH", "/channels/{channel_id}/messages/{message_id}", self._r_patch_message)
        r("DELETE", "/channels/{channel_id}/messages/{message_id}", self._r_delete_message)
        base = "/channels/{channel_id}/messages/{message_id}/reactions"
        r("PUT", base + "/{emoji}/@me", self._r_add_own_reaction)
        r("DELETE", base + "/{emoji}/@me", self._r_remove_own_reaction)
        r("DELETE", base + "/{emoji}/{user_id}", self._r_remove_user_reaction)
        r("GET", base + "/{emoji}", self._r_get_reactions)
        r("DELETE", base + "/{emoji}", self._r_clear_emoji)
        r("DELETE", base, self._r_clear_reactions)
        r("GET", "/guilds/{guild_id}", self._r_get_guild)
        r("GET", "/guilds/{guild_id}/channels", self._r_get_guild_channels)
        r("GET", "/guilds/{guild_id}/roles", self._r_get_roles)
        r("GET", "/guilds/{guild_id}/members", self._r_list_members)
        r("GET", "/guilds/{guild_id}/members/{user_id}", self._r_get_member)
        r("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._r_add_member_role)
        r("DELETE", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._r_remove_member_role)
        r("POST", "/interactions/{interaction_id}/{token}/callback", self._r_interaction_callback)
        wh = "/webhooks/{application_id}/{token}"
        r("GET", wh + "/messages/@original", self._r_get_original)
        r("PATCH", wh + "/messages/@original", self._r_edit_original)
        r("DELETE", wh + "/messages/@original", self._r_delete_original)
        r("POST", wh, self._r_followup)
        r("GET", wh + "/messages/{message_id}", self._r_get_webhook_message)
        r("PATCH", wh + "/messages/{message_id}", self._r_edit_webhook_message)
        r("DELETE", wh + "/messages/{message_id}", self._r_delete_webhook_message)

    def _add_route(
        self, method: str, template: str, handler: Callable[[_Req], Awaitable[tuple[int, Any]]]
    ) -> None:
        self._routes.append((method, template, _route_regex(template), handler))

    async def _read_body(
        self, request: web.Request
    ) -> tuple[Any, dict[int, tuple[str, str | None, bytes]], list[dict[str, Any]]]:
        files: dict[int, tuple[str, str | None, bytes]] = {}
        parts: list[dict[str, Any]] = []
        if not request.can_read_body:
            return None, files, parts
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            n = 0
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(await part.text())  # type: ignore[union-attr]
                    continue
                data = await part.read(decode=False)  # type: ignore[union-attr]
                m = re.fullmatch(r"files\[(\d+)\]", name)
                index = int(m.group(1)) if m else n
                n += 1
                filename = part.filename or name  # type: ignore[union-attr]
                files[index] = (filename, part.headers.get("Content-Type"), bytes(data))
                parts.append(
                    {
                        "field": name,
                        "filename": filename,
                        "content_type": part.headers.get("Content-Type"),
                        "size": len(data),
                    }
                )
            return payload, files, parts
        raw = await request.read()
        if not raw:
            return None, files, parts
        try:
            return json.loads(raw), files, parts
        except ValueError:
            return raw.decode(errors="replace"), files, parts

    def _take_injection(self, method: str, path: str) -> dict[str, Any] | None:
        for inj in self._injections:
            if inj["times"] > 0 and inj["method"] in ("*", method) and re.search(inj["path"], path):
                inj["times"] -= 1
                return inj
        return None

    def inject_error(
        self, method: str, path: str, *, status: int = 429, times: int = 1, retry_after: float = 0.05
    ) -> None:
        """Make the next ``times`` calls matching ``method`` ("*" = any) and ``path`` (regex, re.search over the
        concrete path below /api/v10) fail with ``status`` (429 with Discord's rate-limit headers, else a JSON error).

        Note: discord.py retries 5xx after sleeping 1 + 2*try seconds, 429 after ``retry_after``."""
        self._injections.append(
            {
                "method": method.upper(),
                "path": path,
                "status": status,
                "times": times,
                "retry_after": retry_after,
            }
        )

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method.upper()
        try:
            body, files, parts = await self._read_body(request)
        except Exception as exc:  # malformed body: still log it
            body, files, parts = f"<unreadable body: {exc}>", {}, []
        call = RestCall(
            index=len(self.rest_log),
            method=method,
            path=path,
            route=None,
            query=dict(request.query),
            json=body,
            files=parts,
            time=time.monotonic(),
        )
        self.rest_log.append(call)
        handler = None
        params: dict[str, str] = {}
        for m, template, regex, h in self._routes:
            if m != method:
                continue
            match = regex.match(path)
            if match:
                call.route, handler, params = template, h, match.groupdict()
                break

        inj = self._take_injection(method, path)
        if inj is not None:
            call.injected = True
            call.status = inj["status"]
            if inj["status"] == 429:
                ra = inj["retry_after"]
                call.response = {"message": "You are being rate limited.", "retry_after": ra, "global": False}
                headers = {
                    "Retry-After": f"{ra:.3f}",
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": f"{time.time() + ra:.3f}",
                    "X-RateLimit-Reset-After": f"{ra:.3f}",
                    "X-RateLimit-Bucket": "fakebucket" + secrets.token_hex(4),
                    "X-RateLimit-Scope": "user",
                    "Via": "1.1 google",
                }
            else:
                call.response = {
                    "message": f"{inj['status']}: Internal Server Error (injected by test)",
                    "code": 0,
                }
                headers = {}
            log.info("fake Discord: injected %s for %s %s", inj["status"], method, path)
            self._changed()
            return _json_response(call.status, call.response, headers)

        if handler is None:
            log.error(
                "fake Discord: UNKNOWN ROUTE %s %s (body=%r) -> 404; implement it in tests/fake_discord",
                method,
                path,
                body,
            )
            self.unknown_routes.append(call)
            call.status, call.response = (
                404,
                {"message": f"404: Not Found (fake Discord has no route {method} {path})", "code": 0},
            )
            self._changed()
            return _json_response(404, call.response)

        req = _Req(
            method=method,
            path=path,
            params=params,
            query=dict(request.query),
            json=body,
            files=files,
            request=request,
        )
        try:
            status, data = await handler(req)
        except ApiError as e:
            status, data = e.status, e.body
        except Exception as e:
            log.exception("fake Discord: handler crashed for %s %s", method, path)
            status, data = 500, {"message": f"fake Discord crashed: {e!r}", "code": 0}
        call.status, call.response = status, data
        self._changed()
        return _json_response(status, data)

    async def _not_api(self, request: web.Request) -> web.StreamResponse:
        call = RestCall(
            index=len(self.rest_log),
            method=request.method,
            path=request.path,
            route=None,
            query=dict(request.query),
            json=None,
            files=[],
            status=404,
            time=time.monotonic(),
        )
        self.rest_log.append(call)
        self.unknown_routes.append(call)
        log.error("fake Discord: request outside %s: %s %s", API_PREFIX, request.method, request.path)
        return _json_response(404, {"message": "404: Not Found", "code": 0})

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        att = self._attachments.get(int(request.match_info["attachment_id"]))
        call = RestCall(
            index=len(self.rest_log),
            method="GET",
            path=request.path,
            route="CDN /attachments/{id}/{filename}",
            query={},
            json=None,
            files=[],
            status=200 if att else 404,
            time=time.monotonic(),
        )
        self.rest_log.append(call)
        self._changed()
        if att is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=att[2], content_type=att[1] if "/" in att[1] else "application/octet-stream")

    def count_calls(self, method: str | None = None, path: str | None = None, *, since: int = 0) -> int:
        return sum(
            1
            for c in self.rest_log[since:]
            if (method is None or c.method == method.upper()) and (path is None or re.search(path, c.path))
        )

    def calls(self, method: str | None = None, path: str | None = None, *, since: int = 0) -> list[RestCall]:
        return [
            c
            for c in self.rest_log[since:]
            if (method is None or c.method == method.upper()) and (path is None or re.search(path, c.path))
        ]

    # ------------------------------------------------------------------ REST: identity / gateway / commands

    async def _r_get_me(self, r: _Req) -> tuple[int, Any]:
        return 200, self.bot_user

    async def _r_get_application(self, r: _Req) -> tuple[int, Any]:
        if self.owner_id not in self._users:
            self.add_user(self.owner_id, "AppOwner")
        return 200, {
            "id": str(self.application_id),
            "name": self.bot_user["username"],
            "icon": None,
            "description": "fake app",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": self._users[self.owner_id],
            "team": None,
            "flags": 0,
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "rpc_origins": [],
            "approximate_guild_count": len(self._guilds),
            "bot": self.bot_user,
            "integration_types_config": {"0": {}},
        }

    async def _r_gateway_bot(self, r: _Req) -> tuple[int, Any]:
        return 200, {
            "url": self.gateway_url,
            "shards": self.shard_count,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 14400000,
                "max_concurrency": 1,
            },
        }

    async def _r_gateway(self, r: _Req) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url}

    def _check_app(self, r: _Req) -> int | None:
        if int(r.params["application_id"]) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")
        gid = r.params.get("guild_id")
        if gid is not None and int(gid) not in self._guilds:
            raise ApiError(403, 50001, "Missing Access")
        return int(gid) if gid is not None else None

    def _store_command(self, scope: int | None, cmd: dict[str, Any], version: int) -> dict[str, Any]:
        ctype = cmd.get("type", 1)
        key = (scope, cmd["name"], ctype)
        cid = self._command_ids.get(key)
        if cid is None:
            cid = self._command_ids[key] = self._snowflake()
        stored = {
            "id": str(cid),
            "application_id": str(self.application_id),
            "version": str(version),
            "type": ctype,
            "name": cmd["name"],
            "description": cmd.get("description", "") if ctype == 1 else "",
            "options": cmd.get("options") or [],
            "default_member_permissions": cmd.get("default_member_permissions"),
            "dm_permission": cmd.get("dm_permission", True),
            "nsfw": cmd.get("nsfw", False),
            "name_localizations": cmd.get("name_localizations"),
            "description_localizations": cmd.get("description_localizations"),
            "contexts": cmd.get("contexts"),
            "integration_types": cmd.get("integration_types") or [0],
        }
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored

    async def _r_put_commands(self, r: _Req) -> tuple[int, Any]:
        scope = self._check_app(r)
        errors = validate_commands(r.json)
        if errors:
            raise _invalid_form(errors)
        version = self._snowflake()
        self._commands[scope] = [self._store_command(scope, c, version) for c in r.json]
        return 200, self._commands[scope]

    async def _r_get_commands(self, r: _Req) -> tuple[int, Any]:
        return 200, self._commands.get(self._check_app(r), [])

    async def _r_post_command(self, r: _Req) -> tuple[int, Any]:
        scope = self._check_app(r)
        errors = validate_commands([r.json])
        if errors:
            raise _invalid_form(errors)
        stored = self._store_command(scope, r.json, self._snowflake())
        cmds = [
            c
            for c in self._commands.get(scope, [])
            if not (c["name"] == stored["name"] and c["type"] == stored["type"])
        ]
        self._commands[scope] = [*cmds, stored]
        return 201, stored

    def _find_command_by_id(self, r: _Req) -> tuple[int | None, dict[str, Any]]:
        scope = self._check_app(r)
        for c in self._commands.get(scope, []):
            if c["id"] == r.params["command_id"]:
                return scope, c
        raise ApiError(404, 10063, "Unknown application command")

    async def _r_get_command(self, r: _Req) -> tuple[int, Any]:
        return 200, self._find_command_by_id(r)[1]

    async def _r_patch_command(self, r: _Req) -> tuple[int, Any]:
        _, c = self._find_command_by_id(r)
        c.update({k: v for k, v in (r.json or {}).items() if k in c})
        return 200, c

    async def _r_delete_command(self, r: _Req) -> tuple[int, Any]:
        scope, c = self._find_command_by_id(r)
        self._commands[scope] = [x for x in self._commands[scope] if x is not c]
        return 204, None

    def synced_commands(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        return list(self._commands.get(guild_id, []))

    # ------------------------------------------------------------------ REST: users / channels / guilds

    async def _r_create_dm(self, r: _Req) -> tuple[int, Any]:
        try:
            uid = int((r.json or {})["recipient_id"])
        except (KeyError, TypeError, ValueError):
            raise _invalid_form(
                {
                    "recipient_id": {
                        "_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]
                    }
                }
            ) from None
        if uid not in self._users:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return 200, self._public(self._dm_channel(uid))

    async def _r_get_user(self, r: _Req) -> tuple[int, Any]:
        user = self._users.get(int(r.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return 200, user

    async def _r_get_channel(self, r: _Req) -> tuple[int, Any]:
        return 200, self._public(self._channel(int(r.params["channel_id"])))

    async def _r_typing(self, r: _Req) -> tuple[int, Any]:
        self._channel(int(r.params["channel_id"]))
        return 204, None

    def _guild_or_404(self, r: _Req) -> dict[str, Any]:
        g = self._guilds.get(int(r.params["guild_id"]))
        if g is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return g

    async def _r_get_guild(self, r: _Req) -> tuple[int, Any]:
        self._guild_or_404(r)
        return 200, self._guild_rest_payload(int(r.params["guild_id"]))

    async def _r_get_guild_channels(self, r: _Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        return 200, [self._channels[c] for c in g["channels"]]

    async def _r_get_roles(self, r: _Req) -> tuple[int, Any]:
        return 200, list(self._guild_or_404(r)["roles"].values())

    async def _r_get_member(self, r: _Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        uid = int(r.params["user_id"])
        if uid not in g["members"]:
            raise ApiError(404, 10007, "Unknown Member")
        return 200, self._member_obj(int(r.params["guild_id"]), uid)

    async def _r_list_members(self, r: _Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        after = int(r.query.get("after", 0))
        limit = int(r.query.get("limit", 1))
        ids = sorted(u for u in g["members"] if u > after)[:limit]
        return 200, [self._member_obj(int(r.params["guild_id"]), u) for u in ids]

    async def _member_role_change(self, r: _Req, add: bool) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        gid, uid, rid = int(r.params["guild_id"]), int(r.params["user_id"]), int(r.params["role_id"])
        if uid not in g["members"]:
            raise ApiError(404, 10007, "Unknown Member")
        if rid not in g["roles"]:
            raise ApiError(404, 10011, "Unknown Role")
        roles = [x for x in g["members"][uid]["roles"] if x != rid] + ([rid] if add else [])
        self.set_member_roles(gid, uid, roles)
        return 204, None

    async def _r_add_member_role(self, r: _Req) -> tuple[int, Any]:
        return await self._member_role_change(r, True)

    async def _r_remove_member_role(self, r: _Req) -> tuple[int, Any]:
        return await self._member_role_change(r, False)

    # ------------------------------------------------------------------ messages

    def _make_attachments(
        self,
        entries: list[dict[str, Any]] | None,
        files: dict[int, tuple[str, str | None, bytes]],
        existing: list[dict[str, Any]],
        *,
        ephemeral: bool,
    ) -> list[dict[str, Any]]:
        existing_by_id = {a["id"]: a for a in existing}
        out: list[dict[str, Any]] = []
        used: set[int] = set()
        for entry in entries or []:
            eid = str(entry.get("id"))
            if eid in existing_by_id:
                out.append(existing_by_id[eid])
                continue
            try:
                index = int(eid)
            except ValueError:
                continue
            if index in files:
                used.add(index)
                fname, ctype, data = files[index]
                out.append(
                    self._new_attachment(
                        entry.get("filename") or fname,
                        data,
                        ctype,
                        description=entry.get("description"),
                        ephemeral=ephemeral,
                    )
                )
        for index, (fname, ctype, data) in sorted(files.items()):
            if index not in used:
                out.append(self._new_attachment(fname, data, ctype, ephemeral=ephemeral))
        if entries is None:
            out = existing + out
        return out

    def _new_attachment(
        self,
        filename: str,
        data: bytes,
        content_type: str | None = None,
        *,
        description: str | None = None,
        ephemeral: bool = False,
    ) -> dict[str, Any]:
        aid = self._snowflake()
        guessed = mimetypes.guess_type(filename)[0]
        if not content_type or content_type == "application/octet-stream":
            content_type = guessed or "application/octet-stream"
        if content_type.startswith("text/") and "charset" not in content_type:
            content_type += "; charset=utf-8"
        self._attachments[aid] = (filename, content_type.split(";")[0], data)
        url = f"{self.base_url}/attachments/{aid}/{quote(filename)}"
        att = {
            "id": str(aid),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
            "flags": 0,
        }
        if description:
            att["description"] = description
        if ephemeral:
            att["ephemeral"] = True
        return att

    def _fix_embed_attachment_urls(
        self, embeds: list[dict[str, Any]], attachments: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        by_name = {a["filename"]: a["url"] for a in attachments}
        out = []
        for e in embeds:
            e = {**e, "type": e.get("type", "rich")}
            for key in ("image", "thumbnail"):
                url = (e.get(key) or {}).get("url", "")
                if url.startswith("attachment://") and url[len("attachment://") :] in by_name:
                    e[key] = {
                        **e[key],
                        "url": by_name[url[len("attachment://") :]],
                        "proxy_url": by_name[url[len("attachment://") :]],
                    }
            out.append(e)
        return out

    def _create_message(
        self,
        channel_id: int,
        payload: dict[str, Any],
        files: dict[int, tuple[str, str | None, bytes]],
        *,
        author_id: int | None = None,
        msg_type: int = 0,
        ix: _Interaction | None = None,
        extra_flags: int = 0,
        validate: bool = True,
    ) -> dict[str, Any]:
        ch = self._channel(channel_id)
        payload = payload or {}
        if validate:
            errors, empty = validate_message(payload, has_files=bool(files))
            if errors:
                raise _invalid_form(errors)
            if empty and not extra_flags & LOADING:
                raise ApiError(400, 50006, "Cannot send an empty message")
        author_id = self.bot_user_id if author_id is None else author_id
        flags = (
            int(payload.get("flags") or 0) & (EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15))
        ) | extra_flags
        ephemeral = bool(flags & EPHEMERAL)
        mid = self._snowflake()
        attachments = self._make_attachments(payload.get("attachments"), files, [], ephemeral=ephemeral)
        msg: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "type": msg_type,
            "content": payload.get("content") or "",
            "author": self._user(author_id),
            "timestamp": snowflake_time(mid).isoformat(),
            "edited_timestamp": None,
            "tts": bool(payload.get("tts", False)),
            "mention_everyone": "@everyone" in (payload.get("content") or ""),
            "mentions": self._mentions(payload.get("content") or ""),
            "mention_roles": sorted(set(re.findall(r"<@&(\d+)>", payload.get("content") or ""))),
            "mention_channels": [],
            "attachments": attachments,
            "embeds": self._fix_embed_attachment_urls(payload.get("embeds") or [], attachments),
            "components": payload.get("components") or [],
            "pinned": False,
            "flags": flags,
            "reactions": [],
        }
        if payload.get("nonce") is not None:
            msg["nonce"] = payload["nonce"]
        if payload.get("poll"):
            msg["poll"] = payload["poll"]
        ref = payload.get("message_reference")
        if ref and ref.get("message_id"):
            msg["message_reference"] = {
                "type": ref.get("type", 0),
                "message_id": str(ref["message_id"]),
                "channel_id": str(ref.get("channel_id", channel_id)),
            }
            if ch.get("guild_id"):
                msg["message_reference"]["guild_id"] = ch["guild_id"]
            referenced = self._messages.get(int(ref["message_id"]))
            if referenced is not None:
                msg["referenced_message"] = referenced
            elif ref.get("fail_if_not_exists", True):
                raise _invalid_form(
                    {
                        "message_reference": {
                            "_errors": [
                                {"code": "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "message": "Unknown message"}
                            ]
                        }
                    }
                )
        if ix is not None:
            msg["webhook_id"] = str(self.application_id)
            msg["application_id"] = str(self.application_id)
            owners = {"0": str(ix.guild_id)} if ix.guild_id else {"1": str(ix.user_id)}
            meta: dict[str, Any] = {
                "id": str(ix.id),
                "type": ix.type,
                "user": self._user(ix.user_id),
                "authorizing_integration_owners": owners,
            }
            if ix.type == 2:
                meta["name"] = ix.data.get("name")
                meta["command_type"] = ix.data.get("type", 1)
            if ix.source_message_id is not None:
                meta["interacted_message_id"] = str(ix.source_message_id)
            msg["interaction_metadata"] = meta
            if ix.type == 2:
                msg["interaction"] = {
                    "id": str(ix.id),
                    "type": 2,
                    "name": ix.data.get("name", ""),
                    "user": self._user(ix.user_id),
                }
        self._messages[mid] = msg
        gid = self._channel_guild_id(channel_id)
        self._msg_meta[mid] = {
            "guild_id": gid,
            "ephemeral": ephemeral,
            "deleted": False,
            "visible_to": ix.user_id if (ix is not None and ephemeral) else None,
            "interaction_id": ix.id if ix is not None else None,
        }
        self._channel_messages[channel_id].append(mid)
        if not ephemeral:
            ch["last_message_id"] = str(mid)
            self._dispatch_message_event("MESSAGE_CREATE", msg)
        self._changed()
        return msg

    def _mentions(self, content: str) -> list[dict[str, Any]]:
        ids = dict.fromkeys(int(x) for x in re.findall(r"<@!?(\d+)>", content))
        return [self._users[u] for u in ids if u in self._users]

    def _dispatch_message_event(self, event: str, msg: dict[str, Any]) -> None:
        mid = int(msg["id"])
        gid = self._msg_meta[mid]["guild_id"]
        data = {k: v for k, v in msg.items() if k != "reactions" or v}
        session = self._shard_sessions.get(0 if gid is None else (gid >> 22) % self.shard_count)
        if (
            session is not None
            and gid is not None
            and not session.intents & INTENT_MESSAGE_CONTENT
            and int(msg["author"]["id"]) != self.bot_user_id
            and not any(int(u["id"]) == self.bot_user_id for u in msg.get("mentions", []))
        ):
            data.update(content="", embeds=[], attachments=[], components=[])  # no MESSAGE_CONTENT intent
        if gid is not None:
            data["guild_id"] = str(gid)
            author = int(msg["author"]["id"])
            if author in self._guilds[gid]["members"]:
                data["member"] = self._member_obj(gid, author, with_user=False)
        self._dispatch(
            event, data, guild_id=gid, intent=INTENT_GUILD_MESSAGES if gid else INTENT_DIRECT_MESSAGES
        )

    def _edit_message(
        self, mid: int, payload: dict[str, Any], files: dict[int, tuple[str, str | None, bytes]]
    ) -> dict[str, Any]:
        msg = self._messages.get(mid)
        if msg is None or self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        payload = payload or {}
        errors, _ = validate_message(
            {**payload, "flags": payload.get("flags", msg["flags"])}, has_files=bool(files), partial=True
        )
        if errors:
            raise _invalid_form(errors)
        for key in ("content", "components"):
            if key in payload:
                msg[key] = payload[key] if payload[key] is not None else ("" if key == "content" else [])
        if "attachments" in payload or files:
            msg["attachments"] = self._make_attachments(
                payload.get("attachments"),
                files,
                msg["attachments"],
                ephemeral=self._msg_meta[mid]["ephemeral"],
            )
        if "embeds" in payload:
            msg["embeds"] = self._fix_embed_attachment_urls(payload["embeds"] or [], msg["attachments"])
        if "flags" in payload and payload["flags"] is not None:
            keep = msg["flags"] & (EPHEMERAL | LOADING)
            msg["flags"] = keep | (int(payload["flags"]) & ((1 << 2) | (1 << 15)))
        msg["flags"] &= ~LOADING
        msg["edited_timestamp"] = iso_now()
        if not self._msg_meta[mid]["ephemeral"]:
            self._dispatch_message_event("MESSAGE_UPDATE", msg)
        self._changed()
        return msg

    def _delete_message(self, mid: int) -> None:
        msg = self._messages.get(mid)
        if msg is None or self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        self._msg_meta[mid]["deleted"] = True
        cid = int(msg["channel_id"])
        self._channel_messages[cid] = [m for m in self._channel_messages[cid] if m != mid]
        gid = self._msg_meta[mid]["guild_id"]
        if not self._msg_meta[mid]["ephemeral"]:
            data = {"id": str(mid), "channel_id": str(cid)}
            if gid is not None:
                data["guild_id"] = str(gid)
            self._dispatch(
                "MESSAGE_DELETE",
                data,
                guild_id=gid,
                intent=INTENT_GUILD_MESSAGES if gid else INTENT_DIRECT_MESSAGES,
            )
        self._changed()

    def _message_in_channel(self, r: _Req) -> tuple[int, dict[str, Any]]:
        cid, mid = int(r.params["channel_id"]), int(r.params["message_id"])
        self._channel(cid)
        msg = self._messages.get(mid)
        if (
            msg is None
            or int(msg["channel_id"]) != cid
            or self._msg_meta[mid]["deleted"]
            or self._msg_meta[mid]["ephemeral"]
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return mid, msg

    async def _r_post_message(self, r: _Req) -> tuple[int, Any]:
        cid = int(r.params["channel_id"])
        ch = self._channel(cid)
        if ch["type"] == 1 and ch["_recipient"] in self._dms_closed:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        payload = dict(r.json or {})
        payload["flags"] = (
            int(payload.get("flags") or 0) & ~EPHEMERAL
        )  # only interaction responses can be ephemeral
        msg_type = 19 if payload.get("message_reference") else 0
        return 200, self._create_message(cid, payload, r.files, msg_type=msg_type)

    async def _r_get_message(self, r: _Req) -> tuple[int, Any]:
        return 200, self._message_in_channel(r)[1]

    async def _r_get_messages(self, r: _Req) -> tuple[int, Any]:
        cid = int(r.params["channel_id"])
        self._channel(cid)
        limit = max(1, min(100, int(r.query.get("limit", 50))))
        ids = [m for m in self._channel_messages[cid] if not self._msg_meta[m]["ephemeral"]]
        if "before" in r.query:
            ids = [m for m in ids if m < int(r.query["before"])]
        if "after" in r.query:
            ids = [m for m in ids if m > int(r.query["after"])][:limit]
        ids = ids[-limit:]
        return 200, [self._messages[m] for m in reversed(ids)]

    async def _r_patch_message(self, r: _Req) -> tuple[int, Any]:
        mid, msg = self._message_in_channel(r)
        if int(msg["author"]["id"]) != self.bot_user_id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        edited = self._edit_message(mid, r.json or {}, r.files)
        for ix in self._interactions.values():  # defer() on a component, then message.edit() also answers it
            if ix.source_message_id == mid and ix.callback_type == 6 and not ix.final:
                ix.edited_original = True
        return 200, edited

    async def _r_delete_message(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._delete_message(mid)
        return 204, None

    # ------------------------------------------------------------------ reactions

    def _sync_reactions_field(self, mid: int) -> None:
        msg = self._messages[mid]
        msg["reactions"] = [
            {
                "emoji": _emoji_obj(k),
                "count": len(users),
                "count_details": {"burst": 0, "normal": len(users)},
                "me": self.bot_user_id in users,
                "me_burst": False,
                "burst_colors": [],
            }
            for k, users in self._reactions.get(mid, {}).items()
            if users
        ]

    def _react(self, mid: int, user_id: int, emoji: str, add: bool) -> bool:
        key = _emoji_key(emoji)
        msg = self._messages[mid]
        users = self._reactions.setdefault(mid, {}).setdefault(key, {})
        if add == (user_id in users):
            return False
        if add:
            users[user_id] = None
        else:
            del users[user_id]
            if not users:
                del self._reactions[mid][key]
        self._sync_reactions_field(mid)
        gid = self._msg_meta[mid]["guild_id"]
        data: dict[str, Any] = {
            "user_id": str(user_id),
            "channel_id": msg["channel_id"],
            "message_id": str(mid),
            "emoji": _emoji_obj(key),
            "burst": False,
            "type": 0,
        }
        if gid is not None:
            data["guild_id"] = str(gid)
        if add:
            data["message_author_id"] = msg["author"]["id"]
            data["burst_colors"] = []
            if gid is not None and user_id in self._guilds[gid]["members"]:
                data["member"] = self._member_obj(gid, user_id)
        self._dispatch(
            "MESSAGE_REACTION_ADD" if add else "MESSAGE_REACTION_REMOVE",
            data,
            guild_id=gid,
            intent=INTENT_GUILD_MESSAGE_REACTIONS if gid else INTENT_DIRECT_MESSAGE_REACTIONS,
        )
        self._changed()
        return True

    async def _r_add_own_reaction(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        if not r.params["emoji"].strip():
            raise ApiError(400, 10014, "Unknown Emoji")
        self._react(mid, self.bot_user_id, r.params["emoji"], True)
        return 204, None

    async def _r_remove_own_reaction(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._react(mid, self.bot_user_id, r.params["emoji"], False)
        return 204, None

    async def _r_remove_user_reaction(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._react(mid, int(r.params["user_id"]), r.params["emoji"], False)
        return 204, None

    async def _r_get_reactions(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        users = self._reactions.get(mid, {}).get(_emoji_key(r.params["emoji"]), {})
        after = int(r.query.get("after", 0))
        limit = int(r.query.get("limit", 25))
        return 200, [self._user(u) for u in sorted(users) if u > after][:limit]

    async def _r_clear_emoji(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        for uid in list(self._reactions.get(mid, {}).get(_emoji_key(r.params["emoji"]), {})):
            self._react(mid, uid, r.params["emoji"], False)
        return 204, None

    async def _r_clear_reactions(self, r: _Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        for key, users in list(self._reactions.get(mid, {}).items()):
            for uid in list(users):
                self._react(mid, uid, key, False)
        return 204, None

    # ------------------------------------------------------------------ interactions: REST side

    def _ix_by_token(self, r: _Req) -> _Interaction:
        if int(r.params["application_id"]) != self.application_id:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        ix = self._interactions_by_token.get(r.params["token"])
        if ix is None:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return ix

    async def _r_interaction_callback(self, r: _Req) -> tuple[int, Any]:
        ix = self._interactions.get(int(r.params["interaction_id"]))
        if ix is None or ix.token != r.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        age = time.monotonic() - ix.created
        if self.callback_deadline is not None and age > self.callback_deadline:
            ix.error = (
                f"callback arrived {age:.2f}s after the interaction (deadline {self.callback_deadline}s)"
            )
            log.error("fake Discord: %s -> 10062 Unknown interaction", ix.error)
            raise ApiError(404, 10062, "Unknown interaction")
        if ix.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = r.json if isinstance(r.json, dict) else {}
        ctype = body.get("type")
        data = body.get("data") or {}
        resource: dict[str, Any] = {"type": ctype}
        msg: dict[str, Any] | None = None
        if ctype == 4:
            msg = self._create_message(
                ix.channel_id, data, r.files, msg_type=20 if ix.type == 2 else 0, ix=ix
            )
            ix.original_message_id = int(msg["id"])
            ix.ephemeral = bool(msg["flags"] & EPHEMERAL)
        elif ctype == 5:
            if ix.type not in (2, 3, 5):
                raise ApiError(400, 40043, "Interaction callback type not allowed for this interaction")
            flags = int(data.get("flags") or 0) & EPHEMERAL
            msg = self._create_message(
                ix.channel_id,
                {"flags": flags},
                {},
                msg_type=20 if ix.type == 2 else 0,
                ix=ix,
                extra_flags=LOADING,
                validate=False,
            )
            ix.original_message_id = int(msg["id"])
            ix.ephemeral = bool(flags)
        elif ctype in (6, 7):
            if ix.source_message_id is None:
                raise ApiError(
                    400,
                    40043,
                    "Interaction callback type not allowed for this interaction (no message to update)",
                )
            ix.original_message_id = ix.source_message_id
            ix.ephemeral = self._msg_meta[ix.source_message_id]["ephemeral"]
            if ctype == 7:
                msg = self._edit_message(ix.source_message_id, data, r.files)
            else:
                msg = None
        elif ctype == 8:
            if ix.type != 4:
                raise ApiError(400, 40043, "Interaction callback type not allowed for this interaction")
            errors = validate_choices(data.get("choices"))
            if errors:
                raise _invalid_form(errors)
            ix.choices = data.get("choices") or []
        elif ctype == 9:
            if ix.type in (4, 5):
                raise ApiError(400, 40043, "Interaction callback type not allowed for this interaction")
            errors = validate_modal(data)
            if errors:
                raise _invalid_form(errors)
            ix.modal = data
        elif ctype == 1:
            pass
        else:
            raise _invalid_form(
                {
                    "type": {
                        "_errors": [
                            {
                                "code": "BASE_TYPE_CHOICES",
                                "message": f"Value must be one of (1, 4, 5, 6, 7, 8, 9); got {ctype!r}",
                            }
                        ]
                    }
                }
            )
        ix.callback_type = ctype
        ix.callback_data = data
        info: dict[str, Any] = {
            "id": str(ix.id),
            "type": ix.type,
            "response_message_loading": ctype == 5,
            "response_message_ephemeral": ix.ephemeral,
        }
        if ix.original_message_id is not None and ctype in (4, 5, 7):
            info["response_message_id"] = str(ix.original_message_id)
        if msg is not None:
            resource["message"] = msg
        self._changed()
        return 200, {"interaction": info, "resource": resource}

    def _ix_message(self, ix: _Interaction, mid: int | None) -> int:
        if ix.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if mid is None or mid not in self._messages or self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        return mid

    async def _r_get_original(self, r: _Req) -> tuple[int, Any]:
        ix = self._ix_by_token(r)
        return 200, self._messages[self._ix_message(ix, ix.original_message_id)]

    async def _r_edit_original(self, r: _Req) -> tuple[int, Any]:
        ix = self._ix_by_token(r)
        mid = self._ix_message(ix, ix.original_message_id)
        msg = self._edit_message(mid, r.json or {}, r.files)
        ix.edited_original = True
        self._changed()
        return 200, msg

    async def _r_delete_original(self, r: _Req) -> tuple[int, Any]:
        ix = self._ix_by_token(r)
        self._delete_message(self._ix_message(ix, ix.original_message_id))
        ix.edited_original = True
        return 204, None

    async def _r_followup(self, r: _Req) -> tuple[int, Any]:
        ix = self._ix_by_token(r)
        if ix.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        payload = dict(r.json or {})
        orig = self._messages.get(ix.original_message_id) if ix.original_message_id else None
        if ix.callback_type == 5 and orig is not None and orig["flags"] & LOADING and not ix.followup_ids:
            # like Discord: the first follow-up after a "thinking" deferral replaces the loading message
            errors, empty = validate_message(payload, has_files=bool(r.files))
            if errors:
                raise _invalid_form(errors)
            if empty:
                raise ApiError(400, 50006, "Cannot send an empty message")
            payload.pop("flags", None)
            msg = self._edit_message(int(orig["id"]), payload, r.files)
            msg["edited_timestamp"] = None
        else:
            msg = self._create_message(ix.channel_id, payload, r.files, ix=ix)
        ix.followup_ids.append(int(msg["id"]))
        self._changed()
        if r.query.get("wait", "").lower() in ("1", "true"):
            return 200, msg
        return 204, None

    def _ix_owned_message(self, r: _Req) -> tuple[_Interaction, int]:
        ix = self._ix_by_token(r)
        mid = int(r.params["message_id"])
        if mid != ix.original_message_id and mid not in ix.followup_ids:
            raise ApiError(404, 10008, "Unknown Message")
        return ix, self._ix_message(ix, mid)

    async def _r_get_webhook_message(self, r: _Req) -> tuple[int, Any]:
        return 200, self._messages[self._ix_owned_message(r)[1]]

    async def _r_edit_webhook_message(self, r: _Req) -> tuple[int, Any]:
        ix, mid = self._ix_owned_message(r)
        msg = self._edit_message(mid, r.json or {}, r.files)
        if mid == ix.original_message_id:
            ix.edited_original = True
        return 200, msg

    async def _r_delete_webhook_message(self, r: _Req) -> tuple[int, Any]:
        _, mid = self._ix_owned_message(r)
        self._delete_message(mid)
        return 204, None

    # ------------------------------------------------------------------ interactions: acting as users

    def _context(self, user_id: int, guild_id: int | None, channel_id: int | None) -> tuple[int | None, int]:
        self._user(user_id)
        if channel_id is not None:
            ch = self._channels.get(channel_id)
            if ch is None:
                raise KeyError(f"fake Discord: unknown channel {channel_id}")
            cg = int(ch["guild_id"]) if ch.get("guild_id") else None
            if guild_id is not None and cg != guild_id:
                raise ValueError(f"channel {channel_id} is not in guild {guild_id}")
            if cg is None and ch.get("_recipient") != user_id:
                raise CommandNotAvailable(f"user {user_id} cannot see DM channel {channel_id}")
            guild_id = cg
        elif guild_id is not None:
            text = [c for c in self._guild(guild_id)["channels"] if self._channels[c]["type"] == 0]
            if not text:
                raise KeyError(f"fake Discord: guild {guild_id} has no text channel; add_channel() first")
            channel_id = text[0]
        else:
            channel_id = int(self._dm_channel(user_id)["id"])
        if guild_id is not None and user_id not in self._guild(guild_id)["members"]:
            raise CommandNotAvailable(
                f"user {user_id} is not a member of guild {guild_id}; add_member() first"
            )
        return guild_id, channel_id

    def _channel_payload(self, channel_id: int, guild_id: int | None, user_id: int) -> dict[str, Any]:
        ch = self._public(self._channels[channel_id])
        if guild_id is not None:
            ch["permissions"] = str(self.member_permissions(guild_id, user_id))
        return ch

    def _send_interaction(
        self,
        itype: int,
        user_id: int,
        guild_id: int | None,
        channel_id: int,
        data: dict[str, Any],
        *,
        message: dict[str, Any] | None = None,
    ) -> _Interaction:
        iid = self._snowflake()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        ix = _Interaction(
            id=iid,
            token=token,
            type=itype,
            user_id=user_id,
            guild_id=guild_id,
            channel_id=channel_id,
            data=data,
            created=time.monotonic(),
            source_message_id=int(message["id"]) if message is not None else None,
        )
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel_id),
            "channel": self._channel_payload(channel_id, guild_id, user_id),
            "locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "context": 0 if guild_id is not None else 1,
            "authorizing_integration_owners": {"0": str(guild_id)}
            if guild_id is not None
            else {"1": str(user_id)},
        }
        if guild_id is not None:
            payload["guild_id"] = str(guild_id)
            payload["guild"] = {"id": str(guild_id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = self._member_obj(guild_id, user_id, with_permissions=True)
            payload["app_permissions"] = str(self.member_permissions(guild_id, self.bot_user_id))
        else:
            payload["user"] = self._user(user_id)
            payload["app_permissions"] = str(DEFAULT_MEMBER_PERMISSIONS)
        if message is not None:
            payload["message"] = message
        self._interactions[iid] = ix
        self._interactions_by_token[token] = ix
        if not self._dispatch("INTERACTION_CREATE", payload, guild_id=guild_id):
            raise FakeDiscordTimeout(
                "fake Discord: no bot session for this shard; is the bot connected?\n"
                + self.describe_recent()
            )
        return ix

    async def _wait_session(self, guild_id: int | None, timeout: float) -> None:
        shard = 0 if guild_id is None else (guild_id >> 22) % self.shard_count
        await self.wait_for(
            lambda: shard in self._shard_sessions,
            timeout=timeout,
            what=f"a bot gateway session on shard {shard}",
        )

    async def _await_result(
        self, ix: _Interaction, timeout: float, what: str, ack_only: bool = False
    ) -> InteractionResult:
        try:
            await self.wait_for(
                lambda: ix.final or ix.error or (ack_only and ix.callback_type is not None),
                timeout=timeout,
                what=f"a final answer to {what} (interaction {ix.id})",
            )
        except FakeDiscordTimeout as exc:
            state = f"callback_type={ix.callback_type} edited_original={ix.edited_original} followups={len(ix.followup_ids)}"
            raise FakeDiscordTimeout(f"{exc}\ninteraction state: {state}") from None
        if ix.error:
            raise AssertionError(f"fake Discord: {what}: {ix.error}\n{self.describe_recent()}")
        return InteractionResult(
            interaction_id=ix.id,
            callback_type=ix.callback_type,
            data=ix.callback_data,
            ephemeral=ix.ephemeral,
            modal=ix.modal,
            choices=ix.choices,
            interaction_type=ix.type,
            user_id=ix.user_id,
            channel_id=ix.channel_id,
            guild_id=ix.guild_id,
            _fake=self,
            _ix=ix,
        )

    # ---- slash commands

    def _lookup_command(self, name: str, guild_id: int | None) -> dict[str, Any] | None:
        scopes = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for c in self._commands.get(scope, []):
                if c["name"] == name and c.get("type", 1) == 1:
                    return c
        return None

    async def _find_command(self, name: str, guild_id: int | None, timeout: float) -> dict[str, Any]:
        def synced_names() -> list[str]:
            return sorted({c["name"] for s in {None, guild_id} for c in self._commands.get(s, [])})

        if synced_names() and self._shard_sessions and self._lookup_command(name, guild_id) is None:
            # the bot synced and connected already: a missing name is a typo / unregistered command
            raise CommandNotAvailable(
                f"no synced command {name!r} (scope guild={guild_id}); synced: {synced_names()}"
            )
        try:
            return await self.wait_for(
                lambda: self._lookup_command(name, guild_id),
                timeout=timeout,
                what=f"the bot to sync a command named {name!r}",
            )
        except FakeDiscordTimeout:
            raise CommandNotAvailable(
                f"no synced command {name!r} (scope guild={guild_id}); synced: {synced_names()}"
            ) from None

    def _check_command_allowed(
        self, cmd: dict[str, Any], user_id: int, guild_id: int | None, enforce_permissions: bool = True
    ) -> None:
        contexts = cmd.get("contexts")
        if guild_id is None:
            if "guild_id" in cmd:
                raise CommandNotAvailable(f"/{cmd['name']} is a guild command; it does not exist in DMs")
            if (contexts is not None and 1 not in contexts) or (
                contexts is None and cmd.get("dm_permission") is False
            ):
                raise CommandNotAvailable(f"/{cmd['name']} is not available in DMs (contexts={contexts})")
            return
        if contexts is not None and 0 not in contexts:
            raise CommandNotAvailable(f"/{cmd['name']} is not available in guilds (contexts={contexts})")
        required = cmd.get("default_member_permissions")
        if required is not None and enforce_permissions:
            perms = self.member_permissions(guild_id, user_id)
            # "0" means: administrators only
            if not perms & ADMINISTRATOR and (int(required) == 0 or (perms & int(required)) != int(required)):
                raise CommandNotAvailable(
                    f"user {user_id} lacks default_member_permissions={required} for /{cmd['name']} "
                    f"(has {perms}); Discord would not show them the command (pass enforce_permissions=False "
                    "to send it anyway and test the bot's own check)"
                )

    def _build_command_data(
        self,
        cmd: dict[str, Any],
        path: list[str],
        options: dict[str, Any],
        guild_id: int | None,
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if "guild_id" in cmd:
            data["guild_id"] = cmd["guild_id"]
        node_opts: list[dict[str, Any]] = cmd.get("options") or []
        target: list[dict[str, Any]] = []
        data["options"] = target
        walked = [cmd["name"]]
        for seg in path:
            sub = next((o for o in node_opts if o["name"] == seg and o["type"] in (1, 2)), None)
            if sub is None:
                subs = [o["name"] for o in node_opts if o["type"] in (1, 2)]
                raise CommandNotAvailable(f"/{' '.join(walked)} has no subcommand {seg!r}; has {subs}")
            walked.append(seg)
            nested: list[dict[str, Any]] = []
            target.append({"type": sub["type"], "name": seg, "options": nested})
            target, node_opts = nested, sub.get("options") or []
        subs = [o["name"] for o in node_opts if o["type"] in (1, 2)]
        if subs:
            raise CommandNotAvailable(f"/{' '.join(walked)} needs a subcommand: {subs}")
        resolved: dict[str, dict[str, Any]] = {}
        specs = {o["name"]: o for o in node_opts}
        unknown = set(options) - set(specs)
        if unknown:
            raise CommandNotAvailable(
                f"/{' '.join(walked)} has no option(s) {sorted(unknown)}; options: {sorted(specs)}"
            )
        if focused is not None and focused not in specs:
            raise CommandNotAvailable(
                f"/{' '.join(walked)} has no option {focused!r}; options: {sorted(specs)}"
            )
        for spec in node_opts:
            name = spec["name"]
            if name == focused:
                target.append(
                    {
                        "type": spec["type"],
                        "name": name,
                        "value": str(options.get(name) or ""),
                        "focused": True,
                    }
                )
                continue
            if options.get(name) is None:
                if spec.get("required") and focused is None:
                    raise CommandNotAvailable(f"/{' '.join(walked)}: required option {name!r} missing")
                continue
            target.append(
                {
                    "type": spec["type"],
                    "name": name,
                    "value": self._option_value(spec, options[name], resolved, guild_id, walked),
                }
            )
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self,
        spec: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
        walked: list[str],
    ) -> Any:
        t, name = spec["type"], spec["name"]
        where = f"/{' '.join(walked)} option {name!r} ({OPTION_TYPE_NAMES.get(t, t)})"

        def snowflake(v: Any) -> int:
            if isinstance(v, dict):
                v = v["id"]
            if isinstance(v, bool):
                raise CommandNotAvailable(f"{where}: expected an id, got {v!r}")
            return int(v)

        if t == 3:
            value = str(value)
            if spec.get("min_length") is not None and len(value) < spec["min_length"]:
                raise CommandNotAvailable(f"{where}: shorter than min_length {spec['min_length']}")
            if spec.get("max_length") is not None and len(value) > spec["max_length"]:
                raise CommandNotAvailable(f"{where}: longer than max_length {spec['max_length']}")
        elif t == 4:
            if isinstance(value, bool) or int(value) != value:
                raise CommandNotAvailable(f"{where}: {value!r} is not an integer")
            value = int(value)
        elif t == 10:
            value = float(value)
        elif t == 5:
            if not isinstance(value, bool):
                raise CommandNotAvailable(f"{where}: {value!r} is not a bool")
        elif t in (6, 9) and (t == 6 or snowflake(value) in self._users):
            uid = snowflake(value)
            if uid not in self._users:
                raise CommandNotAvailable(f"{where}: unknown user {uid}")
            resolved.setdefault("users", {})[str(uid)] = self._user(uid)
            if guild_id is not None and uid in self._guilds[guild_id]["members"]:
                resolved.setdefault("members", {})[str(uid)] = self._member_obj(
                    guild_id, uid, with_user=False, with_permissions=True
                )
            value = str(uid)
        elif t in (8, 9):
            rid = snowflake(value)
            if guild_id is None or rid not in self._guilds[guild_id]["roles"]:
                raise CommandNotAvailable(f"{where}: unknown role {rid} in guild {guild_id}")
            resolved.setdefault("roles", {})[str(rid)] = self._guilds[guild_id]["roles"][rid]
            value = str(rid)
        elif t == 7:
            cid = snowflake(value)
            ch = self._channels.get(cid)
            if ch is None:
                raise CommandNotAvailable(f"{where}: unknown channel {cid}")
            if spec.get("channel_types") and ch["type"] not in spec["channel_types"]:
                raise CommandNotAvailable(
                    f"{where}: channel type {ch['type']} not in {spec['channel_types']}"
                )
            entry = {
                k: ch[k]
                for k in ("id", "name", "type", "parent_id", "guild_id", "topic", "nsfw", "position")
                if k in ch
            }
            entry["permissions"] = str(
                ALL_PERMISSIONS if guild_id is None else self.member_permissions(guild_id, self.bot_user_id)
            )
            resolved.setdefault("channels", {})[str(cid)] = entry
            value = str(cid)
        elif t == 11:
            if not (isinstance(value, tuple) and len(value) == 2):
                raise CommandNotAvailable(f"{where}: pass attachments as (filename, bytes)")
            att = self._new_attachment(value[0], value[1], ephemeral=True)
            resolved.setdefault("attachments", {})[att["id"]] = att
            value = att["id"]
        if t in (4, 10) and not isinstance(value, bool):
            if spec.get("min_value") is not None and value < spec["min_value"]:
                raise CommandNotAvailable(f"{where}: {value} < min_value {spec['min_value']}")
            if spec.get("max_value") is not None and value > spec["max_value"]:
                raise CommandNotAvailable(f"{where}: {value} > max_value {spec['max_value']}")
        if spec.get("choices") and value not in [c["value"] for c in spec["choices"]]:
            raise CommandNotAvailable(
                f"{where}: {value!r} is not one of the choices {[c['value'] for c in spec['choices']]}"
            )
        return value

    async def slash(
        self,
        user_id: int,
        command: str,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        options: dict[str, Any] | None = None,
        attachments: dict[str, tuple[str, bytes]] | None = None,
        timeout: float = 10,
        ack_only: bool = False,
        enforce_permissions: bool = True,
    ) -> InteractionResult:
        """Run ``/command`` (space separated path, e.g. "config set") as ``user_id``; guild+channel None = in DMs.

        Like the Discord client, refuses (CommandNotAvailable) commands the user could not see: missing
        ``default_member_permissions`` (unless ``enforce_permissions=False``), wrong context (DM/guild),
        unknown options, missing required options, values outside choices/min/max."""
        guild_id, channel_id = self._context(user_id, guild_id, channel_id)
        path = command.strip().lstrip("/").split()
        cmd = await self._find_command(path[0], guild_id, timeout)
        self._check_command_allowed(cmd, user_id, guild_id, enforce_permissions)
        opts = dict(options or {})
        opts.update(attachments or {})
        data = self._build_command_data(cmd, path[1:], opts, guild_id)
        await self._wait_session(guild_id, timeout)
        ix = self._send_interaction(2, user_id, guild_id, channel_id, data)
        return await self._await_result(ix, timeout, f"/{command}", ack_only)

    async def autocomplete(
        self,
        user_id: int,
        command: str,
        *,
        focused: str,
        options: dict[str, Any] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        timeout: float = 10,
        enforce_permissions: bool = True,
    ) -> list[dict[str, Any]]:
        """Type into option ``focused`` (its current text is ``options[focused]``); returns the bot's choices."""
        guild_id, channel_id = self._context(user_id, guild_id, channel_id)
        path = command.strip().lstrip("/").split()
        cmd = await self._find_command(path[0], guild_id, timeout)
        self._check_command_allowed(cmd, user_id, guild_id, enforce_permissions)
        data = self._build_command_data(cmd, path[1:], dict(options or {}), guild_id, focused=focused)
        await self._wait_session(guild_id, timeout)
        ix = self._send_interaction(4, user_id, guild_id, channel_id, data)
        result = await self._await_result(ix, timeout, f"autocomplete /{command} [{focused}]")
        if result.callback_type != 8:
            raise AssertionError(
                f"autocomplete answered with callback type {result.callback_type}, expected 8"
            )
        return result.choices or []

    # ---- components

    def _resolve_message(self, message: dict[str, Any] | int | str | InteractionResult) -> dict[str, Any]:
        if isinstance(message, InteractionResult):
            msg = message.message or (message.followups[-1] if message.followups else None)
            if msg is None:
                raise AssertionError("that interaction result has no message")
            message = msg
        mid = int(message["id"]) if isinstance(message, dict) else int(message)
        msg = self._messages.get(mid)
        if msg is None or self._msg_meta[mid]["deleted"]:
            raise CommandNotAvailable(f"message {mid} does not exist (or was deleted)")
        return msg

    def _component_context(
        self, user_id: int, msg: dict[str, Any], custom_id: str, types: tuple[int, ...]
    ) -> tuple[dict[str, Any], int | None, int]:
        mid = int(msg["id"])
        comps = flatten_components(msg.get("components"))
        comp = next((c for c in comps if c.get("custom_id") == custom_id), None)
        if comp is None:
            raise CommandNotAvailable(
                f"message {mid} has no component {custom_id!r}; has {[c.get('custom_id') for c in comps]}"
            )
        if comp.get("disabled"):
            raise CommandNotAvailable(f"component {custom_id!r} on message {mid} is disabled")
        if comp["type"] not in types:
            raise CommandNotAvailable(
                f"component {custom_id!r} has type {comp['type']}, expected one of {types}"
            )
        if msg["flags"] & LOADING:
            raise CommandNotAvailable(f"message {mid} is still loading")
        visible_to = self._msg_meta[mid]["visible_to"]
        if visible_to is not None and visible_to != user_id:
            raise CommandNotAvailable(f"message {mid} is ephemeral and only visible to user {visible_to}")
        cid = int(msg["channel_id"])
        gid, cid = self._context(user_id, None, cid)
        return comp, gid, cid

    async def click(
        self,
        user_id: int,
        message: dict[str, Any] | int,
        custom_id: str,
        *,
        timeout: float = 10,
        ack_only: bool = False,
    ) -> InteractionResult:
        msg = self._resolve_message(message)
        comp, gid, cid = self._component_context(user_id, msg, custom_id, (2,))
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        await self._wait_session(gid, timeout)
        ix = self._send_interaction(3, user_id, gid, cid, data, message=msg)
        return await self._await_result(ix, timeout, f"click {custom_id!r}", ack_only)

    async def select(
        self,
        user_id: int,
        message: dict[str, Any] | int,
        custom_id: str,
        values: list[Any],
        *,
        timeout: float = 10,
        ack_only: bool = False,
    ) -> InteractionResult:
        msg = self._resolve_message(message)
        comp, gid, cid = self._component_context(user_id, msg, custom_id, (3, 5, 6, 7, 8))
        values = [str(v) for v in values]
        mn, mx = comp.get("min_values", 1), comp.get("max_values", 1)
        if not mn <= len(values) <= mx:
            raise CommandNotAvailable(f"select {custom_id!r} takes {mn}..{mx} values, got {len(values)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": comp["type"], "values": values}
        if comp["type"] == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            bad = [v for v in values if v not in allowed]
            if bad:
                raise CommandNotAvailable(f"select {custom_id!r}: {bad} not among options {allowed}")
        else:
            resolved: dict[str, dict[str, Any]] = {}
            type_for = {5: 6, 6: 8, 7: 9, 8: 7}[comp["type"]]
            for v in values:
                self._option_value({"type": type_for, "name": custom_id}, v, resolved, gid, ["select"])
            data["resolved"] = resolved
        await self._wait_session(gid, timeout)
        ix = self._send_interaction(3, user_id, gid, cid, data, message=msg)
        return await self._await_result(ix, timeout, f"select {custom_id!r}={values}", ack_only)

    async def submit_modal(
        self,
        user_id: int,
        modal_from: InteractionResult,
        values: dict[str, Any],
        *,
        timeout: float = 10,
        ack_only: bool = False,
    ) -> InteractionResult:
        modal = modal_from.modal
        if modal is None or modal_from._ix is None:
            raise AssertionError(
                f"the bot did not answer with a modal (callback type {modal_from.callback_type})"
            )
        if user_id != modal_from.user_id:
            raise CommandNotAvailable(f"the modal was shown to user {modal_from.user_id}, not {user_id}")
        remaining = dict(values)

        def submit(c: dict[str, Any]) -> dict[str, Any] | None:
            t = c.get("type")
            if t == 1:
                return {
                    "type": 1,
                    "id": c.get("id"),
                    "components": [x for x in (submit(ch) for ch in c.get("components") or []) if x],
                }
            if t == 18:
                inner = submit(c["component"])
                return {"type": 18, "id": c.get("id"), "component": inner} if inner else None
            cid = c.get("custom_id")
            if t == 4:
                value = remaining.pop(cid, c.get("value") or "")
                value = str(value)
                if c.get("required", True) and not value:
                    raise CommandNotAvailable(f"modal text input {cid!r} is required")
                if value and c.get("min_length") and len(value) < c["min_length"]:
                    raise CommandNotAvailable(
                        f"modal text input {cid!r}: shorter than min_length {c['min_length']}"
                    )
                if c.get("max_length") and len(value) > c["max_length"]:
                    raise CommandNotAvailable(
                        f"modal text input {cid!r}: longer than max_length {c['max_length']}"
                    )
                return {"type": 4, "id": c.get("id"), "custom_id": cid, "value": value}
            if t in (3, 5, 6, 7, 8):
                v = remaining.pop(cid, [])
                return {
                    "type": t,
                    "id": c.get("id"),
                    "custom_id": cid,
                    "values": [str(x) for x in (v if isinstance(v, list) else [v])],
                }
            if t is not None:
                return {"type": t, "id": c.get("id")}
            return None

        components = [x for x in (submit(c) for c in modal.get("components") or []) if x]
        if remaining:
            raise CommandNotAvailable(f"modal {modal.get('custom_id')!r} has no input(s) {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        src = modal_from._ix.source_message_id
        message = self._messages.get(src) if src is not None else None
        gid, cid = modal_from.guild_id, modal_from.channel_id
        await self._wait_session(gid, timeout)
        ix = self._send_interaction(5, user_id, gid, cid, data, message=message)
        return await self._await_result(ix, timeout, f"modal submit {modal['custom_id']!r}", ack_only)

    # ---- reactions and plain messages from users

    def _check_can_see(self, user_id: int, msg: dict[str, Any]) -> None:
        ch = self._channels[int(msg["channel_id"])]
        if ch["type"] == 1 and ch["_recipient"] != user_id:
            raise CommandNotAvailable(f"user {user_id} cannot see DM channel {ch['id']}")
        if ch.get("guild_id") and user_id not in self._guilds[int(ch["guild_id"])]["members"]:
            raise CommandNotAvailable(f"user {user_id} is not a member of guild {ch['guild_id']}")

    async def add_reaction(self, user_id: int, message: dict[str, Any] | int, emoji: str) -> None:
        msg = self._resolve_message(message)
        self._user(user_id)
        self._check_can_see(user_id, msg)
        self._react(int(msg["id"]), user_id, emoji, True)

    async def remove_reaction(self, user_id: int, message: dict[str, Any] | int, emoji: str) -> None:
        msg = self._resolve_message(message)
        self._react(int(msg["id"]), user_id, emoji, False)

    async def user_message(
        self, user_id: int, content: str, *, channel_id: int | None = None
    ) -> dict[str, Any]:
        """A user posts a plain message (channel None: in their DM with the bot). Dispatches MESSAGE_CREATE."""
        if channel_id is None:
            channel_id = int(self._dm_channel(user_id)["id"])
        gid, channel_id = self._context(user_id, None, channel_id)
        await self._wait_session(gid, 10)
        return self._create_message(channel_id, {"content": content}, {}, author_id=user_id)

    # ------------------------------------------------------------------ reading state

    def messages(self, channel_id: int, *, include_ephemeral: bool = False) -> list[dict[str, Any]]:
        return [
            self._messages[m]
            for m in self._channel_messages.get(channel_id, [])
            if include_ephemeral or not self._msg_meta[m]["ephemeral"]
        ]

    def dm_channel_id(self, user_id: int) -> int | None:
        return self._dm_channels.get(user_id)

    def dms(self, user_id: int, *, include_ephemeral: bool = False) -> list[dict[str, Any]]:
        cid = self._dm_channels.get(user_id)
        if cid is None:
            return []
        return [
            m
            for m in self.messages(cid, include_ephemeral=include_ephemeral)
            if int(m["author"]["id"]) == self.bot_user_id
        ]

    def message(self, message_id: int | str) -> dict[str, Any]:
        try:
            return self._messages[int(message_id)]
        except KeyError:
            raise KeyError(f"fake Discord: no message {message_id}") from None

    def is_deleted(self, message_id: int | str) -> bool:
        return self._msg_meta[int(message_id)]["deleted"]

    def reactions(self, message_id: int | str) -> dict[str, set[int]]:
        return {k: set(v) for k, v in self._reactions.get(int(message_id), {}).items() if v}

    def attachment_bytes(self, attachment: dict[str, Any] | int | str) -> bytes:
        aid = int(attachment["id"]) if isinstance(attachment, dict) else int(attachment)
        return self._attachments[aid][2]

    def user(self, user_id: int) -> dict[str, Any]:
        return self._user(user_id)
