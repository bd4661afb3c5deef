"""Interactions: the REST side (callbacks, @original, follow-ups, webhook messages) and sending an
interaction on a user's behalf, then waiting for the bot's final answer."""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from .base import ApiError, FakeBase, form_error, invalid_form
from .constants import ATTACHMENT_SIZE_LIMIT, DEFAULT_MEMBER_PERMISSIONS, EPHEMERAL, LOADING
from .models import FakeDiscordTimeout, InteractionResult
from .rest import Req
from .validation import validate_choices, validate_modal

log = logging.getLogger("fake_discord")
# How long after the callback deadline an interaction with no callback at all counts as failed (a
# callback that arrives later still gets 10062, like Discord's).
UNANSWERED_GRACE = 0.5


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
    lost: bool = False  # its answer was lost on the way (see `lose_next_reply`)

    @property
    def final(self) -> bool:
        if self.callback_type in (1, 4, 7, 8, 9):
            return True
        if self.callback_type in (5, 6):
            return self.edited_original or bool(self.followup_ids)
        return False


def _callback_not_allowed(why: str = "") -> ApiError:
    return ApiError(400, 40043, "Interaction callback type not allowed for this interaction" + why)


class Interactions(FakeBase):
    def _init_interactions(self) -> None:
        self._interactions: dict[int, _Interaction] = {}
        self._interactions_by_token: dict[str, _Interaction] = {}
        self._lose_next: list[int | None] = []

    def lose_next_reply(self, *, user_id: int | None = None) -> None:
        """The bot's next answer to an interaction (of `user_id`'s, or anyone's) is lost on its way:
        Discord answers 404 10062 Unknown interaction, to that callback and every later one of the
        interaction, and the user sees no answer. The driver call returns at once, `lost` set."""
        self._lose_next.append(user_id)

    # ------------------------------------------------------------------ interactions: REST side

    def _ix_by_token(self, r: Req) -> _Interaction:
        if int(r.params["application_id"]) != self.application_id:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        ix = self._interactions_by_token.get(r.params["token"])
        if ix is None:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return ix

    async def _r_interaction_callback(self, r: Req) -> tuple[int, Any]:
        ix = self._interactions.get(int(r.params["interaction_id"]))
        if ix is None or ix.token != r.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        if not ix.lost and ix.callback_type is None and self._lose_next and self._lose_next[0] in (None, ix.user_id):
            self._lose_next.pop(0)
            ix.lost = True
            self._changed()
        if ix.lost:
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
                raise _callback_not_allowed()
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
                raise _callback_not_allowed(" (no message to update)")
            ix.original_message_id = ix.source_message_id
            ix.ephemeral = self._msg_meta[ix.source_message_id]["ephemeral"]
            if ctype == 7:
                msg = self._edit_message(ix.source_message_id, data, r.files)
            else:
                msg = None
        elif ctype == 8:
            if ix.type != 4:
                raise _callback_not_allowed()
            errors = validate_choices(data.get("choices"))
            if errors:
                raise invalid_form(errors)
            ix.choices = data.get("choices") or []
        elif ctype == 9:
            if ix.type in (4, 5):
                raise _callback_not_allowed()
            errors = validate_modal(data)
            if errors:
                raise invalid_form(errors)
            ix.modal = data
        elif ctype == 1:
            pass
        else:
            raise form_error(
                ["type"], "BASE_TYPE_CHOICES", f"Value must be one of (1, 4, 5, 6, 7, 8, 9); got {ctype!r}"
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

    async def _r_followup(self, r: Req) -> tuple[int, Any]:
        ix = self._ix_by_token(r)
        if ix.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        payload = dict(r.json or {})
        orig = self._messages.get(ix.original_message_id) if ix.original_message_id else None
        if ix.callback_type == 5 and orig is not None and orig["flags"] & LOADING and not ix.followup_ids:
            # like Discord: the first follow-up after a "thinking" deferral replaces the loading message
            self._check_new_message(payload, r.files)
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

    def _ix_owned_message(self, r: Req) -> tuple[_Interaction, int]:
        """The interaction and the id of its message named in the path: ``@original`` or a message id."""
        ix = self._ix_by_token(r)
        if "message_id" not in r.params:  # .../messages/@original
            return ix, self._ix_message(ix, ix.original_message_id)
        mid = int(r.params["message_id"])
        if mid != ix.original_message_id and mid not in ix.followup_ids:
            raise ApiError(404, 10008, "Unknown Message")
        return ix, self._ix_message(ix, mid)

    async def _r_get_webhook_message(self, r: Req) -> tuple[int, Any]:
        return 200, self._messages[self._ix_owned_message(r)[1]]

    async def _r_edit_webhook_message(self, r: Req) -> tuple[int, Any]:
        ix, mid = self._ix_owned_message(r)
        msg = self._edit_message(mid, r.json or {}, r.files)
        if mid == ix.original_message_id:
            ix.edited_original = True
        return 200, msg

    async def _r_delete_webhook_message(self, r: Req) -> tuple[int, Any]:
        ix, mid = self._ix_owned_message(r)
        self._delete_message(mid)
        if mid == ix.original_message_id:
            ix.edited_original = True  # deleting the deferred answer is a final answer too
        return 204, None

    def _channel_payload(self, channel_id: int, guild_id: int | None, user_id: int) -> dict[str, Any]:
        ch = self._public(self._channels[channel_id])
        if guild_id is not None:
            ch["permissions"] = str(self.member_permissions(guild_id, user_id))
        return ch

    async def _interact(
        self,
        itype: int,
        user_id: int,
        guild_id: int | None,
        channel_id: int,
        data: dict[str, Any],
        timeout: float,
        what: str,
        ack_only: bool = False,
        message: dict[str, Any] | None = None,
    ) -> InteractionResult:
        """Send an interaction (as Discord would, on the bot's session for it) and wait for the bot's answer."""
        await self._wait_session(guild_id, timeout)
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
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
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
        return await self._await_result(ix, timeout, what, ack_only)

    async def _wait_session(self, guild_id: int | None, timeout: float) -> None:
        shard = self._shard_of(guild_id)
        await self.wait_for(
            lambda: shard in self._shard_sessions,
            timeout=timeout,
            what=f"a bot gateway session on shard {shard}",
        )

    async def _await_result(
        self, ix: _Interaction, timeout: float, what: str, ack_only: bool = False
    ) -> InteractionResult:
        if self.callback_deadline is not None and timeout > self.callback_deadline:
            # Like Discord: an interaction nobody answers within the deadline has failed ("This
            # interaction failed" for the user); say so now rather than after the test's timeout.
            try:
                await self.wait_for(
                    lambda: ix.callback_type is not None or ix.error or ix.lost,
                    timeout=self.callback_deadline + UNANSWERED_GRACE,
                    what=f"any answer to {what} (interaction {ix.id})",
                )
            except FakeDiscordTimeout:
                ix.error = (
                    f"the bot never answered within {self.callback_deadline}s: the user sees "
                    "'This interaction failed'"
                )
                log.error("fake Discord: %s: %s", what, ix.error)
        try:
            await self.wait_for(
                lambda: ix.final or ix.error or ix.lost or (ack_only and ix.callback_type is not None),
                timeout=timeout,
                what=f"a final answer to {what} (interaction {ix.id})",
            )
        except FakeDiscordTimeout as exc:
            state = f"callback_type={ix.callback_type} edited_original={ix.edited_original} followups={len(ix.followup_ids)}"
            raise FakeDiscordTimeout(f"{exc}\ninteraction state: {state}") from None
        if ix.error and not ix.lost:
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
            lost=ix.lost,
            _fake=self,
            _ix=ix,
        )
