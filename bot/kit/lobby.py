"""What every format's lobby shares: its four buttons (a `Component` per format, answered by the
format's cog) and the view holding them while the lobby is open."""

from __future__ import annotations

import discord

from bot.kit.dispatch import Component, number, word

LOBBY_ACTIONS = ("join", "leave", "begin", "cancel")
_STYLES = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "begin": discord.ButtonStyle.primary,
    "cancel": discord.ButtonStyle.danger,
}
LOBBY_PARTS = (number("table"), word("action", LOBBY_ACTIONS))


def lobby_button_type(kind: str, *, prefix: str | None = None) -> type[Component]:
    """The lobby button of a format: custom_id `<kind>:lobby:<table id>:<action>`, answered by its
    cog's `on_lobby_button(interaction, table=…, action=…)` (`TableCog` binds it)."""
    return type(
        f"{kind.title()}LobbyButton", (Component,), {"__module__": __name__},
        prefix=prefix or f"{kind}:lobby", parts=LOBBY_PARTS,
    )


def lobby_view(button: type[Component], table_id: int, *, is_open: bool,
               actions: tuple[str, ...] = LOBBY_ACTIONS) -> discord.ui.View | None:
    """Join / Leave / Begin / Cancel (or some of them) while the lobby is open; no buttons once it has begun."""
    if not is_open:
        return None
    view = discord.ui.View(timeout=None)
    for action in actions:
        custom_id = button.custom_id_for(table=table_id, action=action)
        item = discord.ui.Button(label=action.title(), style=_STYLES[action], custom_id=custom_id)
        view.add_item(button(item))
    return view
