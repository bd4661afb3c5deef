"""Reading what the bot sent: text, components, and finding a component by its ui class."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import flatten_components


def embed_text(message: dict) -> str:
    """Titles, descriptions and fields of a message's embeds, as one text."""
    parts = []
    for e in message.get("embeds") or []:
        parts += [e.get("title", ""), e.get("description", "")]
        parts += [f"{f.get('name')}\n{f.get('value')}" for f in e.get("fields") or []]
    return "\n".join(parts)


def message_text(message: dict) -> str:
    return f"{message.get('content') or ''}\n{embed_text(message)}"


def custom_ids(message: dict) -> list[str]:
    return [c.get("custom_id") or "" for c in flatten_components(message.get("components"))]


def parts_of(component_type, custom_id: str) -> dict[str, str] | None:
    """The raw parts of `custom_id` if the ui class `component_type` answers it, else None."""
    match = component_type.__discord_ui_compiled_template__.fullmatch(custom_id)
    return None if match is None else {k: v for k, v in match.groupdict().items() if v is not None}


def components(message: dict, component_type, **parts: Any) -> list[dict]:
    """The message's components of a ui class whose parts equal `parts` (compared as text)."""
    wanted = {key: str(value) for key, value in parts.items()}
    found = []
    for c in flatten_components(message.get("components")):
        got = parts_of(component_type, c.get("custom_id") or "")
        if got is not None and all(got.get(k) == v for k, v in wanted.items()):
            found.append(c)
    return found


def component(message: dict, component_type, **parts: Any) -> dict:
    found = components(message, component_type, **parts)
    assert found, f"no {component_type.__name__} {parts} in {custom_ids(message)}"
    return found[0]


async def forged_click(fake: FakeDiscord, user: int, message: dict, custom_id: str):
    """Click `custom_id` on a message that has no such button, as a modified client can."""
    stored = fake.message(message["id"])
    shown = stored.get("components", [])
    stored["components"] = [{"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": custom_id}]}]
    try:
        return await fake.click(user, stored, custom_id)
    finally:
        stored["components"] = shown


async def forged_select(fake: FakeDiscord, user: int, message: dict, custom_id: str, value: str):
    """Choose `value` in a select `custom_id` that the message does not have, as a modified client can."""
    stored = fake.message(message["id"])
    shown = stored.get("components", [])
    select = {"type": 3, "custom_id": custom_id, "options": [{"label": "x", "value": value}]}
    stored["components"] = [{"type": 1, "components": [select]}]
    try:
        return await fake.select(user, stored, custom_id, [value])
    finally:
        stored["components"] = shown


async def eventually(check: Callable[[], Awaitable[Any]], *, timeout: float = 10, what: str = "a condition") -> Any:
    """Ask `check` (e.g. a read of the bot's database, which the fake can't observe) until it gives
    something truthy, and return that; fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := await check()):
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.02)  # polling the state, not standing in for it
    return value


@contextlib.asynccontextmanager
async def driving(driver_type, fake: FakeDiscord, world, bot) -> AsyncIterator[Any]:
    """A format's driver on the bot's database for the length of the block (for fixtures)."""
    driver = driver_type(fake, world, bot.database_url)
    try:
        yield driver
    finally:
        await driver.close()


CALLBACK = r"^/interactions/\d+/[^/]+/callback$"  # an interaction's answer, on its way to Discord


async def lose_the_reply(fake: FakeDiscord, bot, interaction: Awaitable[Any]) -> None:
    """Send an interaction and kill `bot` while its answer is on its way to Discord: what it did is
    saved, the answer never arrives (as when the bot dies between saving and replying). Then start
    the bot again."""
    held = fake.hold_next("POST", CALLBACK)
    answer = asyncio.ensure_future(interaction)
    await asyncio.wait_for(held.arrived.wait(), 10)
    await bot.kill()
    held.release()
    answer.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await answer
    await bot.start()
