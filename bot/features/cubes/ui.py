"""How Scryfall's verdict on a cube's names is told to the organizer who uploaded it, and the cube option's
autocomplete of every command that takes a cube."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.cubes import service as cubes
from bot.kit import limits
from bot.kit.card_data import Resolution
from bot.kit.text import escape

UNREACHABLE = (
    "⚠️ Scryfall could not be reached, so the cube keeps what the file said about its cards; "
    "I'll complete their colours, types and pictures by myself once Scryfall answers."
)


def resolution_report(first_line: str, resolution: Resolution) -> str:
    """`first_line` (what was saved), then the names Scryfall doesn't know, each with its closest
    suggestions, within one message."""
    lines = [first_line]
    if resolution.unreachable:
        lines.append(UNREACHABLE)
    if resolution.unknown:
        count = len(resolution.unknown)
        lines.append(
            f"Scryfall doesn't know {count} name{'s' if count != 1 else ''} (kept as written; "
            "fix the list and upload it again under a new name if they are typos):"
        )
        for unknown in resolution.unknown:
            hint = f" — did you mean {', '.join(f'**{escape(s)}**' for s in unknown.suggestions)}?" if unknown.suggestions else ""
            lines.append(f"• {escape(unknown.name)}{hint}")
    return limits.fit_lines(lines, limits.CONTENT)


async def cube_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """This server's cubes and the shipped ones, for every command that takes a cube."""
    if interaction.guild_id is None:
        return []
    names = await cubes.cube_names(interaction.client.db, interaction.guild_id, current)  # type: ignore[attr-defined]
    return [app_commands.Choice(name=name, value=name) for name in names]
