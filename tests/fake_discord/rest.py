"""The fake REST API: the route table, request parsing, the call log, error injection, and the
handlers for identity, users, channels, guilds, messages and reactions (application commands live in
``commands.py``, interaction callbacks and webhooks in ``interactions.py``)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from .base import ApiError, FakeBase, form_error
from .constants import API_PREFIX, ATTACH_FILES, EMBED_LINKS, EPHEMERAL, SEND_MESSAGES, VIEW_CHANNEL
from .messages import emoji_key
from .models import RestCall

log = logging.getLogger("fake_discord")


@dataclass
class Req:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: dict[int, tuple[str, str | None, bytes]]
    request: web.Request


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


def _int_query(r: Req, name: str, default: int, low: int, high: int | None) -> int:
    """An integer query parameter, refused like Discord refuses it (50035 with the parameter's error)."""
    raw = r.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise form_error([name], "NUMBER_TYPE_COERCE", f'Value "{raw}" is not int.') from None
    if value < low:
        raise form_error([name], "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {low}.")
    if high is not None and value > high:
        raise form_error([name], "NUMBER_TYPE_MAX", f"int value should be less than or equal to {high}.")
    return value


class HeldRequest:
    """A request the fake holds (see `Rest.hold_next`)."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()
        self.released = asyncio.Event()

    def release(self) -> None:
        self.released.set()


class Rest(FakeBase):
    def _init_rest(self) -> None:
        self.rest_log: list[RestCall] = []
        self.unknown_routes: list[RestCall] = []
        self._injections: list[dict[str, Any]] = []
        self._routes: list[tuple[str, str, re.Pattern[str], Callable[[Req], Awaitable[tuple[int, Any]]]]] = []

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
        r("POST", wh, self._r_followup)
        for message in ("/messages/@original", "/messages/{message_id}"):
            r("GET", wh + message, self._r_get_webhook_message)
            r("PATCH", wh + message, self._r_edit_webhook_message)
            r("DELETE", wh + message, self._r_delete_webhook_message)

    def _add_route(
        self, method: str, template: str, handler: Callable[[Req], Awaitable[tuple[int, Any]]]
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
        self, method: str, path: str, *, status: int = 429, times: int = 1, retry_after: float = 0.05, code: int = 0
    ) -> None:
        """Make the next ``times`` calls matching ``method`` ("*" = any) and ``path`` (regex, re.search over the
        concrete path below /api/v10) fail with ``status`` (429 with Discord's rate-limit headers, else a JSON error
        with Discord's error ``code``, e.g. 404 with 10062 for an interaction callback Discord no longer knows).

        Note: discord.py retries 5xx after sleeping 1 + 2*try seconds, 429 after ``retry_after``."""
        self._injections.append(
            {
                "method": method.upper(),
                "path": path,
                "status": status,
                "times": times,
                "retry_after": retry_after,
                "code": code,
            }
        )

    def hold_next(self, method: str, path: str, *, fail: bool = True) -> HeldRequest:
        """Hold the next call matching ``method`` and ``path`` (regex) before Discord acts on it, until
        ``release()``; it then fails with a 500 and changes nothing. For a crash while a request is in
        flight: kill the bot while it is held, then release it. ``fail=False``: once released the
        call goes through as usual (to change something else while it is in flight)."""
        held = HeldRequest()
        self._injections.append(
            {"method": method.upper(), "path": path, "status": 500, "times": 1, "retry_after": 0, "held": held,
             "fail": fail}
        )
        return held

    def hold_answer(self, method: str, path: str) -> HeldRequest:
        """Act on the next call matching ``method`` and ``path`` (regex) as usual, then hold its answer
        until ``release()``: Discord did it, the caller has not heard. For a crash between Discord
        accepting a request and the bot recording it: kill the bot while the answer is held."""
        held = HeldRequest()
        self._injections.append({"method": method.upper(), "path": path, "times": 1, "held": held, "answer": True})
        return held

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method.upper()
        try:
            body, files, parts = await self._read_body(request)
        except Exception as exc:  # malformed body: still log it
            body, files, parts = f"<unreadable body: {exc}>", {}, []
        call = self._log_call(method, path, query=dict(request.query), json=body, files=parts)
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
        held_answer = None
        if inj is not None and inj.get("answer"):
            held_answer, inj = inj["held"], None
        if inj is not None and (held := inj.get("held")) is not None:
            held.arrived.set()
            self._changed()
            await held.released.wait()
            if not inj["fail"]:
                inj = None
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
                    "message": f"{inj['status']}: error injected by the test",
                    "code": inj.get("code", 0),
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

        req = Req(
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
        if held_answer is not None:
            held_answer.arrived.set()
            self._changed()
            await held_answer.released.wait()
        return _json_response(status, data)

    async def _not_api(self, request: web.Request) -> web.StreamResponse:
        call = self._log_call(request.method, request.path, query=dict(request.query), status=404)
        self.unknown_routes.append(call)
        log.error("fake Discord: request outside %s: %s %s", API_PREFIX, request.method, request.path)
        return _json_response(404, {"message": "404: Not Found", "code": 0})

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        att = self._attachments.get(int(request.match_info["attachment_id"]))
        self._log_call(
            "GET", request.path, route="CDN /attachments/{id}/{filename}", status=200 if att else 404
        )
        self._changed()
        if att is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=att[2], content_type=att[1] if "/" in att[1] else "application/octet-stream")

    def _log_call(
        self,
        method: str,
        path: str,
        *,
        route: str | None = None,
        query: dict[str, str] | None = None,
        json: Any = None,
        files: list[dict[str, Any]] | None = None,
        status: int = 0,
    ) -> RestCall:
        call = RestCall(
            index=len(self.rest_log),
            method=method,
            path=path,
            route=route,
            query=query or {},
            json=json,
            files=files or [],
            status=status,
            time=time.monotonic(),
        )
        self.rest_log.append(call)
        return call

    def count_calls(self, method: str | None = None, path: str | None = None, *, since: int = 0) -> int:
        """How many REST calls (``path``: regex, re.search over the path below /api/v10) since log index ``since``."""
        return len(self.calls(method, path, since=since))

    def calls(self, method: str | None = None, path: str | None = None, *, since: int = 0) -> list[RestCall]:
        return [
            c
            for c in self.rest_log[since:]
            if (method is None or c.method == method.upper()) and (path is None or re.search(path, c.path))
        ]

    # ------------------------------------------------------------------ REST: identity / gateway / commands

    async def _r_get_me(self, r: Req) -> tuple[int, Any]:
        return 200, self.bot_user

    async def _r_get_application(self, r: Req) -> tuple[int, Any]:
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

    async def _r_gateway_bot(self, r: Req) -> tuple[int, Any]:
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

    async def _r_gateway(self, r: Req) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url}

    # ------------------------------------------------------------------ REST: users / channels / guilds

    async def _r_create_dm(self, r: Req) -> tuple[int, Any]:
        try:
            uid = int((r.json or {})["recipient_id"])
        except (KeyError, TypeError, ValueError):
            raise form_error(["recipient_id"], "BASE_TYPE_REQUIRED", "This field is required") from None
        if uid not in self._users:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return 200, self._public(self._dm_channel(uid))

    async def _r_get_user(self, r: Req) -> tuple[int, Any]:
        user = self._users.get(int(r.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return 200, user

    async def _r_get_channel(self, r: Req) -> tuple[int, Any]:
        return 200, self._public(self._channel(int(r.params["channel_id"])))

    async def _r_typing(self, r: Req) -> tuple[int, Any]:
        self._channel(int(r.params["channel_id"]))
        return 204, None

    def _guild_or_404(self, r: Req) -> dict[str, Any]:
        g = self._guilds.get(int(r.params["guild_id"]))
        if g is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return g

    async def _r_get_guild(self, r: Req) -> tuple[int, Any]:
        self._guild_or_404(r)
        return 200, self._guild_rest_payload(int(r.params["guild_id"]))

    async def _r_get_guild_channels(self, r: Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        return 200, [self._channels[c] for c in g["channels"]]

    async def _r_get_roles(self, r: Req) -> tuple[int, Any]:
        return 200, list(self._guild_or_404(r)["roles"].values())

    async def _r_get_member(self, r: Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        uid = int(r.params["user_id"])
        if uid not in g["members"]:
            raise ApiError(404, 10007, "Unknown Member")
        return 200, self._member_obj(int(r.params["guild_id"]), uid)

    async def _r_list_members(self, r: Req) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        after = int(r.query.get("after", 0))
        limit = int(r.query.get("limit", 1))
        ids = sorted(u for u in g["members"] if u > after)[:limit]
        return 200, [self._member_obj(int(r.params["guild_id"]), u) for u in ids]

    async def _member_role_change(self, r: Req, add: bool) -> tuple[int, Any]:
        g = self._guild_or_404(r)
        gid, uid, rid = int(r.params["guild_id"]), int(r.params["user_id"]), int(r.params["role_id"])
        if uid not in g["members"]:
            raise ApiError(404, 10007, "Unknown Member")
        if rid not in g["roles"]:
            raise ApiError(404, 10011, "Unknown Role")
        roles = [x for x in g["members"][uid]["roles"] if x != rid] + ([rid] if add else [])
        self.set_member_roles(gid, uid, roles)
        return 204, None

    async def _r_add_member_role(self, r: Req) -> tuple[int, Any]:
        return await self._member_role_change(r, True)

    async def _r_remove_member_role(self, r: Req) -> tuple[int, Any]:
        return await self._member_role_change(r, False)

    def _message_in_channel(self, r: Req) -> tuple[int, dict[str, Any]]:
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

    def _require_bot_permissions(self, channel_id: int, payload: dict[str, Any], files: dict, *, send: bool) -> None:
        """The bot's permissions in a guild channel, as Discord checks them: without View Channel
        403 50001 Missing Access; a new message without Send Messages, or files without Attach
        Files, 403 50013 Missing Permissions. Embeds without Embed Links are dropped from the message
        (Discord does not refuse it: its embeds just don't show)."""
        if self._channel_guild_id(channel_id) is None:
            return
        perms = self.channel_permissions(channel_id, self.bot_user_id)
        if not perms & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        if (send and not perms & SEND_MESSAGES) or (files and not perms & ATTACH_FILES):
            raise ApiError(403, 50013, "Missing Permissions")
        if payload.get("embeds") and not perms & EMBED_LINKS:
            payload["embeds"] = []

    async def _r_post_message(self, r: Req) -> tuple[int, Any]:
        cid = int(r.params["channel_id"])
        ch = self._channel(cid)
        if ch["type"] == 1 and ch["_recipient"] in self._dms_closed:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        payload = dict(r.json or {})
        self._require_bot_permissions(cid, payload, r.files, send=True)
        payload["flags"] = (
            int(payload.get("flags") or 0) & ~EPHEMERAL
        )  # only interaction responses can be ephemeral
        earlier = self._earlier_by_nonce(cid, self.bot_user_id, payload)
        if earlier is not None:
            return 200, earlier
        msg_type = 19 if payload.get("message_reference") else 0
        return 200, self._create_message(cid, payload, r.files, msg_type=msg_type)

    async def _r_get_message(self, r: Req) -> tuple[int, Any]:
        return 200, self._message_in_channel(r)[1]

    async def _r_get_messages(self, r: Req) -> tuple[int, Any]:
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

    async def _r_patch_message(self, r: Req) -> tuple[int, Any]:
        mid, msg = self._message_in_channel(r)
        if int(msg["author"]["id"]) != self.bot_user_id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        payload = dict(r.json or {})
        self._require_bot_permissions(int(r.params["channel_id"]), payload, r.files, send=False)
        edited = self._edit_message(mid, payload, r.files)
        for ix in self._interactions.values():  # defer() on a component, then message.edit() also answers it
            if ix.source_message_id == mid and ix.callback_type == 6 and not ix.final:
                ix.edited_original = True
        return 200, edited

    async def _r_delete_message(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._delete_message(mid)
        return 204, None

    async def _r_add_own_reaction(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        if not r.params["emoji"].strip():
            raise ApiError(400, 10014, "Unknown Emoji")
        self._react(mid, self.bot_user_id, r.params["emoji"], True)
        return 204, None

    async def _r_remove_own_reaction(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._react(mid, self.bot_user_id, r.params["emoji"], False)
        return 204, None

    async def _r_remove_user_reaction(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        self._react(mid, int(r.params["user_id"]), r.params["emoji"], False)
        return 204, None

    async def _r_get_reactions(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        limit = _int_query(r, "limit", 25, 1, 100)
        after = _int_query(r, "after", 0, 0, None)
        if _int_query(r, "type", 0, 0, 1) == 1:
            return 200, []  # burst (super) reactions: the fake has none
        users = self._reactions.get(mid, {}).get(emoji_key(r.params["emoji"]), {})
        return 200, [self._user(u) for u in sorted(users) if u > after][:limit]

    async def _r_clear_emoji(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        for uid in list(self._reactions.get(mid, {}).get(emoji_key(r.params["emoji"]), {})):
            self._react(mid, uid, r.params["emoji"], False)
        return 204, None

    async def _r_clear_reactions(self, r: Req) -> tuple[int, Any]:
        mid, _ = self._message_in_channel(r)
        for key, users in list(self._reactions.get(mid, {}).items()):
            for uid in list(users):
                self._react(mid, uid, key, False)
        return 204, None
