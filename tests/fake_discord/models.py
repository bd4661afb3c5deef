# ruff: noqa: ASYNC109  (the test-facing API takes explicit timeout= arguments by design)
"""Plain data types shared by the fake Discord server and the tests that drive it."""

from __future__ import annotations

import datetime as dt
import itertools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .interactions import _Interaction
    from .server import FakeDiscord

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeGenerator:
    """Realistic, strictly increasing 64-bit snowflakes (timestamp << 22 | worker | process | increment)."""

    def __init__(self, worker: int = 1, process: int = 0) -> None:
        self._worker = worker & 0x1F
        self._process = process & 0x1F
        self._increment = itertools.count()
        self._last = 0

    def __call__(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (self._worker << 17) | (self._process << 12) | (next(self._increment) & 0xFFF)
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value


def snowflake_time(snowflake: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000, tz=dt.UTC)


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


class FakeDiscordTimeout(TimeoutError, AssertionError):
    """Raised when the bot did not do what a test waited for (carries the REST log tail)."""


class CommandNotAvailable(AssertionError):
    """The Discord client would not let this user run that command / press that component."""


@dataclass
class RestCall:
    index: int
    method: str
    path: str  # concrete path below /api/v10, e.g. /channels/123/messages
    route: str | None  # template, e.g. /channels/{channel_id}/messages (None: unknown route)
    query: dict[str, str]
    json: Any  # JSON body, or the parsed payload_json of a multipart body
    files: list[dict[str, Any]]  # multipart file parts: {"field", "filename", "content_type", "size"}
    status: int = 0
    response: Any = None
    time: float = 0.0  # time.monotonic() when the request arrived
    injected: bool = False  # True when the failure came from inject_error()

    def __str__(self) -> str:
        tag = " [injected]" if self.injected else ""
        route = self.route or "<UNKNOWN ROUTE>"
        return f"#{self.index} {self.method} {self.path} ({route}) -> {self.status}{tag}"


def _message_text(message: dict[str, Any] | None) -> list[str]:
    if not message:
        return []
    parts: list[str] = []
    if message.get("content"):
        parts.append(message["content"])
    for embed in message.get("embeds") or []:
        if (embed.get("author") or {}).get("name"):
            parts.append(embed["author"]["name"])
        for key in ("title", "description"):
            if embed.get(key):
                parts.append(str(embed[key]))
        for f in embed.get("fields") or []:
            parts.append(f"{f.get('name', '')}\n{f.get('value', '')}")
        if (embed.get("footer") or {}).get("text"):
            parts.append(embed["footer"]["text"])
    parts.extend(_component_texts(message.get("components") or []))
    return parts


def _component_texts(components: list[dict[str, Any]]) -> list[str]:
    """Text of components-v2 text displays (type 10), recursively."""
    out: list[str] = []
    for c in components:
        if c.get("type") == 10 and c.get("content"):
            out.append(c["content"])
        out.extend(_component_texts(c.get("components") or []))
        if isinstance(c.get("component"), dict):
            out.extend(_component_texts([c["component"]]))
        if isinstance(c.get("accessory"), dict):
            out.extend(_component_texts([c["accessory"]]))
    return out


def flatten_components(components: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Interactive components (buttons, selects, text inputs), depth first, layout wrappers removed."""
    out: list[dict[str, Any]] = []
    for c in components or []:
        if c.get("type") in (2, 3, 4, 5, 6, 7, 8):
            out.append(c)
        out.extend(flatten_components(c.get("components")))
        if isinstance(c.get("component"), dict):
            out.extend(flatten_components([c["component"]]))
        if isinstance(c.get("accessory"), dict):
            out.extend(flatten_components([c["accessory"]]))
    return out


@dataclass
class InteractionResult:
    """What the bot answered to one interaction a test sent.

    ``message``, ``followups``, ``content`` and ``components`` are live: they reflect later edits and
    follow-ups (use :meth:`wait_followup` to wait for more).
    """

    interaction_id: int
    callback_type: int | None
    data: dict[str, Any] | None
    ephemeral: bool
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    interaction_type: int = 2
    user_id: int = 0
    channel_id: int = 0
    guild_id: int | None = None
    lost: bool = False  # the bot's answer was lost on its way (`FakeDiscord.lose_next_reply`)
    _fake: FakeDiscord | None = field(default=None, repr=False, compare=False)
    _ix: _Interaction | None = field(default=None, repr=False, compare=False)

    @property
    def message(self) -> dict[str, Any] | None:
        """The message the answer shows: created/updated message (type 4/7) or the edited @original."""
        if self._ix is None or self._fake is None:
            return None
        mid = self._ix.original_message_id
        if mid is None or self._fake._msg_meta[mid]["deleted"]:
            return None
        return self._fake._messages.get(mid)

    @property
    def followups(self) -> list[dict[str, Any]]:
        if self._ix is None or self._fake is None:
            return []
        return [
            self._fake._messages[m] for m in self._ix.followup_ids if not self._fake._msg_meta[m]["deleted"]
        ]

    @property
    def content(self) -> str:
        parts = _message_text(self.message)
        original = self._ix.original_message_id if self._ix else None
        for f in self.followups:
            if int(f["id"]) != original:
                parts.extend(_message_text(f))
        if self.modal:
            parts.append(self.modal.get("title", ""))
        return "\n".join(parts)

    @property
    def components(self) -> list[dict[str, Any]]:
        if self.modal is not None:
            return flatten_components(self.modal.get("components"))
        msg = self.message
        if msg is None and self.followups:
            msg = self.followups[-1]
        return flatten_components((msg or {}).get("components"))

    def component(self, custom_id: str) -> dict[str, Any]:
        for c in self.components:
            if c.get("custom_id") == custom_id:
                return c
        raise AssertionError(
            f"no component with custom_id={custom_id!r}; have {[c.get('custom_id') for c in self.components]}"
        )

    async def wait_followup(self, n: int = 1, timeout: float = 10) -> list[dict[str, Any]]:
        """Wait until at least ``n`` follow-up messages exist; returns them all."""
        assert self._fake is not None
        return await self._fake.wait_for(
            lambda: self.followups if len(self.followups) >= n else None,
            timeout=timeout,
            what=f"{n} follow-up(s) for interaction {self.interaction_id}",
        )
