"""Command option choices shared by every format's commands."""

from __future__ import annotations

from collections.abc import Mapping

from discord import app_commands


def choices(options: Mapping[str, str]) -> list[app_commands.Choice[str]]:
    """A command option's fixed choices from {value: what the user reads}, in that order."""
    return [app_commands.Choice(name=text[:100], value=value) for value, text in options.items()]


# How a player reports a match or game, from their side (Turnabout, 421; Treasure Battler adds its own).
MATCH_RESULTS = {"won": "I won", "lost": "I lost", "draw": "draw"}
RESULT_CHOICES = choices(MATCH_RESULTS)
