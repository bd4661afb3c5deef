# ruff: noqa: ASYNC109  (the test-facing API takes explicit timeout= arguments by design)
"""The test-driver API: what tests call to act as Discord users and to read the fake's state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from .base import FakeBase
from .constants import LOADING
from .models import CommandNotAvailable, FakeDiscordTimeout, InteractionResult, flatten_components


class Driver(FakeBase):
    # ------------------------------------------------------------------ change notification / waiting

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
                # Not asyncio.wait_for: on Python 3.11 it can swallow a cancellation that arrives as
                # the event is set, and the waiter would sit out its whole timeout.
                async with asyncio.timeout(remaining):
                    await ev.wait()
            except TimeoutError:
                pass

    def requests_in_flight(self) -> int:
        """REST calls that arrived and have not been answered yet."""
        return sum(1 for call in self.rest_log if call.status == 0)

    def forget_history(self) -> None:
        """Start a new test on this fake (and its connected bot): empty the REST and gateway logs and
        drop injected errors and held requests still waiting for a call. The world (guilds, users,
        messages) and the synced commands stay."""
        self.rest_log.clear()
        self.unknown_routes.clear()
        self.gateway_log.clear()
        self._injections.clear()
        self._changed()

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
        opts = {**(options or {}), **(attachments or {})}
        guild_id, channel_id, data = await self._command_interaction_data(
            user_id, command, guild_id, channel_id, opts, timeout, enforce_permissions
        )
        return await self._interact(2, user_id, guild_id, channel_id, data, timeout, f"/{command}", ack_only)

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
        guild_id, channel_id, data = await self._command_interaction_data(
            user_id, command, guild_id, channel_id, dict(options or {}), timeout, enforce_permissions, focused
        )
        what = f"autocomplete /{command} [{focused}]"
        result = await self._interact(4, user_id, guild_id, channel_id, data, timeout, what)
        if result.callback_type != 8:
            raise AssertionError(
                f"autocomplete answered with callback type {result.callback_type}, expected 8"
            )
        return result.choices or []

    async def _command_interaction_data(
        self,
        user_id: int,
        command: str,
        guild_id: int | None,
        channel_id: int | None,
        options: dict[str, Any],
        timeout: float,
        enforce_permissions: bool,
        focused: str | None = None,
    ) -> tuple[int | None, int, dict[str, Any]]:
        """Where ``/command`` runs and its interaction data, refused like the Discord client would."""
        guild_id, channel_id = self._context(user_id, guild_id, channel_id)
        path = command.strip().lstrip("/").split()
        cmd = await self._find_command(path[0], guild_id, timeout)
        self._check_command_allowed(cmd, user_id, guild_id, enforce_permissions)
        return (
            guild_id,
            channel_id,
            self._build_command_data(cmd, path[1:], options, guild_id, focused=focused),
        )

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
        return await self._interact(
            3, user_id, gid, cid, data, timeout, f"click {custom_id!r}", ack_only, msg
        )

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
        what = f"select {custom_id!r}={values}"
        return await self._interact(3, user_id, gid, cid, data, timeout, what, ack_only, msg)

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
        what = f"modal submit {modal['custom_id']!r}"
        return await self._interact(5, user_id, gid, cid, data, timeout, what, ack_only, message)

    # ---- reactions and plain messages from users

    async def add_reaction(self, user_id: int, message: dict[str, Any] | int, emoji: str) -> None:
        msg = self._resolve_message(message)
        self._context(user_id, None, int(msg["channel_id"]))  # the user must see the message
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

    def delete_message(self, message: dict[str, Any] | int | str) -> None:
        """The message is gone (someone deleted it): MESSAGE_DELETE goes out, as from Discord."""
        self._delete_message(int(message["id"]) if isinstance(message, dict) else int(message))

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

    def pinged_users(self, message: dict[str, Any] | int | str) -> set[int]:
        """The user ids Discord notified for ``message`` when it was sent: the users it mentions, the
        members of the roles it mentions, every member for @everyone / @here -- as far as the payload's
        ``allowed_mentions`` (and the author's permissions) allowed.  Edits never ping; ephemerals neither."""
        mid = int(message["id"]) if isinstance(message, dict) else int(message)
        if mid not in self._msg_meta:
            raise KeyError(f"fake Discord: no message {mid}")
        return set(self._msg_meta[mid]["pinged"])

    def reactions(self, message_id: int | str) -> dict[str, set[int]]:
        return {k: set(v) for k, v in self._reactions.get(int(message_id), {}).items() if v}

    def attachment_bytes(self, attachment: dict[str, Any] | int | str) -> bytes:
        aid = int(attachment["id"]) if isinstance(attachment, dict) else int(attachment)
        return self._attachments[aid][2]

    def user(self, user_id: int) -> dict[str, Any]:
        return self._user(user_id)
