"""What every part of :class:`FakeDiscord` shares: configuration, the id generator, the change signal,
and the error a REST handler raises.

The fake is one object assembled from mixins (see ``server.py``); each mixin keeps its own state and
reaches the others' through ``self``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .models import RestCall, SnowflakeGenerator
from .validation import add_error


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"message": message, "code": code}
        if errors:
            self.body["errors"] = errors


def invalid_form(errors: dict[str, Any]) -> ApiError:
    """Discord's 400 for a payload it refuses: ``{"code": 50035, "message": "Invalid Form Body", "errors": ...}``."""
    return ApiError(400, 50035, "Invalid Form Body", errors)


def form_error(path: list[str | int], code: str, message: str) -> ApiError:
    """``invalid_form`` with one error at ``path``."""
    errors: dict[str, Any] = {}
    add_error(errors, path, code, message)
    return invalid_form(errors)


class FakeBase:
    bot_user_id: int
    application_id: int
    shard_count: int
    bot_permissions: int
    owner_id: int
    callback_deadline: float | None
    nonce_window: float
    heartbeat_interval: int
    bot_user: dict[str, Any]
    base_url: str
    api_base: str
    gateway_url: str
    rest_log: list[RestCall]
    unknown_routes: list[RestCall]
    gateway_log: list[tuple[float, str, int | None, str | None]]
    _injections: list[dict[str, Any]]
    _snowflake: SnowflakeGenerator
    _changed_event: asyncio.Event

    def _changed(self) -> None:
        """Wake every ``wait_for``: the fake's state changed."""
        ev = self._changed_event
        self._changed_event = asyncio.Event()
        ev.set()
