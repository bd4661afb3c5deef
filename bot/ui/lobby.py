"""What the draft and battler lobbies share: the four buttons' look and the view holding them."""

from __future__ import annotations

from collections.abc import Callable

import discord

LOBBY_ACTIONS = ("join", "leave", "begin", "cancel")
_STYLES = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "begin": discord.ButtonStyle.primary,
    "cancel": discord.ButtonStyle.danger,
}


def lobby_button(action: str, custom_id: str) -> discord.ui.Button:
    return discord.ui.Button(
        label=action.title(), style=_STYLES.get(action, discord.ButtonStyle.secondary), custom_id=custom_id
    )


def lobby_buttons(make: Callable[[str], discord.ui.Item], *, is_open: bool) -> discord.ui.View | None:
    """Join / Leave / Begin / Cancel while the lobby is open; no buttons once it has begun."""
    if not is_open:
        return None
    view = discord.ui.View(timeout=None)
    for action in LOBBY_ACTIONS:
        view.add_item(make(action))
    return view
